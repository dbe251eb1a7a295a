"""RTP output ("the mix back into the room") received by the `ffmpeg` CLI from nothing but the
SDP in the output's status: the SDP is complete and true (codecs, payload types, ports, SSRCs),
the picture is the composite, the sound the mix; VP8 and audio-only variants; keyframes on PLI;
bad `rtp` fields named. The SFU end to end (Janus + WebRTC viewers) is test_rtp_output_sfu.py."""
from __future__ import annotations

import json
import re
import select
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


def record_sdp(sdp: str, path: Path, seconds: float, tmp: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Receives what the SDP describes for `seconds` with the ffmpeg CLI, copied into Matroska."""
    sdp_file = tmp / (path.stem + ".sdp")
    sdp_file.write_text(sdp)
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp",
           "-reorder_queue_size", "0", "-i", str(sdp_file), "-t", str(seconds), "-map", "0", "-c", "copy", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or seconds + 30)


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


def test_vp8_output_shows_the_composite(api, clips, tmp_path):
    port = free_udp_pair()
    url = f"rtp://127.0.0.1:{port}"
    doc = side_by_side("room-vp8", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": url, "rtp": {"videoCodec": "vp8", "videoPayloadType": 100, "audioPayloadType": 101}}]
    api.create(doc)
    sdp = rtp_output_status(api, "room-vp8", url)["sdp"]
    assert "a=rtpmap:100 VP8/90000" in sdp and "a=rtpmap:101 opus/48000/2" in sdp and f"m=audio {port + 2} " in sdp, sdp
    assert api.status("room-vp8")["encodes"] == ["vp8", "opus"], api.status("room-vp8")
    mkv = tmp_path / "vp8.mkv"
    result = record_sdp(sdp, mkv, 3, tmp_path)
    assert mkv.exists(), result.stderr[-2000:]
    assert streams(mkv, "video")[0]["codec_name"] == "vp8"
    frames = decode_video(mkv, W, H)
    assert len(frames) >= 45, len(frames)
    for (x, y), rgb in ((LEFT_PT, RED), (RIGHT_PT, BLUE)):
        got = frames[-1].rgb_at(x, y, 3)
        assert float(np.max(np.abs(got - np.asarray(rgb, dtype=np.float64)))) <= 24, f"({x},{y}) {got} != {rgb}"


def test_voice_room_sends_opus_alone(api, media, tmp_path):
    a = media.solid(RED, duration=2.0, tone=440)
    b = media.solid(BLUE, duration=2.0, tone=1000)
    port = free_udp_pair()
    url = f"rtp://127.0.0.1:{port}"
    api.create({"taskId": "voice-room", "inputs": [{"id": "a", "url": a, "loop": True}, {"id": "b", "url": b, "loop": True}],
                "outputs": [{"url": url}]})
    out = rtp_output_status(api, "voice-room", url)
    sdp = out["sdp"]
    assert "m=video" not in sdp and f"m=audio {port} RTP/AVP 111" in sdp, sdp
    assert out["rtp"].get("video") is None, out["rtp"]
    assert api.status("voice-room")["encodes"] == ["opus"], api.status("voice-room")
    mkv = tmp_path / "voice.mkv"
    result = record_sdp(sdp, mkv, 3, tmp_path)
    assert mkv.exists(), result.stderr[-2000:]
    assert [s["codec_type"] for s in ffprobe(mkv)["streams"]] == ["audio"]
    pcm = decode_audio(mkv)
    for freq in (440, 1000):
        assert tone_amplitude(pcm[-48000 * 2:], 48000, freq) > 0.05, f"{freq} Hz not heard"


def test_encodes_follow_the_outputs_each_format_once(api, clips, rtmp_server, tmp_path):
    port = free_udp_pair()
    room = f"rtp://127.0.0.1:{port}"
    second_room = f"rtp://127.0.0.1:{free_udp_pair()}"
    cdn = rtmp_server.url("encodes")
    doc = side_by_side("encodes", clips.red, clips.blue, [cdn])
    doc["outputs"].append({"url": room})
    api.create(doc)
    rtp_output_status(api, "encodes", room)
    assert api.status("encodes")["encodes"] == ["h264-baseline", "h264-high", "aac", "opus"]
    r = api.patch("/v1/tasks/encodes", {"outputs": [{"url": cdn}, {"url": room}, {"url": second_room}], "sequence": 1})
    assert r.status == 200, r.body
    rtp_output_status(api, "encodes", second_room)
    assert api.status("encodes")["encodes"] == ["h264-baseline", "h264-high", "aac", "opus"], "a second room re-encoded"
    r = api.patch("/v1/tasks/encodes", {"outputs": [{"url": room}], "sequence": 2})
    assert r.status == 200, r.body
    assert wait_until(lambda: api.status("encodes")["encodes"] == ["h264-baseline", "opus"], 5), api.status("encodes")

    doc = side_by_side("one-x264", clips.red, clips.blue, [rtmp_server.url("one")])
    doc["encoder"]["video"]["profile"] = "baseline"
    doc["outputs"].append({"url": f"rtp://127.0.0.1:{free_udp_pair()}"})
    api.create(doc)
    assert wait_until(lambda: api.status("one-x264").get("encodes") == ["h264-baseline", "aac", "opus"], 5), \
        api.status("one-x264")


# ---------------------------------------------------------------------------------------------- #
# RTCP both ways, against a receiver played by the test
# ---------------------------------------------------------------------------------------------- #
class FakeRoom:
    """What an SFU's RTP receiver does: reads RTP on `port`, RTCP on `port + 1`, learns where the
    sender's RTCP comes from (its sender reports), and sends PLI / FIR / RR back there."""

    def __init__(self, port: int):
        self.rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtp.bind(("127.0.0.1", port))
        self.rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtcp.bind(("127.0.0.1", port + 1))
        self.sender_rtcp = None
        self.last_sr = None   # (ntp middle 32 bits, arrival monotonic)
        self.sender_reports = 0
        self.keyframes: list[float] = []   # arrival of each IDR's first packet
        self.packets = 0

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.rtp, self.rtcp], [], [], min(left, 0.05))
            if self.rtp in ready:
                data = self.rtp.recv(2048)
                self.packets += 1
                if is_idr_start(data):
                    self.keyframes.append(time.monotonic())
            if self.rtcp in ready:
                data, addr = self.rtcp.recvfrom(2048)
                if len(data) >= 28 and data[1] == 200:
                    self.sender_rtcp = addr
                    self.sender_reports += 1
                    ntp = struct.unpack("!Q", data[8:16])[0]
                    self.last_sr = ((ntp >> 16) & 0xFFFFFFFF, time.monotonic())

    def send(self, packet: bytes) -> None:
        assert self.sender_rtcp, "no sender report yet"
        self.rtcp.sendto(packet, self.sender_rtcp)

    def close(self):
        self.rtp.close()
        self.rtcp.close()


