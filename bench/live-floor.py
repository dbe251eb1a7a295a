#!/usr/bin/env python3
"""A live 2x2 720p30 task against the floor of its work: decoding its inputs and encoding its output
(bench/README.md).

    bench/live-floor.py [--content camera|patterns] [--tessera PATH] [--rounds K] [--warmup S] [--window S]
                        [--work DIR] [--no-ffmpeg-mix]

On one of two contents — `camera` (default): the offline benchmark's inputs, four 1280x720 30 fps
H.264 + AAC files (bench/mix-vs-ffmpeg.sh --generate-only), one RTMP output; `patterns`: four
1280x720 30 fps test patterns at 4 Mb/s, one RTMP output and one FLV file — one run prints side by
side:

- the floor, with the `ffmpeg` command line: CPU to decode the four inputs (one thread each, video
  and audio) plus CPU to encode their 2x2 composite (made once, raw) with Tessera's own encoder
  settings (libx264 veryfast, 2500 kb/s CBR, 2 s GOP, scenecut=0:bframes=0, one thread — what
  Tessera's automatic `encoder.video.threads` gives a 720p30 veryfast task; `-tune zerolatency`
  for the low-latency mode) and the AAC track: CPU seconds per second of media, i.e. cores;
- a Tessera live task doing exactly that job (the inputs looping, to an nginx-rtmp of its own),
  in each `encoder.video.latency` mode: its worker's CPU over the window, its late frames, and
  its resident memory at the end of the window (VmRSS, split into RssAnon — the task's own — and
  RssFile — shared-library pages every worker on the node shares — and the peak VmHWM);
- the same live mix as one `ffmpeg` command (-re, scale + overlay + amix, to the same outputs), set
  up as Tessera's task is — one thread per decoder, for the filter graph and for x264 — in each mode:
  its CPU and resident memory;
- the ratios to the floor.

The machines are shared and a single 20 s window swings by ±10 %, so the whole set is measured
`--rounds` times, floor and task taking turns, and the medians are what the summary prints.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from benchtools import free_port, nginx_rtmp_command, wait_port  # noqa: E402
SECONDS = 10
FLOOR_PASSES = 2
W, H, FPS, KBPS = 1280, 720, 30, 2500
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-b:v", f"{KBPS}k", "-maxrate", f"{KBPS}k", "-bufsize", f"{2 * KBPS}k",
        "-g", str(2 * FPS), "-keyint_min", str(2 * FPS), "-x264-params", "scenecut=0:bframes=0", "-pix_fmt", "yuv420p"]
TICK = os.sysconf("SC_CLK_TCK")


def child_cpu(cmd: list[str], system: bool = True) -> float:
    """User (+ system, unless told not to) CPU seconds of one command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + ((after.ru_stime - before.ru_stime) if system else 0)


def ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return int(fields[11]) + int(fields[12])


MEMORY_COLUMNS = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "VmHWM": "hwm"}


