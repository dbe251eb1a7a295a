#!/usr/bin/env python3
"""Re-mixing a recorded show from its timeline manifest: `tessera mix MANIFEST` against the
`ffmpeg` command line doing the same composite from the same files (issue 32, bench/README.md).

    bench/remix-vs-ffmpeg.py [--minutes M] [--repeat K] [--tessera PATH] [--work DIR] [--psnr]
                             [--generate-only]

1. **The show's recordings** (made once, cached in `WORK/media/`): four participant files as
   per-participant recordings are — Matroska holding H.264 (1280x720 30 fps, libx264 veryfast
   CRF 23 capped at 6 Mb/s, 2 s GOP, a different moving picture each) and Opus (48 kHz stereo, a
   different tone each) — joining the show at 0, 3, 7.5 and 12 s and staying to its end
   (`--minutes`, default 10: a 10-minute show); each file's timestamps start at its offset, as the
   recorder stamps them on the task clock.
2. **The manifest** (`WORK/runs/show.timeline.json`), written by hand to the documented format: a
   task document in mode `mix`, pace `asap`, whose inputs are the four files each with its
   `startAtMs`, a 2x2 layout of 640x360 tiles (`renderMode: stretch`), Tessera's offline encoder
   settings (x264 veryfast, 2500 kb/s, 2 s GOP; AAC 128 kb/s), one composite output and a
   `timeline` object.
3. **Tessera**: `tessera mix show.timeline.json --output-dir WORK/runs` under `/usr/bin/time`.
4. **ffmpeg**: the same composite as one command line — each file with `-itsoffset` (its
   `startAtMs`; ffmpeg starts each input at its own start time, so the offset is said again), `scale=640:360:flags=area` (Tessera's 2x2 downscale), `overlay` onto a black
   1280x720 canvas, the audio of each padded from the show's start (`aresample=first_pts=0`) and
   summed by `amix=normalize=0`, encoded with the x264 options Tessera's encoder really ran with
   (read from the x264 SEI in Tessera's output, as bench/mix-vs-ffmpeg.sh does) and AAC 128 kb/s,
   fragmented MP4 — saved as `WORK/runs/ffmpeg-command.sh`.
5. **Figures**: wall time, CPU (user + sys) and peak memory of both, the ratio tessera / ffmpeg
   wall (below 1: Tessera faster; the issue's goal), frame counts of both outputs, and with
   `--psnr` the two composites compared picture by picture.
"""
from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
W, H, FPS, KBPS, GOP_S, PRESET = 1280, 720, 30, 2500, 2, "veryfast"
OFFSETS = [0.0, 3.0, 7.5, 12.0]
# Cheap sources: making a 10-minute show must not take longer than timing it (FFmpeg's mandelbrot,
# here until a 10-minute run, slows as it zooms in: it spent 25 minutes on one participant).
PATTERNS = ["testsrc2=s=1280x720:r=30", "smptehdbars=s=1280x720:r=30",
            "testsrc=s=1280x720:r=30", "gradients=s=1280x720:r=30:n=4:speed=0.03:seed=7"]
TONES = [220, 330, 440, 550]
GEN_VERSION = 3


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def make_participant(media: Path, i: int, show_seconds: float) -> Path:
    length = show_seconds - OFFSETS[i]
    out = media / f"p{i + 1}-v{GEN_VERSION}-{length:g}s.mkv"
    if out.exists() and out.stat().st_size > 0:
        return out
    print(f"# making participant {i + 1}: {PATTERNS[i].split('=')[0]}, {TONES[i]} Hz, {length:g} s", file=sys.stderr)
    tmp = out.with_suffix(".tmp.mkv")
    run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
         "-f", "lavfi", "-i", f"{PATTERNS[i]},format=yuv420p,scroll=h=0.00{2 + i}:v=0.00{1 + i % 3}",
         "-f", "lavfi", "-i", f"aevalsrc=0.1*sin(2*PI*{TONES[i]}*t)|0.1*sin(2*PI*{TONES[i]}*t):s=48000:c=stereo",
         "-t", f"{length:g}", "-map", "0:v", "-map", "1:a",
         "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-maxrate", "6M", "-bufsize", "12M", "-g", "60",
         "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
         "-color_range", "tv", "-c:a", "libopus", "-b:a", "64k",
         # Stamped on the show's clock, as the recorder stamps them: the file starts at its offset.
         "-output_ts_offset", f"{OFFSETS[i]:g}", "-f", "matroska", tmp])
    tmp.rename(out)
    return out


