"""Layouts that follow the room, live: a `fill: "present"` grid of three RTP participants goes to
two slots when one sender is killed (1 s silence timeout) and back to three when it returns, read
back from the RTMP output frame by frame; `onVideoLoss: "lastFrame"` keeps a dead sender's last
picture while a `placeholder` region of the same input falls back."""
from __future__ import annotations

import time

import pytest

from helpers import BLUE, GREEN, RED, hex_colour
from livetools import H, W, StreamReader, colour_mismatch, wait_stream, wait_until
from rtptools import RtpSender, free_udp_pair

pytestmark = pytest.mark.live

BLACK, YELLOW = (0, 0, 0), (255, 255, 0)
# Grid slots on the 320x240 canvas: three inputs in 2x2 (the fourth quarter shows the black
# background), two side by side.
THREE = [((80, 60), RED), ((240, 60), GREEN), ((80, 180), BLUE), ((240, 180), BLACK)]
TWO = [((80, 60), RED), ((80, 180), RED), ((240, 60), BLUE), ((240, 180), BLUE)]


def live_task(task_id: str, inputs: list, layout: dict, url: str) -> dict:
    return {"taskId": task_id, "inputs": inputs,
            "encoder": {"video": {"width": W, "height": H, "fps": 30, "bitrateKbps": 800, "gopSeconds": 1,
                                  "preset": "ultrafast"},
                        "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
            "layout": layout, "outputs": [{"url": url}]}


def classify(frame) -> str:
    if colour_mismatch(frame, THREE) is None:
        return "3"
    if colour_mismatch(frame, TWO) is None:
        return "2"
    return "?"


def first_after(frames, since: float, kind: str) -> float | None:
    return next((t for t, f in frames if t >= since and classify(f) == kind), None)


def test_present_grid_goes_from_three_slots_to_two_and_back(api, rtmp_server, senders, tmp_path):
    ports = {name: (free_udp_pair(), free_udp_pair()) for name in ("a", "b", "c")}
    colours = {"a": RED, "b": GREEN, "c": BLUE}
    for name in ("a", "b", "c"):
        senders.append(RtpSender(tmp_path, *ports[name], colours[name], 440, name=name).start())
    inputs = [{"id": s.log.stem, "rtp": {"sdp": s.sdp()}, "silenceTimeoutMs": 1000} for s in senders]
    url = rtmp_server.url("follow")
    api.create(live_task("follow", inputs, {"template": "grid", "fill": "present", "backgroundColor": "#000000"}, url))
    wait_stream(url, 20)
    reader = StreamReader(url, tmp_path / "follow.flv", W, H)
    try:
        assert wait_until(lambda: (last := reader.latest()) is not None and classify(last[1]) == "3", 20), \
            f"never three slots: {api.status('follow')['inputs']} {reader.stderr()}"
        time.sleep(1.0)
        senders[1].kill()
        killed = time.monotonic()
        assert wait_until(lambda: classify(reader.latest()[1]) == "2", 6), \
            f"no re-flow to two slots: {colour_mismatch(reader.latest()[1], TWO)}"
        time.sleep(1.5)
        senders.append(RtpSender(tmp_path, *ports["b"], GREEN, 440, name="b-again").start())
        returned = time.monotonic()
        assert wait_until(lambda: classify(reader.latest()[1]) == "3", 10), \
            f"no re-flow back to three slots: {colour_mismatch(reader.latest()[1], THREE)}"
        time.sleep(1.0)
    finally:
        reader.stop()
    frames = reader.snapshot()
    kinds = "".join(classify(f) for _, f in frames)
    # The run of layouts, ignoring the start: 3…3 2…2 3…3, each change a clean cut.
    body = kinds[kinds.index("3"):]
    runs = [body[0]] + [k for p, k in zip(body, body[1:]) if k != p]
    assert [r for r in runs if r != "?"] == ["3", "2", "3"], f"layout runs: {runs}"
    assert body.count("?") <= 4, f"{body.count('?')} frames neither three nor two slots: {body}"
    to_two = first_after(frames, killed, "2") - killed
    to_three = first_after(frames, returned, "3") - returned
    assert to_two <= 2.5, f"two slots {to_two:.2f} s after the kill (1 s silence timeout)"
    assert to_three <= 4.0, f"three slots {to_three:.2f} s after the sender returned"
    print(f"\nre-flow: two slots {to_two:.2f} s after the kill, three {to_three:.2f} s after the return; "
          f"{len(frames)} frames, {body.count('?')} in between")


def test_last_frame_keeps_the_picture_after_the_sender_stops(api, rtmp_server, senders, tmp_path):
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, name="host").start()
    senders.append(host)
    layout = {"backgroundColor": "#000000", "regions": [
        {"input": "host", "x": 0, "y": 0, "width": W // 2, "height": H, "onVideoLoss": "lastFrame",
         "backgroundColor": hex_colour(GREEN)},
        {"input": "host", "x": W // 2, "y": 0, "width": W // 2, "height": H, "backgroundColor": hex_colour(YELLOW)},
    ]}
    url = rtmp_server.url("lastframe")
    api.create(live_task("lastframe", [{"id": "host", "rtp": {"sdp": host.sdp()}, "silenceTimeoutMs": 1000}],
                         layout, url))
    wait_stream(url, 20)
    reader = StreamReader(url, tmp_path / "lastframe.flv", W, H)
    both_red = [((80, 120), RED), ((240, 120), RED)]
    fallen = [((80, 120), RED), ((240, 120), YELLOW)]
    try:
        assert wait_until(lambda: (last := reader.latest()) is not None and colour_mismatch(last[1], both_red) is None,
                          20), f"host never drawn: {api.status('lastframe')['inputs']}"
        host.kill()
        killed = time.monotonic()
        assert wait_until(lambda: colour_mismatch(reader.latest()[1], fallen) is None, 6), \
            f"after the kill: {colour_mismatch(reader.latest()[1], fallen)}"
        fell = time.monotonic()
        time.sleep(2.5)
    finally:
        reader.stop()
    assert fell - killed <= 2.5, f"the placeholder region fell back {fell - killed:.2f} s after the kill"
    after = [f for t, f in reader.snapshot() if t > fell]
    assert len(after) > 45, f"{len(after)} frames in the 2.5 s after the fallback"
    bad = [colour_mismatch(f, fallen) for f in after if colour_mismatch(f, fallen)]
    assert not bad, f"{len(bad)} of {len(after)} frames after the fallback differ: {bad[0]}"
    st = next(i for i in api.status("lastframe")["inputs"] if i["id"] == "host")
    assert st["state"] == "waiting", st


def test_speaker_follows_the_voice_live(api, rtmp_server, senders, tmp_path):
    # Two participants take turns, 4 s each (a first); the big picture (top three quarters) follows
    # about 1.5 s after each turn starts, and never switches twice within 2 s.
    turns = {"a": "lt(mod(t\\,8)\\,4)", "b": "gte(mod(t\\,8)\\,4)"}
    colours = {"a": RED, "b": BLUE}
    for name in ("a", "b"):
        source = f"aevalsrc=0.4*sin(2*PI*440*t)*{turns[name]}:s=48000"
        senders.append(RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), colours[name], 440, name=name,
                                 audio_source=source).start())
    inputs = [{"id": s.log.stem, "rtp": {"sdp": s.sdp()}} for s in senders]
    url = rtmp_server.url("speaker")
    api.create(live_task("speaker", inputs, {"template": "speaker", "main": "b"}, url))
    wait_stream(url, 20)
    reader = StreamReader(url, tmp_path / "speaker.flv", W, H, duration=14)
    assert wait_until(lambda: not reader.running(), 40), "14 s read did not finish"
    reader.stop()
    big = (160, 90)

    def speaker(frame) -> str:
        for name, rgb in colours.items():
            if colour_mismatch(frame, [(big, rgb)]) is None:
                return name
        return "?"

    timeline = [(t, speaker(f)) for t, f in reader.snapshot()]
    switches = [(t, s) for (_, p), (t, s) in zip(timeline, timeline[1:]) if s != p and s != "?"]
    names = [s for _, s in switches]
    assert len(switches) >= 2, f"the big picture switched {names} in 14 s of turns of 4 s"
    assert all(a != b for a, b in zip(names, names[1:])), names
    gaps = [round(t2 - t1, 2) for (t1, _), (t2, _) in zip(switches, switches[1:])]
    assert all(gap >= 2.0 for gap in gaps), f"switches closer than the 2 s hold: {gaps}"
    assert sum(1 for _, s in timeline if s == "?") <= 3, "frames without a speaker in the big picture"
    print(f"\nspeaker live: switches {names}, {gaps} s apart")


