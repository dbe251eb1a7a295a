"""RTCP from Tessera as an RTP receiver, seen by the sender's side: receiver reports about once a
second, PLI when a participant arrives without a keyframe or loses one, NACK for holes; and the
packets Tessera refuses, each counted and named: another payload type, a second sender on the port.

The `ffmpeg` CLI sends the media; a small relay in the test forwards it to Tessera from a socket
of its own and listens on that socket's port + 1, where a receiver sends RTCP to a sender it has
heard no RTCP from (RFC 3550 §11) — so the relay sees exactly what an SFU's forward would."""
from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

from helpers import RED
from livetools import LEFT_PT, wait_until
from rtptools import RtpSender, free_udp_pair
from test_rtp import close, colour_at, input_status, rtp_task, snapshot

pytestmark = pytest.mark.live


class FeedbackRelay:
    """Forwards an RTP sender's video datagrams to Tessera from `rtp_socket` (bound to an even port
    P), reads the RTCP Tessera sends back to P + 1, and can drop the next N packets or every packet
    until a keyframe request arrives."""

    def __init__(self, listen: int, target: int):
        self.target = ("127.0.0.1", target)
        self.inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.inbound.bind(("127.0.0.1", listen))
        self.inbound.settimeout(0.1)
        port = free_udp_pair()
        self.rtp_socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtp_socket.bind(("127.0.0.1", port))
        self.rtcp_socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtcp_socket.bind(("127.0.0.1", port + 1))
        self.rtcp_socket.settimeout(0.1)
        self.lock = threading.Lock()
        self.feedback: list[tuple[float, int, int]] = []   # (time, packet type, format)
        self.nacked: list[int] = []
        self.report_blocks: list[tuple[int, int, int]] = []  # (media SSRC, cumulative lost, highest seq)
        self.drop_next = 0
        self.dropped: list[int] = []
        self.forwarded = 0
        self.payload_type_override: int | None = None
        # With `rtx_payload_type`, NACKed packets still in `history` are sent again as RFC 4588
        # retransmissions (own SSRC and sequence, the original sequence number first).
        self.rtx_payload_type: int | None = None
        self.history: dict[int, bytes] = {}
        self.retransmitted = 0
        self.rtx_sequence = 0
        # Held until `release`: the sender's first packets (its only keyframe) wait for the task.
        self.held: list[bytes] | None = []
        self.stopping = False
        self.threads = [threading.Thread(target=self._forward, daemon=True), threading.Thread(target=self._listen, daemon=True)]
        for t in self.threads:
            t.start()

    def _forward(self):
        while not self.stopping:
            try:
                data = bytearray(self.inbound.recv(65536))
            except (socket.timeout, OSError):
                continue
            with self.lock:
                # Everything the sender sent, dropped or not: a sender retransmits from its own copy.
                sequence = struct.unpack("!H", data[2:4])[0]
                self.history[sequence] = bytes(data)
                self.history.pop((sequence - 500) & 0xFFFF, None)
                if self.held is not None:
                    self.held.append(bytes(data))
                    continue
                if self.drop_next > 0:
                    self.drop_next -= 1
                    self.dropped.append(struct.unpack("!H", data[2:4])[0])
                    continue
                if self.payload_type_override is not None:
                    data[1] = (data[1] & 0x80) | self.payload_type_override
            self.rtp_socket.sendto(bytes(data), self.target)
            self.forwarded += 1

    def _retransmit(self, sequence: int):
        """Called under the lock."""
        original = self.history.get(sequence)
        if original is None or self.rtx_payload_type is None:
            return
        assert original[0] & 0x1F == 0, "a plain 12-byte header is expected"
        self.rtx_sequence = (self.rtx_sequence + 1) & 0xFFFF
        header = struct.pack("!BBHII", 0x80, (original[1] & 0x80) | self.rtx_payload_type, self.rtx_sequence,
                             struct.unpack("!I", original[4:8])[0], 0x0A7A0A7A)
        self.rtp_socket.sendto(header + struct.pack("!H", sequence) + original[12:], self.target)
        self.retransmitted += 1

    def _listen(self):
        while not self.stopping:
            try:
                data = self.rtcp_socket.recv(65536)
            except (socket.timeout, OSError):
                continue
            now = time.monotonic()
            offset = 0
            while offset + 4 <= len(data):
                count, packet_type = data[offset] & 0x1F, data[offset + 1]
                length = (struct.unpack("!H", data[offset + 2:offset + 4])[0] + 1) * 4
                body = data[offset:offset + length]
                with self.lock:
                    self.feedback.append((now, packet_type, count))
                    if packet_type == 201:
                        for b in range(count):
                            block = body[8 + 24 * b:8 + 24 * (b + 1)]
                            ssrc, lost_word, highest = struct.unpack("!III", block[:12])
                            lost = lost_word & 0xFFFFFF
                            self.report_blocks.append((ssrc, lost - (1 << 24) if lost & 0x800000 else lost, highest))
                    if packet_type == 205 and count == 1:
                        for i in range(12, len(body), 4):
                            pid, blp = struct.unpack("!HH", body[i:i + 4])
                            asked = [pid] + [(pid + k + 1) & 0xFFFF for k in range(16) if blp & (1 << k)]
                            self.nacked += asked
                            for sequence in asked:
                                self._retransmit(sequence)
                offset += length

    def release(self):
        """Forwards what was held, then everything as it comes."""
        with self.lock:
            held, self.held = self.held or [], None
            for data in held:
                self.rtp_socket.sendto(data, self.target)
                self.forwarded += 1

    def count(self, packet_type: int, fmt: int | None = None, since: float = 0.0) -> int:
        with self.lock:
            return sum(1 for t, pt, f in self.feedback if pt == packet_type and (fmt is None or f == fmt) and t >= since)

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        for s in (self.inbound, self.rtp_socket, self.rtcp_socket):
            s.close()


