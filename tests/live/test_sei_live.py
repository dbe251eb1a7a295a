"""SEI through `tessera serve` (issue 13), read back from a real RTMP server: an RTP participant's
user data byte for byte in the mix; `POST /v1/tasks/{id}/sei` in the next `repeat` frames, and its
refusals; the layout-and-volume SEI naming the loud input, its `appData` changed by PATCH; audio
levels in the status; a relay keeping its input's SEI."""
from __future__ import annotations

import base64
import subprocess

import pytest

from helpers import RED, sine
from livetools import H, W, wait_stream, wait_until
from rtptools import RtpSender, free_udp_pair
from seitools import TESSERA_UUID, frames_with, sei_per_frame, volume_messages

pytestmark = pytest.mark.live

UUID = "00112233445566778899aabbccddeeff"
TEXT = "sku-1001.price-99"
# h264_metadata writes the text with its terminating NUL.
MESSAGE = (5, bytes.fromhex(UUID) + TEXT.encode() + b"\0")


def mix_task(task_id: str, inputs: list, url: str, **extra) -> dict:
    regions = [{"input": i["id"], "x": k * (W // 2), "y": 0, "width": W // 2, "height": H} for k, i in enumerate(inputs)]
    return {"taskId": task_id, "inputs": inputs,
            "encoder": {"video": {"width": W, "height": H, "fps": 30, "bitrateKbps": 600, "gopSeconds": 1,
                                  "preset": "ultrafast"},
                        "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
            "layout": {"backgroundColor": "#000000", "regions": regions},
            "outputs": [{"url": url}], **extra}


def test_rtp_participant_sei_reaches_the_rtmp_output_byte_for_byte(api, rtmp_server, senders, tmp_path):
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, name="host", gop=15)
    at = host.cmd.index("0:v") + 1
    host.cmd[at:at] = ["-bsf:v", f"h264_metadata=sei_user_data={UUID}+{TEXT}"]
    senders.append(host.start())
    url = rtmp_server.url("sei-rtp")
    api.create(mix_task("sei-rtp", [{"id": "host", "rtp": {"sdp": host.sdp()}}], url))
    wait_stream(url, 20)
    frames = sei_per_frame(url, seconds=4)
    carried = frames_with(frames, *MESSAGE)
    # The sender repeats it with every keyframe (SPS): every 15 frames at 30 fps.
    assert len(carried) >= 5, f"{len(carried)} frames of {len(frames)} carry the participant's SEI"
    gaps = {b - a for a, b in zip(carried, carried[1:])}
    assert gaps <= {14, 15, 16}, f"SEI frames {carried}: expected one every 15 frames"


def test_pull_input_sei_reaches_the_output(api, rtmp_server, media):
    """An RTMP pull input (FLV: length-prefixed NAL units) whose SEI rides every keyframe."""
    clip = media.video("color=c=0x3060C0:s=320x240:r=30:d=2", ext="mp4", stem="sei-pull",
                       extra=["-g", "15", "-x264-params", "aud=1", "-bsf:v", f"h264_metadata=sei_user_data={UUID}+{TEXT}"])
    src = rtmp_server.url("sei-src")
    publisher = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                  "-i", str(media.path(clip)), "-c", "copy", "-f", "flv", src],
                                 stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_stream(src, 20)
        url = rtmp_server.url("sei-pulled")
        api.create(mix_task("sei-pull", [{"id": "cdn", "url": src}], url))
        wait_stream(url, 20)
        assert wait_until(lambda: api.status("sei-pull")["inputs"][0]["state"] == "live", 20), api.status("sei-pull")
        carried = frames_with(sei_per_frame(url, seconds=3), *MESSAGE)
        # With every keyframe: every 15 frames, 6 in 3 s (the reader starts at a keyframe).
        assert len(carried) >= 4, carried
    finally:
        publisher.kill()
        publisher.wait(10)


def test_injected_sei_goes_into_the_next_repeat_frames(api, rtmp_server, clips, tmp_path):
    url = rtmp_server.url("sei-inject")
    api.create(mix_task("sei-inject", [{"id": "cam", "url": clips.red, "loop": True}], url))
    wait_stream(url, 20)
    # Read the stream while two messages go in.
    dump = tmp_path / "inject.flv"
    reader = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-i", url, "-t", "5",
                               "-c", "copy", "-flush_packets", "1", "-y", str(dump)],
                              stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Once the reader is writing the stream (each packet flushed: past the FLV header and a few
        # frames), not after a fixed 1.5 s that a reader slow to connect on a loaded machine outlasted.
        assert wait_until(lambda: dump.exists() and dump.stat().st_size > 4096, 15, 0.05), "the reader took no stream"
        r = api.post("/v1/tasks/sei-inject/sei", {"payload": "flash-sale", "repeat": 3})
        assert r.status == 202, (r.status, r.body)
        assert r.json["repeat"] == 3 and r.json["uuid"] == TESSERA_UUID.hex(), r.json
        blob = bytes(range(256)) * 4     # 1 KiB with zero runs: emulation prevention on the way
        r = api.post("/v1/tasks/sei-inject/sei", {"payload": base64.b64encode(blob).decode(), "encoding": "base64",
                                                  "uuid": UUID})
        assert r.status == 202, (r.status, r.body)
        reader.wait(30)
    finally:
        if reader.poll() is None:
            reader.kill()
    frames = sei_per_frame(dump)
    first = frames_with(frames, 5, TESSERA_UUID + b"flash-sale")
    assert len(first) == 3 and first == list(range(first[0], first[0] + 3)), f"flash-sale in frames {first}"
    second = frames_with(frames, 5, bytes.fromhex(UUID) + blob)
    assert len(second) == 1 and second[0] >= first[0], f"binary message in frames {second}"


def test_sei_requests_are_checked(api, rtmp_server, clips, media):
    url = rtmp_server.url("sei-check")
    api.create(mix_task("sei-check", [{"id": "cam", "url": clips.red, "loop": True}], url))
    cases = [({"payload": "x", "uuid": "1234"}, "uuid"),
             ({"payload": "x", "repeat": 31}, "repeat"),
             ({"payload": "x", "repeat": 0}, "repeat"),
             ({"payload": "x" * 4097}, "payload"),
             ({"payload": "x", "encoding": "hex"}, "encoding"),
             ({"payload": "***", "encoding": "base64"}, "payload"),
             ({"repeat": 2}, "payload")]
    for body, path in cases:
        r = api.post("/v1/tasks/sei-check/sei", body)
        assert r.status == 400 and r.json["error"]["path"] == path, (body, r.status, r.body)
    r = api.post("/v1/tasks/no-such-task/sei", {"payload": "x"})
    assert r.status == 404, (r.status, r.body)
    api.create({"taskId": "sei-voice", "inputs": [{"id": "a", "url": media.audio(sine(440, 2)), "loop": True}],
                "encoder": {"audio": {}}, "outputs": [{"url": "voice.mp4"}]})
    r = api.post("/v1/tasks/sei-voice/sei", {"payload": "x"})
    assert r.status == 400 and r.json["error"]["path"] == "encoder.video", (r.status, r.body)


def test_volume_sei_names_the_loud_input_and_follows_patched_app_data(api, rtmp_server, clips):
    url = rtmp_server.url("sei-volume")
    # red: 440 Hz tone at 1/8 full scale (−21 dBFS → level 65); green: no audio at all.
    api.create(mix_task("sei-volume", [{"id": "tone", "url": clips.red, "loop": True},
                                       {"id": "mute", "url": clips.green, "loop": True}], url,
                        sei={"volume": {"intervalMs": 500}, "appData": "first"}))
    wait_stream(url, 20)

    def levels():
        return {i["id"]: (i.get("audioLevel"), i.get("speaking")) for i in api.status("sei-volume")["inputs"]}
    assert wait_until(lambda: (levels()["tone"][0] or 0) >= 55 and levels()["tone"][1], 10), levels()
    assert levels()["mute"] == (0, False), levels()

    messages = volume_messages(sei_per_frame(url, seconds=3))
    assert len(messages) >= 5, messages
    gaps = {b[0] - a[0] for a, b in zip(messages, messages[1:])}
    assert gaps <= {14, 15, 16}, f"volume SEI every {sorted(gaps)} frames, expected 15 (500 ms at 30 fps)"
    for _, m in messages:
        vol = {v["input"]: v for v in m["volumes"]}
        assert vol["tone"]["speaking"] and 55 <= vol["tone"]["level"] <= 75, m
        assert vol["mute"] == {"input": "mute", "level": 0, "speaking": False}, m
        assert m["appData"] == "first" and {r["input"] for r in m["regions"]} == {"tone", "mute"}, m
    steps = [b[1]["ts"] - a[1]["ts"] for a, b in zip(messages, messages[1:])]
    assert all(480 <= s <= 520 for s in steps), steps

    r = api.patch("/v1/tasks/sei-volume", {"sei": {"volume": {"intervalMs": 500}, "appData": "second"}})
    assert r.status == 200, (r.status, r.body)
    r = api.patch("/v1/tasks/sei-volume", {"sei": {"appData": "y" * 4097}})
    assert r.status == 400 and r.json["error"]["path"] == "sei.appData", (r.status, r.body)
    messages = volume_messages(sei_per_frame(url, seconds=2))
    assert messages and all(m["appData"] == "second" for _, m in messages), messages


def test_relay_keeps_the_input_sei(api, rtmp_server, media):
    src = media.video("color=c=0x00FF00:s=320x240:r=25:d=2", audio=sine(440, 2), ext="ts", stem="relay-sei",
                      extra=["-g", "10", "-bsf:v", f"h264_metadata=sei_user_data={UUID}+{TEXT}"])
    url = rtmp_server.url("sei-relay")
    api.create({"taskId": "sei-relay", "mode": "relay", "inputs": [{"id": "cam", "url": src, "loop": True}],
                "outputs": [{"url": url}]})
    wait_stream(url, 20)
    frames = sei_per_frame(url, seconds=3)
    carried = frames_with(frames, *MESSAGE)
    assert len(carried) >= 5 and {b - a for a, b in zip(carried, carried[1:])} <= {10}, carried
