"""A real SFU and real WebRTC publishers for the RTP ingest tests: Debian's Janus (VideoRoom
`rtp_forward`) and aiortc peers, everything on 127.0.0.1.

- `build_noloop_preload(dir)`: compiles (gcc) a tiny LD_PRELOAD library whose `getifaddrs` clears
  IFF_LOOPBACK: Janus never gathers ICE candidates on a loopback interface, and this machine has
  no other one we may use. Together with `nat.ice_enforce_list = "127.0.0.1"` Janus offers
  127.0.0.1 host candidates only.
- `JanusServer`: `janus -F DIR -C DIR/janus.jcfg --log-stdout` with a config folder of its own
  (VideoRoom, Streaming and the HTTP transport only, on a free loopback port, an RTP port range
  of its own), stopped by its PID.
- `JanusSession`: a small client of the Janus HTTP API (create, attach, message, detach, destroy);
  a thread long-polls the session's events (which also keeps the session alive).
- `VideoRoom`: the SFU controller's side: create a room with a secret, `rtp_forward` with the
  `streams` form (per stream mid, port, optional pt, rtcp_port; root-level srtp_suite / srtp_crypto,
  as Janus 1.1 reads them), `stop_rtp_forward`, `listforwarders`, `listparticipants`.
- `AsyncioThread`: one asyncio loop on a thread of its own, where every aiortc peer lives; the
  tests call into it with `run(coro)` and never block it.
- `Publisher`: an aiortc RTCPeerConnection publishing into a room: a solid colour (settable while
  it runs, `set_colour`) and a sine tone, H.264 (or VP8) forced by codec preferences, keyframes
  only when asked (PLI / FIR): H.264 with a 30,000-frame GOP and no scene-cut keyframes, and
  neither encoder re-created (which would send a keyframe) when Janus's REMB changes the bitrate.
- `BurstDropRelay`: a UDP relay in front of one of Tessera's ports that drops `n` consecutive
  datagrams once, on request; its RTCP neighbour is relayed both ways so PLI still reaches Janus.
- `SpoofSender`: the `ffmpeg` command line making a valid H.264 RTP stream (another colour,
  keyframe every 15 frames) whose datagrams are re-sent from 127.0.0.2 to a victim port.

Everything started here is stopped by its own PID or by closing its own sockets.
"""
from __future__ import annotations

import asyncio
import base64
import fractions
import http.client
import itertools
import json
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from livetools import free_port, log_tail, wait_until
from ports import free_udp_range  # noqa: F401 (roomviewer imports it from here)

JANUS_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu/janus", "/usr/lib/aarch64-linux-gnu/janus", "/usr/lib/janus")
ADMIN_KEY = "tessera-test-admin"

NOLOOP_C = r"""
/* getifaddrs() with IFF_LOOPBACK cleared: lets Janus gather ICE candidates on 127.0.0.1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stddef.h>

int getifaddrs(struct ifaddrs **ifap) {
    static int (*real)(struct ifaddrs **) = NULL;
    if (real == NULL)
        real = (int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");
    if (real == NULL)
        return -1;
    int rc = real(ifap);
    if (rc == 0)
        for (struct ifaddrs *i = *ifap; i != NULL; i = i->ifa_next)
            i->ifa_flags &= ~IFF_LOOPBACK;
    return rc;
}
"""


