"""SRTP ingest (SDES keys in the SDP): the `ffmpeg` CLI, whose SRTP is its own implementation
(libavformat/srtp.c), not the libsrtp Tessera uses, sends H.264 + Opus as SRTP with the suites
it has; the mix shows the sender's colour and plays its tone. Packets under another key are
refused as failed authentication, counted and named, and never shown."""
from __future__ import annotations

import base64
import time

import pytest

from helpers import BLUE, RED
from livetools import LEFT_PT, wait_until
from rtptools import RtpSender, free_udp_pair
from test_rtp import close, colour_at, input_status, rtp_task, snapshot

pytestmark = pytest.mark.live

KEY = base64.b64encode(bytes(range(1, 31))).decode()
OTHER_KEY = base64.b64encode(bytes(range(101, 131))).decode()


def srtp_sender(tmp_path, video_port, audio_port, rgb, tone, suite, key, name):
    sender = RtpSender(tmp_path, video_port, audio_port, rgb, tone, name=name, gop=30)
    out = []
    for arg in sender.cmd:
        if arg.startswith("rtp://"):
            # Each output's own options: the suite and key, then the srtp:// address.
            out += ["-srtp_out_suite", suite, "-srtp_out_params", key, arg.replace("rtp://", "srtp://")]
        else:
            out.append(arg)
    sender.cmd = out
    return sender


@pytest.mark.parametrize("suite", ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"])
def test_srtp_participant_is_drawn_and_heard(api, senders, tmp_path, suite):
    host = srtp_sender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, suite, KEY, "host").start()
    senders.append(host)
    sdp = host.sdp()
    assert f"a=crypto:1 {suite} inline:" in sdp, sdp
    api.create(rtp_task("srtp", [{"id": "host", "rtp": {"sdp": sdp}}]))
    assert wait_until(lambda: close(colour_at(snapshot(api, "srtp", tmp_path), LEFT_PT), RED), 10), input_status(api, "srtp", "host")
    assert wait_until(lambda: input_status(api, "srtp", "host").get("audioState") == "live", 5), input_status(api, "srtp", "host")
    status = input_status(api, "srtp", "host")
    assert status["packets"]["refused"].get("authentication", 0) == 0, status["packets"]


def test_packets_under_another_key_are_refused(api, senders, tmp_path):
    video, audio = free_udp_pair(), free_udp_pair()
    host = srtp_sender(tmp_path, video, audio, RED, 440, "AES_CM_128_HMAC_SHA1_80", KEY, "host").start()
    senders.append(host)
    sdp = host.sdp()
    host.kill()
    # The same ports, the same suite, another key: nothing decrypts.
    intruder = srtp_sender(tmp_path, video, audio, BLUE, 440, "AES_CM_128_HMAC_SHA1_80", OTHER_KEY, "intruder").start()
    senders.append(intruder)
    intruder.sdp()
    api.create(rtp_task("wrongkey", [{"id": "host", "rtp": {"sdp": sdp}}]))
    assert wait_until(lambda: input_status(api, "wrongkey", "host")["packets"]["refused"].get("authentication", 0) > 50, 8), \
        input_status(api, "wrongkey", "host")
    status = input_status(api, "wrongkey", "host")
    assert "SRTP" in (status["lastError"] or "") and "authentication" in status["lastError"], status
    assert status["frames"] == 0 and status["videoState"] == "no packets", status
    time.sleep(0.5)
    assert not close(colour_at(snapshot(api, "wrongkey", tmp_path), LEFT_PT), BLUE)
