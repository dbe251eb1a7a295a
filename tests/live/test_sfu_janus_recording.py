"""Issue 32 behind a real SFU: a call recorded per participant from Janus, the composite thrown away
and made again from the recordings alone — as it was, then with a new layout.

Two aiortc WebRTC publishers in a Janus VideoRoom (`left`: red, 440 Hz, H.264; `right`: blue,
1000 Hz, VP8; Opus each) are forwarded with `rtp_forward` into a live task with two regions side by
side and the outputs `rec/{input}.mkv` and `rec/show.mp4`. About 4 s after both are drawn the
layout is PATCHed (regions swapped); about 4 s later the task is stopped. Then, with Tessera alone:

- one file per publisher, holding the codecs Janus forwarded (H.264 / VP8 and Opus, 320x240 as
  sent: remuxed, not re-encoded), each decoding to its publisher's colour and tone only;
- `{taskId}.timeline.json` beside them validates (`tessera validate`);
- `tessera mix MANIFEST` shows, at the region centres, what `rec/show.mp4` showed at the same task
  times (`timeline.compositeStartMs` maps the live composite onto the task clock), before and
  after the PATCH, and switches within a frame or two of where the live composite switched;
- `tessera mix MANIFEST --layout swapped.json` shows the swapped layout from its first frame.

Fixtures and helpers are test_sfu_janus.py's (Janus, the room, the publishers, `tessera serve`).
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from helpers import BLUE, GREY, RED, decode_audio, hex_colour, run_tessera, tone_amplitude
from livetools import H, LEFT_PT, RIGHT_PT, W, log_tail
import showtools as st
from test_sfu_janus import (FPS, LEFT_TONE, RIGHT_TONE, aio, create_task, inputs_by_id, janus,  # noqa: F401
                            noloop_preload, publishers, rewrite_to, room, start_publishers, tessera, wait_drawn)

pytestmark = pytest.mark.live

TASK = "sfu-rec32"
FRAME = 1.0 / FPS
BEFORE, AFTER = 4.0, 4.0          # s of show before and after the PATCH
SWITCH_TOL = 2 * FRAME + 0.004    # the re-mix switches within this of the live composite's switch
PEOPLE = {"left": (RED, LEFT_TONE, "h264"), "right": (BLUE, RIGHT_TONE, "vp8")}


def layout(on_left: str, on_right: str) -> dict:
    """Two halves; an input with no picture shows grey."""
    def region(inp, x):
        return {"input": inp, "x": x, "y": 0, "width": W // 2, "height": H, "backgroundColor": hex_colour(GREY)}
    return {"backgroundColor": "#000000", "regions": [region(on_left, 0), region(on_right, W // 2)]}


def names_at(timed: st.Timed, i: int) -> tuple[str, str]:
    f = timed.frames[i]
    return st.colour_name(st.region_rgb(f, *LEFT_PT)), st.colour_name(st.region_rgb(f, *RIGHT_PT))


def first_time(timed: st.Timed, want: tuple[str, str], after: float = -1e9) -> float | None:
    return next((float(t) for i, t in enumerate(timed.times) if t >= after and names_at(timed, i) == want), None)


def mix(args, what: str, cwd) -> None:
    r = run_tessera(args, cwd=cwd, timeout=60)
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n{(r.stdout + r.stderr)[-2000:]}"


@pytest.mark.serial
def test_janus_call_recorded_per_participant_and_remixed(janus, room, aio, publishers, tessera, tmp_path):
    api = tessera.client
    left, right = start_publishers(aio, room, publishers, "VP8")
    doc = {"taskId": TASK,
           "inputs": [{"id": "left", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}},
                      {"id": "right", "rtp": {"allocate": {"video": "VP8", "audio": "opus"}}}],
           "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 600, "gopSeconds": 1,
                                 "preset": "ultrafast"},
                       "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
           "layout": layout("left", "right"),
           "outputs": [{"url": "rec/{input}.mkv"}, {"url": "rec/show.mp4"}]}
    rtp = create_task(api, doc)
    for pub, who in ((left, "left"), (right, "right")):
        pub.forward(rtp[who]["videoPort"], rtp[who]["audioPort"], rewrite_pt=rewrite_to(rtp[who]))
    took, seen = wait_drawn(api, TASK, tmp_path, [(LEFT_PT, RED), (RIGHT_PT, BLUE)], 8)
    assert took is not None, f"the publishers are not drawn 8 s after the forward: {seen}; {inputs_by_id(api, TASK)}"
    time.sleep(BEFORE)
    r = api.patch(f"/v1/tasks/{TASK}", {"layout": layout("right", "left")})
    assert r.status == 200, (r.status, r.body[:300])
    took_swap, seen = wait_drawn(api, TASK, tmp_path, [(LEFT_PT, BLUE), (RIGHT_PT, RED)], 3)
    assert took_swap is not None, f"the PATCHed layout is not drawn live: {seen}"
    time.sleep(AFTER)
    running = api.status(TASK)
    assert api.delete(f"/v1/tasks/{TASK}").status == 200
    final = api.wait_state(TASK, {"stopped", "failed"}, 20)
    assert final["state"] == "stopped", f"{final}\n{log_tail(tessera.log)}"

    out = tessera.out / "rec"
    problems: list[str] = []
    report: list[str] = [f"inputs before the stop: {[(i['id'], i['frames'], i.get('packets')) for i in running['inputs']]}"]
    manifest_path = out / f"{TASK}.timeline.json"
    files = sorted(p.name for p in out.iterdir())
    report.append(f"rec/: {files}")
    assert set(files) == {"left.mkv", "right.mkv", "show.mp4", manifest_path.name}, \
        f"rec/ holds {files}, expected left.mkv, right.mkv, show.mp4, {manifest_path.name}; status {final['outputs']}"

    # -- each publisher's file: as Janus forwarded it, and only that publisher ---------------------
    # A copy keeps the publishers' keyframes (only those Tessera's PLIs asked for); a re-encode would
    # bring the task's own, one a second as in the composite.
    composite_keys = sum(k for _, k in st.video_packets(out / "show.mp4"))
    for who, (rgb, tone, vcodec) in PEOPLE.items():
        path = out / f"{who}.mkv"
        negotiated = (left if who == "left" else right).negotiated["video"].codec.lower()
        streams = {s["codec_type"]: s for s in st.probe(path)["streams"]}
        v, a = streams.get("video", {}), streams.get("audio", {})
        got = (v.get("codec_name"), v.get("width"), v.get("height"), a.get("codec_name"))
        if got != (vcodec, 320, 240, "opus") or negotiated != vcodec:
            problems.append(f"{who}.mkv: video {got[0]} {got[1]}x{got[2]}, audio {got[3]}; Janus negotiated "
                            f"{negotiated}: expected {vcodec} 320x240 and opus, copied as forwarded")
        keys = sum(k for _, k in st.video_packets(path))
        timed = st.Timed.read(path, 320, 240)
        colours = [st.colour_name(st.region_rgb(f, 160, 120)) for f in timed.frames]
        own = colours.count(st.colour_name(rgb))
        report.append(f"{who}.mkv: {got}, {len(colours)} frames, {keys} keyframes, starts at "
                      f"{float(timed.times[0]):.3f} s (task clock)")
        if keys >= composite_keys:
            problems.append(f"{who}.mkv: {keys} keyframes, as many as the re-encoded composite's {composite_keys}")
        if own < len(colours) or len(colours) < FPS * (BEFORE + AFTER) * 0.6:
            problems.append(f"{who}.mkv: {own} of {len(colours)} frames {st.colour_name(rgb)} at the centre "
                            f"(others: {sorted(set(colours) - {st.colour_name(rgb)})})")
        pcm = decode_audio(path, 48000, 1)
        levels = {f: tone_amplitude(pcm, 48000, f) for f in (LEFT_TONE, RIGHT_TONE)}
        other = RIGHT_TONE if tone == LEFT_TONE else LEFT_TONE
        if levels[tone] < 0.03 or levels[other] > 0.1 * levels[tone]:
            problems.append(f"{who}.mkv: tones {({f: round(x, 3) for f, x in levels.items()})}, expected only {tone} Hz")

    # -- the manifest validates -------------------------------------------------------------------
    assert manifest_path.exists(), "\n".join(problems + report)
    manifest = json.loads(manifest_path.read_text())
    origin_ms = manifest.get("timeline", {}).get("compositeStartMs")
    layouts = [u.get("atMs") for u in manifest.get("updates", []) if "layout" in u]
    report.append(f"manifest: compositeStartMs {origin_ms}, layout updates at {layouts} ms, inputs "
                  f"{[{k: i.get(k) for k in ('id', 'url', 'startAtMs', 'gaps')} for i in manifest.get('inputs', [])]}")
    if not isinstance(origin_ms, (int, float)):
        problems.append(f"manifest: timeline.compositeStartMs is {origin_ms!r}")
        origin_ms = 0
    if len(layouts) != 1:
        problems.append(f"manifest: {len(layouts)} layout updates, expected the one PATCH")
    r = run_tessera(["validate", manifest_path.name], cwd=out)
    if r.returncode != 0:
        problems.append(f"tessera validate {manifest_path.name}: exit {r.returncode}: {(r.stdout + r.stderr)[-1500:]}")

    # -- the live composite on the task clock -----------------------------------------------------
    origin = origin_ms / 1000
    live = st.Timed.read(out / "show.mp4", W, H)
    live.times = live.times + origin
    live_on = first_time(live, ("red", "blue"))
    live_switch = first_time(live, ("blue", "red"))
    report.append(f"live composite: both drawn from task {live_on} s, swapped from {live_switch} s")
    assert live_on is not None and live_switch is not None, "\n".join(problems + report)
    if len(layouts) == 1 and abs(layouts[0] / 1000 - live_switch) > SWITCH_TOL:
        problems.append(f"manifest: the PATCH at task {layouts[0]} ms, the live composite switched at {live_switch:.3f} s")
    samples = {"before the PATCH": live_switch - 1.0, "after the PATCH": live_switch + 1.0}

    def sample(timed: st.Timed, what: str) -> dict:
        got = {label: names_at(timed, timed.index_at(t)) for label, t in samples.items()}
        want = {"before the PATCH": ("red", "blue"), "after the PATCH": ("blue", "red")}
        if got != want:
            problems.append(f"{what} at task {({k: round(t, 2) for k, t in samples.items()})} s: {got}, expected {want}")
        return got

    live_seen = sample(live, "live composite")

    # -- made again from the manifest alone -------------------------------------------------------
    remix_path, swapped_path = tmp_path / "remix.mp4", tmp_path / "swapped.mp4"
    started = time.monotonic()
    mix(["mix", manifest_path.name, "-o", remix_path], "tessera mix of the manifest", out)
    remix = st.Timed.read(remix_path, W, H)   # stamped on the task clock, as the manifest is
    report.append(f"re-mix: {len(remix.frames)} frames from task {float(remix.times[0]):.3f} s, made in "
                  f"{time.monotonic() - started:.1f} s")
    remix_seen = sample(remix, "re-mix")
    if remix_seen != live_seen:
        problems.append(f"re-mix differs from the live composite: live {live_seen}, re-mix {remix_seen}")
    remix_switch = first_time(remix, ("blue", "red"), after=live_switch - 2.0)
    report.append(f"re-mix swapped from task {remix_switch} s (live {live_switch:.3f} s)")
    if remix_switch is None or abs(remix_switch - live_switch) > SWITCH_TOL:
        problems.append(f"re-mix: swapped from task {remix_switch} s, the live composite from {live_switch:.3f} s "
                        f"(at most {SWITCH_TOL * 1000:.0f} ms apart)")

    # -- and again with the regions swapped from the start ----------------------------------------
    (tmp_path / "swapped.json").write_text(json.dumps(layout("right", "left")))
    mix(["mix", manifest_path.name, "--layout", tmp_path / "swapped.json", "-o", swapped_path],
        "tessera mix --layout swapped.json", out)
    swapped = st.Timed.read(swapped_path, W, H)
    seen_pairs = [names_at(swapped, i) for i in range(len(swapped.frames))]
    # Each publisher where the swapped layout puts it from its own first picture (their files may
    # start a frame apart, so one may be drawn alone first), and both so over the whole span the live
    # composite showed both (the re-mix runs from task 0 to the files' ends, past that span: there
    # a region may be empty).
    wrong = sorted({p for p in seen_pairs if p[0] not in ("blue", "grey") or p[1] not in ("red", "grey")})
    live_end = float(live.times[-1])
    from_live_on = [p for t, p in zip(swapped.times, seen_pairs) if live_on - FRAME / 2 <= t <= live_end + FRAME / 2]
    first_drawn = next((float(t) for t, p in zip(swapped.times, seen_pairs) if p != ("grey", "grey")), None)
    report.append(f"swapped re-mix: {len(seen_pairs)} frames, a publisher first drawn at task {first_drawn} s, "
                  f"{from_live_on.count(('blue', 'red'))} of {len(from_live_on)} frames of task {live_on:.3f}-{live_end:.3f} s "
                  f"swapped; re-mix ends at {float(swapped.times[-1]):.3f} s, manifest timeline.endMs "
                  f"{manifest.get('timeline', {}).get('endMs')}")
    if wrong or not from_live_on or from_live_on.count(("blue", "red")) != len(from_live_on):
        problems.append(f"swapped re-mix: expected blue left / red right throughout; other pairs {wrong}; from task "
                        f"{live_on:.3f} to {live_end:.3f} s {sorted(set(from_live_on))}")
    print("\n" + "\n".join(report))
    assert not problems, "\n".join(problems + ["--"] + report)