def build_noloop_preload(directory: Path) -> Path:
    """Compiles the LD_PRELOAD library into `directory`; returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    src, lib = directory / "noloop.c", directory / "noloop.so"
    src.write_text(NOLOOP_C)
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-o", str(lib), str(src), "-ldl"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"gcc could not build the getifaddrs preload: {r.stderr}"
    return lib


def janus_lib_dir() -> Path:
    for d in JANUS_LIB_DIRS:
        if (Path(d) / "plugins" / "libjanus_videoroom.so").exists():
            return Path(d)
    raise AssertionError("Janus's plugins are not installed (apt-get install janus: scripts/install.sh)")


# --------------------------------------------------------------------------------------------- #
# Janus
# --------------------------------------------------------------------------------------------- #
class JanusError(AssertionError):
    pass


class JanusServer:
    """Janus with its own config folder: VideoRoom and Streaming plugins, HTTP transport on a free
    loopback port (base path /janus), ICE on 127.0.0.1 only (with the getifaddrs preload),
    media ports in a range of its own. `stop()` signals it by PID."""

    def __init__(self, root: Path, preload: Path, rtp_ports: int = 200, debug_level: int = 4):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.preload = Path(preload)
        self.http_port = free_port()
        self.rtp_first = free_udp_range(rtp_ports)
        self.rtp_last = self.rtp_first + rtp_ports - 1
        self.log = self.root / "janus.log"
        self.proc: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{self.http_port}/janus"
        self._write_config(debug_level)

    def _write_config(self, debug_level: int) -> None:
        lib = janus_lib_dir()
        cfg = self.root
        for sub, names in (("plugins", ["libjanus_videoroom.so", "libjanus_streaming.so"]),
                           ("transports", ["libjanus_http.so"]), ("events", []), ("loggers", [])):
            d = cfg / sub
            d.mkdir(exist_ok=True)
            for name in names:
                link = d / name
                if not link.exists():
                    link.symlink_to(lib / sub / name)
        (cfg / "janus.jcfg").write_text(f"""general: {{
    configs_folder = "{cfg}"
    plugins_folder = "{cfg / 'plugins'}"
    transports_folder = "{cfg / 'transports'}"
    events_folder = "{cfg / 'events'}"
    loggers_folder = "{cfg / 'loggers'}"
    debug_level = {debug_level}
    debug_colors = false
    interface = "127.0.0.1"
    session_timeout = 60
    hide_dependencies = true
}}
certificates: {{
}}
media: {{
    ipv6 = false
    rtp_port_range = "{self.rtp_first}-{self.rtp_last}"
}}
nat: {{
    nice_debug = false
    ice_enforce_list = "127.0.0.1"
    full_trickle = false
}}
plugins: {{
}}
transports: {{
}}
loggers: {{
}}
events: {{
    broadcast = false
}}
""")
        (cfg / "janus.transport.http.jcfg").write_text(f"""general: {{
    json = "plain"
    base_path = "/janus"
    http = true
    port = {self.http_port}
    ip = "127.0.0.1"
    https = false
}}
admin: {{
    admin_http = false
    admin_https = false
}}
cors: {{
}}
""")
        # admin_key: creating rooms needs it; lock_rtp_forward: rtp_forward needs it too, as an
        # operator would configure a production SFU.
        (cfg / "janus.plugin.videoroom.jcfg").write_text(f"""general: {{
    admin_key = "{ADMIN_KEY}"
    lock_rtp_forward = true
}}
""")
        (cfg / "janus.plugin.streaming.jcfg").write_text(f"""general: {{
    admin_key = "{ADMIN_KEY}"
}}
""")

    def start(self, timeout: float = 20.0) -> None:
        assert self.proc is None or self.proc.poll() is not None, "janus is already running"
        env = dict(os.environ, LD_PRELOAD=str(self.preload))
        cmd = ["janus", "-F", str(self.root), "-C", str(self.root / "janus.jcfg"), "--log-stdout"]
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdin=subprocess.DEVNULL,
                                     stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)

        def ready():
            if self.proc.poll() is not None:
                return True
            try:
                info = janus_post(self.url, {"janus": "info", "transaction": "ready"}, timeout=2)
            except OSError:
                return False
            return info.get("janus") == "server_info" and "janus.plugin.videoroom" in info.get("plugins", {})

        ok = wait_until(ready, timeout, 0.1)
        if self.proc.poll() is not None or not ok:
            self.stop()
            raise AssertionError(f"janus did not answer on {self.url} within {timeout} s:\n{log_tail(self.log)}")

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 4000) -> str:
        return log_tail(self.log, n)


def janus_post(url: str, body: dict, timeout: float = 10) -> dict:
    host, port, path = _split_url(url)
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
    finally:
        conn.close()
    try:
        return json.loads(data)
    except ValueError:
        raise JanusError(f"POST {url}: HTTP {r.status}, not JSON: {data[:300]!r}") from None


def _split_url(url: str) -> tuple[str, int, str]:
    m = re.match(r"http://([^:/]+):(\d+)(/.*)$", url)
    assert m, url
    return m.group(1), int(m.group(2)), m.group(3)


class JanusSession:
    """One Janus API session over HTTP. A thread long-polls `GET /janus/<session>` (which also keeps
    the session alive) and keeps every event; `wait_event` finds them."""

    _tx = itertools.count(1)

    def __init__(self, base_url: str):
        self.base_url = base_url
        r = self._post(base_url, {"janus": "create"})
        self.id = r["data"]["id"]
        self.url = f"{base_url}/{self.id}"
        self.events: list[dict] = []
        self.cond = threading.Condition()
        self.closed = False
        self.poll_errors: list[str] = []
        self._conn: http.client.HTTPConnection | None = None
        self.thread = threading.Thread(target=self._poll, daemon=True, name=f"janus-poll-{self.id}")
        self.thread.start()

    def _post(self, url: str, body: dict, timeout: float = 10) -> dict:
        body = dict(body, transaction=f"t{next(self._tx)}")
        r = janus_post(url, body, timeout)
        if r.get("janus") == "error":
            raise JanusError(f"Janus {body.get('janus')} refused: {r.get('error')}")
        return r

    def _poll(self):
        host, port, path = _split_url(self.url)
        while not self.closed:
            conn = http.client.HTTPConnection(host, port, timeout=40)
            self._conn = conn
            try:
                conn.request("GET", f"{path}?maxev=10&rid={int(time.time() * 1000)}")
                r = conn.getresponse()
                data = r.read()
            except OSError as e:
                if not self.closed:
                    self.poll_errors.append(str(e))
                    time.sleep(0.2)
                continue
            finally:
                conn.close()
            try:
                doc = json.loads(data)
            except ValueError:
                continue
            batch = doc if isinstance(doc, list) else [doc]
            if any(ev.get("janus") == "error" for ev in batch):
                # The session is gone (destroyed, or timed out): nothing more will come.
                with self.cond:
                    self.events.extend(batch)
                    self.cond.notify_all()
                return
            batch = [ev for ev in batch if ev.get("janus") != "keepalive"]
            if batch:
                with self.cond:
                    self.events.extend(batch)
                    self.cond.notify_all()

    def wait_event(self, predicate, timeout: float, what: str = "event") -> dict:
        """The first event (oldest first) for which predicate(event) is true; waits for it."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for ev in self.events:
                    if predicate(ev):
                        return ev
                left = deadline - time.monotonic()
                if left <= 0:
                    raise JanusError(f"no Janus {what} within {timeout} s; events so far: "
                                     f"{json.dumps(self.events[-8:])[:3000]}")
                self.cond.wait(left)

    def attach(self, plugin: str) -> int:
        return self._post(self.url, {"janus": "attach", "plugin": plugin})["data"]["id"]

    def detach(self, handle: int) -> None:
        try:
            self._post(f"{self.url}/{handle}", {"janus": "detach"})
        except (JanusError, OSError):
            pass

    def hangup(self, handle: int) -> None:
        try:
            self._post(f"{self.url}/{handle}", {"janus": "hangup"})
        except (JanusError, OSError):
            pass

    def message(self, handle: int, body: dict, jsep: dict | None = None, timeout: float = 15) -> tuple[dict, dict | None]:
        """A plugin request. Synchronous ones are answered at once (`success`); asynchronous ones
        are acknowledged and answered by an event carrying the same transaction, which this waits
        for. Returns (plugin data, jsep or None); a plugin error is raised."""
        tx = f"t{next(self._tx)}"
        req = {"janus": "message", "body": body, "transaction": tx}
        if jsep is not None:
            req["jsep"] = jsep
        r = janus_post(f"{self.url}/{handle}", req, timeout)
        if r.get("janus") == "error":
            raise JanusError(f"Janus refused {body.get('request')}: {r.get('error')}")
        if r.get("janus") == "success":
            result = r.get("plugindata", {}).get("data", {})
            ev = r
        else:
            assert r.get("janus") == "ack", r
            ev = self.wait_event(lambda e: e.get("transaction") == tx and e.get("janus") == "event", timeout,
                                 f"answer to {body.get('request')}")
            result = ev.get("plugindata", {}).get("data", {})
        if "error" in result or "error_code" in result:
            raise JanusError(f"{body.get('request')}: {result.get('error_code')} {result.get('error')}")
        return result, ev.get("jsep")

    def destroy(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._post(self.url, {"janus": "destroy"}, timeout=5)
        except (JanusError, OSError):
            pass
        # The long poll in flight would wait out Janus's 30 s: cut it.
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(5)


class VideoRoom:
    """The SFU controller's side of one VideoRoom room (its own session and handle)."""

    def __init__(self, janus: JanusServer, room: int | None = None, secret: str = "room-secret",
                 videocodec: str = "h264,vp8", audiocodec: str = "opus", extra: dict | None = None):
        self.janus = janus
        self.room = room or random.randrange(100000, 999999)
        self.secret = secret
        self.session = JanusSession(janus.url)
        self.handle = self.session.attach("janus.plugin.videoroom")
        data, _ = self.session.message(self.handle, {
            "request": "create", "room": self.room, "secret": self.secret, "admin_key": ADMIN_KEY,
            "publishers": 8, "videocodec": videocodec, "audiocodec": audiocodec,
            "fir_freq": 0,      # no periodic keyframe requests from Janus: keyframes come only when asked
            "bitrate": 0, "notify_joining": False, "description": "tessera sfu test", **(extra or {})})
        assert data.get("videoroom") == "created", data

    def request(self, body: dict) -> dict:
        data, _ = self.session.message(self.handle, dict(body, room=self.room, secret=self.secret, admin_key=ADMIN_KEY))
        return data

    def participants(self) -> list[dict]:
        return self.request({"request": "listparticipants"}).get("participants", [])

    def rtp_forward(self, publisher_id: int, streams: list[dict], host: str = "127.0.0.1",
                    srtp_suite: int | None = None, srtp_crypto: str | None = None) -> list[dict]:
        """VideoRoom `rtp_forward`, `streams` form: each stream {"mid", "port", "pt"?, "rtcp_port"?}.
        Returns Janus's forwarders (each with `stream_id`, `mid`, `port`, ...)."""
        body = {"request": "rtp_forward", "publisher_id": publisher_id, "host": host, "host_family": "ipv4",
                "streams": streams}
        if srtp_suite is not None:
            body["srtp_suite"], body["srtp_crypto"] = srtp_suite, srtp_crypto
        data = self.request(body)
        forwarders = data.get("forwarders", [])
        assert data.get("videoroom") == "rtp_forward" and len(forwarders) == len(streams), \
            f"rtp_forward {streams}: {data}"
        return forwarders

    def stop_rtp_forward(self, publisher_id: int, stream_id: int) -> None:
        self.request({"request": "stop_rtp_forward", "publisher_id": publisher_id, "stream_id": stream_id})

    def forwarders(self) -> list[dict]:
        return self.request({"request": "listforwarders"}).get("publishers", [])

    def destroy(self) -> None:
        try:
            self.request({"request": "destroy"})
        except (JanusError, OSError):
            pass
        self.session.destroy()


# --------------------------------------------------------------------------------------------- #
# aiortc
# --------------------------------------------------------------------------------------------- #
class AsyncioThread:
    """An asyncio loop on a daemon thread of its own: aiortc lives there. `run(coro)` waits (in the
    calling thread) for a coroutine run on that loop."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.stalls: list[tuple[float, float]] = []   # (time.monotonic(), seconds late) of late wake-ups
        self.thread = threading.Thread(target=self._main, daemon=True, name="aiortc-loop")
        self.thread.start()

    def _main(self):
        asyncio.set_event_loop(self.loop)
        self._watcher = self.loop.create_task(self._watch())
        self.loop.run_forever()

    async def _watch(self, period: float = 0.02, report: float = 0.1):
        """Notes every wake-up more than `report` s late: a loaded machine starving the peers
        (their media then stalls and comes in a burst), shown in the tests' failure messages."""
        while True:
            due = time.monotonic() + period
            await asyncio.sleep(period)
            late = time.monotonic() - due
            if late > report:
                self.stalls.append((time.monotonic(), round(late, 3)))

    def stalls_since(self, t: float) -> list[float]:
        return [late for at, late in self.stalls if at >= t]

    def run(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _cancel_watcher(self):
        self._watcher.cancel()
        try:
            await self._watcher
        except asyncio.CancelledError:
            pass

    def stop(self):
        if self.loop.is_running():
            try:
                self.run(self._cancel_watcher(), 5)
            except Exception:   # noqa: BLE001 - stopping anyway
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


_patched = False
H264_GOP = 30000          # frames: 1,000 s at 30 fps, i.e. keyframes only when asked
FIXED_BITRATE = 600_000   # bps; REMB from Janus never re-creates the encoder (which sends a keyframe)


def patch_aiortc() -> None:
    """Process-wide changes to aiortc and aioice for loopback-only tests (idempotent):
    aioice's host candidates are 127.0.0.1 (it leaves loopback out), and the video encoders
    send keyframes only when asked: H.264 with a long GOP and no scene-cut keyframes, and neither
    H.264 nor VP8 re-created when the receiver's REMB changes the target bitrate."""
    global _patched
    if _patched:
        return
    import aioice.ice
    import aiortc.rtcrtpsender
    from aiortc.codecs import h264, vpx

    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]

    class LongGopH264Encoder(h264.H264Encoder):
        @property
        def target_bitrate(self) -> int:
            return FIXED_BITRATE

        @target_bitrate.setter
        def target_bitrate(self, value: int) -> None:
            pass

        def _encode_frame(self, frame, force_keyframe):
            import av
            if self.codec is None:
                # As aiortc 1.16's H264Encoder makes it, plus the GOP and no scene-cut keyframes.
                codec = av.CodecContext.create("libx264", "w")
                codec.width, codec.height = frame.width, frame.height
                codec.bit_rate = FIXED_BITRATE
                codec.pix_fmt = "yuv420p"
                codec.framerate = fractions.Fraction(h264.MAX_FRAME_RATE, 1)
                codec.time_base = fractions.Fraction(1, h264.MAX_FRAME_RATE)
                codec.gop_size = H264_GOP
                codec.options = {"level": "31", "tune": "zerolatency",
                                 "x264-params": f"keyint={H264_GOP}:min-keyint={H264_GOP // 2}:scenecut=0"}
                codec.profile = "Baseline"
                self.codec = codec
            return super()._encode_frame(frame, force_keyframe)

    class FixedRateVp8Encoder(vpx.Vp8Encoder):
        @property
        def target_bitrate(self) -> int:
            return FIXED_BITRATE

        @target_bitrate.setter
        def target_bitrate(self, value: int) -> None:
            pass

    original = aiortc.rtcrtpsender.get_encoder

    def get_encoder(codec):
        mime = codec.mimeType.lower()
        if mime == "video/h264":
            return LongGopH264Encoder()
        if mime == "video/vp8":
            return FixedRateVp8Encoder()
        return original(codec)

    aiortc.rtcrtpsender.get_encoder = get_encoder
    _patched = True


def _yuv420_planes(rgb, width: int, height: int) -> np.ndarray:
    """A solid frame as one yuv420p array (h*3/2 rows), converted as ffmpeg's `color` source and
    scaler would (BT.601 limited range), so colours match the other RTP senders of the tests."""
    import av
    rgb_frame = av.VideoFrame.from_ndarray(np.full((height, width, 3), rgb, dtype=np.uint8), format="rgb24")
    return rgb_frame.reformat(format="yuv420p").to_ndarray()


def make_tracks(rgb, tone: float, size=(320, 240), amplitude: float = 0.25):
    """(video, audio) aiortc tracks: a solid colour (`video.colour` may be changed at any time) at
    30 fps, and a sine of `tone` Hz (48 kHz stereo, 20 ms frames)."""
    import av
    from aiortc.mediastreams import MediaStreamError, MediaStreamTrack, VideoStreamTrack

    class ColourTrack(VideoStreamTrack):
        def __init__(self):
            super().__init__()
            self.colour = tuple(rgb)
            self._planes = {}
            self.frames_made = 0

        async def recv(self):
            pts, time_base = await self.next_timestamp()
            colour = tuple(self.colour)
            planes = self._planes.get(colour)
            if planes is None:
                planes = self._planes[colour] = _yuv420_planes(colour, *size)
            frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
            frame.pts, frame.time_base = pts, time_base
            self.frames_made += 1
            return frame

    class ToneTrack(MediaStreamTrack):
        kind = "audio"
        rate, samples = 48000, 960

        def __init__(self):
            super().__init__()
            self.freq = tone
            self._start = None
            self._ts = 0

        async def recv(self):
            if self.readyState != "live":
                raise MediaStreamError
            if self._start is None:
                self._start = time.time()
            else:
                self._ts += self.samples
                wait = self._start + self._ts / self.rate - time.time()
                if wait > 0:
                    await asyncio.sleep(wait)
            n = np.arange(self._ts, self._ts + self.samples)
            mono = (amplitude * 32767 * np.sin(2 * np.pi * self.freq * n / self.rate)).astype(np.int16)
            frame = av.AudioFrame.from_ndarray(np.repeat(mono, 2).reshape(1, -1), format="s16", layout="stereo")
            frame.sample_rate = self.rate
            frame.pts = self._ts
            frame.time_base = fractions.Fraction(1, self.rate)
            return frame

    return ColourTrack(), ToneTrack()


@dataclass
class Negotiated:
    """What Janus's answer says about one m-line: mid, codec name, payload type, clock rate,
    channels and fmtp of the (single) codec Janus chose."""
    kind: str
    mid: str
    codec: str
    payload_type: int
    clock_rate: int
    channels: int | None = None
    fmtp: str | None = None


def parse_answer(sdp: str) -> dict[str, Negotiated]:
    """{"video": Negotiated, "audio": Negotiated} from an SDP answer: the first payload type of each
    m-line with its rtpmap / fmtp."""
    out: dict[str, Negotiated] = {}
    sections = re.split(r"\r?\n(?=m=)", sdp)
    for sec in sections[1:]:
        lines = sec.splitlines()
        m = lines[0].split()
        kind, pts = m[0][2:], m[3:]
        if not pts or m[1] == "0":
            continue
        pt = int(pts[0])
        mid = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("a=mid:")), None)
        rtpmap = next((ln.split(" ", 1)[1] for ln in lines if ln.startswith(f"a=rtpmap:{pt} ")), None)
        fmtp = next((ln.split(" ", 1)[1].strip() for ln in lines if ln.startswith(f"a=fmtp:{pt} ")), None)
        assert rtpmap, f"no rtpmap for payload type {pt} in {kind} m-line: {sec[:500]}"
        parts = rtpmap.strip().split("/")
        out[kind] = Negotiated(kind, mid, parts[0], pt, int(parts[1]), int(parts[2]) if len(parts) > 2 else None, fmtp)
    return out


