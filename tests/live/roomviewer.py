"""The room's viewers: Tessera's RTP output sent "back into the room" through a Janus Streaming
plugin RTP mountpoint, watched by aiortc WebRTC viewers, everything on 127.0.0.1.

- `StreamingMountpoint`: a Janus Streaming `rtp` mountpoint created (and destroyed) through the
  plugin API on free ports the harness picks; its ports; `info()` (Janus's own view, with the age
  of the last packet per stream).
- `Viewer`: an aiortc viewer that `watch`es a mountpoint, answers Janus's offer and records every
  decoded video frame (arrival time, RGB on demand) and the decoded audio (s16 stereo 48 kHz);
  `Viewer.of_videoroom` is the same as a VideoRoom subscriber.
- `RemotePublisher`: a VideoRoom `add_remote_publisher` fed by plain RTP (see the facts below).
- `FfmpegSource`: the `ffmpeg` CLI as the stand-in sender (solid colour + sine, H.264 or VP8 +
  Opus, two RTP outputs, optionally SRTP).
- `RtcpTap`: a UDP relay on a sender's RTCP path, noting the feedback (PLI / FIR / ...) Janus sends
  back to the address the sender's RTCP came from.
- `KeyframeOnRequestSource`: a Python RTP video sender that answers PLI / FIR with a keyframe (as
  Tessera's output must): aiortc's own encoders and packetizers, its RTCP (sender reports) sent
  from the RTCP port where it listens for feedback.

Facts about Debian's janus 1.1.2 (established with this harness; see also /work/shared/SFU-NOTES.md)
------------------------------------------------------------------------------------------------
* Creating the mountpoint (Streaming plugin, `admin_key` as configured in sfutools.JanusServer):

      {"request": "create", "admin_key": "tessera-test-admin", "type": "rtp", "id": 4242,
       "name": "tessera", "description": "tessera", "permanent": false,
       "media": [
         {"type": "video", "mid": "v", "port": P, "rtcpport": P+1, "pt": 96, "codec": "h264",
          "fmtp": "profile-level-id=42e01f;packetization-mode=1"},
         {"type": "audio", "mid": "a", "port": P+2, "rtcpport": P+3, "pt": 111, "codec": "opus",
          "fmtp": "stereo=1;sprop-stereo=1"}]}
      (+ root-level "srtpsuite": 80, "srtpcrypto": "<base64 of 30 bytes>" for SDES SRTP)

  answered `{"streaming": "created", "stream": {"id", "ports": [{"type","mid","port","rtcp_port"}]}}`.
  VP8: `"codec": "vp8"` and no fmtp. The rtpmap Janus offers comes from `codec` (H264/90000,
  VP8/90000, opus/48000/2); `pt` is the payload type the sender must use, and Janus offers the
  viewer that same payload type (plus an RTX one, pt+1, for video).
* H.264 fmtp: Janus offers the viewer exactly the mountpoint's fmtp. aiortc accepts H.264 only with
  `packetization-mode=1` and a (constrained) baseline profile: `profile-level-id=42e01f;
  packetization-mode=1`, `packetization-mode=1` alone (42e01f assumed) and `42001f` work; no fmtp,
  `profile-level-id=42e01f` alone (mode 0) or 640c1f (high) make aiortc's setRemoteDescription fail
  as a whole ("Failed to set remote video description send parameters"): no viewer at all.
* `info` (`{"request": "info", "id": N}`): `info.media[]` per stream with `age_ms`, the age of the
  last packet that arrived on that stream's port (since creation while nothing came): "Janus saw
  media" = small `age_ms`; `viewers` counts watching viewers; `videobufferkf: true` when set.
* Opus stereo: with `fmtp: stereo=1;sprop-stereo=1` Janus offers `opus/48000/2` with that fmtp and
  relays the packets untouched: 440 Hz left / 1000 Hz right arrive separated at the viewer.
* SRTP: root-level `srtpsuite: 80, srtpcrypto: <base64>` + ffmpeg's `srtp://` output with
  `-srtp_out_suite AES_CM_128_HMAC_SHA1_80 -srtp_out_params <same base64>` works (the whole
  test takes ~0.3 s); with another key Janus drops everything silently (no frame, no audio).
* Keyframe requests (PLI) to the source: the mountpoint sends them from its own `rtcpport` socket
  to the address the last RTCP packet on `rtcpport` came from (ffmpeg's first SR at start is
  enough). Nothing is ever sent before any RTCP arrived there: a source that sends no RTCP, or
  sends its reports rtcp-mux'ed to the RTP port, gets no PLI (and no REMB) at all, and a late
  viewer then waits for the next periodic keyframe. A PLI goes out ~30-50 ms after a new viewer's
  `start` (Janus's own, at join), then one for each viewer PLI / FIR, at most about one per second
  (aiortc's viewer repeats PLI while its decoder lacks a reference: PLIs seen 1.0 s apart). REMB
  also comes to that address, about once a second, once a viewer is watching. A source answering
  PLI with a keyframe: a viewer joining 10 s in has its first frame ~0.1 s after `watch`.
  ffmpeg answers no PLI: with `-g 600` a late viewer gets nothing for up to 20 s, and a first viewer
  must `watch` before ffmpeg starts. `bufferkf: true` on the video stream (Janus keeps the last
  keyframe and sends it to each new viewer) is the mountpoint-side alternative.
* VideoRoom remote publishers exist in 1.1.2 and take plain RTP from any sender (not only another
  Janus's `publish_remotely`): `add_remote_publisher` (room secret + admin_key as sfutools's
  VideoRoom.request sends them):

      {"request": "add_remote_publisher", "room": R, "secret": S, "admin_key": K, "display": "tessera",
       "iface": "127.0.0.1", "port": P,
       "streams": [{"type": "video", "mindex": 0, "mid": "0", "codec": "h264"},
                   {"type": "audio", "mindex": 1, "mid": "1", "codec": "opus", "stereo": true}]}
      -> {"videoroom": "success", "id": <feed id>, "ip": "127.0.0.1", "port": P, "rtcp_port": P+1}

  ALL streams go to the one `port`, told apart only by SSRC = 1000 + 10 * mindex (+ simulcast
  layer): video 1000, audio 1010; other SSRCs are dropped. Payload types are rewritten for each
  subscriber (H.264 sent as 96 or 107 both work). RTCP from the sender to `rtcp_port` is only
  latched (last sender wins) and PLIs for new subscribers go there. The room must be created with
  `"h264_profile": "42e01f"` (per-stream `h264_profile` is mis-declared as a boolean in 1.1.2 and
  cannot be given), or subscribers are offered H.264 with no fmtp, which aiortc refuses.
  Tessera's separate video / audio ports and random SSRCs do not fit this as is.
* Surprises: the Streaming mountpoint offers viewers RTX (pt+1) though the source sends none;
  explicit mountpoint ports are used as given (Janus's rtp_port_range only applies to port 0);
  `add_remote_publisher` without `port` picks 10000 (VideoRoom's own default range), so give one.
"""
from __future__ import annotations

