"""RTP senders whose clocks drift: three participants (H.264 + Opus) sent by the `ffmpeg` command
line at 1.002, 1.000 and 0.998 times real time (`-readrate`), mixed for 90 s (three minutes with
TESSERA_DRIFT_SECONDS=180, ten with 600) while one core is kept busy. Uncorrected, 0.2 % of drift
moves a voice 180 ms in 90 s, past the 100 ms the check allows. Every voice must be heard every second,
without cuts, at a delay that stays where it started, in sync with its picture.

Each sender flashes its colour and raises its tone for the first half of every second of ITS OWN
clock, so in the mix the onsets of sender k follow its clock: onset n should come at
start + n / readrate if its delay holds. The tone goes on at a lower level for the other half, so
a cut shows as a dip anywhere.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from helpers import decode_audio
from livetools import FPS, H, W, read_packets
from rtptools import RtpSender, free_udp_pair

# serial: it keeps a core busy itself and measures voices' delays to 100 ms, which a parallel
# test on the other core would push further than the hog it is written for.
pytestmark = [pytest.mark.live, pytest.mark.serial]

SECONDS = int(os.environ.get("TESSERA_DRIFT_SECONDS", "90"))
WARM_UP = 8.0          # output seconds before the checks: senders start, first sender reports
RATE = 48000
HOP = 240              # 5 ms
WINDOW = 960           # 20 ms
LOW, HIGH = 0.08, 0.24
# (readrate, tone Hz, colour, region origin in a 2 × 2 grid of 160 × 120)
SENDERS = [(1.002, 500.0, (255, 255, 0), (0, 0)),
           (1.000, 800.0, (0, 255, 255), (160, 0)),
           (0.998, 1250.0, (255, 0, 255), (0, 120))]


def flash(rgb) -> str:
    r, g, b = rgb
    on = r"lt(mod(T\,1)\,0.5)"
    return (f"nullsrc=s=160x120:r=30,format=rgb24,geq=r='if({on}\\,{r}\\,0)':g='if({on}\\,{g}\\,0)':b='if({on}\\,{b}\\,0)',"
            "format=yuv420p")


def tone(freq: float) -> str:
    return f"aevalsrc=exprs='({LOW}+{HIGH - LOW}*lt(mod(t\\,1)\\,0.5))*sin(2*PI*{freq}*t)':s=48000"


@pytest.fixture
def busy_core():
    """One core kept busy for the whole test, as a loaded machine would."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    yield hog
    hog.kill()
    hog.wait(10)


def envelope(pcm: np.ndarray, freq: float) -> np.ndarray:
    """Amplitude of the `freq` sinusoid in 20 ms Hann windows every 5 ms (a sine of amplitude A gives A)."""
    n = (len(pcm) - WINDOW) // HOP
    index = np.arange(WINDOW)[None, :] + HOP * np.arange(n)[:, None]
    w = np.hanning(WINDOW)
    carrier = np.exp(-2j * np.pi * freq * np.arange(len(pcm)) / RATE)
    return 2 * np.abs(np.sum((pcm * carrier)[index] * w, axis=1)) / np.sum(w)


def rising(levels: np.ndarray, threshold: float, floor: float | None = None) -> list[float]:
    """Indices (fractional) where `levels` rises through `threshold`; with `floor`, only rises
    from the tone's low half 50 and 100 ms before (between `floor` and `threshold`), not the end
    of a gap."""
    up = np.nonzero((levels[1:] > threshold) & (levels[:-1] <= threshold))[0]
    if floor is not None:
        up = [i for i in up if i >= 20 and all(floor < levels[i - k] < threshold for k in (10, 20))]
    return [i + (threshold - levels[i]) / (levels[i + 1] - levels[i]) for i in up]


def delay_excursion(onsets: list[float], readrate: float) -> tuple[float, list[float]]:
    """Largest change of delay (s) against the first onsets: onset n of a sender that holds its
    delay comes at start + n / readrate, whatever its clock."""
    first = onsets[0]
    numbers = [round((o - first) * readrate) for o in onsets]
    delays = [o - n / readrate for o, n in zip(onsets, numbers)]
    start = float(np.median(delays[:5]))
    # Median of five neighbours: an onset misread next to a gap is not a change of delay.
    held = [float(np.median(delays[i:i + 5])) for i in range(max(1, len(delays) - 4))]
    return max(abs(d - start) for d in held), delays