class Publisher:
    """A WebRTC publisher made with aiortc, joined to a VideoRoom room through its own Janus session:
    a solid colour and a sine tone, `vcodec` forced by codec preferences. `start()` returns once
    ICE is connected, Janus says the PeerConnection is up (`webrtcup`) and receives both media."""

    def __init__(self, aio: AsyncioThread, room: VideoRoom, display: str, rgb, tone: float, vcodec: str = "H264"):
        patch_aiortc()
        self.aio, self.room, self.display = aio, room, display
        self.rgb, self.tone, self.vcodec = tuple(rgb), tone, vcodec
        self.session: JanusSession | None = None
        self.handle: int | None = None
        self.publisher_id: int | None = None
        self.pc = None
        self.video = self.audio = None
        self.offer_sdp = self.answer_sdp = ""
        self.negotiated: dict[str, Negotiated] = {}
        self.forwarders: list[dict] = []
        self.started_at: float | None = None   # time.monotonic() when its media flowed

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self, timeout: float = 20) -> "Publisher":
        self.session = JanusSession(self.room.janus.url)
        self.handle = self.session.attach("janus.plugin.videoroom")
        data, _ = self.session.message(self.handle, {"request": "join", "ptype": "publisher", "room": self.room.room,
                                                     "display": self.display}, timeout=timeout)
        assert data.get("videoroom") == "joined", data
        self.publisher_id = data["id"]
        self.offer_sdp = self.aio.run(self._make_offer(), timeout)
        data, jsep = self.session.message(self.handle, {"request": "configure", "audio": True, "video": True},
                                          jsep={"type": "offer", "sdp": self.offer_sdp}, timeout=timeout)
        assert jsep and jsep.get("type") == "answer", f"configure: no answer from Janus: {data}"
        self.answer_sdp = jsep["sdp"]
        self.negotiated = parse_answer(self.answer_sdp)
        assert self.negotiated["video"].codec.upper() == self.vcodec.upper(), \
            f"Janus chose {self.negotiated['video'].codec}, not {self.vcodec}: {self.answer_sdp}"
        self.aio.run(self._apply_answer(self.answer_sdp), timeout)
        self.wait_connected(timeout)
        self.started_at = time.monotonic()
        return self

    async def _make_offer(self) -> str:
        from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.video, self.audio = make_tracks(self.rgb, self.tone)
        vt = self.pc.addTransceiver(self.video, direction="sendonly")
        at = self.pc.addTransceiver(self.audio, direction="sendonly")
        want = f"video/{self.vcodec}".lower()
        vt.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType.lower() == want])
        at.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("audio").codecs
                                if c.mimeType.lower() == "audio/opus"])
        await self.pc.setLocalDescription(await self.pc.createOffer())   # gathers every candidate
        return self.pc.localDescription.sdp

    async def _apply_answer(self, sdp: str) -> None:
        from aiortc import RTCSessionDescription
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="answer"))

    def wait_connected(self, timeout: float = 20) -> None:
        ok = wait_until(lambda: self.pc.iceConnectionState in ("completed", "connected")
                        and self.pc.connectionState == "connected", timeout, 0.05)
        assert ok, f"{self.display}: ICE {self.pc.iceConnectionState}, connection {self.pc.connectionState}"
        self.session.wait_event(lambda e: e.get("janus") == "webrtcup" and e.get("sender") == self.handle,
                                timeout, f"webrtcup of {self.display}")
        for kind in ("audio", "video"):
            self.session.wait_event(lambda e, k=kind: e.get("janus") == "media" and e.get("sender") == self.handle
                                    and e.get("type") == k and e.get("receiving"), timeout,
                                    f"{kind} media of {self.display}")

    def leave(self) -> None:
        """Leaves the room as a browser tab would close: PeerConnection closed, handle detached."""
        if self.pc is not None:
            try:
                self.aio.run(self.pc.close(), 15)
            except Exception:   # noqa: BLE001 - the loop may be gone at teardown
                pass
            self.pc = None
        if self.session is not None:
            if self.handle is not None:
                self.session.detach(self.handle)
            self.session.destroy()
            self.session = None

    # -- controls ----------------------------------------------------------------------------------
    def set_colour(self, rgb) -> None:
        self.rgb = tuple(rgb)
        if self.video is not None:
            self.video.colour = self.rgb

    def request_keyframe(self) -> None:
        """The controller-side keyframe request: VideoRoom `configure` with `keyframe: true` on the
        publisher's own handle (Janus sends PLI to the publisher)."""
        self.session.message(self.handle, {"request": "configure", "keyframe": True})

    def mid(self, kind: str) -> str:
        return self.negotiated[kind].mid

    def forward(self, video_port: int | None, audio_port: int | None, rewrite_pt: dict | None = None,
                srtp_suite: int | None = None, srtp_crypto: str | None = None, rtcp: bool = True) -> list[dict]:
        """rtp_forward of this publisher's video to `video_port` (RTCP on +1) and audio to
        `audio_port` (RTCP on +1). `rewrite_pt`: {"video": pt, "audio": pt} to rewrite payload
        types, else the negotiated ones are forwarded as they are."""
        streams = []
        for kind, port in (("video", video_port), ("audio", audio_port)):
            if not port:
                continue
            s = {"mid": self.mid(kind), "port": port}
            if rtcp:
                s["rtcp_port"] = port + 1
            if rewrite_pt and kind in rewrite_pt:
                s["pt"] = rewrite_pt[kind]
            streams.append(s)
        fwd = self.room.rtp_forward(self.publisher_id, streams, srtp_suite=srtp_suite, srtp_crypto=srtp_crypto)
        self.forwarders += fwd
        return fwd

    def stop_forwarding(self) -> None:
        for f in self.forwarders:
            try:
                self.room.stop_rtp_forward(self.publisher_id, f["stream_id"])
            except (JanusError, OSError):
                pass
        self.forwarders = []

    def sender_stats(self) -> dict[str, int]:
        """Packets sent so far per kind, from aiortc's own stats."""
        async def stats():
            out = {}
            for sender in self.pc.getSenders():
                report = await sender.getStats()
                for s in report.values():
                    if getattr(s, "type", "") == "outbound-rtp":
                        out[sender.track.kind] = s.packetsSent
            return out
        return self.aio.run(stats(), 10)


