"""RTP output ("the mix back into the room") received by the `ffmpeg` CLI from nothing but the
SDP in the output's status: the SDP is complete and true (codecs, payload types, ports, SSRCs),
the picture is the composite, the sound the mix; VP8 and audio-only variants; keyframes on PLI;
bad `rtp` fields named. The SFU end to end (Janus + WebRTC viewers) is test_rtp_output_sfu.py."""
from __future__ import annotations

import json
import re
import socket
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import BLUE, RED, decode_audio, decode_video, ffprobe, streams, tone_amplitude
from livetools import H, LEFT_PT, RIGHT_PT, W, side_by_side, wait_until
from rtptools import free_udp_pair

pytestmark = pytest.mark.live


def rtp_output_status(api, task_id: str, url: str, timeout: float = 10) -> dict:
    found = {}

    def ready():
        for out in api.status(task_id).get("outputs", []):
            if out["url"] == url and out.get("sdp") and out["state"] == "live":
                found.update(out)
                return True
        return False

    assert wait_until(ready, timeout), f"output {url} not live with an SDP: {api.status(task_id)['outputs']}"
    return found


def record_sdp(sdp: str, path: Path, seconds: float, tmp: Path) -> subprocess.CompletedProcess:
    """Receives what the SDP describes for `seconds` with the ffmpeg CLI, copied into Matroska."""
    sdp_file = tmp / (path.stem + ".sdp")
    sdp_file.write_text(sdp)
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp",
           "-reorder_queue_size", "0", "-i", str(sdp_file), "-t", str(seconds), "-map", "0", "-c", "copy", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30)


def test_rtp_output_sdp_is_enough_to_watch_and_hear_the_mix(api, clips, tmp_path):
    port = free_udp_pair()
    audio_port = free_udp_pair()
    url = f"rtp://127.0.0.1:{port}"
    doc = side_by_side("room-out", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": url, "rtp": {"audioPort": audio_port}}]
    api.create(doc)
    out = rtp_output_status(api, "room-out", url)
    sdp = out["sdp"]
    assert f"m=video {port} RTP/AVPF 96" in sdp and f"m=audio {audio_port} RTP/AVP 111" in sdp, sdp
    assert "a=rtpmap:96 H264/90000" in sdp and "packetization-mode=1" in sdp and "profile-level-id=42e0" in sdp, sdp
    assert "a=rtpmap:111 opus/48000/2" in sdp, sdp
    assert "a=rtcp-fb:96 nack pli" in sdp and "a=rtcp-fb:96 ccm fir" in sdp, sdp
    ssrcs = [int(s) for s in re.findall(r"a=ssrc:(\d+) cname:", sdp)]
    assert len(ssrcs) == 2 and ssrcs[0] != ssrcs[1], sdp
    assert out["rtp"]["video"]["ssrc"] == ssrcs[0] and out["rtp"]["audio"]["ssrc"] == ssrcs[1], out["rtp"]

    mkv = tmp_path / "room.mkv"
    result = record_sdp(sdp, mkv, 4, tmp_path)
    assert mkv.exists() and mkv.stat().st_size > 0, f"nothing received: {result.stderr[-2000:]}"
    video = streams(mkv, "video")[0]
    audio = streams(mkv, "audio")[0]
    assert video["codec_name"] == "h264" and video.get("profile") == "Constrained Baseline", video
    assert (int(video["width"]), int(video["height"])) == (W, H), video
    assert audio["codec_name"] == "opus" and int(audio["sample_rate"]) == 48000 and int(audio["channels"]) == 2, audio

    frames = decode_video(mkv, W, H)
    assert len(frames) >= 60, f"{len(frames)} frames in 4 s"
    last = frames[-1]
    for (x, y), rgb in ((LEFT_PT, RED), (RIGHT_PT, BLUE)):
        got = last.rgb_at(x, y, 3)
        assert float(np.max(np.abs(got - np.asarray(rgb, dtype=np.float64)))) <= 24, f"({x},{y}) {got} != {rgb}"
    pcm = decode_audio(mkv)
    assert len(pcm) > 48000 * 2, len(pcm)
    for freq in (440, 1000):
        assert tone_amplitude(pcm[-48000 * 2:], 48000, freq) > 0.05, f"{freq} Hz not heard"

    st = rtp_output_status(api, "room-out", url)["rtp"]
    assert st["video"]["packets"] > 100 and st["audio"]["packets"] > 150, st
    assert st["video"]["senderReports"] >= 2 and st["audio"]["senderReports"] >= 2, st
