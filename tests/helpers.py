"""Helpers for Tessera's end-to-end tests: make media with the ffmpeg command line, run the
`tessera` binary, and read its outputs back (ffprobe, raw frames, YUV4MPEG2, PCM) as numpy arrays.

Colour maths is done here, not by ffmpeg's scaler: the output is BT.709 limited-range Y'CbCr, and
`yuv_to_rgb` / `rgb_to_yuv` implement exactly that matrix and range.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TESSERA_BIN = Path(os.environ.get("TESSERA_BIN", str(REPO / ".build" / "release" / "tessera")))
TESSERA_TIMEOUT = float(os.environ.get("TESSERA_TIMEOUT", "180"))

# Named colours as R'G'B' triples (and `#RRGGBB` strings for task documents).
RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
YELLOW, CYAN, MAGENTA = (255, 255, 0), (0, 255, 255), (255, 0, 255)
WHITE, BLACK, GREY = (255, 255, 255), (0, 0, 0), (128, 128, 128)


def hex_colour(rgb) -> str:
    """(255, 0, 0) → "#FF0000" (task documents)."""
    return "#%02X%02X%02X" % tuple(rgb)


def lavfi_colour(rgb) -> str:
    """(255, 0, 0) → "0xFF0000" (ffmpeg's color source)."""
    return "0x%02X%02X%02X" % tuple(rgb)


# --------------------------------------------------------------------------------------------- #
# BT.709 limited range
# --------------------------------------------------------------------------------------------- #
KR, KB = 0.2126, 0.0722
KG = 1.0 - KR - KB


def rgb_to_yuv(rgb):
    """R'G'B' 0–255 → BT.709 limited-range (Y', Cb, Cr) as floats (Y' 16–235, C 16–240)."""
    r, g, b = (np.asarray(c, dtype=np.float64) / 255.0 for c in np.moveaxis(np.asarray(rgb, dtype=np.float64), -1, 0))
    y = KR * r + KG * g + KB * b
    cb = (b - y) / (2 * (1 - KB))
    cr = (r - y) / (2 * (1 - KR))
    return np.stack([16 + 219 * y, 128 + 224 * cb, 128 + 224 * cr], axis=-1)


def yuv_to_rgb(y, u, v):
    """Planes of a 4:2:0 frame (BT.709 limited range) → H×W×3 float R'G'B' 0–255 (unclipped).
    Chroma is upsampled by repeating each sample over its 2×2 luma block."""
    y = np.asarray(y, dtype=np.float64)
    u = np.repeat(np.repeat(np.asarray(u, dtype=np.float64), 2, axis=0), 2, axis=1)[: y.shape[0], : y.shape[1]]
    v = np.repeat(np.repeat(np.asarray(v, dtype=np.float64), 2, axis=0), 2, axis=1)[: y.shape[0], : y.shape[1]]
    yn = (y - 16) / 219.0
    pb = (u - 128) / 224.0
    pr = (v - 128) / 224.0
    r = yn + 2 * (1 - KR) * pr
    b = yn + 2 * (1 - KB) * pb
    g = (yn - KR * r - KB * b) / KG
    return np.stack([r, g, b], axis=-1) * 255.0


@dataclass
class Frame:
    """One decoded 4:2:0 frame: uint8 planes."""
    y: np.ndarray
    u: np.ndarray
    v: np.ndarray

    @property
    def width(self) -> int:
        return self.y.shape[1]

    @property
    def height(self) -> int:
        return self.y.shape[0]

    def rgb(self) -> np.ndarray:
        return yuv_to_rgb(self.y, self.u, self.v)

    def rgb_at(self, x: int, y: int, radius: int = 2) -> np.ndarray:
        """Mean R'G'B' of the (2·radius)² luma block around (x, y), chroma from the same block."""
        x0, y0 = max(0, x - radius), max(0, y - radius)
        x1, y1 = min(self.width, x + radius), min(self.height, y + radius)
        return self.rgb()[y0:y1, x0:x1].reshape(-1, 3).mean(axis=0)

    def yuv_at(self, x: int, y: int, radius: int = 2) -> np.ndarray:
        """Mean (Y', Cb, Cr) of the block around (x, y); x, y, radius in luma pixels."""
        x0, y0 = max(0, x - radius), max(0, y - radius)
        x1, y1 = min(self.width, x + radius), min(self.height, y + radius)
        ly = self.y[y0:y1, x0:x1].astype(np.float64).mean()
        cu = self.u[y0 // 2:max(y0 // 2 + 1, y1 // 2), x0 // 2:max(x0 // 2 + 1, x1 // 2)].astype(np.float64).mean()
        cv = self.v[y0 // 2:max(y0 // 2 + 1, y1 // 2), x0 // 2:max(x0 // 2 + 1, x1 // 2)].astype(np.float64).mean()
        return np.array([ly, cu, cv])

    def yuv_block(self, x0: int, y0: int, x1: int, y1: int):
        """The Y', Cb, Cr samples of the luma rectangle [x0, x1) × [y0, y1) (even coordinates)."""
        return (self.y[y0:y1, x0:x1].astype(np.int32),
                self.u[y0 // 2:y1 // 2, x0 // 2:x1 // 2].astype(np.int32),
                self.v[y0 // 2:y1 // 2, x0 // 2:x1 // 2].astype(np.int32))


def colour_distance(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))


def assert_rgb(frame: Frame, x: int, y: int, expected, tol: float, what: str = "", radius: int = 2):
    got = frame.rgb_at(x, y, radius)
    assert colour_distance(got, expected) <= tol, (
        f"{what} pixel ({x},{y}): expected R'G'B' ≈ {tuple(expected)} ±{tol}, got {tuple(np.round(got, 1))}")


def assert_yuv_block(frame: Frame, rect, expected_yuv, tol: float, what: str = ""):
    """Every sample of every plane inside rect (x0, y0, x1, y1) within ±tol of expected (Y', Cb, Cr)."""
    ys, us, vs = frame.yuv_block(*rect)
    exp = np.asarray(expected_yuv, dtype=np.float64)
    for plane, samples, e in (("Y'", ys, exp[0]), ("Cb", us, exp[1]), ("Cr", vs, exp[2])):
        assert samples.size > 0, f"{what}: empty block {rect}"
        worst = float(np.max(np.abs(samples - e)))
        assert worst <= tol, (
            f"{what} {plane} in {rect}: expected {e:.1f} ±{tol}, got min {samples.min()} max {samples.max()} "
            f"mean {samples.mean():.1f}")


# --------------------------------------------------------------------------------------------- #
# ffmpeg / ffprobe
# --------------------------------------------------------------------------------------------- #
def ffmpeg(*args: str, timeout: float = 120) -> None:
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"ffmpeg failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")


def ffprobe(path, *extra: str) -> dict:
    cmd = ["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", *extra, str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"ffprobe cannot read {path}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def streams(path, kind: str) -> list[dict]:
    """kind: 'video' or 'audio'."""
    return [s for s in ffprobe(path)["streams"] if s.get("codec_type") == kind]


def count_video_frames(path) -> int:
    info = ffprobe(path, "-count_frames", "-select_streams", "v:0")
    return int(info["streams"][0]["nb_read_frames"])


def video_frame_info(path) -> list[dict]:
    """Per decoded video frame: key_frame, pict_type, time (best effort timestamp, seconds)."""
    cmd = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
           "frame=key_frame,pict_type,best_effort_timestamp_time,pts_time", "-print_format", "json", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    frames = json.loads(r.stdout).get("frames", [])
    for f in frames:
        t = f.get("best_effort_timestamp_time", f.get("pts_time"))
        f["time"] = float(t) if t not in (None, "N/A") else None
    return frames


def decode_video(path, width: int | None = None, height: int | None = None) -> list[Frame]:
    """Every video frame as yuv420p planes (ffmpeg converts only if the stream is not yuv420p)."""
    if width is None or height is None:
        v = streams(path, "video")[0]
        width, height = int(v["width"]), int(v["height"])
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(path), "-map", "0:v:0",
           "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return split_yuv420(r.stdout, width, height)


def split_yuv420(data: bytes, width: int, height: int) -> list[Frame]:
    cw, ch = (width + 1) // 2, (height + 1) // 2
    size = width * height + 2 * cw * ch
    assert len(data) % size == 0, f"{len(data)} bytes is not a whole number of {width}x{height} frames"
    frames = []
    buf = np.frombuffer(data, dtype=np.uint8)
    for i in range(len(data) // size):
        f = buf[i * size:(i + 1) * size]
        y = f[: width * height].reshape(height, width)
        u = f[width * height: width * height + cw * ch].reshape(ch, cw)
        v = f[width * height + cw * ch:].reshape(ch, cw)
        frames.append(Frame(y, u, v))
    return frames


@dataclass
class Y4M:
    width: int
    height: int
    fps: tuple[int, int]
    colourspace: str
    params: dict
    frames: list[Frame]


def read_y4m(path) -> Y4M:
    """A YUV4MPEG2 file (4:2:0, 8 bit) parsed by hand, so no scaler touches the pixels."""
    data = Path(path).read_bytes()
    assert data.startswith(b"YUV4MPEG2 "), f"{path} is not YUV4MPEG2 (starts {data[:16]!r})"
    nl = data.index(b"\n")
    header = data[:nl].decode("ascii").split(" ")[1:]
    params = {}
    for tok in header:
        if tok:
            params.setdefault(tok[0], []).append(tok[1:])
    width, height = int(params["W"][0]), int(params["H"][0])
    num, den = (int(x) for x in params.get("F", ["0:1"])[0].split(":"))
    cs = params.get("C", ["420jpeg"])[0]
    assert cs.startswith("420"), f"y4m colourspace {cs}: expected 4:2:0 8 bit"
    cw, ch = (width + 1) // 2, (height + 1) // 2
    size = width * height + 2 * cw * ch
    frames = []
    pos = nl + 1
    buf = np.frombuffer(data, dtype=np.uint8)
    while pos < len(data):
        assert data.startswith(b"FRAME", pos), f"y4m: expected FRAME at byte {pos}"
        pos = data.index(b"\n", pos) + 1
        assert pos + size <= len(data), "y4m: truncated frame"
        f = buf[pos:pos + size]
        frames.append(Frame(f[: width * height].reshape(height, width),
                            f[width * height: width * height + cw * ch].reshape(ch, cw),
                            f[width * height + cw * ch:].reshape(ch, cw)))
        pos += size
    return Y4M(width, height, (num, den), cs, params, frames)


def decode_audio(path, rate: int = 48000, channels: int | None = None) -> np.ndarray:
    """The first audio stream as float32 samples, shape (n, channels), at `rate` (resampled by
    ffmpeg only if the stream's rate differs)."""
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(path), "-map", "0:a:0",
           "-f", "f32le", "-acodec", "pcm_f32le", "-ar", str(rate)]
    if channels:
        cmd += ["-ac", str(channels)]
    cmd.append("-")
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    if channels is None:
        channels = int(streams(path, "audio")[0]["channels"])
    return np.frombuffer(r.stdout, dtype=np.float32).reshape(-1, channels)


def tone_amplitude(samples: np.ndarray, rate: int, freq: float, bandwidth: float = 8.0) -> float:
    """Amplitude (peak, full scale = 1) of the sinusoid at `freq` in a mono signal, from a
    Hann-windowed FFT: the energy within ±bandwidth Hz, scaled so a pure sine of amplitude A gives A."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 2:
        x = x.mean(axis=1)
    n = len(x)
    assert n > rate // 10, f"only {n} samples to analyse"
    w = np.hanning(n)
    spec = np.fft.rfft(x * w)
    freqs = np.fft.rfftfreq(n, 1.0 / rate)
    band = np.abs(freqs - freq) <= bandwidth
    # Parseval: Σ|x·w|² = (2/n)·Σ_band|X|² for one side of a real signal's spectrum, and for a sine
    # Σ|x·w|² ≈ A²/2 · Σw², so A = sqrt(4·Σ_band|X|² / (n·Σw²)).
    energy = np.sum(np.abs(spec[band]) ** 2)
    return float(np.sqrt(4.0 * energy / (n * np.sum(w ** 2))))


def band_energy_fraction(samples: np.ndarray, rate: int, freqs: list[float], bandwidth: float = 10.0,
                         low_cut: float = 20.0) -> float:
    """Fraction of the signal's energy (above low_cut Hz) that lies OUTSIDE ±bandwidth of `freqs`:
    distortion, noise and wrap-around all land there."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 2:
        x = x.mean(axis=1)
    w = np.hanning(len(x))
    p = np.abs(np.fft.rfft(x * w)) ** 2
    f = np.fft.rfftfreq(len(x), 1.0 / rate)
    valid = f >= low_cut
    inside = np.zeros_like(valid)
    for fr in freqs:
        inside |= np.abs(f - fr) <= bandwidth
    total = p[valid].sum()
    return float(p[valid & ~inside].sum() / total) if total > 0 else 0.0


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.asarray(x, dtype=np.float64) ** 2)))


def mp4_top_level_boxes(path) -> list[str]:
    """The four-character types of an MP4 file's top-level boxes, in order."""
    data = Path(path).read_bytes()
    boxes, pos = [], 0
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8].decode("latin-1")
        if size == 1:
            size = int.from_bytes(data[pos + 8:pos + 16], "big")
        elif size == 0:
            size = len(data) - pos
        if size < 8:
            break
        boxes.append(kind)
        pos += size
    return boxes


# --------------------------------------------------------------------------------------------- #
# Media factory (cached per test session: the same spec is made once)
# --------------------------------------------------------------------------------------------- #
class MediaFactory:
    """Makes small test media in one directory (the tasks' --media-root). Each call returns the
    file name; a file with the same recipe is reused."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _name(self, stem: str, ext: str, recipe) -> str:
        h = hashlib.sha1(json.dumps(recipe, sort_keys=True, default=str).encode()).hexdigest()[:10]
        return f"{stem}-{h}.{ext}"

    def make(self, stem: str, ext: str, args: list[str]) -> str:
        name = self._name(stem, ext, args)
        dest = self.root / name
        if not dest.exists():
            tmp = self.root / (".tmp-" + name)
            ffmpeg(*args, str(tmp))
            tmp.rename(dest)
        return name

    def path(self, name: str) -> Path:
        return self.root / name

    # -- video (+ optional audio) -------------------------------------------------------------
    def video(self, graph: str, *, audio: str | None = None, ext: str = "mp4", codec: str = "h264",
              stem: str = "video", extra: list[str] | None = None) -> str:
        """`graph`: an ffmpeg lavfi filter graph producing the picture (it sets size, rate and
        duration). `audio`: a lavfi audio graph or None. codec: h264 (near lossless, CRF 4),
        ffv1 (lossless), vp9, vp8."""
        args = ["-f", "lavfi", "-i", graph]
        if audio:
            args += ["-f", "lavfi", "-i", audio]
        args += ["-map", "0:v"] + (["-map", "1:a"] if audio else [])
        if codec == "h264":
            args += ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "4", "-pix_fmt", "yuv420p"]
        elif codec == "ffv1":
            args += ["-c:v", "ffv1", "-pix_fmt", "yuv420p"]
        elif codec == "vp9":
            args += ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-crf", "10", "-b:v", "0",
                     "-pix_fmt", "yuv420p"]
        elif codec == "vp8":
            args += ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-crf", "4", "-b:v", "2M",
                     "-pix_fmt", "yuv420p"]
        elif codec == "hevc":
            args += ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "8", "-x265-params", "log-level=error",
                     "-pix_fmt", "yuv420p"] + (["-tag:v", "hvc1"] if ext == "mp4" else [])
        elif codec == "av1":
            args += ["-c:v", "libsvtav1", "-preset", "12", "-crf", "10", "-pix_fmt", "yuv420p"]
        elif codec == "mpeg2":
            args += ["-c:v", "mpeg2video", "-q:v", "2", "-pix_fmt", "yuv420p"]
        else:
            raise ValueError(codec)
        if audio:
            acodec = {"mp4": "aac", "mkv": "flac", "webm": "libopus", "ts": "aac", "flv": "aac"}[ext]
            args += ["-c:a", acodec]
            if acodec == "aac":
                args += ["-b:a", "192k"]
        args += extra or []
        fmt = {"mp4": "mp4", "mkv": "matroska", "webm": "webm", "ts": "mpegts", "flv": "flv"}[ext]
        args += ["-f", fmt]
        return self.make(stem, ext, args)

    def audio(self, graph: str, *, ext: str = "mkv", codec: str | None = None, stem: str = "audio") -> str:
        """An audio-only file from a lavfi audio graph (sets rate and duration)."""
        codec = codec or {"mkv": "flac", "mp4": "aac", "m4a": "aac", "wav": "pcm_s16le", "mp3": "libmp3lame",
                          "ogg": "libopus"}[ext]
        fmt = {"mkv": "matroska", "mp4": "mp4", "m4a": "mp4", "wav": "wav", "mp3": "mp3", "ogg": "ogg"}[ext]
        args = ["-f", "lavfi", "-i", graph, "-c:a", codec]
        if codec == "aac":
            args += ["-b:a", "192k"]
        return self.make(stem, ext, args + ["-f", fmt])

    def png(self, graph: str, *, stem: str = "image", pix_fmt: str = "rgba") -> str:
        """A still image from a lavfi graph (sized by the graph), as PNG with the given pixel format."""
        return self.make(stem, "png", ["-f", "lavfi", "-i", graph, "-frames:v", "1", "-pix_fmt", pix_fmt,
                                       "-c:v", "png", "-f", "image2"])

    def jpeg(self, graph: str, *, stem: str = "image") -> str:
        return self.make(stem, "jpg", ["-f", "lavfi", "-i", graph, "-frames:v", "1", "-q:v", "1",
                                       "-pix_fmt", "yuvj444p", "-c:v", "mjpeg", "-f", "image2"])

    # -- common recipes ----------------------------------------------------------------------
    def solid(self, rgb, *, size=(160, 120), fps: int = 10, duration: float = 1.0, tone: float | None = None,
              ext: str = "mp4", codec: str = "h264") -> str:
        w, h = size
        graph = f"color=c={lavfi_colour(rgb)}:s={w}x{h}:r={fps}:d={duration}"
        audio = sine(tone, duration) if tone else None
        return self.video(graph, audio=audio, ext=ext, codec=codec, stem="solid")

    def stripes(self, colours, *, size=(300, 100), vertical_bands: bool = True, fps: int = 10,
                duration: float = 1.0, ext: str = "mkv", codec: str = "ffv1") -> str:
        """Equal bands of colours: side by side (vertical_bands) or stacked; size must divide evenly."""
        w, h = size
        n = len(colours)
        bw, bh = (w // n, h) if vertical_bands else (w, h // n)
        parts = [f"color=c={lavfi_colour(c)}:s={bw}x{bh}:r={fps}:d={duration}[c{i}]" for i, c in enumerate(colours)]
        stack = "hstack" if vertical_bands else "vstack"
        graph = ";".join(parts) + ";" + "".join(f"[c{i}]" for i in range(n)) + f"{stack}=inputs={n}"
        return self.video(graph, ext=ext, codec=codec, stem="stripes")

    def still_png(self, rgb, size=(64, 64), alpha: int = 255) -> str:
        w, h = size
        r, g, b = rgb
        return self.png(f"color=c=black:s={w}x{h}:d=1,format=rgba,geq=r={r}:g={g}:b={b}:a={alpha}", stem="still")


def sine(freq: float, duration: float, rate: int = 48000, amplitude: float | None = None) -> str:
    """A lavfi graph for a pure tone. Without amplitude, ffmpeg's `sine` default (1/8 full scale)."""
    if amplitude is None:
        return f"sine=frequency={freq}:sample_rate={rate}:duration={duration}"
    return f"aevalsrc={amplitude}*sin(2*PI*{freq}*t):s={rate}:d={duration}"


# --------------------------------------------------------------------------------------------- #
# Running tessera
# --------------------------------------------------------------------------------------------- #
def run_tessera(args, cwd=None, timeout: float | None = None, env=None) -> subprocess.CompletedProcess:
    if not TESSERA_BIN.exists():
        raise AssertionError(f"tessera binary not found at {TESSERA_BIN} (build it, or set TESSERA_BIN)")
    try:
        return subprocess.run([str(TESSERA_BIN), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout or TESSERA_TIMEOUT, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"tessera {' '.join(map(str, args))} did not finish within {e.timeout} s") from None


class Workspace:
    """One test's directory: `task.json` files and the output directory `out/`. Inputs live in the
    session's media directory (passed as --media-root), so task documents name media by file name."""

    def __init__(self, root: Path, media: MediaFactory):
        self.root = Path(root)
        self.media = media
        self.out = self.root / "out"
        self.out.mkdir(parents=True, exist_ok=True)
        self._n = 0

    def write_task(self, task: dict | str, name: str | None = None) -> Path:
        self._n += 1
        p = self.root / (name or f"task{self._n}.json")
        p.write_text(task if isinstance(task, str) else json.dumps(task, indent=2))
        return p

    def run(self, command: str, task, *extra, media_root=True, output_dir=True, timeout=None):
        path = task if isinstance(task, Path) else self.write_task(task)
        args = [command, path, *extra]
        if command == "mix":
            if media_root:
                args += ["--media-root", self.media.root]
            if output_dir:
                args += ["--output-dir", self.out]
        return run_tessera(args, cwd=self.root, timeout=timeout)

    def mix(self, task, *extra, check: bool = True, **kw) -> subprocess.CompletedProcess:
        r = self.run("mix", task, *extra, **kw)
        if check:
            assert r.returncode == 0, f"tessera mix failed (exit {r.returncode}):\n{r.stderr[-3000:]}"
        return r

    def output_files(self) -> list[str]:
        return sorted(p.name for p in self.out.iterdir())


def task(inputs, regions=None, *, outputs=("out.y4m",), width=320, height=240, fps=10, background="#000000",
         audio_encoder=True, **extra) -> dict:
    """A task document with the usual small canvas. `inputs`: list of dicts; `regions`: list of dicts
    (None: no layout section)."""
    doc: dict = {"inputs": list(inputs),
                 "encoder": {"video": {"width": width, "height": height, "fps": fps, "bitrateKbps": 800,
                                       "gopSeconds": 1, "preset": "ultrafast"}},
                 "outputs": [{"url": o} for o in outputs]}
    if audio_encoder:
        doc["encoder"]["audio"] = {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}
    if regions is not None:
        doc["layout"] = {"backgroundColor": background, "regions": list(regions)}
    doc.update(extra)
    return doc
