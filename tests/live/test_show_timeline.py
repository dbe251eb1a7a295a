"""Issue 32 end to end: a live show recorded per participant on the task clock, and made again.

Two RTP participants sent by the `ffmpeg` command line — "host" (H.264 + Opus, red, 440 Hz) and
"guest" (VP8 + Opus, blue, 1000 Hz, 240x180) — and a file input "clip" (H.264 + AAC, green,
660 Hz, 192x144) in one live task with a per-participant output `rec/{input}.mkv`, a composite
`rec/show.mp4` and RTMP to nginx-rtmp. Each participant flashes white and beeps every 2 s of its
own clock (showtools). The guest joins 2.5 s after the `POST`; the layout is swapped (host <->
guest) by a `PATCH` at 5 s; the host's sender dies at 7.5 s and a new one (new SSRC) starts on
the same ports at 11.5 s; the task is stopped at 17 s.

Checked, as a viewer / an editor would: one file per participant plus `host.1.mkv`; each holds its
sender's codecs and sizes, with the sender's keyframe spacing (no re-encode); its own colour and
tone only; every flash and beep at the same task time in its file and in the composite (one frame
interval); the manifest `show32.timeline.json` validates; `tessera mix` of it shows the live
layout before and after the PATCH and the flashes at the live composite's times; a re-mix with the
layout swapped (`--layout`) shows the swap from the first frame on.
"""
from __future__ import annotations

import json
import re
import threading
import time

import numpy as np
import pytest

from helpers import BLUE, GREEN, GREY, RED, hex_colour, run_tessera, tone_amplitude, decode_audio
from livetools import log_tail, read_packets, wait_stream
from rtptools import free_udp_pair
import showtools as st

pytestmark = pytest.mark.live

TASK = "show32"
W, H, FPS = 320, 240, 30
FRAME = 1.0 / FPS
SYNC_TOL = FRAME + 0.004           # one frame interval (+ Matroska's 1 ms timestamps, rounding)
A, B, C = (80, 60), (240, 60), (80, 180)   # region centres: top left, top right, bottom left
GUEST_JOIN, PATCH, HOST_LEAVE, HOST_BACK, END = 2.5, 5.0, 7.5, 11.5, 17.0   # s after the POST
PEOPLE = {"host": (RED, 440.0, "h264", (320, 240)), "guest": (BLUE, 1000.0, "vp8", (240, 180)),
          "clip": (GREEN, 660.0, "h264", (192, 144))}


def layout(top_left: str, top_right: str) -> dict:
    """Two 160x120 regions on top, the clip bottom left; an absent input's region shows grey."""
    def region(inp, x, y):
        return {"input": inp, "x": x, "y": y, "width": 160, "height": 120, "backgroundColor": hex_colour(GREY)}
    return {"backgroundColor": "#000000",
            "regions": [region(top_left, 0, 0), region(top_right, 160, 0), region("clip", 0, 120)]}


def mix(args, what, cwd):
    r = run_tessera(args, cwd=cwd, timeout=120)
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n{r.stderr[-2000:]}"
    return r