import asyncio
import fractions
import random
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from livetools import wait_until
from sfutools import (ADMIN_KEY, AsyncioThread, JanusError, JanusServer, JanusSession, VideoRoom, free_udp_range,
                      patch_aiortc)

H264_FMTP = "profile-level-id=42e01f;packetization-mode=1"
OPUS_STEREO_FMTP = "stereo=1;sprop-stereo=1"
SRTP_SUITE_NAME = {80: "AES_CM_128_HMAC_SHA1_80", 32: "AES_CM_128_HMAC_SHA1_32"}


# --------------------------------------------------------------------------------------------- #
# the mountpoint
# --------------------------------------------------------------------------------------------- #
class StreamingMountpoint:
    """A Janus Streaming `rtp` mountpoint: video (`video_codec` "h264" / "vp8", or None) and / or
    Opus audio, each on a port of its own with RTCP on port + 1 (four consecutive free ports, picked
    outside Janus's own range). `srtp_crypto` (base64, 30 bytes) makes it expect SDES SRTP
    (`srtp_suite` 80 or 32). `bufferkf`: Janus keeps the last keyframe and gives it to each new
    viewer at once. Its own Janus session and handle; `destroy()` removes it."""

    def __init__(self, janus: JanusServer, video_codec: str | None = "h264", audio: bool = True,
                 video_pt: int = 96, audio_pt: int = 111, video_fmtp: str | None = None,
                 audio_fmtp: str | None = OPUS_STEREO_FMTP, srtp_crypto: str | None = None, srtp_suite: int = 80,
                 bufferkf: bool = False, mountpoint_id: int | None = None, rtcp: bool = True):
        self.janus = janus
        self.id = mountpoint_id or random.randrange(100000, 999999)
        self.video_codec = video_codec.lower() if video_codec else None
        self.audio = audio
        self.video_pt, self.audio_pt = video_pt, audio_pt
        if video_fmtp is None and self.video_codec == "h264":
            video_fmtp = H264_FMTP
        self.video_fmtp, self.audio_fmtp = video_fmtp, audio_fmtp
        self.srtp_crypto, self.srtp_suite = srtp_crypto, srtp_suite
        first = free_udp_range(4)
        self.video_port, self.video_rtcp_port = first, first + 1
        self.audio_port, self.audio_rtcp_port = first + 2, first + 3
        media = []
        if self.video_codec:
            m = {"type": "video", "mid": "v", "port": self.video_port, "pt": video_pt, "codec": self.video_codec}
            if rtcp:
                m["rtcpport"] = self.video_rtcp_port
            if video_fmtp:
                m["fmtp"] = video_fmtp
            if bufferkf:
                m["bufferkf"] = True
            media.append(m)
        if audio:
            m = {"type": "audio", "mid": "a", "port": self.audio_port, "pt": audio_pt, "codec": "opus"}
            if rtcp:
                m["rtcpport"] = self.audio_rtcp_port
            if audio_fmtp:
                m["fmtp"] = audio_fmtp
            media.append(m)
        self.request_body = {"request": "create", "admin_key": ADMIN_KEY, "type": "rtp", "id": self.id,
                             "name": f"tessera-{self.id}", "description": "tessera room output",
                             "permanent": False, "media": media}
        if srtp_crypto:
            self.request_body["srtpsuite"] = srtp_suite
            self.request_body["srtpcrypto"] = srtp_crypto
        self.session = JanusSession(janus.url)
        self.handle = self.session.attach("janus.plugin.streaming")
        try:
            data, _ = self.session.message(self.handle, self.request_body)
        except JanusError:
            self.session.destroy()
            raise
        assert data.get("streaming") == "created", data
        self.created = data

    def info(self) -> dict:
        """Janus's `info` on the mountpoint: {"id", "viewers", "media": [{"mid", "type", "pt",
        "codec", "rtpmap", "fmtp", "port", "rtcpport", "age_ms"}, ...], ...}."""
        data, _ = self.session.message(self.handle, {"request": "info", "id": self.id, "admin_key": ADMIN_KEY})
        return data["info"]

    def media_info(self, kind: str) -> dict:
        return next(m for m in self.info()["media"] if m["type"] == kind)

    def seen_media(self, kind: str, within_ms: int = 1000) -> bool:
        """Janus received a packet on that stream's port within the last `within_ms` ms."""
        age = self.media_info(kind).get("age_ms")
        return age is not None and age <= within_ms

    def destroy(self) -> None:
        try:
            self.session.message(self.handle, {"request": "destroy", "id": self.id, "admin_key": ADMIN_KEY,
                                               "permanent": False})
        except (JanusError, OSError):
            pass
        self.session.destroy()

    stop = destroy


