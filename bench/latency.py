#!/usr/bin/env python3
"""The delay Tessera adds to a live stream, in each `encoder.video.latency` mode (bench/README.md).

    bench/latency.py [--tessera PATH] [--seconds S] [--work DIR]

Starts its own nginx-rtmp and `tessera serve` on free loopback ports. Then, for each mode:

1. Added delay. A sender (tests/live/flashclock.py: Python writing raw frames, each carrying its
   number, at their wall-clock instants into the `ffmpeg` command line: x264 ultrafast, zero
   latency) flashes white every two seconds. The same sender is pushed (a) straight to nginx over
   RTMP and (b) as RTP into a Tessera task whose one region fills the canvas, published to nginx.
   A player (`ffmpeg`, no buffering, low delay; flashclock's decoder) reads each stream back and
   notes when each flash arrives. Delay = arrival - the instant that flash frame (by its number)
   was written; Tessera's share = median via Tessera - median direct.
2. POST → first RTMP packet: the time from `POST /v1/tasks` answering to nginx-rtmp starting the
   stream's publish (its `exec_publish` hook writes the time), and to the worker's output clock
   starting.
3. Mix to room: the same flashes sent as RTP (a) straight to an RTP player and (b) into a Tessera
   task whose RTP output (H.264 constrained baseline + Opus, what an SFU forwards to the room) goes
   to the same kind of player, which reads nothing but the SDP from the output's status. Tessera's
   share = a participant's packet in to the mixed packet out, with the player's own decoding
   taken away (median via Tessera - median direct).
4. PATCH → first frame that shows it: a task painting its background blue is PATCHed to red; the
   first red frame's output time (frame index from its timestamp, the output clock's zero from the
   worker's log line, both on CLOCK_MONOTONIC) minus the moment the PATCH answered, in ms and in
   output frames.

Everything runs on one machine, so every time is read from one clock (CLOCK_MONOTONIC).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
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
sys.path.insert(0, str(REPO / "tests" / "live"))
from benchtools import free_port, nginx_rtmp_command, wait_port  # noqa: E402
from flashclock import SMALL_H, SMALL_W, VIDEO_CODEC, Decoder, FlashSender, glass_to_glass, rtp_args, rtp_sdp  # noqa: E402
FPS = 30
W, H = 640, 360
# A flash every two seconds.
FLASH_EVERY = 2 * FPS


def free_udp_pair() -> int:
    for _ in range(100):
        port = free_port(socket.SOCK_DGRAM)
        port -= port % 2
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as a, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise SystemExit("no free UDP port pair")


class Processes:
    """Every process this benchmark starts, stopped by its PID at the end."""

    def __init__(self):
        self.procs: list[subprocess.Popen] = []

    def start(self, cmd, **kw) -> subprocess.Popen:
        p = subprocess.Popen(cmd, **kw)
        self.procs.append(p)
        return p

    def stop(self, p: subprocess.Popen, timeout: float = 5) -> None:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop_all(self) -> None:
        for p in reversed(self.procs):
            self.stop(p)


class Api:
    def __init__(self, base: str):
        self.base = base

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")


def play(procs: Processes, url: str, copyts: bool = False, sdp: bool = False) -> Decoder:
    """`ffmpeg` reading an RTMP stream (or, `sdp`, an SDP file's RTP) with no buffering and a
    player's probe (5 MB, 3 s); per decoded frame: arrival time (CLOCK_MONOTONIC), timestamp and
    the frame, shrunk to 64x36 RGB. With `copyts`, the stream's own timestamps."""
    # An SDP file (RTP) is read with no reordering wait: the loopback never reorders.
    source = (["-protocol_whitelist", "file,udp,rtp", "-reorder_queue_size", "0"] if sdp else ["-rw_timeout", "30000000"])
    return Decoder(url, options=["-probesize", "5000000", "-analyzeduration", "3000000", *source], copyts=copyts,
                   start=procs.start)


def flash_sender(procs: Processes, output_args: list[str], seconds: float) -> FlashSender:
    """Numbered grey frames written at their wall-clock instants into ffmpeg, with a (silent) voice
    as a host's app sends it, so both paths carry audio and video; every two seconds a white one."""
    return FlashSender(output_args, seconds, W, H, FPS, FLASH_EVERY, log=sys.stderr, start=procs.start)


def watch_flashes(procs, sender: FlashSender, url: str, settle: float, sdp: bool = False) -> list[float]:
    """Plays `url` from `settle` seconds after the sender started until it ends; the delay of each
    flash seen (found by its frame number): its arrival minus the instant it was written."""
    time.sleep(settle)
    player = play(procs, url, sdp=sdp)
    sender.join()
    time.sleep(1.0)
    frames = player.snapshot()
    procs.stop(player.proc)
    if not frames:
        print(f"# the player of {url} saw no frame: {player.log[-12:]}", file=sys.stderr)
    return glass_to_glass(sender, frames)


def measure_flashes(procs, rtmp, api, mode: str, seconds: float, tag: str) -> tuple[list[float], list[float]]:
    # (a) straight to nginx.
    direct_name = f"direct-{tag}"
    sender = flash_sender(procs, ["-map", "0:v", "-map", "1:a", *VIDEO_CODEC, "-g", str(FPS), "-c:a", "aac", "-b:a", "64k",
                                  "-shortest", "-f", "flv", f"{rtmp}/{direct_name}"], seconds)
    direct = watch_flashes(procs, sender, f"{rtmp}/{direct_name}", settle=1.0)

    # (b) RTP into a Tessera task, published to nginx.
    port, audio_port = free_udp_pair(), free_udp_pair()
    task_id = f"flash-{tag}"
    doc = {"taskId": task_id, "pace": "realtime", "inputs": [{"id": "cam", "rtp": {"sdp": rtp_sdp(port, audio_port)}}],
           "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1500, "preset": "veryfast",
                                 "latency": mode}},
           "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": W, "height": H}]},
           "outputs": [{"url": f"{rtmp}/{task_id}"}]}
    code, body = api.call("POST", "/v1/tasks", doc)
    if code != 201:
        raise SystemExit(f"POST answered {code}: {body}")
    sender = flash_sender(procs, rtp_args(port, audio_port, FPS), seconds)
    via = watch_flashes(procs, sender, f"{rtmp}/{task_id}", settle=1.5)
    api.call("DELETE", f"/v1/tasks/{task_id}")
    return direct, via


