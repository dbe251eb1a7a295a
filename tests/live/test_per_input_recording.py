"""Per-participant recordings (`{input}` outputs): each input's own media copied into its own file
as received — no decode, no encode — stamped on the task clock.

One live task: an H.264 + Opus RTP participant, a file input (H.264 + AAC, looping) and, added by a
PATCH about 2 s later, a VP8 + Opus RTP participant; `rec/{input}.mkv`. After the task ends, each
file is read back with ffprobe and ffmpeg: the codecs and sizes sent, about as many packets as
were sent (the file input's exact packet sizes), each file starting at its offset on the task
clock (the late participant about 2 s after the first) and showing that participant's colour.
"""
from __future__ import annotations

import json
import subprocess
import time

import numpy as np
import pytest

from helpers import BLUE, GREEN, RED, decode_audio, decode_video, ffprobe, tone_amplitude
from livetools import wait_until
from rtptools import RtpSender, free_udp_pair

pytestmark = pytest.mark.live

W, H, FPS = 320, 240, 30


def packets(path, kind: str) -> list[dict]:
    cmd = ["ffprobe", "-v", "error", "-select_streams", "v:0" if kind == "video" else "a:0", "-show_packets",
           "-show_entries", "packet=pts_time,dts_time,size,flags", "-print_format", "json", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout).get("packets", [])


def mean_colour(path) -> np.ndarray:
    frames = decode_video(path)
    assert frames, f"{path}: no picture decodes"
    frame = frames[len(frames) // 2]
    return frame.rgb_at(frame.width // 2, frame.height // 2, radius=4)


def close(rgb, expected, tol=40) -> bool:
    # The senders tag no colour space: decoded as BT.709, their BT.601 red lands ~25 levels off.
    return float(np.max(np.abs(np.asarray(rgb) - np.asarray(expected, dtype=np.float64)))) <= tol


def test_each_participant_is_recorded_as_received_on_the_task_clock(api, tessera_server, media, senders, tmp_path):
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, vcodec="h264", gop=15, name="host").start()
    guest = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), BLUE, 1000, vcodec="vp8", gop=30, name="guest").start()
    senders += [host, guest]
    clip = media.solid(GREEN, size=(160, 120), fps=10, duration=2.0, tone=660)
    inputs = [{"id": "host", "rtp": {"sdp": host.sdp()}}, {"id": "clip", "url": clip, "loop": True}]
    regions = [{"input": "host", "x": 0, "y": 0, "width": W // 2, "height": H},
               {"input": "clip", "x": W // 2, "y": 0, "width": W // 2, "height": H}]
    doc = {"taskId": "per-input",
           "inputs": inputs,
           "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 500, "preset": "ultrafast"},
                       "audio": {"sampleRate": 48000, "channels": 2}},
           "layout": {"backgroundColor": "#000000", "regions": regions},
           "outputs": [{"url": "rec/{input}.mkv"}, {"url": "rec/mix.mkv"}]}
    api.create(doc)
    rec = tessera_server.out / "rec"

    def per_input_status():
        return next(o for o in api.status("per-input")["outputs"] if o["url"] == "rec/{input}.mkv")

    assert wait_until(lambda: len(per_input_status().get("files") or []) >= 2, 15, 0.2), api.status("per-input")
    started = time.monotonic()
    time.sleep(2)
    r = api.patch("/v1/tasks/per-input", {"inputs": inputs + [{"id": "guest", "rtp": {"sdp": guest.sdp()}}]})
    assert r.status == 200, r.json
    assert wait_until(lambda: len(per_input_status().get("files") or []) >= 3, 10, 0.2), per_input_status()
    time.sleep(4)
    wall = time.monotonic() - started
    status = per_input_status()
    assert status["state"] == "live", status
    r = api.delete("/v1/tasks/per-input")
    assert r.status == 200, (r.status, r.json)

    files = {p.stem: p for p in rec.glob("*.mkv") if p.stem != "mix"}
    assert sorted(files) == ["clip", "guest", "host"], sorted(rec.iterdir())
    assert sorted(status["files"]) == sorted(str(p) for p in files.values()), status

    # Codecs and sizes as sent, audio beside each picture.
    expected = {"host": ("h264", W, H, "opus"), "guest": ("vp8", W, H, "opus"), "clip": ("h264", 160, 120, "aac")}
    info = {name: ffprobe(path) for name, path in files.items()}
    for name, (vcodec, width, height, acodec) in expected.items():
        streams = {s["codec_type"]: s for s in info[name]["streams"]}
        assert streams["video"]["codec_name"] == vcodec and (streams["video"]["width"], streams["video"]["height"]) == (width, height), \
            (name, streams["video"])
        assert streams["audio"]["codec_name"] == acodec, (name, streams["audio"])

    # Not re-encoded: the RTP participants' files hold about every frame sent (30 fps) with the
    # senders' GOPs; the file input's packets are its own, byte for byte in size.
    for name, gop in (("host", 15), ("guest", 30)):
        video = packets(files[name], "video")
        span = float(video[-1]["pts_time"]) - float(video[0]["pts_time"])
        # A participant added mid-stream gets what its ports buffered as a burst, placed where
        # the composite shows it (at its arrival, 1 ms apart): more frames than the span. On a
        # loaded machine the worker may also take packets in clumps, each clump placed at its
        # arrival 1 ms apart: those frames are counted beside the span too. A sender starved of
        # CPU sends late and fewer frames (the count is then lower); what it sent is all there:
        # keyframes exactly every `gop` frames below.
        stamps = [float(p["pts_time"]) for p in video]
        clumped = sum(1 for a, b in zip(stamps, stamps[1:]) if b - a < 0.005)
        assert 0.5 * span * 30 <= len(video) <= span * 30 + clumped + 15, (name, len(video), span, clumped)
        keys = [i for i, p in enumerate(video) if "K" in p["flags"]]
        assert keys[0] == 0 and all(b - a == gop for a, b in zip(keys, keys[1:])), (name, keys[:10])
        audio = packets(files[name], "audio")
        audio_span = float(audio[-1]["pts_time"]) - float(audio[0]["pts_time"])
        assert 0.5 * audio_span * 50 <= len(audio) <= audio_span * 50 + 75, (name, len(audio), audio_span)
    source_sizes = [int(p["size"]) for p in packets(tessera_server.media_root / clip, "video")]
    recorded_sizes = [int(p["size"]) for p in packets(files["clip"], "video")]
    assert len(recorded_sizes) >= len(source_sizes), (len(recorded_sizes), len(source_sizes))
    assert recorded_sizes[:len(source_sizes)] == source_sizes, "the file input's packets were not copied as they were"

    # On the task clock: each file starts at its offset (the guest, added 2 s later, about 2 s
    # after the host), and no file runs past the task's length.
    start = {name: float(info[name]["format"]["start_time"]) for name in files}
    assert 0 < start["host"] < 10 and 0 <= start["clip"] < 10, start
    assert 1.5 <= start["guest"] - start["host"] <= 2 + 3, start
    for name in files:
        end = start[name] + float(info[name]["format"]["duration"])
        assert end <= wall + 10, (name, start[name], end, wall)

    # Each file is its participant only: colour and voice.
    for name, colour, tone in (("host", RED, 440), ("guest", BLUE, 1000), ("clip", GREEN, 660)):
        rgb = mean_colour(files[name])
        assert close(rgb, colour), (name, rgb)
        pcm = decode_audio(files[name], 48000, 1)
        assert tone_amplitude(pcm, 48000, tone) > 0.03, (name, tone)
