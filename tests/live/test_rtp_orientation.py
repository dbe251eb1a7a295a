"""Mobile participants over RTP: the sender keeps the camera's coded orientation and signals how
to show it with the video-orientation header extension (CVO, 3GPP TS 26.114 §7.4.5;
`a=extmap:N urn:3gpp:video-orientation`). An `ffmpeg -f rtp` stream passes through a relay that adds
the extension (one-byte or two-byte header form, RFC 8285) and turns the phone mid-call; Tessera must
draw every frame upright, follow each change, and show the rotation in the task status."""
from __future__ import annotations

import time

import numpy as np
import pytest

from helpers import BLUE, GREEN, MAGENTA, RED, YELLOW, decode_video, hex_colour, lavfi_colour
from livetools import FPS, H, TOL, W, decode_png_rgb, wait_until
from rtptools import CvoRelay, RtpSender, free_udp_pair

pytestmark = pytest.mark.live

QUADRANT = (80, 48)   # the coded picture: 160x96, red | green over blue | yellow
SOURCE = (";".join(f"color=c={lavfi_colour(c)}:s={QUADRANT[0]}x{QUADRANT[1]}:r=30[{k}]"
                   for k, c in (("a", RED), ("b", GREEN), ("c", BLUE), ("d", YELLOW)))
          + ";[a][b]hstack[t];[c][d]hstack[u];[t][u]vstack")
EXT_ID = 3
# One square fit region in the middle: the picture shows 240x144 upright, 144x240 turned.
REGION = {"input": "phone", "x": 40, "y": 0, "width": 240, "height": 240, "renderMode": "fit",
          "backgroundColor": hex_colour(MAGENTA)}
POINTS = {"TL": (130, 90), "TR": (190, 90), "BL": (130, 150), "BR": (190, 150)}
ASIDE = (270, 80)     # inside an upright picture, in the bar beside a turned one
# CVO byte → what each quarter of the region shows (F = bit 2 mirrors first, R1R0 turns clockwise).
SHOWN = {
    0: {"TL": RED, "TR": GREEN, "BL": BLUE, "BR": YELLOW},
    1: {"TL": BLUE, "TR": RED, "BL": YELLOW, "BR": GREEN},
    2: {"TL": YELLOW, "TR": BLUE, "BL": GREEN, "BR": RED},
    3: {"TL": GREEN, "TR": YELLOW, "BL": RED, "BR": BLUE},
    0x04 | 2: {"TL": BLUE, "TR": YELLOW, "BL": RED, "BR": GREEN},
}


def arrangement(rgb: np.ndarray) -> int | None:
    """Which CVO byte an R'G'B' canvas shows, or None (no picture, or a mix of two)."""
    def at(pt):
        x, y = pt
        return rgb[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).astype(np.float64).mean(axis=0)

    def near(got, rgb_):
        return float(np.max(np.abs(got - np.asarray(rgb_, dtype=np.float64)))) <= TOL

    for byte, corners in SHOWN.items():
        if all(near(at(POINTS[c]), colour) for c, colour in corners.items()):
            turned = byte & 1
            if near(at(ASIDE), MAGENTA) == bool(turned):
                return byte
    return None


def task_doc(task_id: str, sdp: str) -> dict:
    return {"taskId": task_id, "inputs": [{"id": "phone", "rtp": {"sdp": sdp}}],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 1500, "gopSeconds": 1,
                                  "preset": "ultrafast"}},
            "layout": {"backgroundColor": "#000000", "regions": [REGION]},
            "outputs": [{"url": f"{task_id}.mkv"}]}


def with_extmap(sdp: str, relay_port: int, target_port: int) -> str:
    lines = sdp.replace(f"m=video {relay_port} ", f"m=video {target_port} ").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("m=video"))
    lines.insert(at + 1, f"a=extmap:{EXT_ID} urn:3gpp:video-orientation")
    return "\r\n".join(lines) + "\r\n"


def shown_now(api, task_id, tmp_path) -> int | None:
    r = api.get(f"/v1/tasks/{task_id}/snapshot.png")
    assert r.status == 200, (r.status, r.body[:200])
    return arrangement(decode_png_rgb(r.body, tmp_path / "snap.png"))


