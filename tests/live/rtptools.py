"""Real RTP senders and network trouble for the RTP ingest tests.

- `SenderProcess`: a sender's process (`ffmpeg` or `gst-launch-1.0`) with its log, started,
  killed, and the SDP an `ffmpeg` sender writes (`-sdp_file`) waited for; `hand_sdp`: the SDP
  written by hand for a sender that writes none, or before it starts.
- `RtpSender`: the `ffmpeg` command line sending a solid colour (H.264 or VP8) and a sine tone
  (Opus) as RTP to two UDP ports, paced in real time, writing the SDP it sends by (`-sdp_file`).
- `UdpRelay`: forwards datagrams from its own ports to the receiver's, dropping a share of them and
  swapping neighbours, as a lossy network would; counts what it forwarded and dropped.
- `blast_garbage`: random datagrams, RTP-looking packets of strangers and RTCP-looking noise.
"""
from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from helpers import hex_colour
from ports import free_udp_pair  # noqa: F401 (the RTP tests import it from here)

VIDEO_ENCODERS = {
    "h264": ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-bf", "0", "-pix_fmt", "yuv420p"],
    "vp8": ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "400k", "-pix_fmt", "yuv420p"],
}
VIDEO_PAYLOAD_TYPES = {"h264": 96, "vp8": 97}
# What an SDP says of each video codec: payload type, rtpmap, fmtp (H.264 in-band parameter sets).
VIDEO_SDP = {"h264": (96, "H264/90000", "packetization-mode=1"), "vp8": (97, "VP8/90000", None)}
AUDIO_ENCODERS = {
    "opus": (["-c:a", "libopus", "-b:a", "64k"], 111),
    "aac": (["-c:a", "aac", "-b:a", "96k", "-ar", "48000"], 100),
    "pcmu": (["-c:a", "pcm_mulaw", "-ar", "8000", "-ac", "1"], 0),
    "pcma": (["-c:a", "pcm_alaw", "-ar", "8000", "-ac", "1"], 8),
}


def hand_sdp(video_port: int | None, audio_port: int | None, vcodec: str = "h264", session: str = "sender") -> str:
    """The SDP of a sender of `vcodec` video (VIDEO_SDP) to `video_port` and Opus (PT 111) to
    `audio_port` on loopback, either port None for no such stream."""
    lines = ["v=0", "o=- 0 0 IN IP4 127.0.0.1", f"s={session}", "c=IN IP4 127.0.0.1", "t=0 0"]
    if video_port:
        pt, rtpmap, fmtp = VIDEO_SDP[vcodec]
        lines += [f"m=video {video_port} RTP/AVP {pt}", f"a=rtpmap:{pt} {rtpmap}"]
        if fmtp:
            lines.append(f"a=fmtp:{pt} {fmtp}")
    if audio_port:
        lines += [f"m=audio {audio_port} RTP/AVP 111", "a=rtpmap:111 opus/48000/2"]
    return "\r\n".join(lines) + "\r\n"


