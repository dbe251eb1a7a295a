"""Glass-to-glass clocks for the LL-HLS tests and bench/llhls-latency.py (stdlib + ffmpeg only).

- `FlashSender`: raw grey frames written at their wall-clock instants (CLOCK_MONOTONIC) into the
  `ffmpeg` command line (x264 ultrafast, zero latency, no B-frames) and sent as RTP (H.264 + Opus)
  to a task's input, or to any other ffmpeg output. Every frame carries its number in a strip of 16
  black/white cells along the bottom (bit 0 and bit 15 always white: the strip is there); every
  `flash_every` frames the frame is white above the strip. Each frame's writing instant is kept.
- `Decoder`: `ffmpeg` decoding fragmented MP4 fed to its stdin (init + parts / segments, as an HLS
  client fetches them) or a URL (RTMP, an SDP file), one thread, no buffering; every decoded frame
  shrunk to 64x36 RGB with its arrival time, pts, and the moment a player starting with the first
  frame would show it (stalls move that clock on, as a player's does). bench/latency.py plays its
  streams with it too.
- `frame_number(frame)`, `glass_to_glass(sender, frames, when)`: the delay of every flash seen.
"""
from __future__ import annotations

import re
import subprocess
import threading
import time
from dataclasses import dataclass

SMALL_W, SMALL_H = 64, 36
CELLS = 16
SDP_TEMPLATE = ("v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=flash\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                "m=video {video} RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\n"
                "m=audio {audio} RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n")
VIDEO_CODEC = ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-bf", "0", "-pix_fmt", "yuv420p"]


def rtp_sdp(video_port: int, audio_port: int) -> str:
    """What FlashSender.rtp_args sends: H.264 (PT 96) and Opus (PT 111)."""
    return SDP_TEMPLATE.format(video=video_port, audio=audio_port)


def rtp_args(video_port: int, audio_port: int, fps: int) -> list[str]:
    return (["-map", "0:v", *VIDEO_CODEC, "-g", str(fps), "-f", "rtp", "-payload_type", "96",
             f"rtp://127.0.0.1:{video_port}?rtcpport={video_port + 1}&pkt_size=1200",
             "-map", "1:a", "-c:a", "libopus", "-b:a", "64k", "-f", "rtp", "-payload_type", "111",
             f"rtp://127.0.0.1:{audio_port}?rtcpport={audio_port + 1}"])


class FlashSender:
    """Numbered grey frames into ffmpeg at their instants; a white flash every `flash_every` frames."""

    def __init__(self, output_args: list[str], seconds: float, width: int = 640, height: int = 360, fps: int = 30,
                 flash_every: int = 60, log=None, start=subprocess.Popen):
        # `start`: what starts the ffmpeg (a bench passes its own, which stops it at the end).
        self.width, self.height, self.fps, self.flash_every = width, height, fps, flash_every
        self.seconds = seconds
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "gray",
               "-s", f"{width}x{height}", "-r", str(fps), "-i", "-",
               "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", *output_args]
        self.proc = start(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL)
        self.sent: dict[int, float] = {}      # frame number → CLOCK_MONOTONIC written
        self.flashes: list[int] = []          # numbers of the flash frames
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def frame(self, n: int) -> bytes:
        w, h = self.width, self.height
        flash = n % self.flash_every == self.flash_every // 2
        strip_top = h - h // 6
        rows = bytearray([235 if flash else 40]) * (w * strip_top)
        cell = w // CELLS
        bits = (n % (1 << (CELLS - 2))) << 1 | 1 | (1 << (CELLS - 1))
        line = bytearray()
        for i in range(CELLS):
            line += bytes([235 if bits >> i & 1 else 16]) * cell
        line += bytes([16]) * (w - len(line))
        return bytes(rows + line * (h - strip_top))

    def _run(self):
        start = time.monotonic()
        n = 0
        while not self._stop.is_set() and n < self.seconds * self.fps:
            delay = start + n / self.fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            data = self.frame(n)
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            self.sent[n % (1 << (CELLS - 2))] = time.monotonic()
            if n % self.flash_every == self.flash_every // 2:
                self.flashes.append(n % (1 << (CELLS - 2)))
            n += 1
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def stop(self):
        self._stop.set()
        self.join()

    def join(self):
        self.thread.join()
        try:
            self.proc.wait(1)
        except subprocess.TimeoutExpired:   # the silent audio source never ends by itself
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class DecodedFrame:
    arrival: float      # CLOCK_MONOTONIC when ffmpeg handed the frame out
    pts: float          # seconds, the stream's own timestamp
    rgb: bytes          # SMALL_W x SMALL_H rgb24
    shown: float = 0.0  # when a player that started with the first frame shows it (stalls included)

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = (y * SMALL_W + x) * 3
        return self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]

    def brightness(self) -> float:
        """Mean green level above the number strip (white and grey, not red or blue)."""
        rows = SMALL_H - SMALL_H // 6 - 2
        return sum(self.rgb[1:rows * SMALL_W * 3:3]) / (rows * SMALL_W)