def is_idr_start(packet: bytes) -> bool:
    """The first RTP packet of an H.264 IDR picture (single NAL, STAP-A holding one, FU-A start)."""
    cc = packet[0] & 0x0F
    offset = 12 + 4 * cc
    if packet[0] & 0x10:
        offset += 4 + 4 * struct.unpack("!H", packet[offset + 2:offset + 4])[0]
    payload = packet[offset:]
    if not payload:
        return False
    nal = payload[0] & 0x1F
    if nal == 5:
        return True
    if nal == 28 and len(payload) > 1:
        return payload[1] & 0x80 != 0 and payload[1] & 0x1F == 5
    if nal == 24:
        i = 1
        while i + 2 < len(payload):
            size = struct.unpack("!H", payload[i:i + 2])[0]
            if payload[i + 2] & 0x1F == 5:
                return True
            i += 2 + size
    return False


def pli(media_ssrc: int) -> bytes:
    return struct.pack("!BBHII", 0x81, 206, 2, 0x5EED, media_ssrc)


def fir(media_ssrc: int, seq: int) -> bytes:
    return struct.pack("!BBHIIIB3x", 0x84, 206, 4, 0x5EED, 0, media_ssrc, seq)


def receiver_report(ssrc: int, fraction: int, lost: int, jitter: int, lsr: int, dlsr: int) -> bytes:
    return struct.pack("!BBHIIIIIII", 0x81, 201, 7, 0x5EED, ssrc, (fraction << 24) | lost, 1000, jitter, lsr, dlsr)