class SenderProcess:
    """A sender's process: `cmd` (set by the subclass) started with stderr to `root/name.log`;
    an `ffmpeg` sender writes `root/name.sdp` (`-sdp_file`) once its outputs are open."""

    def __init__(self, root: Path, name: str, video_port: int | None, audio_port: int | None):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.sdp_path = self.root / f"{name}.sdp"
        self.log = self.root / f"{name}.log"
        self.video_port, self.audio_port = video_port, audio_port
        self.cmd: list[str] = []
        self.proc: subprocess.Popen | None = None

    def start(self):
        self.sdp_path.unlink(missing_ok=True)
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log, "ab"))
        return self

    def sdp(self, timeout: float = 10) -> str:
        """The SDP ffmpeg wrote (it does so once its outputs are open)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.sdp_path.exists():
                text = self.sdp_path.read_text()
                if text.count("m=") >= (1 if self.video_port else 0) + (1 if self.audio_port else 0):
                    return text
            assert self.proc.poll() is None, f"RTP sender exited: {self.log.read_text()[-2000:]}"
            time.sleep(0.05)
        raise AssertionError(f"no SDP from the RTP sender within {timeout} s")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class RtpSender(SenderProcess):
    """`ffmpeg -readrate` (1 = `-re`) sending colour `rgb` (video) and a `tone` Hz sine (Opus, AAC, PCMU or PCMA) as RTP."""

    def __init__(self, root: Path, video_port: int | None, audio_port: int | None, rgb, tone: float,
                 vcodec: str = "h264", gop: int = 15, size=(320, 240), name: str = "sender", acodec: str = "opus",
                 video_source: str | None = None, audio_source: str | None = None, readrate: float = 1.0):
        super().__init__(root, name, video_port, audio_port)
        # `readrate` ≠ 1 paces the media faster or slower than real time: a sender whose clock
        # runs fast (> 1) or slow (< 1) against the receiver's.
        pace = ["-readrate", str(readrate)]
        self.cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", *pace,
                    "-f", "lavfi", "-i",
                    video_source or f"color=c={hex_colour(rgb).replace('#', '0x')}:s={size[0]}x{size[1]}:r=30",
                    *pace, "-f", "lavfi", "-i", audio_source or f"sine=frequency={tone}:sample_rate=48000"]
        if video_port:
            self.cmd += ["-map", "0:v", *VIDEO_ENCODERS[vcodec], "-g", str(gop), "-payload_type",
                         str(VIDEO_PAYLOAD_TYPES[vcodec]), "-f", "rtp", f"rtp://127.0.0.1:{video_port}?pkt_size=1200"]
        if audio_port:
            encoder, payload_type = AUDIO_ENCODERS[acodec]
            self.cmd += ["-map", "1:a", *encoder, "-payload_type", str(payload_type),
                         "-f", "rtp", f"rtp://127.0.0.1:{audio_port}"]
        self.cmd += ["-sdp_file", str(self.sdp_path)]


class UdpRelay:
    """Forwards UDP from `listen` ports to `target` ports on loopback, dropping `loss` of the
    datagrams on the ports in `lossy` and delaying every `reorder_every`-th by one datagram."""

    def __init__(self, routes: dict[int, int], lossy: set[int], loss: float, reorder_every: int = 0, seed: int = 7):
        self.routes, self.lossy, self.loss, self.reorder_every = routes, lossy, loss, reorder_every
        self.random = random.Random(seed)
        self.forwarded = {p: 0 for p in routes}
        self.dropped = {p: 0 for p in routes}
        self.stopping = False
        self.sockets = {}
        for listen in routes:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", listen))
            s.settimeout(0.1)
            self.sockets[listen] = s
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._pump, args=(p,), daemon=True) for p in routes]
        for t in self.threads:
            t.start()

    def _pump(self, listen: int):
        sock, target = self.sockets[listen], ("127.0.0.1", self.routes[listen])
        held = None
        count = 0
        while not self.stopping:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            count += 1
            with self.lock:
                drop = listen in self.lossy and self.random.random() < self.loss
            if drop:
                self.dropped[listen] += 1
                continue
            if listen in self.lossy and self.reorder_every and count % self.reorder_every == 0 and held is None:
                held = data          # sent after the next one: these two arrive swapped
                continue
            self.out.sendto(data, target)
            self.forwarded[listen] += 1
            if held is not None:
                self.out.sendto(held, target)
                self.forwarded[listen] += 1
                held = None

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        for s in self.sockets.values():
            s.close()
        self.out.close()


def blast_garbage(ports: list[int], seconds: float, seed: int = 11) -> int:
    """Random datagrams to `ports` for `seconds`: pure noise, RTP headers of unknown senders with
    random payload types and sequence numbers, RTCP-like packets, truncated headers, bad padding and
    extension lengths. Returns how many were sent."""
    rnd = random.Random(seed)
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for port in ports:
            kind = rnd.randrange(6)
            body = os.urandom(rnd.randrange(0, 1400))
            if kind == 0:
                data = body
            elif kind == 1:   # version 2 RTP from a stranger
                data = bytes([0x80, rnd.randrange(128)]) + os.urandom(10) + body
            elif kind == 2:   # RTCP sender report look-alike with random contents
                data = bytes([0x80, 200, 0, 6]) + os.urandom(24) + body[:40]
            elif kind == 3:   # truncated header
                data = bytes([0x80]) + body[:rnd.randrange(0, 11)]
            elif kind == 4:   # padding count past the end
                data = bytes([0xA0, 96]) + os.urandom(10) + body[:20] + bytes([255])
            else:             # extension length past the end
                data = bytes([0x90, 96]) + os.urandom(10) + bytes([0xBE, 0xDE, 0xFF, 0xFF]) + body[:16]
            try:
                out.sendto(data, ("127.0.0.1", port))
                sent += 1
            except OSError:
                pass
        if sent % 64 == 0:
            time.sleep(0.001)
    out.close()
    return sent


def with_cvo_extension(packet: bytes, ext_id: int, cvo: int, two_byte: bool = False) -> bytes:
    """`packet` with an RFC 8285 header extension holding one element: the CVO byte under `ext_id`
    (one-byte form, profile 0xBEDE; or the two-byte form, profile 0x1000). A packet that already
    has an extension gets the element appended to it."""
    cc = packet[0] & 0x0F
    header = 12 + 4 * cc
    element = bytes([ext_id, 1, cvo]) if two_byte else bytes([ext_id << 4, cvo])
    if packet[0] & 0x10:
        words = int.from_bytes(packet[header + 2:header + 4], "big")
        body = packet[header + 4:header + 4 + 4 * words] + element
        rest = packet[header + 4 + 4 * words:]
        profile = packet[header:header + 2]
    else:
        body, rest = element, packet[header:]
        profile = b"\x10\x00" if two_byte else b"\xbe\xde"
    body += bytes(-len(body) % 4)
    return bytes([packet[0] | 0x10]) + packet[1:header] + profile + (len(body) // 4).to_bytes(2, "big") + body + rest


class CvoRelay:
    """A mobile sender's network path: forwards an `ffmpeg -f rtp` video stream from its own port
    pair to `target` (RTCP on +1 unchanged), adding the video-orientation (CVO, 3GPP TS 26.114
    §7.4.5) header extension with the byte in `cvo` — by default only to each frame's marker
    packet, where WebRTC senders put it. Set `cvo` while it runs to turn the phone; `changes`
    records (RTP timestamp, byte) of the first frame that carried each new value."""

    def __init__(self, listen: int, target: int, ext_id: int, cvo: int, two_byte: bool = False,
                 every_packet: bool = False):
        self.target, self.ext_id, self.cvo, self.two_byte, self.every_packet = target, ext_id, cvo, two_byte, every_packet
        self.changes: list[tuple[int, int]] = []
        self.stopping = False
        self.sockets = []
        for port in (listen, listen + 1):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", port))
            s.settimeout(0.1)
            self.sockets.append(s)
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.threads = [threading.Thread(target=self._pump, args=(i,), daemon=True) for i in (0, 1)]
        for t in self.threads:
            t.start()

    def _pump(self, index: int):
        sock, target = self.sockets[index], ("127.0.0.1", self.target + index)
        last = None
        while not self.stopping:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if index == 0 and len(data) >= 12 and (self.every_packet or data[1] & 0x80):
                cvo = self.cvo
                if cvo != last:
                    self.changes.append((int.from_bytes(data[4:8], "big"), cvo))
                    last = cvo
                data = with_cvo_extension(data, self.ext_id, cvo, self.two_byte)
            self.out.sendto(data, target)

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        for s in self.sockets:
            s.close()
        self.out.close()


class GstSender(SenderProcess):
    """GStreamer's own RTP payloaders (another implementation than ffmpeg's) sending a test
    pattern and a tone: `gst-launch-1.0 … ! rtph264pay / rtpvp8pay ! udpsink`, Opus by
    `rtpopuspay`; the SDP is written by hand, as one would for an SFU's forward."""

    PAYLOADERS = {
        "h264": ("x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bframes=0 "
                 "! video/x-h264,profile=constrained-baseline ! rtph264pay pt=96 config-interval=-1"),
        "vp8": "vp8enc deadline=1 keyframe-max-dist=30 target-bitrate=600000 ! rtpvp8pay pt=97",
    }

    def __init__(self, root: Path, video_port: int | None, audio_port: int | None, rgb, tone: float,
                 vcodec: str = "h264", size=(320, 240), name: str = "gst"):
        super().__init__(root, name, video_port, audio_port)
        self.vcodec = vcodec
        argb = "0xFF%02X%02X%02X" % tuple(rgb)
        parts = []
        if video_port:
            payloader = self.PAYLOADERS[vcodec]
            parts.append(f"videotestsrc is-live=true pattern=solid-color foreground-color={argb} "
                         f"! video/x-raw,width={size[0]},height={size[1]},framerate=30/1 ! videoconvert "
                         f"! {payloader} ! udpsink host=127.0.0.1 port={video_port} sync=false")
        if audio_port:
            parts.append(f"audiotestsrc is-live=true wave=sine freq={tone} volume=0.25 ! audioconvert ! audioresample "
                         f"! audio/x-raw,rate=48000,channels=2 ! opusenc bitrate=64000 ! rtpopuspay pt=111 "
                         f"! udpsink host=127.0.0.1 port={audio_port} sync=false")
        self.cmd = ["gst-launch-1.0", "-q", *" ".join(parts).split()]

    def sdp(self) -> str:
        return hand_sdp(self.video_port, self.audio_port, self.vcodec, session="gstreamer")