def frame_number(f: DecodedFrame) -> int | None:
    y = SMALL_H - SMALL_H // 12 - 1
    cell = SMALL_W / CELLS
    bits = [f.pixel(int(cell * i + cell / 2), y)[1] > 128 for i in range(CELLS)]
    if not (bits[0] and bits[-1]):
        return None
    return sum(1 << (i - 1) for i in range(1, CELLS - 1) if bits[i])


class Decoder:
    """ffmpeg decoding fMP4 written to `feed()` (source None) or read from `source`.

    `options`: the input's options instead of the defaults (one thread, 32 KiB probe, no analysis;
    a 30 s read time-out on a URL); `copyts`: the stream's own timestamps (else from 0); `start`:
    what starts the ffmpeg (a bench passes its own, which stops it at the end)."""

    def __init__(self, source: str | None = None, *, options: list[str] | None = None, copyts: bool = True,
                 start=subprocess.Popen):
        if options is None:
            options = ["-threads", "1", "-probesize", "32768", "-analyzeduration", "0"]
            options += [] if source is None else ["-rw_timeout", "30000000"]
        inp = ["-f", "mp4", "-i", "pipe:0"] if source is None else ["-i", source]
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-nostats", "-loglevel", "info", *(["-copyts"] if copyts else []),
               "-fflags", "nobuffer", "-flags", "low_delay", *options, *inp, "-map", "0:v:0",
               "-vf", f"showinfo,scale={SMALL_W}:{SMALL_H}", "-fps_mode", "passthrough", "-pix_fmt", "rgb24",
               "-f", "rawvideo", "-flush_packets", "1", "pipe:1"]
        self.proc = start(cmd, stdin=subprocess.PIPE if source is None else subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.frames: list[DecodedFrame] = []
        self.log: list[str] = []
        self.stalls = 0
        self._pts: list[float] = []
        self._cond = threading.Condition()
        self._offset: float | None = None
        self.threads = [threading.Thread(target=self._read_frames, daemon=True),
                        threading.Thread(target=self._read_info, daemon=True)]
        for t in self.threads:
            t.start()

    def feed(self, data: bytes) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    def _read_info(self):
        pattern = re.compile(rb"pts_time:\s*([-0-9.]+)")
        for line in self.proc.stderr:
            m = pattern.search(line)
            with self._cond:
                if m:
                    self._pts.append(float(m.group(1)))
                    self._cond.notify_all()
                else:
                    self.log.append(line.decode(errors="replace").rstrip())

    def _read_frames(self):
        size = SMALL_W * SMALL_H * 3
        while True:
            data = self.proc.stdout.read(size)
            if not data or len(data) < size:
                return
            now = time.monotonic()
            with self._cond:
                n = len(self.frames)
                self._cond.wait_for(lambda: len(self._pts) > n, timeout=2)
                pts = self._pts[n] if len(self._pts) > n else float("nan")
                if self._offset is None:
                    self._offset = now - pts
                shown = pts + self._offset
                if now > shown + 0.001:       # late: the player stalls, its clock moves on
                    self.stalls += 1
                    self._offset += now - shown
                    shown = now
                self.frames.append(DecodedFrame(now, pts, data, shown))

    def snapshot(self) -> list[DecodedFrame]:
        with self._cond:
            return list(self.frames)

    def close(self, timeout: float = 10) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self.threads:
            t.join(2)


def glass_to_glass(sender: FlashSender, frames: list[DecodedFrame], when: str = "arrival") -> list[float]:
    """For each flash frame decoded (found by its number), `when` (arrival or shown) minus the
    instant it was written."""
    flashes, seen, delays = set(sender.flashes), set(), []
    for f in frames:
        n = frame_number(f)
        if n in flashes and n not in seen and n in sender.sent and f.brightness() > 140:
            seen.add(n)
            delays.append(getattr(f, when) - sender.sent[n])
    return delays


def frame_delays(sender: FlashSender, frames: list[DecodedFrame], when: str = "arrival") -> list[float]:
    """The same for every numbered frame decoded (not only flashes)."""
    out = []
    for f in frames:
        n = frame_number(f)
        if n is not None and n in sender.sent:
            out.append(getattr(f, when) - sender.sent[n])
    return out