def measure_room(procs, api, mode: str, seconds: float, tag: str, work: Path) -> tuple[list[float], list[float]]:
    """Flashes as RTP straight to a player, and through a Tessera task's RTP output."""
    # (a) straight to the player.
    port, audio_port = free_udp_pair(), free_udp_pair()
    direct_sdp = work / f"room-direct-{tag}.sdp"
    direct_sdp.write_text(rtp_sdp(port, audio_port))
    sender = flash_sender(procs, rtp_args(port, audio_port, FPS), seconds)
    direct = watch_flashes(procs, sender, str(direct_sdp), settle=1.0, sdp=True)

    # (b) into a task, out of its RTP output.
    port, audio_port = free_udp_pair(), free_udp_pair()
    out_port = free_udp_pair()
    task_id = f"room-{tag}"
    doc = {"taskId": task_id, "inputs": [{"id": "cam", "rtp": {"sdp": rtp_sdp(port, audio_port)}}],
           "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1500, "preset": "veryfast",
                                 "latency": mode}},
           "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": W, "height": H}]},
           "outputs": [{"url": f"rtp://127.0.0.1:{out_port}"}]}
    code, body = api.call("POST", "/v1/tasks", doc)
    if code != 201:
        raise SystemExit(f"POST answered {code}: {body}")
    room_sdp = work / f"room-via-{tag}.sdp"
    for _ in range(50):
        outputs = api.call("GET", f"/v1/tasks/{task_id}")[1].get("outputs", [])
        if outputs and outputs[0].get("sdp"):
            room_sdp.write_text(outputs[0]["sdp"])
            break
        time.sleep(0.1)
    else:
        raise SystemExit(f"{task_id}: the RTP output reported no SDP")
    sender = flash_sender(procs, rtp_args(port, audio_port, FPS), seconds)
    via = watch_flashes(procs, sender, str(room_sdp), settle=1.5, sdp=True)
    api.call("DELETE", f"/v1/tasks/{task_id}")
    return direct, via