# --------------------------------------------------------------------------------------------- #
# network trouble and strangers
# --------------------------------------------------------------------------------------------- #
class BurstDropRelay:
    """Sits between Janus's forward and Tessera's `target` port: datagrams to `listen` go to
    `target`, those to `listen + 1` (RTCP from Janus) to `target + 1`, and what Tessera sends back
    from `target + 1` (RTCP: PLI, receiver reports) goes back to where Janus's RTCP came from, so
    keyframe requests still reach the publisher. `drop_burst(n)` drops the next `n` RTP datagrams
    (consecutive, once)."""

    def __init__(self, listen: int, target: int):
        self.target = target
        self.rtp = self._sock(listen)
        self.rtcp = self._sock(listen + 1)
        self.to_target = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtcp_to_target = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # its replies come back here
        self.rtcp_to_target.bind(("127.0.0.1", 0))
        self.rtcp_to_target.settimeout(0.1)
        self.janus_rtcp_addr = None
        self.lock = threading.Lock()
        self.pending_drop = 0
        self.dropped = 0
        self.forwarded = 0
        self.drop_started_seq = None
        self.rtcp_back = 0
        self.feedback: list[tuple[float, int, int]] = []   # (time.monotonic(), RTCP type, format) sent back
        self.burst_done = threading.Event()
        self.stopping = False
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._rtp, self._rtcp_out, self._rtcp_back)]
        for t in self.threads:
            t.start()

    @staticmethod
    def _sock(port: int) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", port))
        s.settimeout(0.1)
        return s

    def drop_burst(self, n: int) -> None:
        with self.lock:
            self.burst_done.clear()
            self.pending_drop = n

    def _rtp(self):
        while not self.stopping:
            try:
                data = self.rtp.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                drop = self.pending_drop > 0
                if drop:
                    self.pending_drop -= 1
                    self.dropped += 1
                    if self.pending_drop == 0:
                        self.burst_done.set()
            if not drop:
                self.to_target.sendto(data, ("127.0.0.1", self.target))
                self.forwarded += 1

    def _rtcp_out(self):
        while not self.stopping:
            try:
                data, addr = self.rtcp.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.janus_rtcp_addr = addr
            self.rtcp_to_target.sendto(data, ("127.0.0.1", self.target + 1))

    def _rtcp_back(self):
        while not self.stopping:
            try:
                data = self.rtcp_to_target.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if len(data) >= 2:
                self.feedback.append((time.monotonic(), data[1], data[0] & 0x1F))
            if self.janus_rtcp_addr is not None:
                self.rtcp.sendto(data, self.janus_rtcp_addr)
                self.rtcp_back += 1

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        for s in (self.rtp, self.rtcp, self.to_target, self.rtcp_to_target):
            s.close()


