#!/usr/bin/env python3
"""The cost of Tessera's HLS origin: N concurrent LL-HLS players of one live task on loopback.

    bench/origin-clients.py [--clients 200] [--seconds 30] [--baseline 10] [--part 0.333] [--tessera PATH]

Starts `tessera serve` on a free loopback port and one live task (a looping 640x360 testsrc2 file,
x264 veryfast, `latency: low`) with an LL-HLS output (`lowLatency.partSeconds`, a viewer key).
Then, in this one process (asyncio), N players of tests/live/llhls_client.py in low-latency mode,
as players do: blocking playlist reloads (`_HLS_msn` / `_HLS_part`), every part fetched as soon
as it is listed, the preload-hinted part requested before it exists (three keep-alive connections
each). They join over the first two seconds and all stop S seconds after the last joined.

CPU (utime + stime from /proc) of `serve` and of the worker is read over a baseline window with no
player and over the window with N; the difference per player is the origin's cost per viewer (the
worker should not change: it writes the same parts whoever reads them). Then, per player: every
part from the one it started with to the last it got, none missing (part counts per segment from
the playlists it read), no error, no hinted part refused; how far behind the live edge it ended.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "live"))
from benchtools import free_port, wait_port  # noqa: E402
from latency import Api, Processes  # noqa: E402
from llhls_client import HLSClient  # noqa: E402

KEY = "origin_bench_key_0123456789"
HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2:].split()[1]) == pid:
                out.append(int(entry))
    return out


def missing_parts(client: HLSClient, counts: dict[int, int]) -> list[tuple[int, int]]:
    """Parts between the first and the last this player got that it did not get."""
    got = sorted(set(client.parts_fetched()))
    if not got:
        return [("no part", 0)]
    want, (msn, part) = [], got[0]
    while (msn, part) <= got[-1]:
        want.append((msn, part))
        if msn in counts and part + 1 >= counts[msn]:
            msn, part = msn + 1, 0
        else:
            part += 1
        if len(want) > 100000:
            break
    have = set(got)
    return [p for p in want if p not in have]


async def players(url: str, n: int, seconds: float) -> list[HLSClient]:
    clients = [HLSClient(url, "low", timeout=20) for _ in range(n)]
    end = time.monotonic() + 2.0 + seconds

    async def one(i: int, c: HLSClient):
        await asyncio.sleep(2.0 * i / n)   # joining over two seconds, as viewers do; all stop together
        await c.run(end - time.monotonic())

    await asyncio.gather(*(one(i, c) for i, c in enumerate(clients)))
    return clients


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessera", default=str(REPO / ".build" / "release" / "tessera"))
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--baseline", type=float, default=10)
    parser.add_argument("--part", type=float, default=0.333)
    parser.add_argument("--work", default=str(HERE / ".work" / "origin-clients"))
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 3 * args.clients + 256)), hard))
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "out").mkdir(parents=True)
    media = work / "pattern.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=10", "-f", "lavfi",
                    "-i", "sine=frequency=440:duration=10", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", str(media)], check=True)
    procs = Processes()
    try:
        port = free_port()
        with open(work / "serve.log", "wb") as out:
            serve = procs.start([args.tessera, "serve", "--host", "127.0.0.1", "--port", str(port), "--media-root", str(work),
                                 "--output-dir", str(work / "out")], stdout=out, stderr=out)
        wait_port(port)
        api = Api(f"http://127.0.0.1:{port}")
        doc = {"taskId": "many", "inputs": [{"id": "cam", "url": str(media), "loop": True}],
               "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 1200, "gopSeconds": 1,
                                     "preset": "veryfast", "latency": "low"},
                           "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
               "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": 640, "height": 360}]},
               "outputs": [{"url": "ll/room.m3u8", "hls": {"lowLatency": {"partSeconds": args.part}, "viewerKey": KEY}}]}
        code, body = api.call("POST", "/v1/tasks", doc)
        if code != 201:
            raise SystemExit(f"POST answered {code}: {body}")
        deadline = time.monotonic() + 20
        while not (work / "out" / "ll" / "room_00001.m4s").exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"no LL-HLS segments: {api.call('GET', '/v1/tasks/many')[1]}")
            time.sleep(0.1)
        workers = children(serve.pid)
        if len(workers) != 1:
            raise SystemExit(f"expected one worker under serve {serve.pid}, found {workers}")
        worker = workers[0]
        url = f"http://127.0.0.1:{port}/v1/tasks/many/hls/{KEY}/room.m3u8"

        def window(body):
            s0, w0, me0, t0 = cpu_seconds(serve.pid), cpu_seconds(worker), time.process_time(), time.monotonic()
            result = body()
            s1, w1, me1, t1 = cpu_seconds(serve.pid), cpu_seconds(worker), time.process_time(), time.monotonic()
            return result, (s1 - s0) / (t1 - t0), (w1 - w0) / (t1 - t0), (me1 - me0) / (t1 - t0)

        _, base_serve, base_worker, _ = window(lambda: time.sleep(args.baseline))
        clients, load_serve, load_worker, load_me = window(lambda: asyncio.run(players(url, args.clients, args.seconds)))
        _, status = api.call("GET", "/v1/tasks/many")
        api.call("DELETE", "/v1/tasks/many")

        counts: dict[int, int] = {}   # every playlist a player read told it how many parts each segment had
        for c in clients:
            counts.update(c.part_counts)
        incomplete = {i: missing_parts(c, counts) for i, c in enumerate(clients)}
        incomplete = {i: m for i, m in incomplete.items() if m}
        errors = {i: c.errors for i, c in enumerate(clients) if c.errors}
        refused = [h for c in clients for h in c.hint_failures]
        bad_status = sum(1 for c in clients for f in c.fetches if f.status != 200)
        parts = [len(c.parts_fetched()) for c in clients]
        hinted = [sum(f.hinted for f in c.fetches) / max(1, len(c.fetches)) for c in clients]
        # At the common end a player may be waiting for the newest part still: one behind is on time.
        order = sorted({p for c in clients for p in c.parts_fetched()})
        on_time = set(order[-2:])
        behind = sum(1 for c in clients if not c.parts_fetched() or c.parts_fetched()[-1] not in on_time)
        fetch_times = [f.done - f.requested for c in clients for f in c.fetches if not f.hinted and f.part is not None]

        print(f"# origin cost — {args.clients} LL-HLS players of one task (640x360@30, partSeconds {args.part}), "
              f"{args.seconds:.0f} s, loopback; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        print(f"{'':28} {'serve %CPU':>10} {'worker %CPU':>11} {'players (this process) %CPU':>28}")
        print(f"{'no player':28} {base_serve * 100:10.1f} {base_worker * 100:11.1f} {'-':>28}")
        print(f"{f'{args.clients} players':28} {load_serve * 100:10.1f} {load_worker * 100:11.1f} {load_me * 100:28.1f}")
        per = (load_serve - base_serve) / args.clients
        print(f"per player: serve {per * 1000:.2f} ms CPU per second ({per * 100:.3f} % of a core), "
              f"worker {(load_worker - base_worker) / args.clients * 1000:+.2f} ms/s; worker cpuSeconds {status.get('cpuSeconds')}")
        print(f"parts per player: median {statistics.median(parts):.0f} (min {min(parts)}, max {max(parts)}), "
              f"{statistics.median(hinted) * 100:.0f} % of fetches from preload hints; listed-part fetch "
              f"median {statistics.median(fetch_times) * 1000 if fetch_times else float('nan'):.1f} ms")
        print(f"every player got every part from its first to its last: {'YES' if not incomplete else 'NO'} "
              f"({len(incomplete)} players missing parts{', e.g. ' + str(next(iter(incomplete.items())))[:200] if incomplete else ''})")
        print(f"errors: {len(errors)} players{' e.g. ' + str(next(iter(errors.values())))[:300] if errors else ''}; "
              f"non-200 answers {bad_status}; hinted parts refused {len(refused)}{' e.g. ' + refused[0][:200] if refused else ''}; "
              f"players behind the newest part at the end: {behind}")
    finally:
        procs.stop_all()
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # `finally` stops what it started
    sys.exit(main())
