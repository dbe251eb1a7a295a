"""A recorded show for the per-participant recording tests (issue 32): participants whose picture
flashes white and whose tone beeps at known times of their own clock, a hand-written SDP for one
that joins later, and readers that find those moments again in a file or a composite.

- `flash_video(rgb, size)` / `beep_audio(freq)`: lavfi graphs. The picture is solid `rgb` with a
  white flash of 3 frames at t = 1, 3, 5 … s (every 2 s, from 1 s); the tone is a steady sine at
  a low level that rises for 0.25 s at the same instants (the beep).
- `participant_file(...)` / `CopySender`: those encoded once with a fixed GOP, and sent as RTP in
  real time by `ffmpeg -re … -c copy` (no encoding while sending).
- `sdp_for(...)`: the SDP of such a sender, written before it starts (ffmpeg writes its own only
  once it runs, and a participant joining late must be in the task from its `POST`).
- `Timed`: a file's decoded frames with their timestamps; `flash_onsets`, `beep_onsets`,
  `colour_name`, `region_rgb` read them.
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from helpers import BLUE, GREEN, GREY, RED, WHITE, BLACK, split_yuv420, yuv_to_rgb
from rtptools import VIDEO_ENCODERS, VIDEO_PAYLOAD_TYPES, SenderProcess, hand_sdp

PERIOD = 2.0          # s between flashes (and beeps) of one sender
FIRST = 1.0           # sender time of its first flash
FLASH = 0.09          # s: three frames at 30 fps
BEEP = 0.25           # s
LOW, HIGH = 0.05, 0.30
GOP = 20              # sender keyframe interval (frames); the composite's is 30
RATE = 48000
NAMED = {"red": RED, "blue": BLUE, "green": GREEN, "grey": GREY, "white": WHITE, "black": BLACK}


def flash_video(rgb, size, duration: float | None = None) -> str:
    on = rf"gte(mod(t\,{PERIOD})\,{FIRST})*lt(mod(t\,{PERIOD})\,{FIRST + FLASH})"
    length = f":d={duration}" if duration else ""
    return (f"color=c=0x{rgb[0]:02X}{rgb[1]:02X}{rgb[2]:02X}:s={size[0]}x{size[1]}:r=30{length},"
            f"drawbox=color=white:t=fill:enable='{on}'")


def beep_audio(freq: float, duration: float | None = None) -> str:
    on = rf"gte(mod(t\,{PERIOD})\,{FIRST})*lt(mod(t\,{PERIOD})\,{FIRST + BEEP})"
    length = f":d={duration}" if duration else ""
    return rf"aevalsrc=exprs='({LOW}+{HIGH - LOW}*{on})*sin(2*PI*{freq}*t)':s={RATE}{length}"


def participant_file(media, rgb, tone: float, vcodec: str, size, seconds: float = 30) -> Path:
    """A participant's camera and microphone made once (MKV): the flashing picture with a fixed GOP
    (no scene-cut keyframes, so a recording's keyframe spacing tells the sender's stream from any
    re-encode) and the beeping tone in Opus."""
    fixed_gop = {"h264": ["-sc_threshold", "0", "-x264-params", "repeat-headers=1"], "vp8": []}[vcodec]
    name = media.make(f"show-{vcodec}", "mkv", [
        "-f", "lavfi", "-i", flash_video(rgb, size, seconds), "-f", "lavfi", "-i", beep_audio(tone, seconds),
        "-map", "0:v", "-map", "1:a", *VIDEO_ENCODERS[vcodec], *fixed_gop, "-g", str(GOP), "-keyint_min", str(GOP),
        "-c:a", "libopus", "-b:a", "64k", "-f", "matroska"])
    return media.path(name)


class CopySender(SenderProcess):
    """`ffmpeg -re -i FILE -c copy -f rtp`: a participant's prepared stream sent in real time
    without encoding, so a loaded machine delays the sender as little as can be (an encoding
    sender starved for half a second sends its pictures after the task's jitter buffer)."""

    def __init__(self, root: Path, video_port: int, audio_port: int, source: Path, vcodec: str, name: str):
        super().__init__(root, name, video_port, audio_port)
        self.cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-i", str(source),
                    "-map", "0:v", "-c", "copy", "-payload_type", str(VIDEO_PAYLOAD_TYPES[vcodec]), "-f", "rtp",
                    f"rtp://127.0.0.1:{video_port}?pkt_size=1200",
                    "-map", "0:a", "-c", "copy", "-payload_type", "111", "-f", "rtp", f"rtp://127.0.0.1:{audio_port}",
                    "-sdp_file", str(self.sdp_path)]


def sdp_for(video_port: int, audio_port: int, vcodec: str) -> str:
    """What a `CopySender` sends: VP8 (PT 97) or H.264 (PT 96, in-band parameter sets), Opus (PT 111)."""
    return hand_sdp(video_port, audio_port, vcodec, session="late")


# --------------------------------------------------------------------------------------------- #
# reading files back
# --------------------------------------------------------------------------------------------- #
def probe(path) -> dict:
    r = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"ffprobe {path}: {r.stderr.strip()}"
    return json.loads(r.stdout)


