"""LL-HLS viewers through a CDN that caches Tessera's origin (issue 33): Debian's nginx as a caching
reverse proxy (tests/live/cdntools.py: `proxy_cache` keyed on the URI with its query,
`proxy_cache_lock`, the origin's `Cache-Control` obeyed, `X-Cache-Status`) in front of `serve`.

One live task for the whole file (an RTP sender whose every frame carries its number, a white flash
every 2 s; one LL-HLS output, `partSeconds` 0.333, `latency: low`). In order: the LL-HLS client of
the latency bench plays through the CDN (blocking reloads, preload hints, every part in order, the
flash white and the rest grey in frames decoded from the CDN's parts); a second client right after
it gets the init and the parts the first one pulled from the cache while the playlists it reloads
are fresh; the plain playlist is cached no longer than its max-age, blocking reloads and delta
updates keep their own cache entries; a wrong viewer key is 404 through the CDN and not kept (the
CDN is set to keep 404s 10 s, the origin's `no-store` wins); the ffmpeg CLI plays the CDN's URL."""
from __future__ import annotations

import asyncio
import http.client
import statistics
import time

import pytest

from cdntools import CachingProxy, Served
from flashclock import FlashSender, frame_number, glass_to_glass, rtp_args, rtp_sdp
from livetools import TesseraServer, log_tail, wait_until
from llhls_client import HLSClient, parse_playlist, play
from ports import free_port, free_udp_pair
from test_ll_hls import assert_moving_picture, read_rgb_frames

pytestmark = pytest.mark.live

TASK = "llcdn"
KEY = "cdn_viewer_Key-0123456789"
W, H, FPS = 320, 180, 30
PART = 0.333
MEDIA = (".m4s", ".mp4")


class Edge:
    def __init__(self, server: TesseraServer, cdn: CachingProxy, sender: FlashSender):
        self.server, self.cdn, self.sender = server, cdn, sender
        self.first = None   # (wall-clock start, as the CDN's log; the client) of the first viewer

    def path(self, name: str = "room.m3u8", key: str = KEY) -> str:
        return f"/v1/tasks/{TASK}/hls/{key}/{name}"

    def url(self, name: str = "room.m3u8", key: str = KEY) -> str:
        return self.cdn.url(self.path(name, key))

    def playlist(self, query: str = ""):
        status, headers, body, took = self.cdn.get(self.path() + (("?" + query) if query else ""))
        assert status == 200, f"GET playlist ?{query} through the CDN: {status} {body[:300]!r}"
        return headers, body.decode(), took


@pytest.fixture(scope="module")
def edge(tmp_path_factory, media):
    root = tmp_path_factory.mktemp("llcdn")
    server = TesseraServer(root / "serve", media.root)
    server.start()
    cdn = CachingProxy(root / "cdn", server.port, free_port())
    video, audio = free_udp_pair(), free_udp_pair()
    sender = None
    try:
        cdn.start()
        doc = {"taskId": TASK, "inputs": [{"id": "cam", "rtp": {"sdp": rtp_sdp(video, audio)}}],
               "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 600, "gopSeconds": 1,
                                     "preset": "ultrafast", "latency": "low"},
                           "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 64}},
               "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": W, "height": H}]},
               "outputs": [{"url": "ll/room.m3u8", "hls": {"lowLatency": {"partSeconds": PART}, "viewerKey": KEY}}]}
        sender = FlashSender(rtp_args(video, audio, FPS), 300, W, H, FPS, log=open(root / "sender.log", "wb"))
        server.client.create(doc)
        e = Edge(server, cdn, sender)

        def ready():   # three segments at the origin (asked directly: the CDN's log stays the viewers')
            r = server.client.get(e.path(), timeout=5)
            return r.status == 200 and len(parse_playlist(r.body.decode()).segments) >= 3

        assert wait_until(ready, 30, 0.2), f"no LL-HLS segments within 30 s:\n{log_tail(server.log, 2500)}"
        yield e
    finally:
        if sender is not None:
            sender.stop()
        cdn.stop()
        server.client.delete(f"/v1/tasks/{TASK}")
        rc = server.terminate(20)
        server.kill()
        assert rc == 0, f"`tessera serve` exited with {rc}:\n{log_tail(server.log)}"