PLI, NACK, RR = (206, 1), (205, 1), (201, None)


def with_feedback(sdp: str, payload_type: int) -> str:
    """The sender's SDP offering generic NACK and PLI, as a WebRTC SDP does."""
    lines = sdp.replace("\r\n", "\n").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"a=rtpmap:{payload_type} ")) + 1
    return "\n".join(lines[:at] + [f"a=rtcp-fb:{payload_type} nack", f"a=rtcp-fb:{payload_type} nack pli"] + lines[at:])


@pytest.fixture
def relayed(api, senders, tmp_path):
    """A red H.264 sender whose only keyframe in the test comes first (GOP 30 s, as a WebRTC sender
    that nobody asks), its video reaching the task through a FeedbackRelay that holds it until
    the test calls `release` (after the POST)."""
    relay_port, target = free_udp_pair(), free_udp_pair()
    relay = FeedbackRelay(relay_port, target)
    host = RtpSender(tmp_path, relay_port, None, RED, 440, name="host", gop=900).start()
    senders.append(host)
    sdp = with_feedback(host.sdp().replace(f"m=video {relay_port} ", f"m=video {target} "), 96)
    yield host, relay, sdp
    relay.stop()


def test_reports_and_keyframe_requests_reach_the_sender(api, relayed, tmp_path):
    host, relay, sdp = relayed
    api.create(rtp_task("rtcp", [{"id": "host", "rtp": {"sdp": sdp}}]))
    relay.release()
    assert wait_until(lambda: input_status(api, "rtcp", "host").get("videoState") == "live", 5), input_status(api, "rtcp", "host")
    start = time.monotonic()
    time.sleep(3.2)
    reports = relay.count(*RR, since=start)
    assert 2 <= reports <= 5, f"{reports} receiver reports in 3.2 s (about one a second)"
    ssrcs = {ssrc for ssrc, _, _ in relay.report_blocks}
    assert len(ssrcs) == 1, relay.report_blocks

    # A burst of loss inside a GOP: the holes are NACKed (the sender does not retransmit), then
    # given up, and the broken reference asks for a keyframe.
    plis_before = relay.count(*PLI)
    with relay.lock:
        relay.drop_next = 25
    assert wait_until(lambda: relay.count(*PLI) > plis_before, 3), "no PLI after a loss burst"
    with relay.lock:
        dropped = set(relay.dropped)
        nacked = set(relay.nacked)
    assert dropped & nacked, f"none of the dropped {sorted(dropped)[:5]}… NACKed ({sorted(nacked)[:10]})"
    # The status comes from the worker at least once a second.
    assert wait_until(lambda: input_status(api, "rtcp", "host")["videoState"] == "waiting for keyframe", 2.5), \
        input_status(api, "rtcp", "host")
    status = input_status(api, "rtcp", "host")
    assert status["rtcp"]["pli"] >= 2 and status["rtcp"]["nack"] >= 1 and status["rtcp"]["reports"] >= 3, status
    # ffmpeg does not answer PLI: requests repeat, backing off (500 ms, 750 ms, ... at most 2 s).
    time.sleep(3)
    extra = relay.count(*PLI) - plis_before
    assert 3 <= extra <= 7, f"{extra} PLIs in ~3 s while no keyframe came"
    assert max(lost for _, lost, _ in relay.report_blocks) >= 25, relay.report_blocks[-3:]