class RemotePublisher:
    """A VideoRoom "remote publisher" (Janus 1.1 `add_remote_publisher`) fed by a plain RTP sender:
    every stream to the one `port`, told apart by SSRC (`ssrcs[kind]` = 1000 + 10 * mindex: video
    1000, audio 1010); the sender's RTCP to `rtcp_port` (Janus latches on the last packet there and
    sends its PLIs to that address). The room should be created with `h264_profile` (e.g. "42e01f"),
    or subscribers are offered H.264 without fmtp (packetization-mode 0), which aiortc refuses."""

    def __init__(self, room: VideoRoom, video_codec: str | None = "h264", audio: bool = True,
                 display: str = "tessera", port: int | None = None):
        self.room = room
        streams, self.ssrcs = [], {}
        for kind, codec in (("video", video_codec), ("audio", "opus" if audio else None)):
            if codec:
                s = {"type": kind, "mindex": len(streams), "mid": str(len(streams)), "codec": codec}
                if kind == "audio":
                    s["stereo"] = True
                self.ssrcs[kind] = 1000 + 10 * s["mindex"]
                streams.append(s)
        self.request_body = {"request": "add_remote_publisher", "display": display, "iface": "127.0.0.1",
                             "port": port or free_udp_range(2), "streams": streams}
        self.answer = room.request(self.request_body)
        assert self.answer.get("videoroom") == "success", self.answer
        self.id, self.port, self.rtcp_port = self.answer["id"], self.answer["port"], self.answer["rtcp_port"]

    def remove(self) -> None:
        try:
            self.room.request({"request": "remove_remote_publisher", "id": self.id})
        except (JanusError, OSError):
            pass

    stop = remove