def phone_status(api, task_id) -> dict:
    return api.status(task_id)["inputs"][0]


@pytest.fixture
def phone(tmp_path):
    """An ffmpeg RTP sender of the quadrant picture behind a CVO relay; yields a function that
    starts them with the relay's options and returns (relay, SDP for Tessera)."""
    started = []

    def start(cvo: int, **relay_options):
        relay_port, target = free_udp_pair(), free_udp_pair()
        sender = RtpSender(tmp_path, relay_port, None, RED, 440, vcodec="h264", gop=30, name="phone",
                           video_source=SOURCE).start()
        relay = CvoRelay(relay_port, target, EXT_ID, cvo, **relay_options)
        started.extend([sender, relay])
        return relay, with_extmap(sender.sdp(), relay_port, target)

    yield start
    for item in started:
        item.kill() if isinstance(item, RtpSender) else item.stop()


def test_turning_the_phone_mid_call_is_followed_frame_by_frame(api, tessera_server, phone, tmp_path):
    relay, sdp = phone(1)
    api.create(task_doc("cvo", sdp))
    assert wait_until(lambda: shown_now(api, "cvo", tmp_path) == 1, 10), \
        f"90° CW not shown: {phone_status(api, 'cvo')}"
    st = wait_until(lambda: (s := phone_status(api, "cvo")).get("rotation") == 90 and "flip" not in s and s, 3)
    assert st, phone_status(api, "cvo")

    for byte, degrees, flip in ((3, 270, False), (0x04 | 2, 180, True), (0, 0, False)):
        time.sleep(1.0)
        relay.cvo = byte
        start = time.monotonic()
        assert wait_until(lambda: shown_now(api, "cvo", tmp_path) == byte, 5), \
            f"CVO {byte:#x} not followed: {phone_status(api, 'cvo')}"
        # The live pipeline runs 300 ms ahead of the output; the snapshot is taken every frame.
        assert time.monotonic() - start < 3.0, f"CVO {byte:#x} took {time.monotonic() - start:.1f} s to show"
        # The status is the worker's latest report (every half second): it may trail the picture.
        st = wait_until(lambda: (s := phone_status(api, "cvo")).get("rotation") == degrees
                        and s.get("flip", False) == flip and s, 3)
        assert st, phone_status(api, "cvo")
    time.sleep(1.0)

    assert api.delete("/v1/tasks/cvo").status == 200
    frames = decode_video(tessera_server.out / "cvo.mkv")
    shown = [arrangement(f.rgb()) for f in frames]
    first = next(i for i, s in enumerate(shown) if s is not None)
    # Every frame after the first picture is one whole arrangement — never half turned — and
    # they come in the order the phone was turned, each change once.
    broken = [i for i, s in enumerate(shown[first:], first) if s is None]
    assert not broken, f"{len(broken)} frames show no single orientation, e.g. {broken[:10]}"
    order = [s for i, s in enumerate(shown[first:]) if i == 0 or s != shown[first + i - 1]]
    assert order == [1, 3, 6, 0], f"orientations in order: {order}"
    assert relay.changes and [b for _, b in relay.changes] == [1, 3, 6, 0], relay.changes


def test_two_byte_header_form_on_every_packet(api, phone, tmp_path):
    relay, sdp = phone(3, two_byte=True, every_packet=True)
    api.create(task_doc("cvo2", sdp))
    assert wait_until(lambda: shown_now(api, "cvo2", tmp_path) == 3, 10), phone_status(api, "cvo2")
    assert phone_status(api, "cvo2")["rotation"] == 270


def test_without_extmap_the_stream_is_drawn_as_coded(api, phone, tmp_path):
    # The packets carry the extension, but the SDP does not map it: Tessera must not guess.
    relay, sdp = phone(1)
    sdp = "".join(line + "\r\n" for line in sdp.splitlines() if not line.startswith("a=extmap"))
    api.create(task_doc("nocvo", sdp))
    assert wait_until(lambda: shown_now(api, "nocvo", tmp_path) == 0, 10), phone_status(api, "nocvo")
    assert phone_status(api, "nocvo")["rotation"] == 0
