#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (fuzz/corpus/TARGET/) from the unit tests' vectors.

Run from the repository root: python3 fuzz/make_corpus.py. Byte vectors are read from the Swift
tests where they are plain literals (RTCP), text documents from the tests' and examples' files
(SDP, a=crypto, S3 XML, task JSON); RTP datagrams, the depacketizers' packet scripts and SEI access units
are built
here the way the tests' reference packetizers (Tests/TesseraRTPTests/RTPTestPacketizers.swift)
build them. The worker_protocol seeds are lines a worker and a server exchange, kept as written
(fuzz/corpus/worker_protocol/, made from WorkerCommandTests' commands). Seeds are named by
content, so running this again only adds what is new.
"""
import glob
import hashlib
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as handle:
        handle.write(data)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


# MARK: - Literals out of Swift tests

def byte_arrays(path):
    """Every `name: [UInt8] = [ … ]` whose elements are all number literals."""
    arrays = {}
    for match in re.finditer(r"let (\w+): \[UInt8\] = \[([0-9a-fA-Fx,\s]*)\]", read(path)):
        values = [int(v, 0) for v in match.group(2).replace("\n", " ").split(",") if v.strip()]
        arrays[match.group(1)] = bytes(values)
    return arrays


def multiline_strings(path):
    """Swift \"\"\" literals without interpolation, their indentation removed as Swift does."""
    texts = []
    for match in re.finditer(r'"""\n(.*?)\n( *)"""', read(path), re.S):
        body, indent = match.group(1), match.group(2)
        if "\\(" in body:
            continue
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in body.split("\n")]
        texts.append("\n".join(lines).replace("\\\\", "\\").replace('\\"', '"') + "\n")
    return texts


def string_literals(path, containing):
    return sorted({m.group(1) for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', read(path)) if containing in m.group(1)
                   and "\\(" not in m.group(1)})


# MARK: - RTP and RTCP

