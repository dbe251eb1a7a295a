"""`packets.malformed` and `packets.refused.source` never count the same datagram twice (issue 30):
a stranger beside a live participant sends datagrams that are both from a refused source and not
RTP at all, and well-formed RTP. The first are counted as malformed only (whether a datagram is RTP
is judged before who sent it), the second as a refused source only, and neither moves the picture."""
from __future__ import annotations

import socket
import struct
import time

import pytest

from helpers import RED
from livetools import LEFT_PT, wait_until
from rtptools import RtpSender, free_udp_pair
from test_rtp import close, colour_at, input_status, layout, rtp_task, snapshot

pytestmark = pytest.mark.live

GARBAGE, FOREIGN = 200, 150


def test_a_strangers_garbage_is_malformed_and_his_rtp_a_refused_source_never_both(api, senders, tmp_path):
    vport, aport = free_udp_pair(), free_udp_pair()
    host = RtpSender(tmp_path, vport, aport, RED, 440, name="host").start()
    senders.append(host)
    api.create(rtp_task("counts", [{"id": "host", "rtp": {"sdp": host.sdp()}}], lay=layout("host", None)))
    assert wait_until(lambda: close(colour_at(snapshot(api, "counts", tmp_path), LEFT_PT), RED), 10), \
        input_status(api, "counts", "host")
    before = input_status(api, "counts", "host")["packets"]
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.bind(("127.0.0.2", 0))
    try:
        for n in range(max(GARBAGE, FOREIGN)):
            if n < GARBAGE:   # version 0 and too short by turns: not RTP, and from a refused source too
                garbage = bytes([0x00, 96]) + bytes(30) if n % 2 else bytes([0x80, 96, 0, 1])
                stranger.sendto(garbage, ("127.0.0.1", vport))
            if n < FOREIGN:   # well-formed RTP from the stranger: refused for its source
                header = struct.pack("!BBHII", 0x80, 96, n, n * 3000, 0x5EED)
                stranger.sendto(header + bytes([0x65, 0x88]) + bytes(100), ("127.0.0.1", vport))
            time.sleep(0.002)
    finally:
        stranger.close()

    def counted():
        p = input_status(api, "counts", "host")["packets"]
        return (p["refused"].get("source", 0) - before["refused"].get("source", 0) >= FOREIGN - 10
                and p["refused"].get("malformed", 0) - before["refused"].get("malformed", 0) >= GARBAGE - 10) and p
    after = wait_until(counted, 5)
    assert after, input_status(api, "counts", "host")["packets"]
    source = after["refused"].get("source", 0) - before["refused"].get("source", 0)
    refused_malformed = after["refused"].get("malformed", 0) - before["refused"].get("malformed", 0)
    malformed = after["malformed"] - before["malformed"]
    assert source <= FOREIGN and refused_malformed <= GARBAGE, after
    # Each datagram once: the garbage is malformed, never also a refused source.
    assert malformed == refused_malformed, after
    assert malformed + source <= GARBAGE + FOREIGN, after
    assert close(colour_at(snapshot(api, "counts", tmp_path), LEFT_PT), RED)
    assert input_status(api, "counts", "host")["state"] == "live"
    print(f"\nstranger: {GARBAGE} not-RTP + {FOREIGN} RTP sent; counted malformed {malformed}, refused.source {source}")