# --------------------------------------------------------------------------------------------- #
# the viewer
# --------------------------------------------------------------------------------------------- #
@dataclass
class FrameRecord:
    """One decoded video frame: arrival time (time.monotonic()), RTP-derived pts (90 kHz),
    size, a 32-pixel-wide RGB thumbnail, and the full frame while it is among the latest kept."""
    t: float
    pts: int | None
    width: int
    height: int
    thumb: np.ndarray
    frame: object | None = None        # av.VideoFrame while kept
    _rgb: np.ndarray | None = None

    @property
    def rgb(self) -> np.ndarray:
        """The full picture as an (h, w, 3) uint8 array (the thumbnail scaled up when the full
        frame is no longer kept)."""
        if self._rgb is None:
            if self.frame is not None:
                self._rgb = self.frame.to_ndarray(format="rgb24")
            else:
                ys = np.linspace(0, self.thumb.shape[0] - 1, self.height).astype(int)
                xs = np.linspace(0, self.thumb.shape[1] - 1, self.width).astype(int)
                return self.thumb[ys][:, xs]
        return self._rgb

    def colour_at(self, x_frac: float, y_frac: float, radius: int = 2) -> np.ndarray:
        """Mean RGB (floats) of a small square around (x_frac * width, y_frac * height)."""
        img = self.rgb if self.frame is not None or self._rgb is not None else None
        if img is None:
            img = self.thumb
            radius = 0
        h, w = img.shape[:2]
        x = min(w - 1, max(0, int(round(x_frac * (w - 1)))))
        y = min(h - 1, max(0, int(round(y_frac * (h - 1)))))
        patch = img[max(0, y - radius):y + radius + 1, max(0, x - radius):x + radius + 1]
        return patch.reshape(-1, 3).mean(axis=0)


@dataclass
class AudioChunk:
    t: float                 # arrival, time.monotonic()
    pts: int | None          # 48 kHz
    pcm: np.ndarray          # (n, channels) int16


