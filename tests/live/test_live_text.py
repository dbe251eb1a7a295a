"""A live task's text region: a PATCH that changes only the text (a PK score) shows in the next
frame or two of the composite (read through snapshot.png)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from livetools import H, W, decode_png_rgb, halves, side_by_side, wait_until

pytestmark = pytest.mark.live

BOX = (40, 176, 280, 232)  # x0, y0, x1, y1


def layout_with_score(score: str) -> dict:
    layout = halves("red", "blue")
    layout["regions"].append({"text": score, "fontSize": 40, "align": "center", "color": "#FFFFFF",
                              "backgroundColor": "#000000", "zOrder": 5,
                              "x": BOX[0], "y": BOX[1], "width": BOX[2] - BOX[0], "height": BOX[3] - BOX[1]})
    return layout


def white_ink(api, task_id: str, tmp_path, n: int) -> int:
    """Near-white pixels inside the text box of the current composite."""
    r = api.get(f"/v1/tasks/{task_id}/snapshot.png")
    assert r.status == 200, f"snapshot: {r.status} {r.body[:300]!r}"
    rgb = decode_png_rgb(r.body, tmp_path / f"snap{n}.png")
    box = rgb[BOX[1]:BOX[3], BOX[0]:BOX[2]].astype(int)
    return int((box.min(axis=2) > 200).sum())


def test_patching_only_the_text_shows_at_the_next_frame(api, rtmp_server, clips, tmp_path):
    doc = side_by_side("score", clips.red, clips.blue, [rtmp_server.url("score")])
    doc["layout"] = layout_with_score("1")
    api.create(doc)
    api.wait_state("score", "running", 10)
    assert wait_until(lambda: api.status("score")["frames"] >= 15, 10), api.status("score")
    before = white_ink(api, "score", tmp_path, 0)
    assert before > 20, f"the score '1' drew only {before} white pixels"
    # Outside the box the halves are untouched.
    rgb = decode_png_rgb(api.get("/v1/tasks/score/snapshot.png").body, tmp_path / "whole.png").astype(float)
    assert np.abs(rgb[20:40, 20:40].reshape(-1, 3).mean(axis=0) - (255, 0, 0)).max() <= 12
    assert np.abs(rgb[20:40, W - 40:W - 20].reshape(-1, 3).mean(axis=0) - (0, 0, 255)).max() <= 12

    sent = time.monotonic()
    r = api.patch("/v1/tasks/score", {"layout": layout_with_score("88:88")})
    assert r.status == 200, f"PATCH: {r.status} {r.body[:1000]!r}"
    # Each snapshot is the next composed frame (30 fps): the new text must be in one of the first few.
    counts = []
    for n in range(1, 6):
        counts.append(white_ink(api, "score", tmp_path, n))
        if counts[-1] > 3 * before:
            break
    latency = time.monotonic() - sent
    assert counts[-1] > 3 * before, f"the new score never showed: white pixels {before} → {counts}"
    assert len(counts) <= 3, f"the new score took {len(counts)} snapshots to show: {counts}"
    assert latency < 1.0, f"the new score showed {latency:.2f} s after the PATCH was sent"