class SpoofSender:
    """A stranger on a participant's port: `ffmpeg` makes a valid H.264 RTP stream (colour `rgb`,
    keyframe every 15 frames, payload type `pt`) to a local socket, and each datagram is re-sent
    from `source` (default 127.0.0.2, another host as far as the receiver can tell) to `target`."""

    def __init__(self, root: Path, target: int, rgb, pt: int = 96, source: str = "127.0.0.2"):
        from helpers import lavfi_colour
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.target = target
        self.inbox = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.inbox.bind(("127.0.0.1", 0))
        self.inbox.settimeout(0.1)
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.out.bind((source, 0))
        self.source = self.out.getsockname()
        self.sent = 0
        self.stopping = False
        self.log = self.root / "spoof.log"
        port = self.inbox.getsockname()[1]
        self.proc = subprocess.Popen(
            ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
             f"color=c={lavfi_colour(rgb)}:s=320x240:r=30", "-c:v", "libx264", "-preset", "ultrafast",
             "-tune", "zerolatency", "-bf", "0", "-pix_fmt", "yuv420p", "-g", "15", "-payload_type", str(pt),
             "-f", "rtp", f"rtp://127.0.0.1:{port}?pkt_size=1200"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self):
        while not self.stopping:
            try:
                data = self.inbox.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if len(data) >= 2 and 200 <= data[1] <= 204:
                continue   # ffmpeg's own RTCP goes nowhere
            self.out.sendto(data, ("127.0.0.1", self.target))
            self.sent += 1

    def stop(self):
        self.stopping = True
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.thread.join(2)
        self.inbox.close()
        self.out.close()


