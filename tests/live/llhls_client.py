"""An HLS client that does what players do, for the LL-HLS tests and benches (stdlib only, so the
benches run it with the system Python; decoding is the `ffmpeg` command line).

- `parse_playlist(text)` (hlsplaylist.py): a media playlist as a `MediaPlaylist`.
- `HLSClient(url, mode="low")`: an asyncio player. Low-latency mode loads the playlist, starts at
  the independent part nearest `PART-HOLD-BACK` from the live edge, then loops on blocking reloads
  (`_HLS_msn` / `_HLS_part` of the next part), fetches each new part as soon as it is listed, and
  requests the preload-hinted part *before it exists* (a request in flight, as hls.js and AVPlayer
  do). Classic mode (`mode="classic"`) fetches whole segments, starts three segments from the end
  and reloads every target duration (half of it when nothing changed). Each media byte goes to
  `on_media(bytes)`; with `decode=True` a `Decoder` (ffmpeg reading the concatenated init + parts
  from a pipe) notes every decoded frame with its arrival time (CLOCK_MONOTONIC), its pts, the
  moment a player with that start-up would show it, and a 64x36 RGB thumbnail.
- `Http`: a tiny keep-alive HTTP/1.1 client on asyncio streams (Content-Length and chunked bodies),
  cheap enough to run hundreds of players in one process (bench/origin-clients.py).
"""
from __future__ import annotations

import asyncio
import http.client
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from flashclock import Decoder
from hlsplaylist import MediaPlaylist, Part, parse_playlist  # noqa: F401 (tests import parse_playlist from here)


# --------------------------------------------------------------------------------------------- #
# HTTP
# --------------------------------------------------------------------------------------------- #
def timed_get(port: int, path: str, headers: dict | None = None, timeout: float = 15):
    """(status, lower-case headers, body, seconds it took) of one blocking GET of `path` on
    127.0.0.1:`port`: the tests' single requests to the origin or to a CDN in front of it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        t = time.monotonic()
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        body = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body, time.monotonic() - t
    finally:
        conn.close()


@dataclass
class Reply:
    status: int
    headers: dict
    body: bytes
    sent: float          # CLOCK_MONOTONIC when the request was written
    first_byte: float    # when the status line arrived
    done: float          # when the body was complete


class Http:
    """One keep-alive HTTP/1.1 connection to host:port (re-opened when the server closes it)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.busy = False

    async def close(self):
        if self.writer is not None:
            self.writer.close()
            try:
                async with asyncio.timeout(1):
                    await self.writer.wait_closed()
            except (OSError, ConnectionError, TimeoutError):
                pass
        self.reader = self.writer = None

    async def get(self, path: str, timeout: float = 30, headers: dict | None = None) -> Reply:
        assert not self.busy, "one request at a time on a connection"
        self.busy = True
        try:
            return await self._get(path, timeout, headers)
        finally:
            self.busy = False

    async def _get(self, path: str, timeout: float, headers: dict | None) -> Reply:
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
            sent = time.monotonic()
            try:
                self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{extra}\r\n".encode())
                # asyncio.timeout, not wait_for: 3.11's wait_for can swallow the caller's
                # cancellation when the answer lands at that moment (the player then never stops).
                async with asyncio.timeout(timeout):
                    return await self._read(sent)
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                await self.close()
                if attempt:
                    raise
            except asyncio.TimeoutError:
                await self.close()
                raise
        raise AssertionError("unreachable")

    async def _read(self, sent: float) -> Reply:
        status_line = await self.reader.readuntil(b"\r\n")
        first = time.monotonic()
        status = int(status_line.split()[1])
        headers = {}
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            k, _, v = line.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    while (await self.reader.readuntil(b"\r\n")) != b"\r\n":
                        pass
                    break
                body += await self.reader.readexactly(size)
                await self.reader.readexactly(2)
            body = bytes(body)
        elif "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        else:
            body = await self.reader.read()
            await self.close()
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Reply(status, headers, body, sent, first, time.monotonic())


