#!/usr/bin/env python3
"""What per-participant recordings cost a live task (issue 32, bench/README.md): a 2x2 720p30 live
task of four RTP participants, with and without an `{input}` output, its worker's CPU compared.

    bench/per-input-cpu.py [--seconds S] [--warmup S] [--rounds K] [--apart] [--tessera PATH] [--work DIR]

- **Participants**: four `ffmpeg -re -stream_loop -1 … -c copy -f rtp` senders per task, each
  replaying a 20 s 1280x720 30 fps H.264 (2.5 Mb/s, 2 s GOP, parameter sets in band) + Opus
  recording made once in `WORK/media/`: the senders copy, so they cost next to nothing and do
  not take CPU from the task.
- **Tasks**: `plain` (a 2x2 composite, x264 veryfast 2500 kb/s, to an FLV file) and `rec` (the
  same plus `rec/{input}.mkv`: four per-participant recordings). By default both run at the same
  time, each with its own four senders, so both see the same background load (the machines are
  shared); `--apart` runs them one after the other instead.
- **Measured**: after `--warmup` s, the task status' `cpuSeconds` (the worker process' CPU) and
  `frames` are read, and again `--seconds` s later: CPU seconds per second and per 1000 output
  frames of each task, and the added share `rec / plain - 1` (the issue's goal: under 3 %). With
  `--rounds K` the medians of K rounds, the tasks posted in turn first.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from benchtools import free_port, wait_port  # noqa: E402

W, H, FPS, KBPS, CLIP_SECONDS = 1280, 720, 30, 2500, 20
PATTERNS = ["testsrc2", "smptehdbars", "testsrc", "rgbtestsrc"]


def call(api: str, method: str, path: str, body=None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(api + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"{}")


def clip(media: Path, i: int) -> Path:
    path = media / f"participant{i + 1}-{CLIP_SECONDS}s.mkv"
    if path.exists():
        return path
    tmp = path.with_name(f".{path.name}.partial.mkv")
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y",
                    "-f", "lavfi", "-i", f"{PATTERNS[i]}=s={W}x{H}:r={FPS}:d={CLIP_SECONDS},scroll=h=0.003",
                    "-f", "lavfi", "-i", f"sine=f={330 + 110 * i}:d={CLIP_SECONDS}:sample_rate=48000",
                    "-c:v", "libx264", "-preset", "veryfast", "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "5000k",
                    "-g", str(2 * FPS), "-bf", "0", "-x264-params", "repeat-headers=1", "-pix_fmt", "yuv420p",
                    "-c:a", "libopus", "-b:a", "64k", "-ac", "2", "-f", "matroska", str(tmp)], check=True)
    tmp.rename(path)
    return path


def udp_pairs(count: int) -> list[int]:
    """`count` even UDP ports whose odd neighbours are free too (below the ephemeral range)."""
    found, port = [], random.Random(os.getpid()).randrange(24000, 31000) & ~1
    while len(found) < count:
        port = port + 2 if port + 2 < 32700 else 24000
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as a, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as b:
                a.bind(("0.0.0.0", port))
                b.bind(("0.0.0.0", port + 1))
            found.append(port)
        except OSError:
            continue
    return found


class Sender:
    def __init__(self, path: Path, video: int, audio: int, sdp: Path):
        self.sdp = sdp
        sdp.unlink(missing_ok=True)
        self.proc = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                      "-i", str(path), "-map", "0:v", "-c", "copy", "-f", "rtp",
                                      f"rtp://127.0.0.1:{video}?pkt_size=1200", "-map", "0:a", "-c", "copy", "-f", "rtp",
                                      f"rtp://127.0.0.1:{audio}", "-sdp_file", str(sdp)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def text(self) -> str:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.sdp.exists() and self.sdp.read_text().count("m=") == 2:
                return self.sdp.read_text()
            time.sleep(0.05)
        raise SystemExit(f"no SDP at {self.sdp}")

    def stop(self):
        self.proc.kill()
        self.proc.wait(10)


def document(task_id: str, sdps: list[str], per_input: bool) -> dict:
    regions = [{"input": f"p{i + 1}", "x": (i % 2) * W // 2, "y": (i // 2) * H // 2, "width": W // 2, "height": H // 2,
                "renderMode": "stretch"} for i in range(4)]
    outputs = [{"url": f"{task_id}.flv"}] + ([{"url": f"rec-{task_id}/{{input}}.mkv"}] if per_input else [])
    return {"taskId": task_id, "inputs": [{"id": f"p{i + 1}", "rtp": {"sdp": s}} for i, s in enumerate(sdps)],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": KBPS, "gopSeconds": 2,
                                  "preset": "veryfast"},
                        "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
            "layout": {"backgroundColor": "#000000", "regions": regions}, "outputs": outputs}


def reading(api: str, task_id: str) -> tuple[float, float, int, int]:
    st = call(api, "GET", f"/v1/tasks/{task_id}")
    return time.monotonic(), float(st.get("cpuSeconds") or 0), int(st.get("frames", 0)), int(st.get("lateFrames", 0))


def measure(api: str, names: list[str], clips: list[Path], run: Path, warmup: float, seconds: float) -> dict:
    """Posts the named tasks at once (each with its senders), measures them over the same window."""
    senders, tasks = [], []
    try:
        for name in names:
            shutil.rmtree(run / "out" / f"rec-{name}", ignore_errors=True)   # this round's recordings only
            ports = udp_pairs(8)
            mine = [Sender(clips[i], ports[2 * i], ports[2 * i + 1], run / f"{name}-{i}.sdp") for i in range(4)]
            senders += mine
            doc = document(name, [s.text() for s in mine], per_input=name.startswith("rec"))
            call(api, "POST", "/v1/tasks", doc)
            tasks.append(name)
        time.sleep(warmup)
        first = {n: reading(api, n) for n in names}
        time.sleep(seconds)
        last = {n: reading(api, n) for n in names}
        out = {}
        for n in names:
            (t0, c0, f0, l0), (t1, c1, f1, l1) = first[n], last[n]
            out[n] = {"cores": (c1 - c0) / (t1 - t0), "per1000": 1000 * (c1 - c0) / max(f1 - f0, 1),
                      "fps": (f1 - f0) / (t1 - t0), "late": l1 - l0}
        return out
    finally:
        for n in tasks:
            try:
                call(api, "DELETE", f"/v1/tasks/{n}")
            except OSError:
                pass
        for s in senders:
            s.stop()
        time.sleep(1.5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60, help="measured window [60]")
    ap.add_argument("--warmup", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--apart", action="store_true", help="run the two tasks one after the other, not together")
    ap.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    ap.add_argument("--work", default=str(HERE / ".work" / "per-input"))
    args = ap.parse_args()
    work = Path(args.work)
    media, run = work / "media", work / "run"
    media.mkdir(parents=True, exist_ok=True)
    clips = [clip(media, i) for i in range(4)]
    shutil.rmtree(run, ignore_errors=True)
    (run / "out").mkdir(parents=True)
    port = free_port()
    with open(run / "serve.log", "wb") as log:
        serve = subprocess.Popen([args.tessera, "serve", "--host", "127.0.0.1", "--port", str(port), "--media-root",
                                  str(media), "--output-dir", str(run / "out"), "--log-level", "notice"],
                                 stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(port)
        api = f"http://127.0.0.1:{port}"
        print(f"# per-participant recording cost — 2x2 {W}x{H}@{FPS} veryfast {KBPS} kb/s, four RTP H.264 + Opus "
              f"participants (720p 2.5 Mb/s); {args.rounds} round(s) of warm-up {args.warmup:g} s + window "
              f"{args.seconds:g} s, tasks {'apart' if args.apart else 'together'}; {os.cpu_count()} cores, "
              f"load {os.getloadavg()[0]:.2f}")
        print(f"{'round':5} {'task':6} {'cpu s/s':>8} {'cpu s/1000 frames':>18} {'fps':>6} {'late':>5}")
        rows: dict[str, list[dict]] = {"plain": [], "rec": []}
        for number in range(1, args.rounds + 1):
            names = ["plain", "rec"] if number % 2 else ["rec", "plain"]
            results = {}
            if args.apart:
                for n in names:
                    results.update(measure(api, [n], clips, run, args.warmup, args.seconds))
            else:
                results = measure(api, names, clips, run, args.warmup, args.seconds)
            for n in ("plain", "rec"):
                r = results[n]
                rows[n].append(r)
                print(f"{number:<5} {n:6} {r['cores']:8.3f} {r['per1000']:18.2f} {r['fps']:6.1f} {r['late']:5d}", flush=True)
        med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in rows.items()}
        added = 100 * (med["rec"]["per1000"] / med["plain"]["per1000"] - 1)
        added_s = 100 * (med["rec"]["cores"] / med["plain"]["cores"] - 1)
        files = sorted(p.name for p in (run / "out").glob("rec-rec/*"))
        sizes = {p.name: p.stat().st_size for p in (run / "out").glob("rec-rec/*")}
        print(f"\n== medians of {args.rounds}: plain {med['plain']['cores']:.3f} cores ({med['plain']['per1000']:.2f} "
              f"cpu s / 1000 frames), with {{input}} recordings {med['rec']['cores']:.3f} cores "
              f"({med['rec']['per1000']:.2f}); added {added:+.1f} % per output frame, {added_s:+.1f} % per second "
              f"(goal < 3 %: {'met' if added < 3 else 'NOT met'}); load now {os.getloadavg()[0]:.2f}")
        print(f"# recordings of the last `rec` task: {files} ({sizes})")
    finally:
        serve.terminate()
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