def assert_every_part_in_order(client, who: str):
    parts = client.parts_fetched()
    assert len(parts) >= 10, f"{who}: {len(parts)} parts: {client.fetches[-5:]}"
    for a, b in zip(parts, parts[1:]):
        next_in_segment = b == (a[0], a[1] + 1)
        next_segment = b == (a[0] + 1, 0) and client.part_counts.get(a[0]) == a[1] + 1
        assert next_in_segment or next_segment, \
            f"{who}: part {b} after {a} (segment {a[0]} has {client.part_counts.get(a[0])} parts): a part missing"


# --------------------------------------------------------------------------------------------- #
# the tests, in order
# --------------------------------------------------------------------------------------------- #
def first_viewer(edge: Edge):
    """The first LL-HLS viewer through the CDN (7 s), played once for the tests that need it."""
    if edge.first is None:
        since = time.time()
        edge.first = (since, play(edge.url(), 7, mode="low", decode=True))
    return edge.first


def test_ll_hls_client_plays_every_part_through_the_cdn(edge):
    since, client = first_viewer(edge)
    assert not client.errors and not client.hint_failures, (client.errors, client.hint_failures,
                                                          edge.cdn.tail(edge.cdn.error_log))
    assert_every_part_in_order(client, "LL-HLS client via CDN")
    hinted = [f for f in client.fetches if f.hinted and f.status == 200]
    assert len(hinted) >= len(client.parts_fetched()) // 2, "the preload hints were not used through the CDN"
    blocking = [q for q, _, _, status in client.reloads if "_HLS_msn=" in q and status == 200]
    assert len(blocking) >= 10, f"{len(blocking)} blocking reloads"
    served = edge.cdn.log(since)
    assert any(s.name.endswith(".m4s") for s in served), f"the client did not go through the CDN: {served[:5]}"

    frames = client.decoder.snapshot()
    assert_moving_picture(frames, "LL-HLS client via CDN", "\n".join(client.decoder.log[-10:]))
    delays = glass_to_glass(edge.sender, frames)
    assert delays, "no flash decoded from the CDN's parts"
    assert statistics.median(delays) <= 2.5, f"flash to decoded frame through the CDN: {[round(d, 3) for d in delays]} s"
    # What a viewer sees: a flash frame is white above the number strip, the others grey (40).
    flashes = set(edge.sender.flashes)
    white = [f for f in frames if frame_number(f) in flashes]
    grey = [f for f in frames if frame_number(f) is not None and frame_number(f) not in flashes]
    assert white and all(min(f.pixel(10, 8)) >= 200 for f in white), [f.pixel(10, 8) for f in white]
    assert grey and statistics.median(max(f.pixel(10, 8)) for f in grey) <= 70, [f.pixel(10, 8) for f in grey[:5]]