def rtp(payload, pt=96, marker=False, seq=1000, ts=90000, ssrc=0x12345678, extension=None, padding=0, csrcs=()):
    first = 0x80 | (0x20 if padding else 0) | (0x10 if extension else 0) | len(csrcs)
    data = bytes([first, (0x80 if marker else 0) | pt]) + struct.pack(">HII", seq, ts, ssrc)
    data += b"".join(struct.pack(">I", c) for c in csrcs)
    if extension:
        profile, body = extension
        body += b"\0" * (-len(body) % 4)
        data += struct.pack(">HH", profile, len(body) // 4) + body
    data += payload
    if padding:
        data += b"\0" * (padding - 1) + bytes([padding])
    return data


def rtp_seeds():
    write("rtp_packet", rtp(b"\x65\x88\x84\x00"))
    write("rtp_packet", rtp(b"\x10\x02\x00\x9d", marker=True, pt=97))
    write("rtp_packet", rtp(b"\x01\x02", extension=(0xBEDE, bytes([0x30, 0x01]))))  # CVO, id 3, 90°
    write("rtp_packet", rtp(b"\x01", extension=(0x1000, bytes([3, 1, 0x05, 7, 2, 0xAA, 0xBB]))))
    write("rtp_packet", rtp(b"\x01\x02\x03", padding=4, csrcs=(1, 2)))
    write("rtp_packet", rtp(b"", padding=1))  # padding only: an empty payload


def rtcp_seeds():
    vectors = byte_arrays("Tests/TesseraRTPTests/RTCPPacketTests.swift")
    vectors.update(byte_arrays("Tests/TesseraRTPTests/RTCPSenderFeedbackTests.swift"))
    for data in vectors.values():
        write("rtcp_compound", data)
    write("rtcp_compound", vectors["senderReport"] + vectors["sdes"])
    write("rtcp_compound", vectors["receiverReport"] + vectors["sdes"] + vectors["goodbye"])
    write("rtcp_compound", vectors["senderReport"] + vectors["pionFIR"] + vectors["pionNACK"] + vectors["remb"])


# MARK: - Packet scripts (fuzz/support/PacketScript.swift)

def script(packets):
    """(payload, marker, flags) records: flags 0x02 next timestamp, 0x04 lost, 0x08 reset."""
    data = b""
    for payload, marker, flags in packets:
        flags |= 0x01 if marker else 0
        if len(payload) > 255:
            data += bytes([flags | 0x20, len(payload) & 0xFF, len(payload) >> 8])
        else:
            data += bytes([flags, len(payload)])
        data += payload
    return data


def frames(*frames_payloads):
    """Frames (lists of payloads) one after another, each on a new timestamp, marker on its last packet."""
    records = []
    for payloads in frames_payloads:
        for index, payload in enumerate(payloads):
            records.append((payload, index == len(payloads) - 1, 0x02 if index == 0 else 0))
    return records


def filler(count, seed):
    state = (seed * 0x9E3779B97F4A7C15 | 1) & 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        out.append(state >> 56)
    return bytes(out)


SPS = bytes([0x67, 0x42, 0xC0, 0x1F, 0x8C, 0x8D, 0x40, 0x50, 0x1E, 0xD0])
PPS = bytes([0x68, 0xCE, 0x3C, 0x80])
AUD = bytes([0x09, 0xF0])


def h264(nals, mtu=120):
    payloads = []
    sets = [n for n in nals if n[0] & 0x1F in (7, 8)]
    if len(sets) >= 2:
        payloads.append(bytes([max(n[0] & 0x60 for n in sets) | 24]) + b"".join(struct.pack(">H", len(n)) + n for n in sets))
        nals = [n for n in nals if n not in sets]
    for nal in nals:
        if len(nal) <= mtu:
            payloads.append(nal)
            continue
        body = nal[1:]
        chunks = [body[i:i + mtu - 2] for i in range(0, len(body), mtu - 2)]
        for index, chunk in enumerate(chunks):
            header = (0x80 if index == 0 else 0) | (0x40 if index == len(chunks) - 1 else 0) | nal[0] & 0x1F
            payloads.append(bytes([nal[0] & 0xE0 | 28, header]) + chunk)
    return payloads


def vp8(frame, picture_id=None, mtu=120):
    descriptor = bytearray([0])
    if picture_id is not None:
        descriptor[0] |= 0x80
        descriptor += bytes([0x80]) + (bytes([picture_id]) if picture_id < 128 else bytes([0x80 | picture_id >> 8, picture_id & 0xFF]))
    size = mtu - len(descriptor)
    out = []
    for index in range(0, len(frame), size):
        header = bytearray(descriptor)
        if index == 0:
            header[0] |= 0x10
        out.append(bytes(header) + frame[index:index + size])
    return out


def vp9(frame, keyframe, picture_id=300, mtu=120):
    pieces = [frame[i:i + mtu - 16] for i in range(0, len(frame), mtu - 16)]
    out = []
    for index, chunk in enumerate(pieces):
        flags = 0x80 | 0x20 | (0 if keyframe else 0x40) | (0x08 if index == 0 else 0) | (0x04 if index == len(pieces) - 1 else 0)
        header = bytearray([flags, 0x80 | picture_id >> 8 & 0x7F, picture_id & 0xFF, 0x00, 0x07])
        if keyframe and index == 0:
            header[0] |= 0x02
            header += bytes([0x18, 0x02, 0x80, 0x01, 0x68, 0x01, 0x04, 0x01])
        out.append(bytes(header) + chunk)
    return out


def au_header(size):
    return bytes([size >> 5 & 0xFF, size << 3 & 0xF8])


def aac(units):
    return struct.pack(">H", 16 * len(units)) + b"".join(au_header(len(u)) for u in units) + b"".join(units)


def depacketizer_seeds():
    idr, slice_ = bytes([0x65, 0x88]) + filler(400, 1), bytes([0x41, 0x9A]) + filler(150, 2)
    write("h264_depacketizer", script(frames(h264([SPS, PPS, idr]), h264([slice_]))))
    write("h264_depacketizer", script(frames(h264([AUD, idr]), h264([AUD, slice_]))))
    write("h264_depacketizer", script(frames(h264([idr])[1:], h264([SPS, PPS, idr])) + [(b"\x1c\x45" + filler(20, 3), True, 0x04)]))
    write("h264_depacketizer", script(frames(h264([SPS, PPS, idr], mtu=40)) + [(b"", False, 0x08)] + frames(h264([slice_]))))

    key, delta = bytes([0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A]) + filler(300, 4), bytes([0x11]) + filler(100, 5)
    write("vp8_depacketizer", script(frames(vp8(key, picture_id=9), vp8(delta, picture_id=10))))
    write("vp8_depacketizer", script(frames(vp8(key, picture_id=300), vp8(delta))))

    write("vp9_depacketizer", script(frames(vp9(filler(300, 6), True), vp9(filler(100, 7), False, picture_id=301))))
    flexible = bytes([0xDC, 0x81, 0x2D, 0x01, 0x05, 0x02]) + filler(60, 8)  # I P F B E, two P_DIFFs
    write("vp9_depacketizer", script([(flexible, True, 0x02)]))

    write("aac_depacketizer", bytes([0]) + script([(aac([filler(30, 9), filler(20, 10)]), True, 0x02)]))
    unit = filler(300, 11)
    fragments = [b"\x00\x10" + au_header(len(unit)) + unit[i:i + 116] for i in range(0, len(unit), 116)]
    write("aac_depacketizer", bytes([0]) + script([(f, i == len(fragments) - 1, 0x02 if i == 0 else 0)
                                                   for i, f in enumerate(fragments)]))
    lbr = bytes([0x00, 0x08, 30 << 2]) + filler(30, 12)  # AAC-lbr: 6-bit size, 2-bit index
    write("aac_depacketizer", bytes([1]) + script([(lbr, True, 0x02)]))
    write("aac_depacketizer", bytes([2, 13, 3, 3]) + script([(aac([filler(10, 13)]), True, 0x02)]))

    write("opus_depacketizer", script([(bytes([0x78]) + filler(40, 14), True, 0x02), (bytes([0x78]) + filler(40, 15), True, 0x02),
                                       (b"", False, 0x06)]))


def receiver_seeds():
    """fuzz/targets/rtp_receiver.swift: a stream byte, then (flags, milliseconds, length, datagram) records."""
    def records(stream, datagrams):
        data = bytes([stream])
        for flags, datagram in datagrams:
            data += bytes([flags, 20]) + struct.pack("<H", len(datagram)) + datagram
        return data

    sender_report = byte_arrays("Tests/TesseraRTPTests/RTCPPacketTests.swift")["senderReport"]
    idr = bytes([0x65, 0x88]) + filler(400, 1)
    payloads = h264([SPS, PPS, idr])
    packets = [rtp(p, pt=96, seq=100 + i, ts=9000, marker=i == len(payloads) - 1,
                   extension=(0xBEDE, bytes([0x30, 0x01])) if i == 0 else None) for i, p in enumerate(payloads)]
    lost = packets[2]
    retransmission = rtp(struct.pack(">H", 102) + h264([SPS, PPS, idr])[2], pt=97, seq=7, ts=9000, ssrc=0x99)
    write("rtp_receiver", records(0, [(0, d) for d in packets[:2] + packets[3:]] + [(0, retransmission), (0, sender_report)]))
    write("rtp_receiver", records(0, [(0, d) for d in packets] + [(0x09, d) for d in packets]))
    key = bytes([0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A]) + filler(300, 4)
    write("rtp_receiver", records(1, [(0, rtp(p, pt=100, seq=50 + i, ts=3000, marker=i == 2)) for i, p in enumerate(vp8(key, 9))]
                                  + [(0x02, sender_report), (0x04, rtp(vp8(key, 10)[0], pt=100, seq=53, ts=6000, marker=True))]))
    write("rtp_receiver", records(2, [(0, rtp(bytes([0x78]) + filler(40, i), pt=111, seq=i, ts=960 * i, marker=True)) for i in range(4)]))
    write("rtp_receiver", records(3, [(0, rtp(aac([filler(30, 9)]), pt=101, seq=i, ts=1024 * i, marker=True)) for i in range(3)]))


def sei_seeds():
    """Access units with SEI, in both framings, as fuzz/targets/h264_sei.swift reads them (the SEI
    units written by the end-to-end tests' helper)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from seitools import sei_nal as sei

    uuid = bytes(range(16))
    unit = sei([(5, uuid + b"room 7\x00\x00\x01"), (4, b"\xb5\x00\x31GA94"), (1, b"\x00" * 300)])
    nals = [AUD, SPS, PPS, unit, bytes([0x65, 0x88]) + filler(100, 1)]
    write("h264_sei", b"".join(b"\x00\x00\x00\x01" + n for n in nals))
    write("h264_sei", b"".join(struct.pack(">I", len(n)) + n for n in nals))
    write("h264_sei", b"\x00\x00\x01" + sei([(5, bytes([0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20,
                                                        0xD9, 0x23, 0xEE, 0xEF]) + b"x264 - core 164")]) + b"\x00\x00\x01\x41\x9a")


# MARK: - Text documents

def text_seeds():
    for sdp in multiline_strings("Tests/TesseraRTPTests/SessionDescriptionTests.swift"):
        if sdp.startswith("v=") or "m=" in sdp:
            write("sdp", sdp)
            write("sdp", sdp.replace("\n", "\r\n"))
    for path in glob.glob(os.path.join(ROOT, "Layouts", "serve", "*.json")):
        sfu = json.load(open(path)).get("inputs", [])
        for value in sfu:
            if isinstance(value, dict) and isinstance(value.get("rtp", {}).get("sdp"), str):
                write("sdp", value["rtp"]["sdp"])

    source = "Tests/TesseraRTPTests/SRTPKeyingTests.swift"
    key = re.search(r'static let exampleKey = "([^"]+)"', read(source)).group(1)
    literals = [m.group(1) for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', read(source))]
    lines = sorted({text.replace("\\(Self.key)", key).replace("\\(key)", key).replace("\\r\\n", "") for text in literals
                    if "inline:" in text and not re.search(r"supported|must|needs|not a", text)})
    lines = [line for line in lines if "\\(" not in line]
    for line in lines:
        write("srtp_crypto", line + "\n")
    write("srtp_crypto", "\n".join(lines[:4]) + "\n")

    for xml in multiline_strings("Tests/TesseraObjectStorageTests/S3XMLTests.swift"):
        write("s3_xml", xml)

    for path in sorted(glob.glob(os.path.join(ROOT, "Layouts", "*", "*.json"))):
        write("task_json", open(path, "rb").read())
    # The fields whose readers the examples do not reach: RTP inputs (an SFU's SDP, allocated
    # ports with SRTP), RTP and s3:// outputs, SEI, HLS renditions.
    sdp = sorted(multiline_strings("Tests/TesseraRTPTests/SessionDescriptionTests.swift"), key=len)[-1]
    rich = {
        "taskId": "fuzz-1", "encoder": {"video": {"width": 640, "height": 360, "fps": 30,
                              "renditions": [{"width": 320, "height": 180, "bitrateKbps": 400}]}},
        "inputs": [{"id": "a", "url": "anchor.mp4"}, {"id": "sfu", "rtp": {"sdp": sdp}},
                   {"id": "alloc", "rtp": {"allocate": {"video": {"codec": "H264", "payloadType": 102, "rtxPayloadType": 103},
                                                        "audio": "opus", "rtcpMux": True,
                                                        "extensions": {"urn:3gpp:video-orientation": 3},
                                                        "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80",
                                                                 "key": "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"}}}}],
        "layout": {"template": "grid"},
        "outputs": [{"url": "rtp://sfu.example:7000", "rtp": {"audioPort": 7100, "videoCodec": "VP8", "audioCodec": "opus"}},
                    {"url": "s3://rec-bucket/live/room.m3u8", "hls": {"segmentSeconds": 2}},
                    {"url": "out/low.mp4", "rendition": 1}],
        "sei": {"volume": {"intervalMs": 300}, "appData": "room 7"},
    }
    write("task_json", json.dumps(rich, indent=1))
    tests = ["Tests/TesseraWorkerProtocolTests/WorkerCommandTests.swift"] + sorted(
        os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "Tests", "TesseraTaskTests", "*.swift")))
    for path in tests:
        for document in multiline_strings(path):
            if document.lstrip().startswith("{"):
                write("task_json", document)


if __name__ == "__main__":
    rtp_seeds()
    rtcp_seeds()
    depacketizer_seeds()
    receiver_seeds()
    sei_seeds()
    text_seeds()
    for target in sorted(os.listdir(CORPUS)):
        files = glob.glob(os.path.join(CORPUS, target, "*"))
        print(f"{target}: {len(files)} seeds, {sum(os.path.getsize(f) for f in files)} bytes")