def memory(pid: int) -> dict[str, int]:
    """VmRSS, RssAnon, RssFile and VmHWM in MB, under their column names."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in MEMORY_COLUMNS:
            values[MEMORY_COLUMNS[key]] = int(rest.split()[0]) // 1024
    return values


def call(api: str, method: str, path: str, body=None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(api + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def partial(path: Path) -> Path:
    """Where a made-once file is written first: an interrupted run leaves nothing a later one reuses."""
    return path.with_name(f".{path.stem}.partial{path.suffix}")


def floor(inputs: list[Path], composite: Path, low: bool) -> tuple[float, float, float]:
    """Cores to decode the inputs, encode the composite's video, encode its audio. Each runs over
    FLOOR_PASSES plays of the 10 s media, so start-up is a small part of what is measured."""
    loop = ["-stream_loop", str(FLOOR_PASSES - 1)]
    seconds = SECONDS * FLOOR_PASSES
    decode = sum(child_cpu(["ffmpeg", "-v", "error", "-nostdin", "-threads", "1"] + loop + ["-i", str(p), "-f", "null", "-"])
                 for p in inputs)
    if not composite.exists():
        graph = "".join(f"[{i}:v]scale={W // 2}:{H // 2}:flags=area[s{i}];" for i in range(4))
        graph += "[s0][s1][s2][s3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[v]"
        cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y"]
        for p in inputs:
            cmd += ["-i", str(p)]
        subprocess.run(cmd + ["-filter_complex", graph, "-map", "[v]", "-pix_fmt", "yuv420p", "-f", "rawvideo",
                              str(partial(composite))], check=True)
        partial(composite).rename(composite)
    tune = ["-tune", "zerolatency"] if low else []
    # User time only: the system time of this run is the kernel copying 830 MB of raw frames out
    # of the page cache (0.3–1.5 s by perf, varying run to run), a cost of feeding the encoder raw
    # pictures from a file, which a live task does not have.
    video = child_cpu(["ffmpeg", "-v", "error", "-nostdin", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{W}x{H}",
                       "-r", str(FPS)] + loop + ["-i", str(composite)] + X264 + tune + ["-threads", "1", "-f", "null", "-"],
                      system=False)
    audio = child_cpu(["ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i", f"sine=f=440:d={seconds}:sample_rate=48000",
                       "-ac", "2", "-c:a", "aac", "-b:a", "128k", "-f", "null", "-"])
    return decode / seconds, video / seconds, audio / seconds


def task_document(task_id: str, inputs: list[Path], urls: list[str], latency: str) -> dict:
    regions = [{"input": f"in{i + 1}", "x": (i % 2) * W // 2, "y": (i // 2) * H // 2, "width": W // 2, "height": H // 2,
                "renderMode": "stretch"} for i in range(4)]
    return {"taskId": task_id, "pace": "realtime",
            "inputs": [{"id": f"in{i + 1}", "url": p.name, "loop": True} for i, p in enumerate(inputs)],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": KBPS, "gopSeconds": 2,
                                  "preset": "veryfast", "latency": latency},
                        "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
            "layout": {"regions": regions}, "outputs": [{"url": url} for url in urls]}


def tessera_task(api: str, rtmp: str, inputs: list[Path], latency: str, warmup: float, window: float,
                 file_output: bool) -> dict:
    task_id = f"floor-{latency}"
    urls = [f"{rtmp}/{task_id}"] + ([f"{task_id}.flv"] if file_output else [])
    call(api, "POST", "/v1/tasks", task_document(task_id, inputs, urls, latency))
    deadline = time.monotonic() + 30
    while True:
        status = call(api, "GET", f"/v1/tasks/{task_id}")
        if status.get("state") == "running" and status.get("workerPid") and all(o.get("state") == "live" for o in status["outputs"]):
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"{task_id} not running and live after 30 s: {status}")
        time.sleep(0.25)
    pid = status["workerPid"]
    time.sleep(warmup)
    late0, t0, c0 = call(api, "GET", f"/v1/tasks/{task_id}").get("lateFrames", 0), time.monotonic(), ticks(pid)
    time.sleep(window)
    c1, t1 = ticks(pid), time.monotonic()
    mem = memory(pid)
    late1 = call(api, "GET", f"/v1/tasks/{task_id}").get("lateFrames", 0)
    call(api, "DELETE", f"/v1/tasks/{task_id}")
    time.sleep(1.5)
    return {"cores": (c1 - c0) / TICK / (t1 - t0), "late": late1 - late0, **mem}


def ffmpeg_mix(inputs: list[Path], url: str, file: Path | None, low: bool, warmup: float, window: float) -> dict:
    """The same live mix as one `ffmpeg` command, configured as Tessera's task is: one thread per
    decoder, for the filter graph and for x264 (`-tune zerolatency` for the low-latency mode)."""
    graph = f"color=c=black:s={W}x{H}:r={FPS},format=yuv420p[bg]"
    previous, audio = "bg", ""
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-filter_complex_threads", "1"]
    for i, p in enumerate(inputs):
        cmd += ["-threads", "1", "-re", "-stream_loop", "-1", "-i", str(p)]
        # Tessera halves by 2x2 averaging: swscale's area filter, sample for sample.
        graph += f";[{i}:v]scale={W // 2}:{H // 2}:flags=area[s{i}]"
        graph += f";[{previous}][s{i}]overlay=x={(i % 2) * W // 2}:y={(i // 2) * H // 2}:format=yuv420[o{i}]"
        previous, audio = f"o{i}", audio + f"[{i}:a]"
    graph += f";{audio}amix=inputs=4:duration=longest:normalize=0[a]"
    # With a file as well: one encode, two FLV muxers (tee), as Tessera does.
    sink = ["-flags", "+global_header", "-f", "tee", f"[f=flv]{url}|[f=flv]{file}"] if file else ["-f", "flv", url]
    tune = ["-tune", "zerolatency"] if low else []
    cmd += ["-filter_complex", graph, "-map", f"[{previous}]", "-map", "[a]"] + X264 + tune + ["-threads:v", "1",
        "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2", "-t", str(warmup + window + 2)] + sink
    proc = subprocess.Popen(cmd)
    try:
        time.sleep(warmup)
        t0, c0 = time.monotonic(), ticks(proc.pid)
        time.sleep(window)
        c1, t1 = ticks(proc.pid), time.monotonic()
        mem = memory(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    return {"cores": (c1 - c0) / TICK / (t1 - t0), **mem}


def format_row(number: str, latency: str, who: str, row: dict) -> str:
    late = f"{int(row['late']):5d}" if "late" in row else f"{'-':>5}"
    return (f"{number:5} {latency:7} {who:8} {row['decode']:7.3f} {row['encode']:7.3f} {row['floor']:6.3f}"
            f" {row['cores']:6.3f} {row['ratio']:6.2f} {late} {int(row['rss']):7d} {int(row['anon']):5d}"
            f" {int(row['file']):5d} {int(row['hwm']):5d}")


def pattern_inputs(media: Path) -> list[Path]:
    """Four 1280x720 30 fps test patterns, H.264 at 4 Mb/s with a tone each (made once)."""
    media.mkdir(parents=True, exist_ok=True)
    sources = ["testsrc2", "testsrc", "rgbtestsrc", "smptehdbars"]
    inputs = []
    for i, source in enumerate(sources):
        path = media / f"pattern{i + 1}-{SECONDS}s.mp4"
        if not path.exists():
            subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y",
                            "-f", "lavfi", "-i", f"{source}=s={W}x{H}:r={FPS}:d={SECONDS}",
                            "-f", "lavfi", "-i", f"sine=f={330 + 110 * i}:d={SECONDS}:sample_rate=48000",
                            "-c:v", "libx264", "-b:v", "4M", "-maxrate", "4M", "-bufsize", "8M", "-g", str(2 * FPS),
                            "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
                            "-color_trc", "bt709", "-color_range", "tv",
                            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest", str(partial(path))], check=True)
            partial(path).rename(path)
        inputs.append(path)
    return inputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--content", choices=("camera", "patterns"), default="camera",
                        help="camera: the offline benchmark's inputs, one RTMP output; "
                             "patterns: four test patterns at 4 Mb/s, one RTMP output and one FLV file")
    parser.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--window", type=float, default=20)
    parser.add_argument("--work", default=str(HERE / ".work"))
    parser.add_argument("--no-ffmpeg-mix", action="store_true")
    args = parser.parse_args()
    work = Path(args.work)
    media = work / "media"
    patterns = args.content == "patterns"
    if patterns:
        inputs = pattern_inputs(media)
    else:
        subprocess.run([str(HERE / "mix-vs-ffmpeg.sh"), "--generate-only", "--jobs", "2x2", "--seconds", str(SECONDS),
                        "--work", str(work)], check=True, stdout=subprocess.DEVNULL)
        inputs = [media / f"in{i}-v2-{SECONDS}s.mp4" for i in range(1, 5)]
    composite = work / ("composite-patterns.yuv" if patterns else "composite-area.yuv")
    run = work / "floor"
    shutil.rmtree(run, ignore_errors=True)
    (run / "out").mkdir(parents=True)
    processes: list[subprocess.Popen] = []
    try:
        rtmp_port, api_port = free_port(), free_port()
        processes.append(subprocess.Popen(nginx_rtmp_command(run / "nginx", rtmp_port),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with open(run / "serve.log", "wb") as log:
            processes.append(subprocess.Popen([args.tessera, "serve", "--host", "127.0.0.1", "--port", str(api_port),
                                               "--media-root", str(media), "--output-dir", str(run / "out"),
                                               "--log-level", "notice"], stdout=log, stderr=subprocess.STDOUT))
        wait_port(rtmp_port)
        wait_port(api_port)
        api, rtmp = f"http://127.0.0.1:{api_port}", f"rtmp://127.0.0.1:{rtmp_port}/live"
        what = ("four test patterns (4 Mb/s H.264 + AAC), one RTMP output and one FLV file" if patterns
                else "four camera-like H.264 + AAC inputs, one RTMP output")
        print(f"# live floor — 2x2 {W}x{H}@{FPS} veryfast {KBPS} kb/s from {what};"
              f" {args.rounds} rounds of warm-up {args.warmup:g} s + window {args.window:g} s;"
              f" {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        header = (f"{'round':5} {'mode':7} {'who':8} {'decode':>7} {'encode':>7} {'floor':>6} {'cores':>6} {'ratio':>6}"
                  f" {'late':>5} {'RSS MB':>7} {'anon':>5} {'file':>5} {'peak':>5}")
        print(header)
        runners = ["tessera"] + ([] if args.no_ffmpeg_mix else ["ffmpeg"])
        rows: dict[tuple[str, str], list[dict]] = {(latency, who): [] for latency in ("normal", "low") for who in runners}
        for number in range(1, args.rounds + 1):
            for latency in ("normal", "low"):
                low = latency == "low"
                decode, video, audio = floor(inputs, composite, low)
                for who in runners:
                    if who == "tessera":
                        measured = tessera_task(api, rtmp, inputs, latency, args.warmup, args.window, patterns)
                    else:
                        measured = ffmpeg_mix(inputs, f"{rtmp}/ffmpeg-{latency}", run / f"ffmpeg-{latency}.flv" if patterns
                                              else None, low, args.warmup, args.window)
                    row = dict(measured, decode=decode, encode=video + audio, floor=decode + video + audio)
                    row["ratio"] = row["cores"] / row["floor"]
                    rows[(latency, who)].append(row)
                    print(format_row(str(number), latency, who, row), flush=True)
        print()
        print(f"medians of {args.rounds} rounds:")
        print(header)
        medians = {}
        for (latency, who), measured in rows.items():
            medians[(latency, who)] = {key: statistics.median(row[key] for row in measured) for key in measured[0]}
            print(format_row("-", latency, who, medians[(latency, who)]))
        if not args.no_ffmpeg_mix:
            for latency in ("normal", "low"):
                ours, theirs = medians[(latency, "tessera")], medians[(latency, "ffmpeg")]
                print(f"{latency}: tessera / ffmpeg CLI live mix: CPU {ours['cores'] / theirs['cores']:.2f},"
                      f" resident memory {ours['rss'] / theirs['rss']:.2f} (anon {ours['anon'] / theirs['anon']:.2f})")
        print("(cores = CPU seconds per second of media; floor = decode + encode with the ffmpeg CLI, one thread each;"
              " ratio = cores / floor, the median of each round's own ratio; ffmpeg = the same live mix as one"
              " ffmpeg command, one thread per codec and for its filter graph)")
    finally:
        for p in reversed(processes):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
