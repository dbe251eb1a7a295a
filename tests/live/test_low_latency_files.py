"""A `low`-latency live task reads its file inputs in small batches (one frame beyond its 60 ms
lead, `EncoderLatency`): what a viewer sees must not show it. Two looping clips whose every frame
has its own grey level (its index) are drawn side by side; read back from nginx-rtmp, each output
frame must show the frame after the one before, in both halves — none repeated, none skipped —
and the task counts no late frame."""
from __future__ import annotations

import pytest

from livetools import FPS, H, LEFT_PT, RIGHT_PT, W, StreamReader, halves, wait_stream, wait_until

# serial: it allows no late frame at all, which a parallel test's load can cost it.
pytestmark = [pytest.mark.live, pytest.mark.serial]

PERIOD = 30    # frames in the clip; frame n has luma 16 + STEP * n
STEP = 7


def frame_index(frame, point) -> int:
    luma = float(frame.yuv_at(*point, radius=3)[0])
    return round((luma - 16) / STEP)


def test_low_latency_file_inputs_show_every_frame_in_order(api, rtmp_server, media, tmp_path):
    counter = media.video(f"color=c=black:s=320x240:r={FPS}:d={PERIOD / FPS},format=yuv420p,"
                          f"geq=lum='16+{STEP}*N':cb=128:cr=128", audio="sine=f=440:d=1:sample_rate=48000",
                          stem="counter")
    url = rtmp_server.url("lowfiles")
    api.create({"taskId": "low-files",
                "inputs": [{"id": "left", "url": counter, "loop": True}, {"id": "right", "url": counter, "loop": True}],
                "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1500, "gopSeconds": 1,
                                      "preset": "ultrafast", "latency": "low"},
                            "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
                "layout": halves("left", "right"),
                "outputs": [{"url": url}]})
    wait_stream(url, 15)
    before = api.status("low-files")
    reader = StreamReader(url, tmp_path / "low.flv", W, H, duration=4)
    assert wait_until(lambda: not reader.running(), 30), "4 s read did not finish"
    reader.stop()
    after = api.status("low-files")
    frames = [f for _, f in reader.snapshot()]
    assert len(frames) >= 4 * FPS - 10, f"{len(frames)} frames in 4 s: {reader.stderr()}"
    for name, point in (("left", LEFT_PT), ("right", RIGHT_PT)):
        indices = [frame_index(f, point) for f in frames]
        assert all(0 <= i < PERIOD for i in indices), f"{name}: not a counter frame: {indices[:40]}"
        steps = [(b - a) % PERIOD for a, b in zip(indices, indices[1:])]
        wrong = [(k, indices[k], indices[k + 1]) for k, s in enumerate(steps) if s != 1]
        assert not wrong, f"{name}: {len(wrong)} of {len(steps)} frame steps are not the next frame, e.g. {wrong[:5]}"
    assert after["lateFrames"] == before["lateFrames"], (before["lateFrames"], after["lateFrames"])
    assert all(i["state"] == "live" for i in after["inputs"]), after["inputs"]
