"""The SFU hint of `tessera serve`: `inputs[].drawSize` in the status is the largest size the
current layout draws an input at (crop mode: the size that covers the region), and an
`input.drawSize` webhook event follows each change, so an SFU controller can forward the smallest
simulcast layer that fills the region."""
from __future__ import annotations

import pytest

from helpers import BLUE, RED
from livetools import wait_until
from test_webhooks import Receiver

pytestmark = pytest.mark.live


def region(input_id: str, width: int, height: int) -> dict:
    return {"input": input_id, "x": 0, "y": 0, "width": width, "height": height, "renderMode": "crop"}


def draw_sizes(api, task_id: str) -> dict:
    return {i["id"]: i.get("drawSize") for i in api.status(task_id)["inputs"]}


def test_draw_size_follows_the_layout_in_the_status_and_the_webhook(tessera_server, media):
    api = tessera_server.client
    hd = media.solid(RED, size=(1280, 720), fps=30, duration=2.0)
    # 4:3 into a 16:9 region: the covering size is taller than the region (320x240), which the
    # region's own size (what drawSize says before the first picture) is not.
    sd = media.solid(BLUE, size=(640, 480), fps=30, duration=2.0)
    receiver = Receiver()
    try:
        api.create({
            "taskId": "sfu-hint",
            "inputs": [{"id": "hd", "url": hd, "loop": True}, {"id": "sd", "url": sd, "loop": True}],
            "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 400, "preset": "ultrafast"}},
            "layout": {"regions": [region("hd", 320, 180), {**region("sd", 320, 180), "x": 320}]},
            "outputs": [{"url": "sfu-hint.mp4"}],
            "callbackUrl": receiver.url,
        })
        first = {"hd": {"width": 320, "height": 180}, "sd": {"width": 320, "height": 240}}
        seen = wait_until(lambda: (s := draw_sizes(api, "sfu-hint")) == first and s, 15, 0.2)
        assert seen, f"drawSize never reached {first}: {draw_sizes(api, 'sfu-hint')}"
        receiver.wait_event(lambda e: e["event"] == "input.drawSize" and e["input"]["id"] == "sd"
                            and e["input"].get("drawSize") == first["sd"], 10, "sd drawn at 320x240")

        # hd fills the canvas; sd stays an input but leaves the layout.
        r = api.patch("/v1/tasks/sfu-hint", {"layout": {"regions": [region("hd", 640, 360)]}})
        assert r.status == 200, f"PATCH: {r.status} {r.body[:500]!r}"
        after = {"hd": {"width": 640, "height": 360}, "sd": None}
        seen = wait_until(lambda: (s := draw_sizes(api, "sfu-hint")) == after and s, 10, 0.2)
        assert seen, f"drawSize never reached {after}: {draw_sizes(api, 'sfu-hint')}"
        grown = receiver.wait_event(lambda e: e["event"] == "input.drawSize" and e["input"]["id"] == "hd"
                                    and e["input"].get("drawSize") == after["hd"], 10, "hd drawn at 640x360")
        assert grown["status"]["taskId"] == "sfu-hint"
        gone = receiver.wait_event(lambda e: e["event"] == "input.drawSize" and e["input"]["id"] == "sd"
                                   and "drawSize" not in e["input"],
                                   10, "sd in no region")
        assert gone["input"]["id"] == "sd"

        # Each change is one event: no event repeats a size the input already had.
        events = [e for e in receiver.events() if e["event"] == "input.drawSize"]
        print("input.drawSize events:", [(e["sequence"], e["input"]["id"], e["input"].get("drawSize")) for e in events])
        for who in ("hd", "sd"):
            sizes = [e["input"].get("drawSize") for e in events if e["input"]["id"] == who]
            assert all(a != b for a, b in zip(sizes, sizes[1:])), f"{who}: repeated sizes {sizes}"
        assert api.delete("/v1/tasks/sfu-hint").status == 200
    finally:
        receiver.close()
