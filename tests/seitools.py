"""Reading H.264 SEI back from Tessera's outputs, independently of Tessera's own parser.

`ffmpeg -c copy -f h264` turns the output's video (FLV, MP4, an RTMP stream) into an Annex B byte
stream; here it is cut into NAL units, grouped into access units (one per output frame: x264 writes
one slice per picture), emulation-prevention bytes removed, and SEI messages decoded (D.1: payload
type and size as runs of 0xFF plus a last byte).
"""
from __future__ import annotations

import json
import re
import subprocess

X264_UUID = bytes.fromhex("dc45e9bde6d948b7962cd820d923eeef")
TESSERA_UUID = bytes.fromhex("b7c3e1d25a4f4e6b9c8d7a1f2e3d4c5b")
VOLUME_UUID = bytes.fromhex("0d6e1a9f3c2b4d8e8f7a6b5c4d3e2f10")


def annexb(source, seconds: float | None = None, timeout: float = 60) -> bytes:
    """The first video stream of `source` (file or URL) as an Annex B H.264 byte stream."""
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-i", str(source)]
    if seconds:
        cmd += ["-t", str(seconds)]
    cmd += ["-map", "0:v:0", "-c:v", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"]
    result = subprocess.run(cmd, capture_output=True, timeout=timeout)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return result.stdout


def nal_units(stream: bytes) -> list[bytes]:
    """NAL units (header byte first) of an Annex B stream."""
    starts = [m.end() for m in re.finditer(b"\x00\x00\x01", stream)]
    units = []
    for i, start in enumerate(starts):
        end = starts[i + 1] - 3 if i + 1 < len(starts) else len(stream)
        unit = stream[start:end]
        units.append(unit.rstrip(b"\x00") if i + 1 < len(starts) else unit)
    return [u for u in units if u]


def escape(rbsp: bytes) -> bytes:
    """Emulation prevention: 00 00 followed by 00–03 gets an 03 in between."""
    out, zeros = bytearray(), 0
    for b in rbsp:
        if zeros >= 2 and b <= 3:
            out.append(3)
            zeros = 0
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return bytes(out)


def sei_nal(messages: list[tuple[int, bytes]]) -> bytes:
    """One SEI NAL unit (header byte first) carrying `messages`."""
    rbsp = bytearray()
    for ptype, payload in messages:
        for v in (ptype, len(payload)):
            rbsp += b"\xff" * (v // 255) + bytes([v % 255])
        rbsp += payload
    return b"\x06" + escape(bytes(rbsp) + b"\x80")


def with_sei_in_every_picture(stream: bytes, messages: list[tuple[int, bytes]]) -> bytes:
    """An Annex B stream with an SEI NAL unit carrying `messages` before the first slice of every
    access unit."""
    out = bytearray()
    for au in access_units(stream):
        inserted = False
        for nal in au:
            if not inserted and 1 <= nal[0] & 0x1F <= 5:
                out += b"\x00\x00\x00\x01" + sei_nal(messages)
                inserted = True
            out += b"\x00\x00\x00\x01" + nal
    return bytes(out)


def unescape(payload: bytes) -> bytes:
    return re.sub(b"\x00\x00\x03", b"\x00\x00", payload)


def sei_messages(nal: bytes) -> list[tuple[int, bytes]]:
    """(payloadType, payload) of each message of one SEI NAL unit."""
    rbsp = unescape(nal[1:])
    out, i = [], 0
    while i < len(rbsp) and not (i == len(rbsp) - 1 and rbsp[i] == 0x80):
        values = []
        for _ in range(2):
            v = 0
            while rbsp[i] == 0xFF:
                v += 255
                i += 1
            v += rbsp[i]
            i += 1
            values.append(v)
        ptype, size = values
        out.append((ptype, rbsp[i:i + size]))
        i += size
    return out


def access_units(stream: bytes) -> list[list[bytes]]:
    """NAL units grouped by picture. With access unit delimiters, each AUD starts one (so an SEI
    that a tool appended after the slice stays with its picture). Without, a new access unit
    starts at a non-slice unit that follows a slice, or at a slice whose first_mb_in_slice is 0
    (first bit of the slice header set)."""
    units = nal_units(stream)
    if any(nal[0] & 0x1F == 9 for nal in units):
        aus = [[]]
        for nal in units:
            if nal[0] & 0x1F == 9 and any(1 <= u[0] & 0x1F <= 5 for u in aus[-1]):
                aus.append([])
            aus[-1].append(nal)
        return aus
    aus: list[list[bytes]] = []
    current: list[bytes] = []
    seen_slice = False
    for nal in units:
        kind = nal[0] & 0x1F
        is_slice = 1 <= kind <= 5
        starts_picture = is_slice and len(nal) > 1 and nal[1] & 0x80
        if seen_slice and (not is_slice or starts_picture):
            aus.append(current)
            current, seen_slice = [], False
        current.append(nal)
        seen_slice = seen_slice or is_slice
    if current:
        aus.append(current)
    return aus


def sei_per_frame(source, seconds: float | None = None) -> list[list[tuple[int, bytes]]]:
    """For each picture of `source`'s video, in decoding order, its SEI messages."""
    frames = []
    for au in access_units(annexb(source, seconds)):
        messages = []
        for nal in au:
            if nal[0] & 0x1F == 6:
                messages += sei_messages(nal)
        frames.append(messages)
    return frames


def frames_with(frames, ptype: int, payload: bytes) -> list[int]:
    """Indices of the frames carrying exactly this message."""
    return [i for i, messages in enumerate(frames) if (ptype, payload) in messages]


def frames_with_uuid(frames, uuid: bytes) -> list[tuple[int, bytes]]:
    """(frame index, data after the UUID) of every user_data_unregistered message with `uuid`."""
    return [(i, p[16:]) for i, messages in enumerate(frames) for t, p in messages if t == 5 and p[:16] == uuid]


def volume_messages(frames) -> list[tuple[int, dict]]:
    """(frame index, JSON) of Tessera's layout-and-volume messages."""
    return [(i, json.loads(data)) for i, data in frames_with_uuid(frames, VOLUME_UUID)]
