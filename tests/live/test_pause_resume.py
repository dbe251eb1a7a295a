"""Pausing a recording (issue 23, item 4): `PATCH` an output with `"paused": true`, later `false`;
the file receives nothing meanwhile, and on resume its timestamps go on from where they stopped,
so it is one playable recording without the paused span. The status shows `paused` (and so does
the `output.state` webhook, which is derived from it)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from helpers import BLUE, RED, decode_video, ffprobe
from livetools import FPS, H, LEFT_PT, RIGHT_PT, W, read_packets, side_by_side, timestamp_problems, wait_until

pytestmark = pytest.mark.live


def output_state(api, task_id: str) -> str:
    return api.status(task_id)["outputs"][0]["state"]


def test_paused_span_is_absent_and_the_recording_continuous(api, tessera_server, clips):
    doc = side_by_side("pause", clips.red, clips.blue, ["rec/pause.mp4"])
    doc["encoder"]["video"]["gopSeconds"] = 1
    api.create(doc)
    assert wait_until(lambda: output_state(api, "pause") == "live", 10)
    time.sleep(3.0)
    r = api.patch("/v1/tasks/pause", {"outputs": [{"url": "rec/pause.mp4", "paused": True}], "sequence": 1})
    assert r.status == 200, r.body
    assert wait_until(lambda: output_state(api, "pause") == "paused", 3), api.status("pause")["outputs"]
    paused_at = time.monotonic()
    time.sleep(4.0)
    r = api.patch("/v1/tasks/pause", {"outputs": [{"url": "rec/pause.mp4", "paused": False}], "sequence": 2})
    assert r.status == 200, r.body
    paused_for = time.monotonic() - paused_at
    assert wait_until(lambda: output_state(api, "pause") == "live", 3), api.status("pause")["outputs"]
    time.sleep(3.0)
    r = api.delete("/v1/tasks/pause")
    assert r.status == 200
    path = tessera_server.out / "rec" / "pause.mp4"
    assert api.status("pause")["outputs"][0].get("files") in (None, ["rec/pause.mp4"]), "one file, not a new one"
    duration = float(ffprobe(path)["format"]["duration"])
    assert 4.5 < duration < 8.0, f"{duration:.2f} s recorded around a {paused_for:.1f} s pause (expected ~6 s)"
    packets = read_packets(path)
    for kind, gap in (("video", 2.5 / FPS), ("audio", 2.5 * 1024 / 48000)):
        problems = timestamp_problems(packets, kind, gap)
        assert not problems, f"{kind}: {problems[:5]}"
    frames = decode_video(path, W, H)
    assert abs(len(frames) - duration * FPS) <= 3, f"{len(frames)} frames in {duration:.2f} s"
    for (x, y), rgb in ((LEFT_PT, RED), (RIGHT_PT, BLUE)):
        got = frames[len(frames) // 2].rgb_at(x, y, 3)
        assert float(np.max(np.abs(got - np.asarray(rgb, dtype=np.float64)))) <= 24, f"({x},{y}) {got}"


def test_pause_refused_where_it_cannot_resume(api, clips, rtmp_server):
    doc = side_by_side("no-pause", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": rtmp_server.url("x"), "paused": True}, {"url": "raw.y4m", "paused": True}]
    r = api.post("/v1/tasks", doc)
    assert r.status == 400, r.body
    assert {i["path"] for i in r.json["error"]["issues"]} == {"outputs[0].paused", "outputs[1].paused"}
