"""Live streams read back from a real RTMP server: two outputs of one mix, a layout swap by PATCH,
adding and removing an output while another streams on, the snapshot, and relay mode."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from helpers import BLUE, RED, decode_audio, decode_video, ffprobe, sine, tone_amplitude
from livetools import (FPS, H, LEFT_PT, RIGHT_PT, TOL, W, StreamReader, colour_mismatch, decode_png_rgb, halves,
                       png_size, probe_stream, read_packets, rtmp_port_url_prefix, side_by_side, stream_of,
                       timestamp_problems, wait_stream, wait_until)

pytestmark = pytest.mark.live

ORIGINAL = [(LEFT_PT, RED), (RIGHT_PT, BLUE)]
SWAPPED = [(LEFT_PT, BLUE), (RIGHT_PT, RED)]
VIDEO_GAP = 2.0 / FPS + 0.002          # two frame durations (+ FLV millisecond rounding)
AUDIO_GAP = 2.0 * 1024 / 48000 + 0.002  # two AAC frames


def bad_frames(frames, expected, tol=TOL):
    out = []
    for i, (_, f) in enumerate(frames):
        m = colour_mismatch(f, expected, tol)
        if m:
            out.append(f"frame {i}: {m}")
    return out


def test_two_rtmp_outputs_carry_the_mix(api, rtmp_server, clips, tessera_server, tmp_path):
    # Stream names double as stream keys: they must not show in status or logs; the query neither.
    url_a = rtmp_server.url("keyAlpha7")
    url_b = rtmp_server.url("keyBravo9") + "?sig=s3cr3tQuery"
    st = api.create(side_by_side("two-outputs", clips.red, clips.blue, [url_a, url_b]))
    assert st["state"] in ("starting", "running"), st
    assert len(st["outputs"]) == 2, st["outputs"]

    for url in (url_a, url_b):
        info = wait_stream(url, 15, need=("video", "audio"))
        v, a = stream_of(info, "video"), stream_of(info, "audio")
        assert v["codec_name"] == "h264", f"{url}: video codec {v['codec_name']}"
        assert (int(v["width"]), int(v["height"])) == (W, H), f"{url}: size {v['width']}x{v['height']}"
        assert a["codec_name"] == "aac", f"{url}: audio codec {a['codec_name']}"
        assert int(a["sample_rate"]) == 48000 and int(a["channels"]) == 2, a

    readers = [StreamReader(u, tmp_path / f"out{i}.flv", W, H, duration=3) for i, u in enumerate((url_a, url_b))]
    for r in readers:
        assert wait_until(lambda: not r.running(), 25), f"{r.url}: 3 s read did not finish"
        r.stop()

    for r in readers:
        frames = r.snapshot()
        assert len(frames) >= 60, f"{r.url}: {len(frames)} frames decoded in 3 s (expected ~90): {r.stderr()}"
        bad = bad_frames(frames, ORIGINAL)
        assert not bad, f"{r.url}: {len(bad)} of {len(frames)} frames with wrong region colours, e.g. {bad[:3]}"
        pk = read_packets(r.dump)
        vts = [p.dts for p in pk if p.kind == "video"]
        step = float(np.median(np.diff(vts)))
        assert abs(step - 1 / FPS) <= 0.002, f"{r.url}: median frame step {step * 1000:.1f} ms, expected 33.3"
        rate = (len(vts) - 1) / (vts[-1] - vts[0])
        assert abs(rate - FPS) <= 1.0, f"{r.url}: {rate:.2f} fps over the read, expected {FPS}"
        assert not timestamp_problems(pk, "video", VIDEO_GAP), timestamp_problems(pk, "video", VIDEO_GAP)[:5]
        pcm = decode_audio(r.dump, 48000, 2)[4800:]
        a440, a1000 = tone_amplitude(pcm, 48000, 440), tone_amplitude(pcm, 48000, 1000)
        assert a440 > 0.04 and a1000 > 0.04, f"{r.url}: tones 440 Hz {a440:.3f}, 1000 Hz {a1000:.3f} (each > 0.04)"
        assert 0.5 < a440 / a1000 < 2.0, f"{r.url}: equal volumes, but 440 Hz {a440:.3f} vs 1000 Hz {a1000:.3f}"
        assert tone_amplitude(pcm, 48000, 2500) < 0.01, f"{r.url}: energy at 2500 Hz (no input plays it)"

    st = api.status("two-outputs")
    assert st["state"] == "running", st
    assert abs(float(st["fps"]) - FPS) <= 2, f"status fps {st['fps']}"
    assert st["frames"] >= 90, f"status frames {st['frames']}"
    assert float(st["bitrateKbps"]) > 0, st
    assert [i["id"] for i in st["inputs"]] == ["red", "blue"], st["inputs"]
    assert all(i["state"] == "live" and i["frames"] > 0 for i in st["inputs"]), st["inputs"]
    assert len(st["outputs"]) == 2, st["outputs"]
    for o, url in zip(st["outputs"], (url_a, url_b)):
        assert o["state"] == "live" and o["bytes"] > 0 and o["reconnects"] == 0, o
        assert o["url"] == rtmp_port_url_prefix(url) + "***", f"redacted url {o['url']!r} for {url}"
    listing = api.get("/v1/tasks").body.decode()
    shown = json.dumps(st) + listing
    for secret in ("keyAlpha7", "keyBravo9", "s3cr3tQuery", "sig="):
        assert secret not in shown, f"{secret!r} shows in the status: {shown[:1500]}"
    log = tessera_server.log.read_text(errors="replace")
    for secret in ("keyAlpha7", "keyBravo9", "s3cr3tQuery"):
        assert secret not in log, f"{secret!r} shows in the server log"


def test_layout_swap_shows_within_a_second_with_continuous_timestamps(api, rtmp_server, clips, tmp_path):
    url = rtmp_server.url("swap")
    api.create(side_by_side("swap", clips.red, clips.blue, [url]))
    wait_stream(url, 15)
    reader = StreamReader(url, tmp_path / "swap.flv", W, H)
    try:
        assert reader.wait_frames(30, 15), f"no frames from {url}: {reader.stderr()}"
        time.sleep(1.0)
        sent = time.monotonic()
        r = api.patch("/v1/tasks/swap", {"layout": halves("blue", "red"), "sequence": 1})
        assert r.status == 200, f"PATCH: {r.status} {r.body[:1000]!r}"
        assert r.json["state"] == "running", r.json
        time.sleep(3.0)
        assert reader.running(), f"the stream ended across the update: {reader.stderr()}"
    finally:
        reader.stop()
    frames = reader.snapshot()
    before = [(t, f) for t, f in frames if t < sent]
    assert len(before) >= 30, f"{len(before)} frames before the update"
    bad = bad_frames(before, ORIGINAL)
    assert not bad, f"before the update: {bad[:3]}"
    after = [(t, f) for t, f in frames if t >= sent]
    first = next((i for i, (_, f) in enumerate(after) if colour_mismatch(f, SWAPPED) is None), None)
    assert first is not None, (f"the swap never showed in {len(after)} frames after PATCH; last frame: "
                               f"{colour_mismatch(after[-1][1], SWAPPED) if after else 'none'}")
    latency = after[first][0] - sent
    assert latency <= 1.0, f"the swap showed {latency:.2f} s after PATCH was sent (expected within 1 s)"
    bad = bad_frames(after[first:], SWAPPED)
    assert not bad, f"after the swap showed, {len(bad)} frames were not swapped, e.g. {bad[:3]}"
    assert len(after) - first >= 60, f"only {len(after) - first} swapped frames in 3 s"

    pk = read_packets(reader.dump)
    vp = timestamp_problems(pk, "video", VIDEO_GAP)
    assert not vp, f"video timestamps across the update: {vp[:5]}"
    ap = timestamp_problems(pk, "audio", AUDIO_GAP)
    assert not ap, f"audio timestamps across the update: {ap[:5]}"
    st = api.status("swap")
    assert st["outputs"][0]["reconnects"] == 0, st["outputs"]


def test_add_and_remove_an_output_while_the_other_streams_on(api, rtmp_server, clips, tmp_path):
    keep, extra = rtmp_server.url("keep"), rtmp_server.url("extra")
    api.create(side_by_side("outs", clips.red, clips.blue, [keep]))
    wait_stream(keep, 15)
    reader = StreamReader(keep, tmp_path / "keep.flv", W, H)
    try:
        assert reader.wait_frames(20, 15), f"no frames from {keep}: {reader.stderr()}"
        bytes0 = api.status("outs")["outputs"][0]["bytes"]

        # Checked at the end, so that a stale answer does not hide what the stream does.
        stale_answers = []
        r = api.patch("/v1/tasks/outs", {"outputs": [{"url": keep}, {"url": extra}]})
        assert r.status == 200, f"PATCH add: {r.status} {r.body[:1000]!r}"
        if len(r.json["outputs"]) != 2:
            stale_answers.append(f"PATCH adding an output answered with outputs {r.json['outputs']}")
        info = wait_stream(extra, 10)
        v = stream_of(info, "video")
        assert v["codec_name"] == "h264" and (int(v["width"]), int(v["height"])) == (W, H), v
        added = StreamReader(extra, tmp_path / "extra.flv", W, H, duration=2)
        assert wait_until(lambda: not added.running(), 15), "reading the added output did not finish"
        added.stop()
        got = added.snapshot()
        assert len(got) >= 40, f"added output: {len(got)} frames in 2 s: {added.stderr()}"
        assert not bad_frames(got, ORIGINAL), bad_frames(got, ORIGINAL)[:3]

        st = api.status("outs")
        kept = st["outputs"][0]
        assert kept["reconnects"] == 0 and kept["state"] == "live", kept
        assert kept["bytes"] > bytes0, f"kept output bytes {bytes0} → {kept['bytes']}"
        assert st["outputs"][1]["state"] == "live", st["outputs"]

        r = api.patch("/v1/tasks/outs", {"outputs": [{"url": keep}]})
        assert r.status == 200, f"PATCH remove: {r.status} {r.body[:1000]!r}"
        if len(r.json["outputs"]) != 1:
            stale_answers.append(f"PATCH removing an output answered with outputs {r.json['outputs']}")
        gone = wait_until(lambda: probe_stream(extra, timeout=8) is None, 8, 0.3)
        assert gone, f"{extra} is still published 8 s after it was removed"
        bytes1 = api.status("outs")["outputs"][0]["bytes"]
        time.sleep(1.5)
        assert reader.running(), f"the kept output's stream ended: {reader.stderr()}"
    finally:
        reader.stop()
    st = api.status("outs")
    kept = st["outputs"][0]
    assert kept["reconnects"] == 0 and kept["state"] == "live", kept
    assert kept["bytes"] > bytes1, f"kept output stopped growing: {bytes1} → {kept['bytes']}"
    frames = reader.snapshot()
    arrivals = np.diff([t for t, _ in frames])
    assert arrivals.max() < 0.5, f"the kept stream stalled {arrivals.max():.2f} s"
    assert not bad_frames(frames, ORIGINAL), bad_frames(frames, ORIGINAL)[:3]
    pk = read_packets(reader.dump)
    assert not timestamp_problems(pk, "video", VIDEO_GAP), timestamp_problems(pk, "video", VIDEO_GAP)[:5]
    assert not timestamp_problems(pk, "audio", AUDIO_GAP), timestamp_problems(pk, "audio", AUDIO_GAP)[:5]
    assert not stale_answers, "PATCH must answer with the status as updated: " + "; ".join(stale_answers)


def test_snapshot_is_the_current_composite(api, rtmp_server, clips, tmp_path):
    api.create(side_by_side("snap", clips.red, clips.blue, [rtmp_server.url("snap")]))
    api.wait_state("snap", "running", 10)
    assert wait_until(lambda: api.status("snap")["frames"] >= 15, 10), api.status("snap")
    r = api.get("/v1/tasks/snap/snapshot.png")
    assert r.status == 200, f"snapshot: {r.status} {r.body[:500]!r}"
    assert r.headers.get("content-type", "").startswith("image/png"), f"snapshot Content-Type {r.headers.get('content-type')!r}"
    assert png_size(r.body) == (W, H), f"snapshot size {png_size(r.body)}, canvas {W}x{H}"
    rgb = decode_png_rgb(r.body, tmp_path / "snap.png").astype(np.float64)
    for (x, y), want in ORIGINAL + [((10, 10), RED), ((W - 10, H - 10), BLUE)]:
        got = rgb[y - 2:y + 2, x - 2:x + 2].reshape(-1, 3).mean(axis=0)
        assert np.max(np.abs(got - want)) <= 12, f"snapshot ({x},{y}): expected {want}, got {tuple(np.round(got))}"

    r = api.patch("/v1/tasks/snap", {"layout": halves("blue", "red")})
    assert r.status == 200, r.body
    time.sleep(0.5)
    rgb = decode_png_rgb(api.get("/v1/tasks/snap/snapshot.png").body, tmp_path / "snap2.png").astype(np.float64)
    for (x, y), want in SWAPPED:
        got = rgb[y - 2:y + 2, x - 2:x + 2].reshape(-1, 3).mean(axis=0)
        assert np.max(np.abs(got - want)) <= 12, f"snapshot after swap ({x},{y}): expected {want}, got {got}"


def test_relay_passes_the_video_through(api, rtmp_server, media, tmp_path):
    # 320x240 at 25 fps with a keyframe every 12 frames: a re-encode would change the GOP.
    src = media.video("color=c=0x00FF00:s=320x240:r=25:d=2.4", audio=sine(440, 2.4), stem="relay",
                      extra=["-g", "12", "-keyint_min", "12", "-sc_threshold", "0"])
    src_v = stream_of(ffprobe(media.path(src)), "video")
    url = rtmp_server.url("relay")
    st = api.create({"taskId": "relay", "mode": "relay",
                     "inputs": [{"id": "cam", "url": src, "loop": True}], "outputs": [{"url": url}]})
    assert st["state"] in ("starting", "running"), st
    info = wait_stream(url, 15, need=("video", "audio"))
    v, a = stream_of(info, "video"), stream_of(info, "audio")
    assert v["codec_name"] == "h264", v["codec_name"]
    assert (int(v["width"]), int(v["height"])) == (320, 240), f"relay size {v['width']}x{v['height']}"
    assert a["codec_name"] == "aac", a["codec_name"]
    assert (v.get("profile"), v.get("level")) == (src_v.get("profile"), src_v.get("level")), (
        f"profile/level {v.get('profile')}/{v.get('level')} differ from the input's "
        f"{src_v.get('profile')}/{src_v.get('level')}: re-encoded?")

    reader = StreamReader(url, tmp_path / "relay.flv", 320, 240, duration=4)
    assert wait_until(lambda: not reader.running(), 25), "reading the relay did not finish"
    reader.stop()
    frames = reader.snapshot()
    assert len(frames) >= 75, f"{len(frames)} frames in 4 s at 25 fps: {reader.stderr()}"
    # No re-encode: the stream carries the input's own Y'CbCr samples (whatever matrix made them).
    want = decode_video(media.path(src))[0]
    for pt in ((160, 120), (20, 20), (300, 220)):
        exp = want.yuv_at(*pt)
        worst = max(float(np.max(np.abs(f.yuv_at(*pt) - exp))) for _, f in frames)
        assert worst <= 3, f"relay {pt}: Y'CbCr differs from the input's {tuple(np.round(exp, 1))} by up to {worst:.1f}"
    pk = read_packets(reader.dump)
    vts = [p.dts for p in pk if p.kind == "video"]
    step = float(np.median(np.diff(vts)))
    assert abs(step - 0.040) <= 0.002, f"relay frame step {step * 1000:.1f} ms, expected 40 (25 fps)"
    assert not timestamp_problems(pk, "video", 2 * 0.040 + 0.002), timestamp_problems(pk, "video", 0.082)[:5]
    keys = [i for i, p in enumerate([p for p in pk if p.kind == "video"]) if p.key]
    gops = set(np.diff(keys).tolist())
    assert len(keys) >= 5 and gops == {12}, f"keyframe spacing {sorted(gops)} (input: every 12 frames): re-encoded?"
    st = api.status("relay")
    assert st["state"] == "running" and st["outputs"][0]["state"] == "live", st