# --------------------------------------------------------------------------------------------- #
# the player
# --------------------------------------------------------------------------------------------- #
@dataclass
class Fetch:
    name: str
    msn: int
    part: int | None       # None: a whole segment (or a hinted part not listed yet)
    requested: float
    done: float
    size: int
    status: int
    hinted: bool = False   # requested from a preload hint, before it was listed


class HLSClient:
    """A player of one media playlist. `await run(seconds)` plays until the playlist ends, the time
    is up or `stop()`; `fetches`, `reloads`, `errors` say what it did."""

    def __init__(self, url: str, mode: str = "low", decode: bool = False, on_media=None,
                 hold_back: float | None = None, timeout: float = 15):
        assert mode in ("low", "classic")
        self.url, self.mode, self.timeout = url, mode, timeout
        u = urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        self.base_path = u.path
        self.hold_back = hold_back
        self.decoder = Decoder() if decode else None
        self.on_media = on_media
        self.fetches: list[Fetch] = []
        self.reloads: list[tuple[str, float, float, int]] = []   # (query, sent, done, status)
        self.errors: list[str] = []
        self.hint_failures: list[str] = []   # hinted parts, listed later, answered with an error
        self.hints_unlisted: list[str] = []  # hinted parts the playlist then never listed
        self.playlist: MediaPlaylist | None = None
        self.part_counts: dict[int, int] = {}   # msn → parts, from every playlist read
        self.started_at: tuple[int, int | None] | None = None   # (msn, part) it began with
        self.ended = False
        self._stopping = False
        self._deadline = float("inf")
        self._playlist_http = Http(self.host, self.port)
        self._media_http = Http(self.host, self.port)
        self._hint_http = [Http(self.host, self.port)]

    def stop(self):
        self._stopping = True

    # -- helpers -------------------------------------------------------------------------------
    def _path(self, uri: str) -> str:
        return urlsplit(urljoin(self.base_path, uri)).path + (("?" + urlsplit(uri).query) if "?" in uri else "")

    def _media(self, data: bytes):
        if self.decoder is not None:
            self.decoder.feed(data)
        if self.on_media is not None:
            self.on_media(data)

    async def _reload(self, query: str = "") -> MediaPlaylist:
        path = self.base_path + (("?" + query) if query else "")
        r = await self._playlist_http.get(path, timeout=self.timeout)
        self.reloads.append((query, r.sent, r.done, r.status))
        if r.status != 200:
            raise RuntimeError(f"GET {path}: {r.status} {r.body[:200]!r}")
        self.playlist = parse_playlist(r.body.decode())
        for s in self.playlist.segments:
            if s.parts:
                self.part_counts[s.msn] = len(s.parts)
        return self.playlist

    async def _get(self, uri: str, msn: int, part: int | None, http: Http | None = None, hinted=False) -> bytes:
        r = await (http or self._media_http).get(self._path(uri), timeout=self.timeout)
        self.fetches.append(Fetch(uri, msn, part, r.sent, r.done, len(r.body), r.status, hinted))
        if r.status != 200:
            raise RuntimeError(f"GET {uri}: {r.status} {r.body[:200]!r}")
        return r.body

    async def run(self, seconds: float | None = None) -> "HLSClient":
        budget = None
        try:
            if seconds is not None:
                self._deadline = time.monotonic() + seconds
            async with asyncio.timeout(seconds) as budget:
                await self._play()
        except TimeoutError as e:
            if budget is None or not budget.expired():   # a request's own time-out, not the player's end
                self.errors.append(f"TimeoutError: a request took more than {self.timeout} s {e}")
        except Exception as e:  # noqa: BLE001 (the caller reads what went wrong)
            self.errors.append(f"{type(e).__name__}: {e}")
        finally:
            for h in (self._playlist_http, self._media_http, *self._hint_http):
                await h.close()
        return self

    async def _play(self):
        pl = await self._reload()
        if pl.map_uri:
            self._media(await self._get(pl.map_uri, -1, None))
        if self.mode == "classic":
            await self._play_segments(pl)
        else:
            await self._play_parts(pl)
        self.ended = True

    # -- classic -------------------------------------------------------------------------------
    async def _play_segments(self, pl: MediaPlaylist):
        nxt = pl.segments[max(0, len(pl.segments) - 3)].msn if pl.segments else pl.next_msn
        self.started_at = (nxt, None)
        while not self._stopping and time.monotonic() < self._deadline:
            changed = False
            for s in pl.segments:
                if s.msn >= nxt:
                    self._media(await self._get(s.uri, s.msn, None))
                    nxt, changed = s.msn + 1, True
            if pl.endlist:
                return
            last = self.reloads[-1][1]
            wait = (pl.target_duration or 2) * (1 if changed else 0.5)
            await asyncio.sleep(max(0.0, last + wait - time.monotonic()))
            pl = await self._reload()

    # -- low latency ---------------------------------------------------------------------------
    def _start_part(self, pl: MediaPlaylist) -> Part:
        parts = pl.all_parts()
        hold = self.hold_back if self.hold_back is not None else \
            float(pl.server_control.get("PART-HOLD-BACK", 3 * (pl.part_target or 1)))
        end = pl.end_time()
        candidates = [p for p in parts if p.independent and end - p.start >= hold]
        return candidates[-1] if candidates else next((p for p in parts if p.independent), parts[0])

    async def _play_parts(self, pl: MediaPlaylist):
        if not pl.all_parts():
            raise RuntimeError(f"the playlist lists no EXT-X-PART:\n{pl.text[:1500]}")
        start = self._start_part(pl)
        self.started_at = (start.msn, start.index)
        have = (start.msn, start.index - 1)
        hinted: dict[str, asyncio.Task] = {}
        try:
            await self._follow_parts(pl, have, hinted)
        finally:
            for task in hinted.values():   # a hint still in flight when the player stops
                if task.done() and not task.cancelled():
                    task.exception()
                else:
                    task.cancel()

    async def _follow_parts(self, pl: MediaPlaylist, have: tuple[int, int], hinted: dict[str, asyncio.Task]):
        while not self._stopping and time.monotonic() < self._deadline:
            for p in pl.all_parts():
                if (p.msn, p.index) <= have:
                    continue
                task = hinted.pop(p.uri, None)
                data = None
                if task is not None:
                    try:
                        data = await task
                        fetch = next(f for f in reversed(self.fetches) if f.hinted and f.name == p.uri)
                        fetch.msn, fetch.part = p.msn, p.index
                    except (RuntimeError, OSError, asyncio.TimeoutError) as e:
                        self.hint_failures.append(f"{p.uri}: {e}")   # then asked for as listed
                if data is None:
                    data = await self._get(p.uri, p.msn, p.index)
                self._media(data)
                have = (p.msn, p.index)
            if pl.endlist:
                return
            msn, part = pl.next_part()
            hint = pl.hint
            for uri in [u for u, t in hinted.items() if t.done() and (not hint or u != hint.get("URI"))]:
                e = hinted.pop(uri).exception()   # a hint the playlist never listed
                self.hints_unlisted.append(f"{uri}: {e}" if e else uri)
            if hint and hint.get("TYPE") == "PART" and hint["URI"] not in hinted and "BYTERANGE-START" not in hint:
                # The hinted part is asked for now; the server answers when it exists.
                http = next((h for h in self._hint_http if not h.busy), None)
                if http is None:   # a hint the playlist never listed is still held: another connection
                    http = Http(self.host, self.port)
                    self._hint_http.append(http)
                hinted[hint["URI"]] = asyncio.ensure_future(self._get(hint["URI"], -1, None, http=http, hinted=True))
            pl = await self._reload(f"_HLS_msn={msn}&_HLS_part={part}")

    # -- results -------------------------------------------------------------------------------
    def close(self):
        if self.decoder is not None:
            self.decoder.close()

    def parts_fetched(self) -> list[tuple[int, int]]:
        return [(f.msn, f.part) for f in self.fetches if f.part is not None and f.status == 200]


def play(url: str, seconds: float, **kw) -> HLSClient:
    """Runs one client for `seconds` (or until ENDLIST) in this thread; closes its decoder."""
    client = HLSClient(url, **kw)
    asyncio.run(client.run(seconds))
    client.close()
    return client