class Viewer:
    """A WebRTC viewer of a Streaming mountpoint, made with aiortc on `aio`'s loop: `watch`, answer
    Janus's offer, `start`; every decoded frame is recorded (`frames`, `audio`). Waits happen in the
    caller's thread, never on the loop."""

    def __init__(self, aio: AsyncioThread, mountpoint: StreamingMountpoint | int, janus: JanusServer | None = None,
                 name: str = "viewer", keep_frames: int = 90, keep_audio_seconds: float = 60.0):
        patch_aiortc()
        self.aio = aio
        self.mountpoint_id = mountpoint if isinstance(mountpoint, int) else mountpoint.id
        self.janus = janus or mountpoint.janus
        self.name = name
        self.keep_frames = keep_frames
        self.keep_audio_samples = int(keep_audio_seconds * 48000)
        self.plugin = "janus.plugin.streaming"
        self.join_body: dict = {"request": "watch", "id": self.mountpoint_id}
        self.session: JanusSession | None = None
        self.handle: int | None = None
        self.pc = None
        self.offer_sdp = self.answer_sdp = ""
        self.frames: list[FrameRecord] = []
        self.audio: list[AudioChunk] = []
        self._audio_samples = 0
        self.audio_layout: str | None = None
        self.lock = threading.Lock()
        self.tracks: dict[str, object] = {}
        self.errors: list[str] = []
        self.started_at: float | None = None     # time.monotonic() when `start` was answered
        self.connected_at: float | None = None
        self._tasks: list[asyncio.Task] = []

    @classmethod
    def of_videoroom(cls, aio: AsyncioThread, janus: JanusServer, room: int, feed: int, name: str = "subscriber",
                     **kw) -> "Viewer":
        """The same viewer as a VideoRoom subscriber of publisher `feed` in `room` (a local or a
        remote publisher): `join` as ptype subscriber instead of `watch`."""
        v = cls(aio, 0, janus=janus, name=name, **kw)
        v.mountpoint_id = None
        v.plugin = "janus.plugin.videoroom"
        v.join_body = {"request": "join", "ptype": "subscriber", "room": room, "streams": [{"feed": feed}]}
        return v

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self, timeout: float = 20, wait_connected: bool = True) -> "Viewer":
        self.session = JanusSession(self.janus.url)
        self.handle = self.session.attach(self.plugin)
        data, jsep = self.session.message(self.handle, self.join_body, timeout=timeout)
        assert jsep and jsep.get("type") == "offer", f"{self.join_body['request']}: no offer from Janus: {data}"
        self.offer_sdp = jsep["sdp"]
        self.answer_sdp = self.aio.run(self._answer(self.offer_sdp), timeout)
        data, _ = self.session.message(self.handle, {"request": "start"},
                                       jsep={"type": "answer", "sdp": self.answer_sdp}, timeout=timeout)
        self.started_at = time.monotonic()
        if wait_connected:
            self.wait_connected(timeout)
        return self

    async def _answer(self, offer: str) -> str:
        from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))

        @self.pc.on("track")
        def on_track(track):
            self.tracks[track.kind] = track
            consume = self._consume_video if track.kind == "video" else self._consume_audio
            self._tasks.append(asyncio.ensure_future(consume(track)))

        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await self.pc.setLocalDescription(await self.pc.createAnswer())
        return self.pc.localDescription.sdp

    async def _consume_video(self, track):
        from aiortc.mediastreams import MediaStreamError
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            except Exception as e:   # noqa: BLE001 - noted, and the viewer goes on
                self.errors.append(f"video: {e!r}")
                return
            t = time.monotonic()
            w, h = frame.width, frame.height
            tw = 32
            th = max(2, int(round(tw * h / w)))
            thumb = frame.reformat(width=tw, height=th, format="rgb24").to_ndarray()
            rec = FrameRecord(t, frame.pts, w, h, thumb, frame)
            with self.lock:
                self.frames.append(rec)
                if len(self.frames) > self.keep_frames:
                    old = self.frames[-self.keep_frames - 1]
                    old.frame, old._rgb = None, None

    async def _consume_audio(self, track):
        from aiortc.mediastreams import MediaStreamError
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            except Exception as e:   # noqa: BLE001
                self.errors.append(f"audio: {e!r}")
                return
            t = time.monotonic()
            channels = len(frame.layout.channels)
            self.audio_layout = frame.layout.name
            pcm = frame.to_ndarray().reshape(-1, channels)     # s16 packed: (1, n * channels)
            with self.lock:
                self.audio.append(AudioChunk(t, frame.pts, pcm))
                self._audio_samples += len(pcm)
                while self._audio_samples - len(self.audio[0].pcm) >= self.keep_audio_samples:
                    self._audio_samples -= len(self.audio.pop(0).pcm)

    def wait_connected(self, timeout: float = 20) -> None:
        ok = wait_until(lambda: self.pc.iceConnectionState in ("completed", "connected")
                        and self.pc.connectionState == "connected", timeout, 0.05)
        assert ok, f"{self.name}: ICE {self.pc.iceConnectionState}, connection {self.pc.connectionState}"
        self.connected_at = time.monotonic()
        self.session.wait_event(lambda e: e.get("janus") == "webrtcup" and e.get("sender") == self.handle,
                                timeout, f"webrtcup of {self.name}")

    def close(self) -> None:
        """PeerConnection closed, handle detached, session destroyed (as a closed tab)."""
        if self.pc is not None:
            try:
                self.aio.run(self._close(), 15)
            except Exception:   # noqa: BLE001 - the loop may be gone at teardown
                pass
            self.pc = None
        if self.session is not None:
            if self.handle is not None:
                self.session.detach(self.handle)
            self.session.destroy()
            self.session = None

    stop = close

    async def _close(self):
        await self.pc.close()
        for t in self._tasks:
            t.cancel()

    # -- what arrived ----------------------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        return len(self.frames)

    @property
    def latest(self) -> FrameRecord | None:
        with self.lock:
            return self.frames[-1] if self.frames else None

    def colour_at(self, x_frac: float, y_frac: float) -> np.ndarray | None:
        """Mean RGB around (x_frac, y_frac) of the latest frame (None before the first)."""
        rec = self.latest
        return None if rec is None else rec.colour_at(x_frac, y_frac)

    def first_frame_after(self, t: float) -> FrameRecord | None:
        """The first frame that arrived at or after time.monotonic() value `t`."""
        with self.lock:
            return next((f for f in self.frames if f.t >= t), None)

    def frames_since(self, t: float) -> list[FrameRecord]:
        with self.lock:
            return [f for f in self.frames if f.t >= t]

    def wait_for(self, predicate, timeout: float, what: str = "condition", interval: float = 0.05):
        """Polls predicate(viewer) until truthy; returns that value, or raises AssertionError with
        what the viewer had at the deadline."""
        v = wait_until(lambda: predicate(self), timeout, interval)
        if v:
            return v
        raise AssertionError(f"{self.name}: no {what} within {timeout} s; {self.describe()}")

    def wait_frames(self, n: int = 1, timeout: float = 10) -> FrameRecord:
        self.wait_for(lambda v: v.frame_count >= n, timeout, f"{n} video frames")
        return self.latest

    def audio_pcm(self, seconds: float | None = None) -> np.ndarray:
        """The last `seconds` of received audio (all kept if None), (n, channels) int16."""
        with self.lock:
            chunks = [c.pcm for c in self.audio]
        if not chunks:
            return np.zeros((0, 2), dtype=np.int16)
        pcm = np.concatenate(chunks)
        if seconds is not None:
            pcm = pcm[-int(seconds * 48000):]
        return pcm

    @property
    def audio_seconds(self) -> float:
        return self._audio_samples / 48000

    def dominant_tones(self, seconds: float = 1.0, count: int = 3, channel: int | None = None,
                       rel_level: float = 0.1) -> list[float]:
        """The strongest frequencies (Hz, strongest first; at most `count`, each at least
        `rel_level` of the strongest's magnitude) in the last `seconds` of received audio, of one
        `channel` or of the channels' mean. [] for silence or no audio."""
        pcm = self.audio_pcm(seconds).astype(np.float64)
        if len(pcm) < 480:
            return []
        x = pcm.mean(axis=1) if channel is None else pcm[:, channel]
        if np.sqrt(np.mean(x * x)) < 30:      # about -60 dBFS: silence
            return []
        spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
        freqs = np.fft.rfftfreq(len(x), 1 / 48000)
        spectrum[freqs < 20] = 0
        out: list[float] = []
        strongest = spectrum.max()
        guard = max(1, int(round(25 / (freqs[1] - freqs[0]))))   # peaks closer than 25 Hz are one
        for _ in range(count):
            i = int(np.argmax(spectrum))
            if spectrum[i] <= 0 or spectrum[i] < rel_level * strongest:
                break
            out.append(float(freqs[i]))
            spectrum[max(0, i - guard):i + guard + 1] = 0
        return out

    def audio_rms(self, seconds: float = 1.0, channel: int | None = None) -> float:
        pcm = self.audio_pcm(seconds).astype(np.float64)
        if not len(pcm):
            return 0.0
        x = pcm.mean(axis=1) if channel is None else pcm[:, channel]
        return float(np.sqrt(np.mean(x * x)))

    def describe(self) -> str:
        rec = self.latest
        colour = None if rec is None else [int(c) for c in rec.colour_at(0.5, 0.5)]
        return (f"{self.frame_count} frames (latest {None if rec is None else round(time.monotonic() - rec.t, 2)} s "
                f"ago, centre {colour}), {self.audio_seconds:.1f} s audio, ICE "
                f"{None if self.pc is None else self.pc.iceConnectionState}, errors {self.errors[-3:]}, "
                f"loop stalls {self.aio.stalls[-5:]}")