def test_second_viewer_gets_media_from_the_cache_and_fresh_playlists(edge):
    _, first = first_viewer(edge)   # runs alone too (-k): the first viewer plays first
    since = time.time()
    # What the first client received whole (a request still held when it stopped may have been cut
    # off, and nginx keeps no half answer).
    first_parts = {f.name for f in first.fetches if f.status == 200 and f.name.endswith(MEDIA)}
    # Started 2.5 s back from the live edge: its first parts are the ones the first client pulled.
    client = play(edge.url(), 4, mode="low", decode=True, hold_back=2.5)
    assert not client.errors and not client.hint_failures, (client.errors, client.hint_failures)
    assert_every_part_in_order(client, "second client via CDN")
    served = edge.cdn.log(since)
    media = [s for s in served if s.name.endswith(MEDIA) and s.status == 200]
    init = [s for s in media if s.name == "room_init.mp4"]
    assert init and init[0].cache == "HIT", f"init section: {init}"
    again = [s for s in media if s.name in first_parts]
    assert len(again) >= 3 and all(s.cache == "HIT" for s in again), \
        f"media the first client pulled, asked again: {[(s.name, s.cache) for s in again]}"
    new = [s for s in media if s.name not in first_parts]
    assert all(s.cache in ("MISS", "HIT") for s in new), [(s.name, s.cache) for s in new]
    # The playlists it reloaded were answered for its own queries, each naming later parts: a query
    # nobody asked before (not even the first viewer's last request, still held when it stopped) is
    # never a HIT.
    earliest: dict[str, Served] = {}
    for s in edge.cdn.log():
        earliest.setdefault(s.uri, s)
    blocking = [s for s in served if s.name == "room.m3u8" and "_HLS_msn=" in s.uri and earliest[s.uri] == s]
    assert len(blocking) >= 5 and all(s.status == 200 for s in blocking), [(s.uri, s.status) for s in blocking]
    assert all(s.cache != "HIT" for s in blocking), \
        f"a blocking reload for a part nobody asked before came from the cache: {[(s.uri, s.cache) for s in blocking]}"
    assert client.parts_fetched()[-1] > max(parse_name(n) for n in first_parts if n.count(".") == 2)
    assert_moving_picture(client.decoder.snapshot(), "second client via CDN", "\n".join(client.decoder.log[-10:]))


def test_concurrent_viewers_cost_the_origin_one_request_per_part(edge):
    # Two players at once, asking the same parts and blocking reloads at the same moments: the CDN
    # sends each to the origin once (proxy_cache_lock) and answers the other from that.
    since = time.time()
    viewers = [HLSClient(edge.url(), "low") for _ in range(2)]

    async def both():
        await asyncio.gather(*(v.run(5) for v in viewers))

    asyncio.run(both())
    for v in viewers:
        assert not v.errors and not v.hint_failures, (v.errors, v.hint_failures)
    whole = set.intersection(*({f.name for f in v.fetches if f.status == 200 and f.name.endswith(".m4s")}
                               for v in viewers))
    assert len(whole) >= 10, f"{len(whole)} parts both viewers received"
    served = [s for s in edge.cdn.log(since) if s.name in whole]
    misses = {n: sum(1 for s in served if s.name == n and s.cache != "HIT") for n in whole}
    assert all(count <= 1 for count in misses.values()), \
        f"parts the origin was asked for more than once: {sorted(n for n, c in misses.items() if c > 1)}"
    assert sum(1 for s in served if s.cache == "HIT") >= len(whole) - 2, [(s.name, s.cache) for s in served]


def parse_name(name: str) -> tuple[int, int]:
    stem = name.rsplit(".", 1)[0]                  # room_00012.3
    msn, part = stem.rsplit("_", 1)[1].split(".")
    return int(msn), int(part)