def video_packets(path) -> list[tuple[float, bool]]:
    """(pts seconds, keyframe) of each video packet, in decode order."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                        "-of", "json", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [(float(p["pts_time"]), "K" in p.get("flags", "")) for p in json.loads(r.stdout).get("packets", [])
            if p.get("pts_time") not in (None, "N/A")]


@dataclass
class Timed:
    """A file's video frames (yuv420p) and their presentation times in seconds, as stamped in it."""
    times: np.ndarray
    frames: list

    @classmethod
    def read(cls, path, width: int, height: int) -> "Timed":
        r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "frame=best_effort_timestamp_time", "-of", "json", str(path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        times = [float(f["best_effort_timestamp_time"]) for f in json.loads(r.stdout).get("frames", [])]
        raw = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(path), "-map", "0:v:0",
                              "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"],
                             capture_output=True, timeout=300)
        assert raw.returncode == 0, raw.stderr.decode(errors="replace")
        frames = split_yuv420(raw.stdout, width, height)
        n = min(len(times), len(frames))
        assert n > 0, f"{path}: no video frames"
        return cls(np.asarray(times[:n]), frames[:n])

    def index_at(self, t: float) -> int:
        return int(np.argmin(np.abs(self.times - t)))


def region_rgb(frame, x: int, y: int, radius: int = 4) -> np.ndarray:
    """Mean R'G'B' of the block around (x, y) (luma and chroma of the block only: fast)."""
    y0, y1, x0, x1 = y - radius, y + radius, x - radius, x + radius
    ys = frame.y[y0:y1, x0:x1].astype(np.float64).mean()
    us = frame.u[y0 // 2:y1 // 2, x0 // 2:x1 // 2].astype(np.float64).mean()
    vs = frame.v[y0 // 2:y1 // 2, x0 // 2:x1 // 2].astype(np.float64).mean()
    return yuv_to_rgb(np.array([[ys]]), np.array([[us]]), np.array([[vs]]))[0, 0]


def colour_name(rgb, tol: float = 40) -> str:
    """The named colour within `tol` of `rgb` (max over channels), else its rounded value."""
    best = min(NAMED, key=lambda k: float(np.max(np.abs(np.asarray(rgb) - NAMED[k]))))
    return best if float(np.max(np.abs(np.asarray(rgb) - NAMED[best]))) <= tol else str(tuple(np.round(rgb).astype(int)))


def luma(frames, x: int, y: int, radius: int = 4) -> np.ndarray:
    return np.array([float(f.y[y - radius:y + radius, x - radius:x + radius].mean()) for f in frames])


def flash_onsets(times: np.ndarray, levels: np.ndarray, threshold: float = 200) -> list[int]:
    """Frame indices where the picture turns white (a flash starts)."""
    return [i for i in range(1, len(levels)) if levels[i] > threshold >= levels[i - 1]]


def envelope(pcm: np.ndarray, freq: float, hop: int = 240, window: int = 960) -> np.ndarray:
    """Amplitude of the `freq` sinusoid in 20 ms Hann windows every 5 ms."""
    n = max(0, (len(pcm) - window) // hop)
    index = np.arange(window)[None, :] + hop * np.arange(n)[:, None]
    w = np.hanning(window)
    carrier = np.exp(-2j * np.pi * freq * np.arange(len(pcm)) / RATE)
    return 2 * np.abs(np.sum((pcm * carrier)[index] * w, axis=1)) / np.sum(w)


def timed_audio(path) -> np.ndarray:
    """The first audio stream as mono samples at RATE where sample i is at time i / RATE on the
    file's own timestamps (from 0): gaps are filled with silence and packets stamped over earlier
    ones dropped, as a player that follows timestamps plays them."""
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-copyts", "-i", str(path),
                        "-map", "0:a:0", "-af", "aresample=min_comp=0.01:min_hard_comp=0.01:first_pts=0",
                        "-ac", "1", "-ar", str(RATE), "-f", "f32le", "-"], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return np.frombuffer(r.stdout, dtype=np.float32).astype(np.float64)


def beep_onsets(pcm: np.ndarray, freq: float, hop: int = 240, window: int = 960) -> list[float]:
    """Times (s) where the tone at `freq` in `timed_audio` samples rises through the middle between
    its steady level and its beep level."""
    env = envelope(pcm, freq, hop, window)
    if len(env) < 10:
        return []
    heard = env[env > 0.1 * env.max()]          # not the silence before the file starts or in its gaps
    low, high = np.percentile(heard, 20), np.percentile(heard, 98)
    if high < 2 * max(low, 1e-4):
        return []
    mid = (low + high) / 2
    up = np.nonzero((env[1:] > mid) & (env[:-1] <= mid))[0]
    return [(i + (mid - env[i]) / (env[i + 1] - env[i])) * hop / RATE + window / 2 / RATE for i in up]


def packet_times(path, stream: str) -> np.ndarray:
    """pts (s) of every packet of the first `stream` ("v" or "a") stream, in file order."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", f"{stream}:0", "-show_entries", "packet=pts_time",
                        "-of", "csv=p=0", str(path)], capture_output=True, text=True, timeout=60)
    return np.array([float(x) for x in r.stdout.split() if x not in ("", "N/A")])


def regular_at(times: np.ndarray, t: float, step: float, around: float) -> bool:
    """Whether the packets within `around` s of `t` come `step` apart (±40 %): no packets stamped
    1 ms apart after their placement went back, no hole."""
    near = times[(times > t - around) & (times < t + around)]
    if len(near) < 2:
        return False
    d = np.diff(near)
    return bool(np.all((d > 0.6 * step) & (d < 1.4 * step)))


def nearest(values: list[float], t: float) -> float | None:
    return min(values, key=lambda v: abs(v - t)) if values else None