def colour_task(task_id: str, url: str, colour: str, mode: str, media: Path) -> dict:
    return {"taskId": task_id, "pace": "realtime",
            "inputs": [{"id": "pattern", "url": str(media), "loop": True}],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1000, "preset": "veryfast",
                                  "latency": mode}},
            "layout": {"backgroundColor": colour,
                       "regions": [{"input": "pattern", "x": 0, "y": 0, "width": W // 2, "height": H // 2}]},
            "outputs": [{"url": url}]}


def clock_zero(log: Path, task_id: str, timeout: float = 10) -> float:
    # When output frame 0 left: the clock's zero plus the wait for the inputs' first pictures.
    pattern = re.compile(rf"tessera worker {re.escape(task_id)}: output frame 0 at CLOCK_MONOTONIC ([0-9.]+) s")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = pattern.search(log.read_text(errors="replace"))
        if m:
            return float(m.group(1))
        time.sleep(0.1)
    raise SystemExit(f"no output-clock line for {task_id} in {log}")


def measure_post_and_patch(procs, rtmp, api, mode: str, media: Path, log: Path, tag: str) -> tuple[float, float, float, float]:
    task_id = f"patch-{tag}"
    url = f"{rtmp}/{task_id}"
    player = play(procs, url, copyts=True)
    time.sleep(1.0)  # the player is waiting on the unpublished stream
    code, body = api.call("POST", "/v1/tasks", colour_task(task_id, url, "#0000FF", mode, media))
    posted, posted_wall = time.monotonic(), time.time()
    if code != 201:
        raise SystemExit(f"POST answered {code}: {body}")
    zero = clock_zero(log, task_id)
    published = log.parent / f"published-{task_id}"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not (published.exists() and published.read_text().strip()):
        time.sleep(0.01)
    if not published.exists():
        raise SystemExit("nginx ran no exec_publish (libnginx-mod-rtmp without exec?)")
    publish_ms = (float(published.read_text()) - posted_wall) * 1000
    time.sleep(2.0)
    doc = colour_task(task_id, url, "#FF0000", mode, media)
    code, body = api.call("PATCH", f"/v1/tasks/{task_id}", {"layout": doc["layout"]})
    patched = time.monotonic()
    if code != 200:
        raise SystemExit(f"PATCH answered {code}: {body}")
    time.sleep(1.5)
    frames = player.snapshot()
    procs.stop(player.proc)
    api.call("DELETE", f"/v1/tasks/{task_id}")
    # Frame index from the stream timestamp: frame N at N / fps plus the AAC priming every Tessera
    # output is shifted by (1024 samples at 48 kHz).
    for frame in frames:
        if frame.pts != frame.pts:      # no timestamp read for it (NaN)
            continue
        r, g, b = frame.pixel(SMALL_W - 4, SMALL_H - 4)
        if r > 150 and b < 100:
            index = round((frame.pts - 1024 / 48000) * FPS)
            left = zero + index / FPS
            return publish_ms, (zero - posted) * 1000, (left - patched) * 1000, (left - patched) * FPS
    raise SystemExit("no red frame after the PATCH")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    parser.add_argument("--seconds", type=float, default=20, help="length of each flash run [20]")
    parser.add_argument("--work", default=str(HERE / ".work" / "latency"))
    args = parser.parse_args()
    for tool in ("ffmpeg", "nginx"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "out").mkdir()
    media = work / "pattern.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=5", "-c:v", "libx264",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(media)], check=True)

    procs = Processes()
    try:
        rtmp_port = free_port()
        procs.start(nginx_rtmp_command(work / "nginx", rtmp_port,
                                       f'exec_publish /bin/sh -c "date +%s.%N > {work}/published-$name";'),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(rtmp_port)
        api_port = free_port()
        log = work / "serve.log"
        with open(log, "wb") as out:
            procs.start([args.tessera, "serve", "--host", "127.0.0.1", "--port", str(api_port), "--media-root", str(work),
                         "--output-dir", str(work / "out"), "--log-level", "info"], stdout=out, stderr=subprocess.STDOUT)
        wait_port(api_port)
        api = Api(f"http://127.0.0.1:{api_port}")
        rtmp = f"rtmp://127.0.0.1:{rtmp_port}/live"
        print(f"# latency — {W}x{H}@{FPS}, sender x264 ultrafast zero-latency, player ffmpeg nobuffer/low_delay; "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        results = {}
        room_results = {}
        for mode in ("normal", "low"):
            direct, via = measure_flashes(procs, rtmp, api, mode, args.seconds, mode)
            if not direct or not via:
                raise SystemExit(f"{mode}: flashes seen direct {len(direct)}, via Tessera {len(via)}")
            first_ms, zero_ms, patch_ms, patch_frames = measure_post_and_patch(procs, rtmp, api, mode, media, log, mode)
            d, v = statistics.median(direct) * 1000, statistics.median(via) * 1000
            results[mode] = (d, v, v - d, first_ms, zero_ms, patch_ms, patch_frames, len(direct), len(via))
            room_direct, room_via = measure_room(procs, api, mode, args.seconds, mode, work)
            if not room_direct or not room_via:
                raise SystemExit(f"{mode}: room flashes seen direct {len(room_direct)}, via Tessera {len(room_via)}")
            rd, rv = statistics.median(room_direct) * 1000, statistics.median(room_via) * 1000
            room_results[mode] = (rd, rv, rv - rd, min(room_via) * 1000 - rd, max(room_via) * 1000 - rd,
                                  len(room_direct), len(room_via))
        print()
        print(f"{'mode':8} {'direct ms':>10} {'via tessera':>12} {'added ms':>9} {'POST→publish':>13} {'(clock zero)':>13} "
              f"{'PATCH→frame ms':>15} {'frames':>7}  flashes")
        for mode, (d, v, added, first_ms, zero_ms, patch_ms, patch_frames, nd, nv) in results.items():
            print(f"{mode:8} {d:10.0f} {v:12.0f} {added:9.0f} {first_ms:13.0f} {zero_ms:13.0f} {patch_ms:15.1f} {patch_frames:7.2f}  {nd}/{nv}")
        print()
        print("mix to room (RTP in → RTP out, H.264 constrained baseline + Opus):")
        print(f"{'mode':8} {'direct ms':>10} {'via tessera':>12} {'added ms':>9} {'added min':>10} {'added max':>10}  flashes")
        for mode, (d, v, added, low, high, nd, nv) in room_results.items():
            print(f"{mode:8} {d:10.0f} {v:12.0f} {added:9.0f} {low:10.0f} {high:10.0f}  {nd}/{nv}")
        print()
        print("mix to room: sender → RTP → player, and sender → RTP → Tessera → RTP output → player (the output's SDP);")
        print("direct: sender → nginx → player; via tessera: sender → RTP → Tessera → nginx → player (medians);")
        print("POST→publish: the POST answering to nginx-rtmp starting the stream's publish (exec_publish; the first")
        print("media packets follow at once); (clock zero): to the worker's output clock starting;")
        print("PATCH→frame: when the first frame showing the update left Tessera's output clock, after the PATCH answered")
        print("(negative: the frame was due before the answer reached the client).")
    finally:
        procs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