def test_nacked_packets_come_back_as_rtx_and_nothing_is_lost(api, relayed, tmp_path):
    """The SDP offers RTX (RFC 4588): the relay answers each NACK with a retransmission, which
    fills the hole before the reorder buffer gives up on it — no loss, no keyframe request, the
    picture never stops."""
    host, relay, sdp = relayed
    sdp = sdp.replace("RTP/AVP 96", "RTP/AVPF 96 97").replace(
        "a=rtpmap:96 H264/90000", "a=rtpmap:96 H264/90000\na=rtpmap:97 rtx/90000\na=fmtp:97 apt=96")
    assert "apt=96" in sdp and "AVPF 96 97" in sdp, sdp
    relay.rtx_payload_type = 97
    api.create(rtp_task("rtx", [{"id": "host", "rtp": {"sdp": sdp}}]))
    relay.release()
    assert wait_until(lambda: input_status(api, "rtx", "host").get("videoState") == "live", 5), input_status(api, "rtx", "host")
    time.sleep(1.2)
    before = input_status(api, "rtx", "host")
    plis = relay.count(*PLI)
    with relay.lock:
        relay.drop_next = 20
    assert wait_until(lambda: relay.drop_next == 0, 3), "the burst was not dropped"
    assert wait_until(lambda: input_status(api, "rtx", "host")["rtcp"]["nackedPackets"] >= 20, 3), input_status(api, "rtx", "host")
    time.sleep(1.5)
    after = input_status(api, "rtx", "host")
    assert relay.retransmitted >= 20, relay.retransmitted
    assert after["packets"]["lost"] == before["packets"]["lost"], (before["packets"], after["packets"])
    assert relay.count(*PLI) == plis, "a keyframe was asked for although every hole was filled"
    assert after["videoState"] == "live" and after["frames"] > before["frames"] + 30, after
    assert after["packets"]["refused"] == {}, after["packets"]


def test_foreign_senders_and_payload_types_are_refused_and_named(api, relayed, tmp_path):
    host, relay, sdp = relayed
    api.create(rtp_task("refuse", [{"id": "host", "rtp": {"sdp": sdp}}]))
    relay.release()
    assert wait_until(lambda: close(colour_at(snapshot(api, "refuse", tmp_path), LEFT_PT), RED), 10), str(api.status("refuse")["inputs"])

    # A stranger on another address sends well-formed RTP to the same port: it is not drawn.
    spoof = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    spoof.bind(("127.0.0.2", 0))
    target_port = int(sdp.split("m=video ")[1].split()[0])
    try:
        for sequence in range(300):
            header = struct.pack("!BBHII", 0x80, 0x80 | 96, sequence, sequence * 3000, 0x5EED)
            spoof.sendto(header + bytes([0x65, 0x88]) + bytes(200), ("127.0.0.1", target_port))
            time.sleep(0.002)
    finally:
        spoof.close()
    assert wait_until(lambda: input_status(api, "refuse", "host")["packets"]["refused"].get("source", 0) >= 290, 3), \
        input_status(api, "refuse", "host")["packets"]
    status = input_status(api, "refuse", "host")
    assert "127.0.0.2" in (status["lastError"] or ""), status
    assert close(colour_at(snapshot(api, "refuse", tmp_path), LEFT_PT), RED)
    assert status["packets"]["senderRestarts"] == 0, status["packets"]

    # The latched sender switches to a payload type the SDP does not name: counted and named.
    with relay.lock:
        relay.payload_type_override = 100
    assert wait_until(lambda: input_status(api, "refuse", "host")["packets"]["refused"].get("payloadType", 0) > 30, 5)
    status = input_status(api, "refuse", "host")
    assert "payload type 100 is not in the input's SDP (expected 96" in status["lastError"], status


def test_post_answers_once_the_ports_are_bound(api, tmp_path):
    """A packet sent the instant the answer arrives is received (the input's `ready` is true)."""
    port = free_udp_pair()
    sdp = f"v=0\no=- 0 0 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=video {port} RTP/AVP 96\na=rtpmap:96 H264/90000\n"
    created = api.create(rtp_task("ready", [{"id": "p", "rtp": {"sdp": sdp}}]))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(struct.pack("!BBHII", 0x80, 96, 1, 0, 7) + bytes([0x65, 1, 2, 3]), ("127.0.0.1", port))
    assert created["inputs"][0].get("ready") is True, created["inputs"]
    assert wait_until(lambda: input_status(api, "ready", "p")["packets"]["received"] >= 1, 3), input_status(api, "ready", "p")
