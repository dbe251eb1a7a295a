"""GStreamer as the RTP sender: an implementation independent of ffmpeg's (rtph264pay with its own
STAP-A / FU-A choices and in-band SPS / PPS, rtpvp8pay's picture ids, rtpopuspay), described by a
hand-written SDP as an SFU's forward would be. Two participants, H.264 + Opus and VP8 + Opus, mixed
live and read back from a real RTMP server: both pictures and both voices, no loss."""
from __future__ import annotations

import shutil

import pytest

from helpers import BLUE, RED, decode_audio, tone_amplitude
from livetools import FPS, H, LEFT_PT, RIGHT_PT, W, StreamReader, colour_mismatch, read_packets, wait_until
from rtptools import GstSender, free_udp_pair

pytestmark = pytest.mark.live


@pytest.fixture(autouse=True, scope="module")
def _gstreamer():
    if shutil.which("gst-launch-1.0") is None:
        pytest.fail("gst-launch-1.0 is not on PATH: run scripts/install.sh (gstreamer1.0-tools and plugins)")


@pytest.fixture
def gst(tmp_path):
    started: list[GstSender] = []
    yield started
    for s in started:
        s.kill()


def gst_task(task_id: str, host_sdp: str, guest_sdp: str, url: str) -> dict:
    return {"taskId": task_id,
            "inputs": [{"id": "host", "rtp": {"sdp": host_sdp}}, {"id": "guest", "rtp": {"sdp": guest_sdp}}],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 800, "gopSeconds": 1,
                                  "preset": "ultrafast"},
                        "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
            "layout": {"backgroundColor": "#000000", "regions": [
                {"input": "host", "x": 0, "y": 0, "width": W // 2, "height": H},
                {"input": "guest", "x": W // 2, "y": 0, "width": W // 2, "height": H}]},
            "outputs": [{"url": url}]}


def test_gstreamer_h264_and_vp8_senders_are_mixed(api, rtmp_server, gst, tmp_path):
    host = GstSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, vcodec="h264", name="host")
    guest = GstSender(tmp_path, free_udp_pair(), free_udp_pair(), BLUE, 1000, vcodec="vp8", name="guest")
    url = rtmp_server.url("gst")
    # Ports bound before the senders start, so nothing they send is lost to a closed port.
    api.create(gst_task("gst", host.sdp(), guest.sdp(), url))
    gst += [host.start(), guest.start()]

    def live():
        return all(i["state"] == "live" for i in api.status("gst")["inputs"])
    assert wait_until(live, 15), (api.status("gst"), host.log.read_text()[-500:], guest.log.read_text()[-500:])

    reader = StreamReader(url, tmp_path / "gst.flv", W, H, duration=5)
    assert wait_until(lambda: not reader.running(), 30), "5 s read did not finish"
    reader.stop()
    frames = reader.snapshot()
    assert len(frames) >= 130, f"{len(frames)} frames in 5 s (expected ~150): {reader.stderr()}"
    bad = [i for i, (_, f) in enumerate(frames[30:]) if colour_mismatch(f, [(LEFT_PT, RED), (RIGHT_PT, BLUE)])]
    assert not bad, f"{len(bad)} frames without red (GStreamer H.264) left and blue (GStreamer VP8) right, e.g. " \
                    f"{colour_mismatch(frames[30 + bad[0]][1], [(LEFT_PT, RED), (RIGHT_PT, BLUE)])}"
    vts = [p.dts for p in read_packets(reader.dump) if p.kind == "video"]
    assert abs((len(vts) - 1) / (vts[-1] - vts[0]) - FPS) <= 1.0
    pcm = decode_audio(reader.dump, 48000, 2)[9600:]
    a440, a1000 = tone_amplitude(pcm, 48000, 440), tone_amplitude(pcm, 48000, 1000)
    assert a440 > 0.03 and a1000 > 0.03, f"voices: 440 Hz {a440:.3f} (host), 1000 Hz {a1000:.3f} (guest)"

    for i in api.status("gst")["inputs"]:
        assert i["state"] == "live" and i["frames"] > 100, i
        assert i["packets"]["received"] > 300 and i["packets"]["lost"] == 0 and i["packets"]["malformed"] == 0, i
        assert i["rotation"] == 0 and "flip" not in i, i