def test_audio_only_participant_keeps_a_slot_live(api, rtmp_server, senders, tmp_path):
    # A video participant and an audio-only one: with audioOnlySlots the grid keeps two halves (the
    # voice's half shows the background) while the voice is live, and closes up once it goes silent.
    video = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, name="cam").start()
    voice = RtpSender(tmp_path, None, free_udp_pair(), RED, 660, name="voice").start()
    senders += [video, voice]
    inputs = [{"id": "cam", "rtp": {"sdp": video.sdp()}},
              {"id": "voice", "rtp": {"sdp": voice.sdp()}, "silenceTimeoutMs": 1000}]
    url = rtmp_server.url("voice")
    api.create(live_task("voice", inputs, {"template": "grid", "fill": "present", "audioOnlySlots": True,
                                           "backgroundColor": hex_colour(BLUE)}, url))
    wait_stream(url, 20)
    reader = StreamReader(url, tmp_path / "voice.flv", W, H)
    halves = [((80, 120), RED), ((240, 120), BLUE)]
    whole = [((80, 120), RED), ((240, 120), RED)]
    try:
        assert wait_until(lambda: (last := reader.latest()) is not None and colour_mismatch(last[1], halves) is None,
                          20), f"no slot for the voice: {api.status('voice')['inputs']}"
        voice.kill()
        killed = time.monotonic()
        assert wait_until(lambda: colour_mismatch(reader.latest()[1], whole) is None, 6), \
            f"the voice's slot stayed after it went silent: {colour_mismatch(reader.latest()[1], whole)}"
        closed = time.monotonic() - killed
    finally:
        reader.stop()
    assert closed <= 2.5, f"the slot closed {closed:.2f} s after the voice stopped (1 s silence timeout)"