def srtp_key(seed: int = 0) -> str:
    """base64 of 30 bytes (AES-128 key + 112-bit salt), as SDES `a=crypto` and Janus's srtp_crypto."""
    return base64.b64encode(random.Random(seed).randbytes(30)).decode()


class UdpSink:
    """A plain UDP socket on `port` counting what arrives (sanity check of rtp_forward)."""

    def __init__(self, port: int):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.sock.settimeout(0.1)
        self.packets: list[tuple[float, bytes, tuple]] = []
        self.stopping = False
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self):
        while not self.stopping:
            try:
                data, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.packets.append((time.monotonic(), data, addr))

    def stop(self):
        self.stopping = True
        self.thread.join(2)
        self.sock.close()


@dataclass
class RtpInfo:
    ssrcs: set = field(default_factory=set)
    payload_types: set = field(default_factory=set)
    count: int = 0
    keyframes: int = 0


def rtp_summary(datagrams: list[bytes]) -> RtpInfo:
    """SSRCs, payload types and a rough count of H.264 IDR / SPS starts among RTP datagrams."""
    info = RtpInfo()
    for d in datagrams:
        if len(d) < 12 or d[0] >> 6 != 2 or 200 <= d[1] <= 206:
            continue
        info.count += 1
        info.ssrcs.add(int.from_bytes(d[8:12], "big"))
        info.payload_types.add(d[1] & 0x7F)
        cc = d[0] & 0x0F
        off = 12 + 4 * cc
        if d[0] & 0x10 and len(d) >= off + 4:
            off += 4 + 4 * int.from_bytes(d[off + 2:off + 4], "big")
        if off < len(d):
            nal = d[off] & 0x1F
            if nal == 7 or (nal == 24 and off + 3 < len(d) and d[off + 3] & 0x1F == 7) \
                    or (nal == 28 and off + 1 < len(d) and d[off + 1] & 0x9F == 0x85):
                info.keyframes += 1
    return info