# --------------------------------------------------------------------------------------------- #
# senders
# --------------------------------------------------------------------------------------------- #
def lavfi_colour(rgb) -> str:
    return "0x%02X%02X%02X" % tuple(rgb)


class FfmpegSource:
    """`ffmpeg -re` making a solid colour (320x240, 30 fps) and a sine, sent as two RTP streams
    (one RTP output each: ffmpeg's RTP muxer takes one stream per output): video (`codec` "h264":
    libx264 constrained baseline, no B-frames, keyframe every `gop` frames; "vp8": libvpx realtime)
    to `video_port`, Opus 48 kHz stereo to `audio_port`. RTCP (sender reports) goes to
    `rtcp_ports[kind]` (default port + 1) from the local port `local_rtcp[kind]` if given.
    `tone_right` puts another tone on the right channel. `srtp_key`: SRTP (AES_CM_128_HMAC_SHA1_80)."""

    def __init__(self, log_dir: Path, video_port: int | None, audio_port: int | None, rgb=(255, 0, 0),
                 tone: float = 440, tone_right: float | None = None, codec: str = "h264", gop: int = 600,
                 video_pt: int = 96, audio_pt: int = 111, srtp_key: str | None = None,
                 rtcp_ports: dict | None = None, local_rtcp: dict | None = None, size=(320, 240),
                 ssrcs: dict | None = None):
        log_dir = Path(log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = log_dir / f"ffmpeg-{video_port}-{audio_port}.log"
        rtcp_ports = rtcp_ports or {}
        ssrcs = {k: ssrcs.get(k) or random.randrange(1, 2**31) for k in ("video", "audio")} if ssrcs else \
            {k: random.randrange(1, 2**31) for k in ("video", "audio")}
        self.ssrcs = ssrcs
        local_rtcp = local_rtcp or {}
        scheme = "srtp" if srtp_key else "rtp"
        srtp = ["-srtp_out_suite", "AES_CM_128_HMAC_SHA1_80", "-srtp_out_params", srtp_key] if srtp_key else []

        def url(kind, port):
            q = f"rtcpport={rtcp_ports.get(kind, port + 1)}&pkt_size=1200"
            if kind in local_rtcp:
                q += f"&localrtcpport={local_rtcp[kind]}"
            return f"{scheme}://127.0.0.1:{port}?{q}"

        w, h = size
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
               "-f", "lavfi", "-i", f"color=c={lavfi_colour(rgb)}:s={w}x{h}:r=30"]
        if tone_right is None:
            cmd += ["-re", "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000"]
            afilter = ["-ac", "2"]
        else:
            cmd += ["-re", "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000",
                    "-re", "-f", "lavfi", "-i", f"sine=frequency={tone_right}:sample_rate=48000"]
            afilter = ["-filter_complex", "[1:a][2:a]join=inputs=2:channel_layout=stereo[st]"]
        if video_port:
            cmd += ["-map", "0:v"]
            if codec == "h264":
                cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-profile:v", "baseline",
                        "-pix_fmt", "yuv420p", "-bf", "0", "-g", str(gop),
                        "-x264-params", f"keyint={gop}:min-keyint={gop}:scenecut=0"]
            else:
                cmd += ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "500k",
                        "-pix_fmt", "yuv420p", "-g", str(gop), "-keyint_min", str(gop), "-auto-alt-ref", "0"]
            cmd += ["-payload_type", str(video_pt), "-ssrc", str(ssrcs["video"])] + srtp
            cmd += ["-f", "rtp", url("video", video_port)]
        if audio_port:
            if tone_right is None:
                cmd += ["-map", "1:a"] + afilter
            else:
                cmd += afilter + ["-map", "[st]"]
            cmd += ["-c:a", "libopus", "-b:a", "96k", "-ar", "48000", "-application", "lowdelay",
                    "-payload_type", str(audio_pt), "-ssrc", str(ssrcs["audio"])] + srtp
            cmd += ["-f", "rtp", url("audio", audio_port)]
        self.cmd = cmd
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log, "ab"))

    def running(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


RTCP_NAMES = {(206, 1): "PLI", (206, 4): "FIR", (205, 1): "NACK", (206, 15): "REMB", (201, None): "RR",
              (200, None): "SR", (202, None): "SDES", (203, None): "BYE", (205, 15): "TWCC"}


def rtcp_kinds(datagram: bytes) -> list[str]:
    """The packet kinds in a (compound, unencrypted) RTCP datagram: "SR", "RR", "PLI", "FIR", ..."""
    out = []
    off = 0
    while off + 4 <= len(datagram):
        b0, pt = datagram[off], datagram[off + 1]
        if b0 >> 6 != 2:
            break
        fmt = b0 & 0x1F
        name = RTCP_NAMES.get((pt, fmt)) or RTCP_NAMES.get((pt, None)) or f"{pt}/{fmt}"
        out.append(name)
        off += 4 * (int.from_bytes(datagram[off + 2:off + 4], "big") + 1)
    return out


@dataclass
class Feedback:
    t: float                 # time.monotonic() of arrival
    kinds: list[str]
    source: tuple            # Janus's address and port it came from
    data: bytes = b""


class RtcpTap:
    """A sender's RTCP path through us: the sender sends its RTCP to `listen` (a free port, or the
    one given); we pass it on to `target` (the mountpoint's rtcpport) from our socket `relay`
    (its address is the one Janus learns) and note what Janus sends back there (`feedback`),
    passing it on to where the sender's RTCP came from."""

    def __init__(self, target: int, listen: int | None = None):
        self.target = target
        self.inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.inbound.bind(("127.0.0.1", listen or 0))
        self.listen = self.inbound.getsockname()[1]
        self.relay = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.relay.bind(("127.0.0.1", 0))
        self.relay_port = self.relay.getsockname()[1]
        for s in (self.inbound, self.relay):
            s.settimeout(0.1)
        self.sender_addr = None
        self.sent: list[tuple[float, list[str]]] = []      # the sender's RTCP passed on
        self.feedback: list[Feedback] = []
        self.stopping = False
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._out, self._back)]
        for t in self.threads:
            t.start()

    def _out(self):
        while not self.stopping:
            try:
                data, addr = self.inbound.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.sender_addr = addr
            self.sent.append((time.monotonic(), rtcp_kinds(data)))
            self.relay.sendto(data, ("127.0.0.1", self.target))

    def _back(self):
        while not self.stopping:
            try:
                data, addr = self.relay.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.feedback.append(Feedback(time.monotonic(), rtcp_kinds(data), addr, data))
            if self.sender_addr is not None:
                self.inbound.sendto(data, self.sender_addr)

    def keyframe_requests(self, since: float = 0.0) -> list[Feedback]:
        return [f for f in self.feedback if f.t >= since and ({"PLI", "FIR"} & set(f.kinds))]

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        self.inbound.close()
        self.relay.close()