def manifest(files: list[Path], show_seconds: float, output: str) -> dict:
    tw, th = W // 2, H // 2
    inputs = [{"id": f"p{i + 1}", "url": str(f), "startAtMs": int(OFFSETS[i] * 1000)} for i, f in enumerate(files)]
    return {
        "taskId": "remix-bench", "mode": "mix", "pace": "asap",
        "inputs": inputs,
        "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": KBPS, "gopSeconds": GOP_S,
                              "codec": "h264", "preset": PRESET},
                    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128, "codec": "aac"}},
        "layout": {"backgroundColor": "#000000", "regions": [
            {"input": f"p{i + 1}", "x": (i % 2) * tw, "y": (i // 2) * th, "width": tw, "height": th,
             "renderMode": "stretch"} for i in range(4)]},
        "outputs": [{"url": output}],
        # The documented `timeline` object (TimelineManifest.Info): the mix does not read it.
        "timeline": {"version": 1, "taskId": "remix-bench", "startedAt": "2026-01-01T00:00:00.000Z",
                     "compositeStartMs": 0, "endMs": int(show_seconds * 1000),
                     "files": [{"input": f"p{i + 1}", "url": str(f), "offsetMs": int(OFFSETS[i] * 1000),
                                "endMs": int(show_seconds * 1000),
                                "video": {"codec": "h264", "width": W, "height": H}, "audio": {"codec": "opus"}}
                               for i, f in enumerate(files)]},
    }


# -- the x264 options Tessera's encoder ran with, as -x264-params (bench/mix-vs-ffmpeg.sh) -------
def sei_options(path: Path) -> list[str]:
    text = subprocess.run(["strings", "-n", "8", str(path)], capture_output=True, text=True).stdout
    line = next((ln for ln in text.splitlines() if "x264 - core" in ln), "")
    return line.split("options: ", 1)[1].split() if "options: " in line else []


def x264_params(options: list[str]) -> str:
    out = []
    for opt in options:
        name, _, value = opt.partition("=")
        if name in ("rc", "chroma_qp_offset", "cqm"):
            continue
        if name == "analyse":
            inter = int(value.split(":")[1], 0)
            parts = [p for bit, p in ((1, "i4x4"), (2, "i8x8"), (0x10, "p8x8"), (0x20, "p4x4"), (0x100, "b8x8")) if inter & bit]
            out.append("partitions=" + (",".join(parts) or "none"))
        elif name == "deblock":
            a, b, c = value.split(":")
            out.append("no-deblock=1" if a == "0" else f"deblock={b},{c}")
        elif name == "psy_rd":
            out.append("psy-rd=" + value.replace(":", ","))
        elif name == "deadzone":
            inter, intra = value.split(",")
            out += [f"deadzone-inter={inter}", f"deadzone-intra={intra}"]
        elif name == "aq":
            mode, _, strength = value.partition(":")
            out += [f"aq-mode={mode}"] + ([f"aq-strength={strength}"] if strength else [])
        elif name in ("direct", "b_pyramid"):
            names = {"direct": ["none", "spatial", "temporal", "auto"], "b_pyramid": ["none", "strict", "normal"]}[name]
            out.append(f"{name.replace('_', '-')}={names[int(value)]}")
        elif name in ("zones", "fgo", "stitchable", "opencl", "crf_max") and value == "0":
            continue
        else:
            renamed = {"decimate": "dct-decimate", "mixed_ref": "mixed-refs", "b_adapt": "b-adapt", "open_gop": "open-gop",
                       "ip_ratio": "ipratio", "pb_ratio": "pbratio"}.get(name, name.replace("_", "-"))
            out.append(f"{renamed}={value}")
    return ":".join(out)


def ffmpeg_command(files: list[Path], show_seconds: float, params: str, output: Path) -> list[str]:
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-nostats", "-loglevel", "warning", "-y"]
    for i, f in enumerate(files):
        cmd += ["-itsoffset", f"{OFFSETS[i]:g}", "-i", str(f)]
    graph = [f"color=c=black:s={W}x{H}:r={FPS}:d={show_seconds:g},format=yuv420p[bg]"]
    prev = "bg"
    for i in range(4):
        graph.append(f"[{i}:v]scale={W // 2}:{H // 2}:flags=area[s{i}]")
        graph.append(f"[{prev}][s{i}]overlay=x={(i % 2) * W // 2}:y={(i // 2) * H // 2}:format=yuv420[o{i}]")
        prev = f"o{i}"
        graph.append(f"[{i}:a]aresample=async=1:first_pts=0[a{i}]")
    graph.append("".join(f"[a{i}]" for i in range(4)) + "amix=inputs=4:duration=longest:normalize=0[a]")
    cmd += ["-filter_complex", ";".join(graph), "-map", f"[{prev}]", "-map", "[a]",
            "-c:v", "libx264", "-preset", PRESET, "-b:v", f"{KBPS}k", "-maxrate", f"{KBPS}k", "-bufsize", f"{2 * KBPS}k",
            "-g", str(GOP_S * FPS), "-keyint_min", str(GOP_S * FPS), "-x264-params", params,
            "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-color_range", "tv", "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
            "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", str(output)]
    return cmd