def test_keyframe_requests_and_receiver_reports(api, clips, tmp_path):
    port = free_udp_pair()
    room = FakeRoom(port)
    try:
        url = f"rtp://127.0.0.1:{port}"
        doc = side_by_side("rtcp-out", clips.red, clips.blue, [])
        doc["encoder"]["video"]["gopSeconds"] = 20
        doc["outputs"] = [{"url": url}]
        api.create(doc)
        out = rtp_output_status(api, "rtcp-out", url)
        ssrc = out["rtp"]["video"]["ssrc"]
        room.pump(2.5)
        assert room.sender_reports >= 1, "no sender report on the RTCP port"
        assert room.packets > 50, room.packets
        assert len(room.keyframes) == 1, f"keyframes without a request: {len(room.keyframes)}"

        # One PLI: a keyframe at the next frame.
        sent = time.monotonic()
        room.send(pli(ssrc))
        room.pump(0.5)
        assert len(room.keyframes) == 2, f"PLI answered by {len(room.keyframes) - 1} keyframes"
        answered = room.keyframes[1] - sent
        assert answered < 0.3, f"keyframe {answered * 1000:.0f} ms after the PLI"

        # A burst of requests within the rate limit: one now, one when the hold ends, no more.
        room.pump(1.2)
        before = len(room.keyframes)
        for i in range(5):
            room.send(pli(ssrc) if i % 2 == 0 else fir(ssrc, i))
            room.pump(0.04)
        room.pump(2.0)
        burst = len(room.keyframes) - before
        assert 1 <= burst <= 2, f"5 requests in 200 ms gave {burst} keyframes"

        # A receiver report: loss, jitter and round trip in the status.
        lsr, at = room.last_sr
        dlsr = int((time.monotonic() - at) * 65536)
        room.send(receiver_report(ssrc, 64, 10, 900, lsr, dlsr))
        def reported():
            video = rtp_output_status(api, "rtcp-out", url)["rtp"]["video"]
            return video if video.get("receiverReports", 0) >= 1 else None
        assert wait_until(reported, 3), rtp_output_status(api, "rtcp-out", url)
        video = reported()
        assert video["fractionLost"] == pytest.approx(0.25, abs=0.01), video
        assert video["cumulativeLost"] == 10 and video["jitterMs"] == pytest.approx(10, abs=0.1), video
        assert video["rttMs"] is not None and 0 <= video["rttMs"] < 100, video
        assert video["pli"] >= 4 and video["fir"] >= 2, video
    finally:
        room.close()


def test_srtp_output_decrypts_with_the_sdp_key(api, clips, tmp_path):
    key = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"  # 30 bytes, base64
    port = free_udp_pair()
    url = f"rtp://127.0.0.1:{port}"
    doc = side_by_side("room-srtp", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": url, "rtp": {"srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": key}}}]
    api.create(doc)
    sdp = rtp_output_status(api, "room-srtp", url)["sdp"]
    assert "RTP/SAVPF" in sdp and f"a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:{key}" in sdp, sdp
    mkv = tmp_path / "srtp.mkv"
    result = record_sdp(sdp, mkv, 3, tmp_path)
    assert mkv.exists(), result.stderr[-2000:]
    frames = decode_video(mkv, W, H)
    assert len(frames) >= 45, len(frames)
    got = frames[-1].rgb_at(*LEFT_PT, 3)
    assert float(np.max(np.abs(got - np.asarray(RED, dtype=np.float64)))) <= 24, got
    # Without the key the same packets are noise: a receiver given the SDP minus its key decodes nothing.
    plain = sdp.replace("RTP/SAVPF", "RTP/AVPF").replace("RTP/SAVP", "RTP/AVP")
    plain = "".join(l + "\r\n" for l in plain.splitlines() if not l.startswith("a=crypto"))
    garbled = tmp_path / "garbled.mkv"
    try:
        record_sdp(plain, garbled, 2, tmp_path, timeout=8)
    except subprocess.TimeoutExpired:
        pass   # ffmpeg found nothing it could read in the encrypted packets
    assert not garbled.exists() or garbled.stat().st_size == 0 or len(decode_video(garbled, W, H)) < 5


def test_bad_rtp_output_fields_are_named(api, clips):
    doc = side_by_side("bad-rtp", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": "rtp://127.0.0.1:5000", "rtp": {
        "videoCodec": "h265", "videoPayloadType": 90, "audioSsrc": 0, "audioPort": 5001,
        "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "c2hvcnQ="}}},
        {"url": "rtp://127.0.0.1"}, {"url": "rtmp://127.0.0.1/live/x", "rtp": {}}]
    r = api.post("/v1/tasks", doc)
    assert r.status == 400, r.body
    paths = {issue["path"] for issue in r.json["error"]["issues"]}
    for path in ("outputs[0].rtp.videoCodec", "outputs[0].rtp.videoPayloadType", "outputs[0].rtp.audioSsrc",
                 "outputs[0].rtp.audioPort", "outputs[0].rtp.srtp.key", "outputs[1].url", "outputs[2].rtp"):
        assert path in paths, f"{path} not named: {r.json['error']['issues']}"
    assert api.get("/v1/tasks/bad-rtp").status == 404