class KeyframeOnRequestSource:
    """A Python RTP video sender standing in for Tessera's output: a solid colour (settable,
    `rgb`) at 30 fps, encoded by aiortc's H.264 (long GOP, as sfutools patches it) or VP8 encoder and
    packetized by it, sent from one socket to `port`; from a second socket (its RTCP port) it sends
    a sender report every `sr_interval` s to `rtcp_port` and answers each PLI / FIR arriving there
    with a keyframe. `keyframes_sent` / `requests` note what happened. It runs on a thread of its
    own (never on the aiortc loop). `answer_pli=False` makes it ignore requests (as ffmpeg does);
    `send_rtcp=False` sends no RTCP at all; `rtcp_mux=True` sends its reports from the RTP socket to
    the RTP port and listens for feedback there."""

    def __init__(self, port: int, rtcp_port: int | None, codec: str = "h264", pt: int = 96, rgb=(255, 0, 0),
                 size=(320, 240), sr_interval: float = 1.0, answer_pli: bool = True, send_rtcp: bool = True,
                 rtcp_mux: bool = False, ssrc: int | None = None):
        patch_aiortc()
        import aiortc.rtcrtpsender as rs
        from aiortc.rtcrtpparameters import RTCRtpCodecParameters
        mime = "video/H264" if codec == "h264" else "video/VP8"
        self.encoder = rs.get_encoder(RTCRtpCodecParameters(mimeType=mime, clockRate=90000, payloadType=pt))
        self.port, self.rtcp_port, self.pt, self.rgb, self.size = port, rtcp_port, pt, tuple(rgb), size
        self.sr_interval, self.answer_pli, self.send_rtcp = sr_interval, answer_pli, send_rtcp
        self.ssrc = ssrc or random.randrange(1, 2**32)
        self.seq = random.randrange(0, 65536)
        self.rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtp.bind(("127.0.0.1", 0))
        if rtcp_mux:     # RTCP from and to the RTP socket, sender reports to the RTP port
            self.rtcp, self.rtcp_port = self.rtp, port
        else:
            self.rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.rtcp.bind(("127.0.0.1", 0))
        self.rtcp.settimeout(0.05)
        self.rtcp_mux = rtcp_mux
        self.local_rtcp_port = self.rtcp.getsockname()[1]
        self.requests: list[Feedback] = []
        self.keyframes_sent: list[float] = []
        self.packets = self.octets = 0
        self._want_keyframe = True
        self._last_ts = 0
        self.stopping = False
        self.threads = [threading.Thread(target=self._send, daemon=True), threading.Thread(target=self._rtcp, daemon=True)]
        for t in self.threads:
            t.start()

    def _frame(self, n: int):
        import av
        from sfutools import _yuv420_planes
        planes = getattr(self, "_planes", None)
        if planes is None or planes[0] != self.rgb:
            planes = self._planes = (self.rgb, _yuv420_planes(self.rgb, *self.size))
        frame = av.VideoFrame.from_ndarray(planes[1], format="yuv420p")
        frame.pts, frame.time_base = n * 3000, fractions.Fraction(1, 90000)
        return frame

    def _send(self):
        n = 0
        start = time.monotonic()
        while not self.stopping:
            force = self._want_keyframe
            self._want_keyframe = False
            payloads, ts = self.encoder.encode(self._frame(n), force_keyframe=force)
            if force:
                self.keyframes_sent.append(time.monotonic())
            self._last_ts = ts
            for i, p in enumerate(payloads):
                marker = 0x80 if i == len(payloads) - 1 else 0
                hdr = struct.pack("!BBHII", 0x80, marker | self.pt, self.seq, ts & 0xFFFFFFFF, self.ssrc)
                self.seq = (self.seq + 1) & 0xFFFF
                self.rtp.sendto(hdr + p, ("127.0.0.1", self.port))
                self.packets += 1
                self.octets += len(p)
            n += 1
            wait = start + n / 30 - time.monotonic()
            if wait > 0:
                time.sleep(wait)

    def _sender_report(self) -> bytes:
        now = time.time() + 2208988800
        ntp = (int(now) << 32) | int((now % 1) * (1 << 32))
        return struct.pack("!BBHIQIII", 0x80, 200, 6, self.ssrc, ntp, self._last_ts & 0xFFFFFFFF,
                           self.packets & 0xFFFFFFFF, self.octets & 0xFFFFFFFF)

    def _rtcp(self):
        next_sr = time.monotonic()
        while not self.stopping:
            if self.send_rtcp and self.rtcp_port and time.monotonic() >= next_sr:
                self.rtcp.sendto(self._sender_report(), ("127.0.0.1", self.rtcp_port))
                next_sr = time.monotonic() + self.sr_interval
            try:
                data, addr = self.rtcp.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            fb = Feedback(time.monotonic(), rtcp_kinds(data), addr, data)
            self.requests.append(fb)
            if self.answer_pli and {"PLI", "FIR"} & set(fb.kinds):
                self._want_keyframe = True

    def keyframe_requests(self, since: float = 0.0) -> list[Feedback]:
        return [f for f in self.requests if f.t >= since and ({"PLI", "FIR"} & set(f.kinds))]

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(2)
        self.rtp.close()
        if not self.rtcp_mux:
            self.rtcp.close()
