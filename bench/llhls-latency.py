#!/usr/bin/env python3
"""Glass-to-glass latency of Tessera's LL-HLS on loopback, beside classic HLS and RTMP (issue 33).

    bench/llhls-latency.py [--tessera PATH] [--seconds S] [--part 0.333] [--latency low] [--work DIR]
                           [--cdn-viewers N] [--cdn-lock on|off]

Starts its own nginx-rtmp and `tessera serve` on free loopback ports, and one live task: an RTP
input (H.264 + Opus) from a sender that writes raw frames at their wall-clock instants into the
`ffmpeg` command line (x264 ultrafast, zero latency), each frame carrying its number in a strip of
cells, a white flash every 2 s (tests/live/flashclock.py); one region fills the canvas; two
outputs: an LL-HLS playlist (`lowLatency.partSeconds`, a viewer key) served by serve's origin, and
RTMP to nginx. Three readers run at once for the same frames:

- LL-HLS: tests/live/llhls_client.py in low-latency mode, as players do: blocking reloads
  (`_HLS_msn` / `_HLS_part`), each part fetched as soon as it is listed, the preload-hinted part
  requested before it exists; init + parts piped into `ffmpeg` (one thread, no buffering);
- classic HLS: the same client on the same playlist, whole segments, starting three segments from
  the end, reloading every target duration;
- RTMP: `ffmpeg` (nobuffer, low_delay) reading nginx's stream;
- LL-HLS through a CDN: `--cdn-viewers` (2) more of the same low-latency client, all started at
  once, playing the same playlist through Debian's nginx caching the origin
  (tests/live/cdntools.py: the origin's Cache-Control obeyed, the query in the cache key,
  `proxy_cache_lock` as `--cdn-lock`): the first viewer of each part pulls it from the origin, the
  others are collapsed onto that request (nginx's waiters look again every 500 ms).

Delay = the instant a flash frame is decoded − the instant the sender wrote it (CLOCK_MONOTONIC,
one machine). `decoded` is when the client has the picture; `shown` is when a player that starts
playing with its first frame (LL: at PART-HOLD-BACK from the live edge; classic: three segments
back) shows it, stalls included: what a viewer sees. Every numbered frame gives a delay too
(`all frames`, median). The output-clock column splits the path: the frame's tick on the worker's
output clock (its "output frame 0 at CLOCK_MONOTONIC" log line + frame index from the pts) minus
the sender's instant.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "live"))
from benchtools import free_port, nginx_rtmp_command, wait_port  # noqa: E402
from latency import Api, Processes, clock_zero, free_udp_pair  # noqa: E402
from flashclock import Decoder, FlashSender, frame_delays, frame_number, glass_to_glass, rtp_args, rtp_sdp  # noqa: E402
from llhls_client import HLSClient  # noqa: E402
from cdntools import CachingProxy  # noqa: E402

W, H, FPS = 640, 360, 30
KEY = "bench_viewer_key_0123456789"


def run_client(client: HLSClient, seconds: float):
    asyncio.run(client.run(seconds))


def summary(delays: list[float]) -> str:
    if not delays:
        return f"{'-':>7} {'-':>7} {'-':>7} {'-':>7}"
    return (f"{statistics.median(delays) * 1000:7.0f} {percentile(delays, 0.9) * 1000:7.0f} "
            f"{min(delays) * 1000:7.0f} {max(delays) * 1000:7.0f}")


def output_clock_delays(sender: FlashSender, frames, zero: float) -> list[float]:
    """The frame's tick on the output clock (zero + index / fps, index from the pts) − sent."""
    out = []
    for f in frames:
        n = frame_number(f)
        if n is not None and n in sender.sent and f.pts == f.pts:
            out.append(zero + round(f.pts * FPS) / FPS - sender.sent[n])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    parser.add_argument("--seconds", type=float, default=30, help="how long the readers play [30]")
    parser.add_argument("--part", type=float, default=0.333, help="lowLatency.partSeconds [0.333]")
    parser.add_argument("--latency", default="low", help="encoder.video.latency [low]")
    parser.add_argument("--work", default=str(HERE / ".work" / "llhls-latency"))
    parser.add_argument("--cdn-viewers", type=int, default=2, help="LL-HLS viewers through the nginx cache [2]; 0: none")
    parser.add_argument("--cdn-lock", choices=("on", "off"), default="on", help="nginx proxy_cache_lock [on]")
    args = parser.parse_args()
    for tool in ("ffmpeg", "nginx"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "out").mkdir(parents=True)
    procs = Processes()
    sender = None
    cdn = None
    try:
        rtmp_port, api_port = free_port(), free_port()
        procs.start(nginx_rtmp_command(work / "nginx", rtmp_port), stdout=subprocess_devnull(), stderr=subprocess_devnull())
        wait_port(rtmp_port)
        log = work / "serve.log"
        with open(log, "wb") as out:
            procs.start([args.tessera, "serve", "--host", "127.0.0.1", "--port", str(api_port), "--media-root", str(work),
                         "--output-dir", str(work / "out")], stdout=out, stderr=out)
        wait_port(api_port)
        api = Api(f"http://127.0.0.1:{api_port}")
        rtmp = f"rtmp://127.0.0.1:{rtmp_port}/live/g2g"
        video, audio = free_udp_pair(), free_udp_pair()
        doc = {"taskId": "g2g", "inputs": [{"id": "cam", "rtp": {"sdp": rtp_sdp(video, audio)}}],
               "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1500, "gopSeconds": 1,
                                     "preset": "veryfast", "latency": args.latency},
                           "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 64}},
               "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": W, "height": H}]},
               "outputs": [{"url": "ll/room.m3u8", "hls": {"lowLatency": {"partSeconds": args.part}, "viewerKey": KEY}},
                           {"url": rtmp}]}
        code, body = api.call("POST", "/v1/tasks", doc)
        if code != 201:
            raise SystemExit(f"POST answered {code}: {body}")
        warmup = 8.0
        sender = FlashSender(rtp_args(video, audio, FPS), args.seconds + warmup + 5, W, H, FPS,
                             log=open(work / "sender.log", "wb"))
        zero = clock_zero(log, "g2g", 20)
        url = f"http://127.0.0.1:{api_port}/v1/tasks/g2g/hls/{KEY}/room.m3u8"
        if args.cdn_viewers:
            cdn = CachingProxy(work / "cdn", api_port, lock=args.cdn_lock == "on").start()
        deadline = time.monotonic() + 20
        while not (work / "out" / "ll" / "room_00002.m4s").exists():   # three segments: classic can start
            if time.monotonic() > deadline:
                raise SystemExit(f"no LL-HLS segments in {work / 'out' / 'll'}: {api.call('GET', '/v1/tasks/g2g')[1]}")
            time.sleep(0.1)
        time.sleep(max(0.0, warmup - 6))
        low, classic = HLSClient(url, "low", decode=True), HLSClient(url, "classic", decode=True)
        edge = [HLSClient(cdn.url(f"/v1/tasks/g2g/hls/{KEY}/room.m3u8"), "low", decode=True)
                for _ in range(args.cdn_viewers)] if cdn else []
        rtmp_reader = Decoder(rtmp)
        threads = [threading.Thread(target=run_client, args=(c, args.seconds)) for c in (low, classic, *edge)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rtmp_reader.close()
        for c in (low, classic, *edge):
            c.close()
        code, status = api.call("GET", "/v1/tasks/g2g")
        api.call("DELETE", "/v1/tasks/g2g")
        print(f"# LL-HLS glass-to-glass — {W}x{H}@{FPS}, partSeconds {args.part}, latency {args.latency}, "
              f"{args.seconds:.0f} s per reader, {3 + len(edge)} readers at once; {os.cpu_count()} cores, "
              f"load {os.getloadavg()[0]:.2f}")
        hold = low.playlist.server_control.get("PART-HOLD-BACK") if low.playlist else "?"
        print(f"# playlist: PART-TARGET {low.playlist.part_target if low.playlist else '?'}, PART-HOLD-BACK {hold}, "
              f"TARGETDURATION {low.playlist.target_duration if low.playlist else '?'}")
        print()
        print(f"{'path':22} {'flashes':>7}  {'decoded ms: med':>15} {'p90':>7} {'min':>7} {'max':>7}   "
              f"{'shown ms: med':>13} {'p90':>7} {'min':>7} {'max':>7}   {'all frames':>10} {'out clock':>9}")
        shown_ll = []
        rows = [("LL-HLS (parts)", low, low.decoder.snapshot() if low.decoder else []),
                *((f"LL-HLS via CDN #{i + 1}", c, c.decoder.snapshot()) for i, c in enumerate(edge)),
                ("classic HLS (segments)", classic, classic.decoder.snapshot() if classic.decoder else []),
                ("RTMP (nginx)", None, rtmp_reader.snapshot())]
        for name, reader, frames in rows:
            decoded, shown = glass_to_glass(sender, frames), glass_to_glass(sender, frames, "shown")
            if reader is low:
                shown_ll = shown
            every = frame_delays(sender, frames)
            tick = output_clock_delays(sender, frames, zero)
            print(f"{name:22} {len(decoded):7d}  {summary(decoded):>39}   {summary(shown):>37}   "
                  f"{statistics.median(every) * 1000 if every else float('nan'):10.0f} "
                  f"{statistics.median(tick) * 1000 if tick else float('nan'):9.0f}")
        print()
        if shown_ll:
            verdict = "met" if statistics.median(shown_ll) <= 2.0 else "NOT met"
            print(f"goal: LL-HLS flash shown within 2.0 s — {verdict} ({statistics.median(shown_ll):.2f} s median, "
                  f"p90 {percentile(shown_ll, 0.9):.2f} s)")
        for i, c in enumerate(edge):
            shown = glass_to_glass(sender, c.decoder.snapshot(), "shown")
            if shown:
                print(f"      through the CDN, viewer #{i + 1}: {statistics.median(shown):.2f} s median, "
                      f"p90 {percentile(shown, 0.9):.2f} s — {'met' if statistics.median(shown) <= 2.0 else 'NOT met'}")
        if cdn:
            served = cdn.log()
            counts = {k: sum(1 for s in served if s.cache == k) for k in sorted({s.cache for s in served})}
            media = [s for s in served if s.name.endswith((".m4s", ".mp4")) and s.status == 200]
            print(f"CDN (nginx, proxy_cache_lock {args.cdn_lock}): {len(served)} answers {counts}; media "
                  f"{sum(s.cache == 'HIT' for s in media)} HIT of {len(media)}; statuses "
                  f"{sorted({s.status for s in served})}")
        for name, c in (("LL-HLS", low), ("classic", classic), *((f"CDN #{i + 1}", c) for i, c in enumerate(edge))):
            hinted = [f for f in c.fetches if f.hinted]
            held = statistics.median(f.done - f.requested for f in hinted) * 1000 if hinted else float("nan")
            print(f"{name}: {len(c.fetches)} fetches ({len(hinted)} from preload hints, held {held:.0f} ms median), "
                  f"{len(c.reloads)} playlist loads, started at {c.started_at}, stalls {c.decoder.stalls if c.decoder else '?'}, "
                  f"errors {c.errors or 'none'}, hint failures {c.hint_failures or 'none'}")
        print(f"worker cpuSeconds {status.get('cpuSeconds')}")
        print("decoded: the client has the picture; shown: on a player's clock started with its first frame "
              "(stalls move it on); all frames: median over every numbered frame decoded; out clock: the frame's tick on the worker's\n"
              "output clock − the sender's instant (frame index from the pts: ±1 frame between containers)")
    finally:
        if sender is not None:
            sender.stop()
        if cdn is not None:
            cdn.stop()
        procs.stop_all()
    return 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def subprocess_devnull():
    return open(os.devnull, "wb")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # `finally` stops what it started
    sys.exit(main())