def timed(cmd: list[str], log: Path) -> tuple[float, float, float, float]:
    """(wall s, user s, sys s, peak RSS MB) of one run under GNU time."""
    times = log.with_suffix(".time")
    with open(log, "w") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(times), *map(str, cmd)],
                           stdout=out, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.exit(f"error: exit {r.returncode}: {shlex.join(map(str, cmd))}\n{log.read_text()[-3000:]}")
    e, u, s, m = times.read_text().split()[-4:]
    return float(e), float(u), float(s), int(m) / 1024


def frames_of(path: Path) -> str:
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                        "stream=nb_read_packets,width,height", "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    return r.stdout.strip()


def load1() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the show [10]")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    ap.add_argument("--work", default=str(HERE / ".work" / "remix"))
    ap.add_argument("--psnr", action="store_true", help="compare the two composites picture by picture")
    ap.add_argument("--generate-only", action="store_true")
    args = ap.parse_args()
    seconds = round(args.minutes * 60, 3)
    if seconds <= OFFSETS[-1] + 2:
        sys.exit(f"--minutes must be more than {(OFFSETS[-1] + 2) / 60:.2f} (the last participant joins at {OFFSETS[-1]} s)")
    work = Path(args.work)
    media, runs = work / "media", work / "runs"
    media.mkdir(parents=True, exist_ok=True)
    runs.mkdir(parents=True, exist_ok=True)
    files = [make_participant(media, i, seconds) for i in range(4)]
    if args.generate_only:
        print(f"# participant files ready in {media}")
        return
    man = runs / "show.timeline.json"
    man.write_text(json.dumps(manifest(files, seconds, "remix-bench.remix.mp4"), indent=2))
    t_out, f_out = runs / "remix-bench.remix.mp4", runs / "ffmpeg.mp4"
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# tessera mix MANIFEST vs ffmpeg -itsoffset — a {seconds:g} s 2x2 show, {W}x{H}@{FPS}, {PRESET}, {KBPS} kb/s, "
          f"joins at {OFFSETS} s, repeat {args.repeat}")
    print(f"# host: {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, repo HEAD {head}, load {load1()}")
    t_runs, f_runs, ffmpeg_cmd = [], [], None
    for r in range(1, args.repeat + 1):
        order = ["tessera", "ffmpeg"] if r % 2 else ["ffmpeg", "tessera"]
        for who in order:
            if who == "tessera":
                t_out.unlink(missing_ok=True)
                res = timed([args.tessera, "mix", man, "--output-dir", runs], runs / f"tessera.{r}.log")
                t_runs.append(res)
                if ffmpeg_cmd is None:
                    options = sei_options(t_out)
                    if not options:
                        sys.exit(f"error: no x264 SEI in {t_out}")
                    ffmpeg_cmd = ffmpeg_command(files, seconds, x264_params(options), f_out)
                    (runs / "ffmpeg-command.sh").write_text(shlex.join(ffmpeg_cmd) + "\n")
            else:
                f_out.unlink(missing_ok=True)
                res = timed(ffmpeg_cmd, runs / f"ffmpeg.{r}.log")
                f_runs.append(res)
            e, u, s, m = res
            print(f"  run {r} {who:7s} {e:7.2f}s wall {u + s:7.2f}s cpu (user {u:.2f} + sys {s:.2f}) "
                  f"{100 * (u + s) / max(e, 1e-9):4.0f}% cpu {m:5.0f} MB rss  (load {load1()})")
    print(f"  outputs (width,height,frames; expected {W},{H},{int(seconds * FPS)}): "
          f"tessera {frames_of(t_out)} | ffmpeg {frames_of(f_out)}")
    if args.psnr:
        n = int(seconds * FPS)
        r = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-i", t_out, "-i", f_out, "-lavfi",
                            f"[0:v]trim=end_frame={n},setpts=N/({FPS}*TB)[a];[1:v]trim=end_frame={n},setpts=N/({FPS}*TB)[b];"
                            "[a][b]psnr", "-f", "null", "-"], capture_output=True, text=True)
        print("  PSNR tessera vs ffmpeg: " + (r.stderr.strip().splitlines() or ["?"])[-1].split("] ", 1)[-1])
    med = lambda runs_, k: statistics.median(x[k] if k >= 0 else x[1] + x[2] for x in runs_)  # noqa: E731
    te, fe, tc, fc = med(t_runs, 0), med(f_runs, 0), med(t_runs, -1), med(f_runs, -1)
    ratio = te / fe
    pairs = statistics.median(t[0] / f[0] for t, f in zip(t_runs, f_runs))
    print(f"\n== summary (median of {args.repeat}; ratio = tessera wall / ffmpeg wall, lower is better; load now {load1()}) ==")
    print(f"remix {seconds:g}s  tessera {te:.2f}s wall {tc:.2f}s cpu ({seconds / te:.1f}x real time) | "
          f"ffmpeg {fe:.2f}s wall {fc:.2f}s cpu | ratio {ratio:.2f} (per-repeat median {pairs:.2f})  "
          f"(goal < 1: {'met' if ratio < 1 else 'NOT met'})")
    print(f"# manifest, outputs, logs and the ffmpeg command in {runs}")


if __name__ == "__main__":
    main()