def test_show_recorded_per_participant_and_remixed(api, tessera_server, rtmp_server, senders, media, tmp_path):
    red, blue, green = (PEOPLE[k][0] for k in ("host", "guest", "clip"))
    clip = media.video(st.flash_video(green, PEOPLE["clip"][3], 30), audio=st.beep_audio(660, 30), stem="show-clip")
    host_file = st.participant_file(media, red, 440, "h264", PEOPLE["host"][3])
    guest_file = st.participant_file(media, blue, 1000, "vp8", PEOPLE["guest"][3])
    hv, ha, gv, ga = free_udp_pair(), free_udp_pair(), free_udp_pair(), free_udp_pair()
    host = st.CopySender(tmp_path, hv, ha, host_file, "h264", "host").start()
    senders.append(host)
    url = rtmp_server.url("show")
    doc = {"taskId": TASK,
           "inputs": [{"id": "host", "rtp": {"sdp": host.sdp()}, "silenceTimeoutMs": 1000},
                      {"id": "guest", "rtp": {"sdp": st.sdp_for(gv, ga, "vp8")}, "silenceTimeoutMs": 1000},
                      {"id": "clip", "url": clip}],
           "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 600, "gopSeconds": 1,
                                 "preset": "ultrafast"},
                       "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
           "layout": layout("host", "guest"),
           "outputs": [{"url": "rec/{input}.mkv"}, {"url": "rec/show.mp4"}, {"url": url}]}
    posted = time.monotonic()
    api.create(doc)

    def at(t):   # sleep until `t` s after the POST
        time.sleep(max(0.0, posted + t - time.monotonic()))

    rtmp: dict = {}
    reader = threading.Thread(target=lambda: rtmp.update(wait_stream(url, 10, need=("video", "audio"))), daemon=True)
    reader.start()
    at(GUEST_JOIN)
    senders.append(st.CopySender(tmp_path, gv, ga, guest_file, "vp8", "guest").start())
    at(PATCH)
    patched = time.monotonic()
    r = api.patch(f"/v1/tasks/{TASK}", {"layout": layout("guest", "host")})
    assert r.status == 200, (r.status, r.json)
    at(HOST_LEAVE)
    running = api.status(TASK)
    host.kill()
    at(HOST_BACK)
    senders.append(st.CopySender(tmp_path, hv, ha, host_file, "h264", "host-again").start())   # a new SSRC
    at(END)
    assert api.delete(f"/v1/tasks/{TASK}").status == 200
    final = api.wait_state(TASK, {"stopped", "failed"}, 20)
    reader.join(5)
    assert final["state"] == "stopped", final

    out = tessera_server.out / "rec"
    log = tessera_server.log.read_text(errors="replace")
    m = re.search(rf"tessera worker {TASK}: output frame 0 at CLOCK_MONOTONIC ([0-9.]+) s, (\d+) ms after", log)
    assert m, f"no first-frame line in the log:\n{log_tail(tessera_server.log)}"
    frame0, origin = float(m[1]), int(m[2]) / 1000   # composite time 0: monotonic, and on the task clock

    def comp(t):   # composite time of `t` s after the POST
        return posted + t - frame0

    problems: list[str] = []
    report: list[str] = [f"composite starts {origin * 1000:.0f} ms after the task clock's zero; "
                         f"PATCH at composite {patched - frame0:.2f} s"]
    # -- the outputs ---------------------------------------------------------------------------
    if not rtmp:
        problems.append("RTMP: no readable stream with video and audio within 10 s of the POST")
    files = sorted(p.name for p in out.iterdir())
    report.append(f"rec/: {files}; status files {[o.get('files') for o in final['outputs']]}")
    report.append(f"inputs at {HOST_LEAVE} s: {[(i['id'], i['frames'], i['drops'], i.get('packets')) for i in running['inputs']]}")
    manifest_path = out / f"{TASK}.timeline.json"
    expected = {"host.mkv", "host.1.mkv", "guest.mkv", "clip.mkv", "show.mp4", manifest_path.name}
    if set(files) != expected:
        problems.append(f"rec/ holds {files}, expected {sorted(expected)}")
    per_input = final["outputs"][0].get("files") or []
    if sorted(p.rsplit("/", 1)[-1] for p in per_input) != ["clip.mkv", "guest.mkv", "host.1.mkv", "host.mkv"]:
        problems.append(f"status outputs[0].files {per_input} (running: {running['outputs'][0].get('files')})")
    assert (out / "show.mp4").exists(), "\n".join(problems + report)
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}

    # -- each participant's file: codecs, sizes, keyframes, colour, tone, start on the task clock
    offsets = recorded_offsets(manifest, out, problems)
    composite = st.Timed.read(out / "show.mp4", W, H)
    composite.times = composite.times + origin          # on the task clock from here on
    comp_flashes = composite_flashes(composite)
    report.append(f"composite flashes (task s): { {k: [round(t, 2) for t in v] for k, v in comp_flashes.items()} }")
    comp_pcm = st.timed_audio(out / "show.mp4")              # sample i at composite time i / RATE
    clean: dict[str, list[float]] = {"host": [], "guest": [], "clip": []}   # flashes both show in time
    for name in ("host.mkv", "host.1.mkv", "guest.mkv", "clip.mkv"):
        who = name.split(".")[0]
        path = out / name
        if not path.exists():
            continue
        rgb, tone, vcodec, size = PEOPLE[who]
        check_streams(path, who, vcodec, size, "aac" if who == "clip" else "opus", problems)
        if who != "clip":
            keys = np.nonzero([k for _, k in st.video_packets(path)])[0]
            if len(keys) < 3 or int(np.median(np.diff(keys))) != st.GOP:
                problems.append(f"{name}: keyframes at packets {list(keys[:8])}, not every {st.GOP} as sent")
        else:
            check_remuxed(media.path(clip), path, problems)
        timed = st.Timed.read(path, *size)
        names = [st.colour_name(st.region_rgb(f, size[0] // 2, size[1] // 2)) for f in timed.frames]
        own = names.count(st.colour_name(rgb)) + names.count("white")
        if own < len(names):
            problems.append(f"{name}: {len(names) - own} of {len(names)} frames neither {st.colour_name(rgb)} nor white, "
                            f"e.g. {[n for n in names if n not in (st.colour_name(rgb), 'white')][:3]}")
        pcm = decode_audio(path, 48000, 1)
        levels = {f: tone_amplitude(pcm, 48000, f) for f in (440.0, 1000.0, 660.0)}
        if levels[tone] < 0.03 or any(v > 0.1 * levels[tone] for f, v in levels.items() if f != tone):
            problems.append(f"{name}: tones {({f: round(v, 3) for f, v in levels.items()})}, expected only {tone:.0f} Hz")
        start = float(st.probe(path)["format"].get("start_time", "nan"))
        if name in offsets and abs(start - offsets[name]) > SYNC_TOL:
            problems.append(f"{name}: starts at {start:.3f} s in the file, the manifest says {offsets[name]:.3f} s")
        clean[who] += check_moments(name, path, timed, size, tone, composite, comp_flashes[who], comp_pcm, origin,
                                    problems, report)

    # -- the manifest: valid, and mixed again as it is, then with the layout swapped ---------------
    samples = {"before the PATCH": (comp(PATCH) - 0.8, {A: "red", B: "blue", C: "green"}),
               "after the PATCH": (comp(PATCH) + 1.2, {A: "blue", B: "red", C: "green"}),
               "host away": (comp((HOST_LEAVE + HOST_BACK) / 2 + 0.5), {A: "blue", B: "grey", C: "green"}),
               "host back": (comp(HOST_BACK + 3.0), {A: "blue", B: "red", C: "green"})}
    live_seen = sample(composite, samples, origin, problems, "live composite")
    if not manifest:
        problems.append(f"no manifest {manifest_path.name} beside the recordings")
        print("\n" + "\n".join(report))
        assert not problems, "\n".join(problems + ["--"] + report)
    documented = manifest.get("timeline", {}).get("compositeStartMs")
    if documented is None or abs(documented / 1000 - origin) > 0.002:
        problems.append(f"manifest timeline.compositeStartMs {documented}, the worker logged {origin * 1000:.0f} ms")
    check_manifest(manifest, origin, patched - frame0, problems, report)
    # The manifest names its files relative to its own folder: run where it lies, as one would.
    r = run_tessera(["validate", manifest_path.name], cwd=out)
    if r.returncode != 0:
        problems.append(f"tessera validate {manifest_path.name}: exit {r.returncode}: {(r.stdout + r.stderr)[-1500:]}")
    remix_path, swapped_path = tmp_path / "remix.mp4", tmp_path / "swapped.mp4"
    started = time.monotonic()
    mix(["mix", manifest_path.name, "-o", remix_path], "tessera mix of the manifest", out)
    report.append(f"remix of {composite.times[-1] - composite.times[0]:.1f} s in {time.monotonic() - started:.1f} s")
    remix = st.Timed.read(remix_path, W, H)          # the manifest's times, so the re-mix's, are the task clock's
    remix_seen = sample(remix, samples, origin, problems, "re-mix")
    if remix_seen != live_seen:
        problems.append(f"re-mix differs from the live composite: live {live_seen}, re-mix {remix_seen}")
    remix_flashes = composite_flashes(remix)
    for who, times in clean.items():
        diffs = [None if (n := st.nearest(remix_flashes[who], t)) is None else round(n - t, 3) for t in times]
        if any(d is None or abs(d) > SYNC_TOL for d in diffs):
            problems.append(f"re-mix: {who}'s flashes at task {[round(t, 3) for t in times]} s, re-mix - file {diffs} s")
    (tmp_path / "swapped.json").write_text(json.dumps(layout("guest", "host")))
    r = run_tessera(["mix", manifest_path.name, "--layout", tmp_path / "swapped.json", "-o", swapped_path], cwd=out, timeout=120)
    if r.returncode != 0:
        problems.append(f"tessera mix --layout: exit {r.returncode}: {r.stderr[-1000:]}")
        print("\n" + "\n".join(report))
        assert not problems, "\n".join(problems + ["--"] + report)
    swapped = st.Timed.read(swapped_path, W, H)
    at_a = [st.colour_name(st.region_rgb(f, *A)) for f in swapped.frames]
    at_b = [st.colour_name(st.region_rgb(f, *B)) for f in swapped.frames]
    # From the moment the live composite first showed the host (top left then), it is top right.
    live_first = next(float(composite.times[i]) for i, f in enumerate(composite.frames)
                      if st.colour_name(st.region_rgb(f, *A)) == "red")
    first_b = next((float(swapped.times[i]) for i, n in enumerate(at_b) if n == "red"), None)
    if first_b is None or abs(first_b - live_first) > SYNC_TOL or "red" in at_a or "blue" in at_b:
        problems.append(f"swapped re-mix: host (red) top right from task {first_b} s (live composite: top left from "
                        f"{live_first:.3f} s); top left shows {sorted(set(at_a))}, top right {sorted(set(at_b))} "
                        "(the host never top left, the guest never top right)")
    print("\n" + "\n".join(report))
    assert not problems, "\n".join(problems + ["--"] + report)


# --------------------------------------------------------------------------------------------- #
def recorded_offsets(manifest: dict, out, problems: list[str]) -> dict[str, float]:
    """File name -> task-clock offset (s) of each per-participant file the manifest lists."""
    offsets = {}
    for inp in manifest.get("inputs", []):
        parts = inp.get("sequence") or [{"url": inp.get("url"), "startAtMs": inp.get("startAtMs", 0)}]
        for part in parts:
            name = str(part.get("url")).rsplit("/", 1)[-1]
            offsets[name] = part.get("startAtMs", 0) / 1000
            if not (out / name).exists():
                problems.append(f"manifest input {inp.get('id')}: {part.get('url')} is not in rec/")
    return offsets


def check_streams(path, who, vcodec, size, acodec, problems):
    info = st.probe(path)["streams"]
    got = [(s["codec_type"], s["codec_name"], s.get("width"), s.get("height")) for s in info]
    want = [("video", vcodec, *size), ("audio", acodec, None, None)]
    if sorted(got, key=str) != sorted(want, key=str):
        problems.append(f"{path.name}: streams {got}, expected {want} (as {who} sent them)")


def check_remuxed(source, path, problems):
    """The file input's recording holds the source's very packets: its sizes run in the source's."""
    sent = [p.size for p in read_packets(source) if p.kind == "video"]
    kept = [p.size for p in read_packets(path) if p.kind == "video"]
    text = ",".join(map(str, sent)) + ","
    if not kept or ",".join(map(str, kept[:60])) + "," not in text:
        problems.append(f"{path.name}: its first video packets {kept[:8]} are not the source's {sent[:8]} (re-encoded?)")


def check_moments(name, path, timed, size, tone, composite, comp_flashes, comp_pcm, origin, problems, report):
    """Every flash and beep of a participant's file at the same task time in the composite (one
    frame interval): the file's timestamps are task-clock times, the composite's are after
    `+ origin`. A moment whose packets in the file are not evenly spaced (a sender stalled past the
    jitter buffer: the composite could not show those pictures in time, and the file holds them
    stamped 1 ms apart, or after a hole) is left out and counted; two must remain."""
    lo, hi = composite.times[0] + 0.3, composite.times[-1] - 0.3
    vt, at = st.packet_times(path, "v"), st.packet_times(path, "a")
    lo, hi = max(lo, vt[0] + 0.3), min(hi, vt[-1] - 0.3)
    onsets = [float(timed.times[i]) for i in st.flash_onsets(timed.times, st.luma(timed.frames, size[0] // 2, size[1] // 2))]
    inside = [t for t in onsets if lo < t < hi]
    clean = [t for t in inside if st.regular_at(vt, t, FRAME, 0.1)]
    diffs = [(round(t, 3), None if (n := st.nearest(comp_flashes, t)) is None else round(n - t, 3)) for t in clean]
    # And the other way: no flash in the composite that the file has not (where its packets are even).
    extra = [round(t, 3) for t in comp_flashes if lo < t < hi and st.regular_at(vt, t, FRAME, 0.1)
             and ((n := st.nearest(onsets, t)) is None or abs(n - t) > SYNC_TOL)]
    report.append(f"{name}: flashes at task {[d[0] for d in diffs]} s, composite - file {[d[1] for d in diffs]} s "
                  f"({len(inside) - len(clean)} left out: uneven packets)")
    bad = [d for d in diffs if d[1] is None or abs(d[1]) > SYNC_TOL]
    if len(clean) < 2 or bad or extra:
        problems.append(f"{name}: flashes (task s, composite - file) beyond {SYNC_TOL * 1000:.0f} ms: {bad}; "
                        f"composite flashes the file lacks: {extra}; {len(clean)} compared")
    step = float(np.median(np.diff(at)))
    beeps = [t for t in st.beep_onsets(st.timed_audio(path), tone) if lo < t < hi and st.regular_at(at, t, step, 0.15)]
    comp_beeps = [t + origin for t in st.beep_onsets(comp_pcm, tone)]
    bdiffs = [None if (n := st.nearest(comp_beeps, t)) is None else round(n - t, 3) for t in beeps]
    report.append(f"{name}: beeps at task {[round(t, 2) for t in beeps]} s, composite - file {bdiffs} s")
    if len(beeps) < 2 or any(d is None or abs(d) > SYNC_TOL + 0.01 for d in bdiffs):
        problems.append(f"{name}: beeps (composite - file) beyond {(SYNC_TOL + 0.01) * 1000:.0f} ms: {bdiffs}")
    return clean


def composite_flashes(timed: st.Timed) -> dict[str, list[float]]:
    """Task times where a region of the composite turns white, by whose colour it showed before."""
    found = {"host": [], "guest": [], "clip": []}
    by_colour = {"red": "host", "blue": "guest", "green": "clip"}
    for x, y in (A, B, C):
        levels = st.luma(timed.frames, x, y)
        for i in st.flash_onsets(timed.times, levels):
            before = st.colour_name(st.region_rgb(timed.frames[max(0, i - 2)], x, y))
            if before in by_colour:
                found[by_colour[before]].append(float(timed.times[i]))
    return found


def sample(timed: st.Timed, samples: dict, origin: float, problems: list[str], what: str) -> dict:
    """Colours at the region centres at each sample time (composite time); none may be a flash."""
    seen = {}
    for label, (t, want) in samples.items():
        i = timed.index_at(t + origin)
        while i < len(timed.frames) - 1 and any(st.colour_name(st.region_rgb(timed.frames[i], *pt)) == "white" for pt in want):
            i += 1
        got = {pt: st.colour_name(st.region_rgb(timed.frames[i], *pt)) for pt in want}
        seen[label] = got
        if got != want:
            problems.append(f"{what} at {t:.2f} s ({label}): {got}, expected {want}")
    return seen


def check_manifest(manifest: dict, origin: float, patch_at: float, problems: list[str], report: list[str]):
    inputs = {i.get("id"): i for i in manifest.get("inputs", [])}
    report.append(f"manifest: mode {manifest.get('mode')}, inputs "
                  f"{ {k: {f: v.get(f) for f in ('url', 'sequence', 'startAtMs', 'gaps') if f in v} for k, v in inputs.items()} }, "
                  f"updates {[u.get('atMs') for u in manifest.get('updates', [])]}, timeline keys {sorted(manifest.get('timeline', {}))}")
    if sorted(inputs) != ["clip", "guest", "host"]:
        problems.append(f"manifest inputs {sorted(inputs)}, expected clip, guest, host")
    host = inputs.get("host", {})
    if len(host.get("sequence", [])) != 2:
        problems.append(f"manifest host: expected a sequence of host.mkv and host.1.mkv, got {host}")
    # A span before the composite's first frame is no absence from it (nothing was shown yet).
    gaps = [(g.get("fromMs", 0), g.get("toMs", 0)) for g in host.get("gaps", [])
            if g.get("toMs", 0) > origin * 1000 + FRAME * 1000]
    if len(gaps) != 1 or not 2500 <= gaps[0][1] - gaps[0][0] <= 5500:
        problems.append(f"manifest host gaps {gaps}: expected one of about 4 s (the sender was away 4 s)")
    layouts = [u for u in manifest.get("updates", []) if "layout" in u]
    if len(layouts) != 1:
        problems.append(f"manifest updates with a layout: {len(layouts)}, expected the one PATCH")
    elif abs(layouts[0].get("atMs", -1e9) / 1000 - (patch_at + origin)) > 0.7:
        problems.append(f"manifest: the PATCH at task {layouts[0].get('atMs')} ms, sent at about {(patch_at + origin) * 1000:.0f} ms")
    outputs = [o.get("url", "") for o in manifest.get("outputs", [])]
    if len(outputs) != 1 or not outputs[0].endswith(f"{TASK}.remix.mp4"):
        problems.append(f"manifest outputs {outputs}, expected one {TASK}.remix.mp4")
    if not isinstance(manifest.get("timeline"), dict):
        problems.append("manifest: no `timeline` object")