def test_drifting_senders_keep_voice_delay_and_sync(api, tessera_server, senders, tmp_path, busy_core):
    inputs, regions = [], []
    for index, (readrate, freq, rgb, (x, y)) in enumerate(SENDERS):
        sender = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), rgb, freq, name=f"s{index}", gop=30,
                           video_source=flash(rgb), audio_source=tone(freq), readrate=readrate).start()
        senders.append(sender)
        inputs.append({"id": f"s{index}", "rtp": {"sdp": sender.sdp()}})
        regions.append({"input": f"s{index}", "x": x, "y": y, "width": W // 2, "height": H // 2})
    api.create({"taskId": "drift", "inputs": inputs,
                "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 600, "gopSeconds": 1,
                                      "preset": "ultrafast"},
                            "audio": {"sampleRate": RATE, "channels": 1, "bitrateKbps": 96}},
                "layout": {"backgroundColor": "#000000", "regions": regions},
                "outputs": [{"url": "drift.flv"}]})
    time.sleep(SECONDS)
    status = {i["id"]: i for i in api.status("drift")["inputs"]}
    assert api.delete("/v1/tasks/drift").status == 200
    out = tessera_server.out / "drift.flv"

    packets = read_packets(out)
    first_audio = min(p.pts for p in packets if p.kind == "audio")
    video_times = sorted(p.pts for p in packets if p.kind == "video")
    pcm = decode_audio(out, RATE, 1)[:, 0].astype(np.float64)
    start = int(WARM_UP * RATE)
    # Small frames of each sender's region: its mean level flashes with its colour.
    raw = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(out), "-map", "0:v:0",
                          "-fps_mode", "passthrough", "-vf", "scale=4:4:flags=area", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, timeout=600).stdout
    luma = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 4, 4).astype(np.float64)
    frames = min(len(luma), len(video_times))

    report, problems = [], []
    for index, (readrate, freq, _, (x, y)) in enumerate(SENDERS):
        env = envelope(pcm[start:], freq)
        times = first_audio + WARM_UP + np.arange(len(env)) * HOP / RATE + WINDOW / 2 / RATE
        # Every second holds the tone; no 20 ms window of it falls to half its low level.
        seconds = [float(env[int(s * RATE / HOP):int((s + 1) * RATE / HOP)].mean())
                   for s in range(int(len(env) * HOP / RATE))]
        silent_seconds = [s for s, level in enumerate(seconds) if level < LOW / 2]
        dips = int(np.sum(env < LOW / 2))
        dip_times = sorted({round(float(times[i]) - first_audio, 1) for i in np.nonzero(env < LOW / 2)[0]})
        audio_onsets = [float(np.interp(i, np.arange(len(times)), times)) for i in rising(env, (LOW + HIGH) / 2, LOW / 2)]
        excursion, _ = delay_excursion(audio_onsets, readrate)
        cell = luma[:frames, y // 60:y // 60 + 2, x // 80:x // 80 + 2].mean(axis=(1, 2))
        threshold = (cell.max() + cell.min()) / 2
        video_onsets = [float(np.interp(i, np.arange(frames), video_times[:frames])) for i in rising(cell, threshold)]
        video_onsets = [v for v in video_onsets if v >= first_audio + WARM_UP]
        # Flashes whose tone onset fell in a gap have no partner; the rest must all be in sync.
        sync = [o for o in (min(audio_onsets, key=lambda a: abs(a - v)) - v for v in video_onsets) if abs(o) < 0.2]
        if len(sync) < 0.9 * len(video_onsets):
            problems.append(f"s{index}: only {len(sync)} of {len(video_onsets)} flashes have their tone onset within 200 ms")
        s = status[f"s{index}"]["packets"]
        report.append(f"s{index} readrate {readrate}: {len(audio_onsets)} tone onsets, delay excursion "
                      f"{excursion * 1000:.0f} ms, {dips} dips of 5 ms ({dip_times[:8]} s), silent seconds {silent_seconds[:5]}, "
                      f"sound - picture {1000 * min(sync):.0f}..{1000 * max(sync):.0f} ms (median "
                      f"{1000 * float(np.median(sync)):.0f}), drift {s['clockDriftPpm']:.0f} ppm, jumps {s['clockJumps']}, "
                      f"concealed {s['concealedMilliseconds']} ms")
        if silent_seconds:
            problems.append(f"s{index}: silent seconds {silent_seconds[:10]}")
        # A loaded machine (one core busy, three senders and the mix on the other) now and then
        # starves a sender or the receiving thread for longer than the input's latency (300 ms):
        # what comes that late is not played. Seen: a few such gaps in three minutes, on the
        # steady sender as on the drifting ones. More than 1 % of the time is a fault.
        if dips * HOP / RATE > 0.01 * (SECONDS - WARM_UP):
            problems.append(f"s{index}: {dips} windows of 5 ms where its tone fell below half")
        if len(audio_onsets) < 0.9 * (SECONDS - WARM_UP - 5):
            problems.append(f"s{index}: only {len(audio_onsets)} tone onsets")
        if excursion > 0.1:
            problems.append(f"s{index}: delay moved {excursion * 1000:.0f} ms")
        if max(abs(o - float(np.median(sync))) for o in sync) > 0.045 or abs(float(np.median(sync))) > 0.1:
            problems.append(f"s{index}: sound - picture {[round(o * 1000) for o in sync][:20]} ms")
        if s["clockJumps"] != 0:
            problems.append(f"s{index}: {s['clockJumps']} clock jumps")
        expected_ppm = (1 / readrate - 1) * 1e6
        if abs(s["clockDriftPpm"] - expected_ppm) > 300:
            problems.append(f"s{index}: drift {s['clockDriftPpm']:.0f} ppm, expected {expected_ppm:.0f}")
    print("\n" + "\n".join(report))
    assert not problems, "\n".join(problems + report)