def test_playlists_stay_fresh_and_blocking_answers_keep_their_own_keys(edge):
    # The plain playlist (max-age=1): cached, but never served long after the origin wrote it.
    # nginx keeps time in whole seconds, so an answer lives until max-age + up to 1 s.
    first_seen: dict[str, float] = {}
    caches, progress, stale = [], [], []
    end = time.monotonic() + 3.2
    while time.monotonic() < end:
        headers, text, _ = edge.playlist()
        now = time.monotonic()
        first_seen.setdefault(text, now)
        caches.append(headers.get("x-cache-status"))
        progress.append(parse_playlist(text).next_part())
        stale.append(now - first_seen[text])
        time.sleep(0.1)
    assert "HIT" in caches and ("MISS" in caches or "EXPIRED" in caches), caches
    assert len(first_seen) >= 2, "the playlist never changed in 3 s through the CDN"
    assert progress == sorted(progress), f"an older playlist after a newer one: {progress}"
    assert max(stale) <= 2.0 + 0.3, f"a playlist served {max(stale):.2f} s after first seen (max-age=1)"

    # A blocking reload: its answer is cached under its own query, and a later, different query is
    # not answered from it.
    fresh = edge.server.client.get(edge.path())   # from the origin: the next part is still ahead
    assert fresh.status == 200, fresh
    msn, part = parse_playlist(fresh.body.decode()).next_part()
    query = f"_HLS_msn={msn}&_HLS_part={part}"
    h1, held, took = edge.playlist(query)
    assert h1.get("x-cache-status") == "MISS", h1
    h2, again, _ = edge.playlist(query)
    assert h2.get("x-cache-status") == "HIT" and again == held, h2
    listed = {(p.msn, p.index) for p in parse_playlist(held).all_parts()}
    assert (msn, part) in listed or (msn + 1, 0) in listed, f"the held answer lacks ({msn}, {part})"
    later_msn, later_part = parse_playlist(held).next_part()
    h3, later, _ = edge.playlist(f"_HLS_msn={later_msn}&_HLS_part={later_part}")
    assert h3.get("x-cache-status") == "MISS" and parse_playlist(later).next_part() > (later_msn, later_part - 1), h3
    assert parse_playlist(later).next_part() > parse_playlist(held).next_part()
    # The delta update for the same point is another entry, not the full playlist cached above.
    h4, delta, _ = edge.playlist(query + "&_HLS_skip=YES")
    assert h4.get("x-cache-status") == "MISS", h4
    whole = parse_playlist(held)
    if whole.segments and sum(s.duration for s in whole.segments) > 8 * (whole.target_duration or 1):
        assert "#EXT-X-SKIP:" in delta, delta[:600]
    assert "max-age" in h1.get("cache-control", "") and "max-age=1" in edge.cdn.get(edge.path())[1]["cache-control"]


def test_wrong_viewer_key_is_404_through_the_cdn_and_not_cached(edge):
    for name in ("room.m3u8", "room_init.mp4"):
        wrong = edge.path(name, key="wrong_Key-0123456789")
        answers = [edge.cdn.get(wrong) for _ in range(2)]
        for status, headers, body, _ in answers:
            assert status == 404, (status, body[:200])
            assert headers.get("x-cache-status") in ("MISS", None, ""), headers
            assert "no-store" in headers.get("cache-control", ""), headers
    edge.cdn.get(edge.path("room_init.mp4"))   # cached by now (by the first viewer, or here when run alone)
    status, headers, _, _ = edge.cdn.get(edge.path("room_init.mp4"))
    assert status == 200 and headers.get("x-cache-status") == "HIT", headers
    assert headers.get("access-control-allow-origin") == "*", headers   # CORS kept in the cached answer
    # A web player's CORS preflight goes through to the origin (nginx caches GET and HEAD only).
    conn = http.client.HTTPConnection("127.0.0.1", edge.cdn.port, timeout=10)
    conn.request("OPTIONS", edge.path("room.m3u8"), headers={"Origin": "https://shop.example",
                                                            "Access-Control-Request-Method": "GET"})
    r = conn.getresponse()
    r.read()
    conn.close()
    assert r.status == 204 and r.getheader("access-control-allow-origin") == "*", (r.status, r.getheaders())
    refused = [s for s in edge.cdn.log() if "wrong_Key" in s.uri]
    assert len(refused) == 4 and all(s.status == 404 and s.cache != "HIT" for s in refused), refused


def test_ffmpeg_plays_the_cdn_url(edge):
    since = time.time()
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-i", edge.url(), "-map", "0:v:0",
           "-vf", "scale=64:36", "-pix_fmt", "rgb24", "-f", "rawvideo", "pipe:1"]
    frames, log = read_rgb_frames(cmd, 60, 20)
    assert_moving_picture(frames, "ffmpeg via CDN", log)
    # ffmpeg asks with `Range: bytes=0-`: nginx answers 206 from the whole answer it keeps.
    segments = [s for s in edge.cdn.log(since) if s.status in (200, 206) and s.name.endswith(".m4s")
                and s.name.count(".") == 1]
    assert segments, f"ffmpeg read no whole segment through the CDN: {edge.cdn.log(since)[:10]}"
