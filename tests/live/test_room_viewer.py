"""Self-tests of the room-viewer harness (roomviewer.py): a Janus Streaming RTP mountpoint fed by
the `ffmpeg` CLI (or by a small Python sender answering keyframe requests) and watched by aiortc
WebRTC viewers, all on 127.0.0.1. No Tessera binary is needed.

| test | shows |
| --- | --- |
| test_viewer_sees_red_and_hears_440 (h264, vp8) | colour at the centre, 440 Hz left / 1000 Hz right (Opus stereo relayed) |
| test_srtp_mountpoint | SDES SRTP (AES_CM_128_HMAC_SHA1_80) from ffmpeg's srtp:// output |
| test_h264_fmtp_needs_packetization_mode_1 | without it aiortc rejects the video m-line |
| test_late_viewer_pli_reaches_the_sources_rtcp_address | PLI at join, to where the source's RTCP came from, from the rtcpport, ≤ 1/s |
| test_late_viewer_gets_a_picture_within_2s | 10 s late join, source answering PLI with a keyframe |
| test_no_pli_without_rtcp_from_the_source (no RTCP, rtcp-mux) | Janus cannot request keyframes then |
| test_bufferkf_gives_a_late_viewer_the_last_keyframe | the mountpoint's own alternative (ffmpeg ignoring PLI) |
| test_videoroom_remote_publisher_fed_by_plain_rtp | VideoRoom `add_remote_publisher`: one port, SSRC 1000 / 1010, PLI to the rtcp_port's latched address |

Each test is ≤ 30 s and passes with one core busy (`yes > /dev/null`).
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from roomviewer import (FfmpegSource, KeyframeOnRequestSource, RemotePublisher, RtcpTap, StreamingMountpoint,
                        Viewer)
from livetools import free_port
from test_sfu_janus import aio, janus, noloop_preload  # noqa: F401 - fixtures
from sfutools import VideoRoom, srtp_key

pytestmark = pytest.mark.live

RED = (255, 0, 0)
BLUE = (0, 0, 255)
TOL = 40
LATE_JOIN = 10.0
PICTURE_WITHIN = 2.0


def near(rgb, expected, tol: float = TOL) -> bool:
    return rgb is not None and bool(np.all(np.abs(np.asarray(rgb, dtype=float) - np.asarray(expected)) <= tol))


def has_tone(tones: list[float], f: float, tol: float = 5.0) -> bool:
    return any(abs(t - f) <= tol for t in tones)


# --------------------------------------------------------------------------------------------- #
# fixtures: Janus, its loopback shim and the asyncio thread are test_sfu_janus.py's; closers here
# also survive a stop that raises (viewers, sources, taps, mountpoints)
# --------------------------------------------------------------------------------------------- #
@pytest.fixture
def closers():
    """Things with a `stop()` (viewers, sources, taps, mountpoints), stopped at teardown, last first."""
    items: list = []
    yield items
    for it in reversed(items):
        try:
            it.stop()
        except Exception as e:   # noqa: BLE001 - the others still go
            print(f"teardown of {it!r}: {e!r}")


def started(closers, thing):
    closers.append(thing)
    return thing


# --------------------------------------------------------------------------------------------- #
# picture and sound
# --------------------------------------------------------------------------------------------- #
@pytest.mark.parametrize("codec", ["h264", "vp8"])
def test_viewer_sees_red_and_hears_440(janus, aio, closers, tmp_path, codec):
    mp = started(closers, StreamingMountpoint(janus, video_codec=codec))
    # The viewer first: ffmpeg's only keyframe for 20 s is its first frame, and ffmpeg ignores PLI.
    viewer = started(closers, Viewer(aio, mp).start())
    src = started(closers, FfmpegSource(tmp_path, mp.video_port, mp.audio_port, RED, tone=440, tone_right=1000,
                                        codec=codec))
    viewer.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red at the centre")
    viewer.wait_for(lambda v: v.audio_seconds >= 1.5, 10, "1.5 s of audio")
    assert viewer.wait_for(lambda v: has_tone(v.dominant_tones(1.0, channel=0), 440), 5, "440 Hz on the left")
    assert has_tone(viewer.dominant_tones(1.0, channel=1), 1000), viewer.dominant_tones(1.0, channel=1)
    assert not has_tone(viewer.dominant_tones(1.0, channel=0), 1000), "left and right mixed: not stereo"
    assert viewer.audio_layout == "stereo"
    both = viewer.dominant_tones(1.0)
    assert has_tone(both, 440) and has_tone(both, 1000), both
    # Janus's own view: it saw both streams lately and has one viewer.
    info = mp.info()
    assert info["viewers"] == 1, info
    assert mp.seen_media("video") and mp.seen_media("audio"), info
    # Frames keep coming (30 fps sent; a viewer decoding VP8 in Python on a machine with a core
    # taken by something else keeps up with about a third of them).
    t = time.monotonic()
    time.sleep(2.0)
    n = len(viewer.frames_since(t))
    assert n >= 12, f"{n} frames in 2 s; {viewer.describe()}"
    assert src.running(), src.log_tail()


def test_srtp_mountpoint(janus, aio, closers, tmp_path):
    key = srtp_key(7)
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", srtp_crypto=key, srtp_suite=80))
    assert mp.info()["media"], mp.info()
    viewer = started(closers, Viewer(aio, mp).start())
    started(closers, FfmpegSource(tmp_path, mp.video_port, mp.audio_port, RED, tone=440, srtp_key=key))
    viewer.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red at the centre (SRTP)")
    viewer.wait_for(lambda v: has_tone(v.dominant_tones(1.0), 440), 10, "440 Hz (SRTP)")


def test_srtp_mountpoint_drops_a_wrong_key(janus, aio, closers, tmp_path):
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", srtp_crypto=srtp_key(7)))
    viewer = started(closers, Viewer(aio, mp).start())
    started(closers, FfmpegSource(tmp_path, mp.video_port, mp.audio_port, RED, tone=440, srtp_key=srtp_key(8)))
    time.sleep(3)
    assert viewer.frame_count == 0 and viewer.audio_rms(1.0) < 30, viewer.describe()


@pytest.mark.parametrize("fmtp,works", [
    ("profile-level-id=42e01f;packetization-mode=1", True),
    ("packetization-mode=1", True),                            # no profile-level-id: 42e01f assumed
    ("profile-level-id=42001f;packetization-mode=1", True),    # baseline
    ("profile-level-id=42e01f", False),                        # packetization-mode 0
    ("", False),                                               # no fmtp at all: mode 0 too
    ("profile-level-id=640c1f;packetization-mode=1", False),   # high profile
])
def test_h264_fmtp_needs_packetization_mode_1(janus, aio, closers, tmp_path, fmtp, works):
    """Janus offers exactly the mountpoint's fmtp; aiortc accepts H.264 only with packetization-mode=1
    and a (constrained) baseline profile, and otherwise fails the whole setRemoteDescription
    ("Failed to set remote video description send parameters"): no viewer at all."""
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", video_fmtp=fmtp))
    fmtp_offered = mp.media_info("video").get("fmtp")
    assert fmtp_offered == (fmtp or None), mp.info()
    viewer = Viewer(aio, mp)
    closers.append(viewer)
    if not works:
        with pytest.raises(Exception, match="send parameters"):
            viewer.start()
        return
    viewer.start()
    started(closers, FfmpegSource(tmp_path, mp.video_port, None, RED))
    viewer.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red at the centre")


# --------------------------------------------------------------------------------------------- #
# keyframe requests and late viewers
# --------------------------------------------------------------------------------------------- #
def test_late_viewer_pli_reaches_the_sources_rtcp_address(janus, aio, closers, tmp_path):
    """ffmpeg sends its RTCP (sender reports) through a tap; Janus answers nothing until a viewer
    needs a keyframe, then sends PLI from the mountpoint's rtcpport to the address the sender's RTCP
    came from: at once when the viewer starts, and again about once a second while the viewer (whose
    decoder still lacks a keyframe: ffmpeg ignores PLI) keeps asking."""
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", audio=False))
    first = started(closers, Viewer(aio, mp, name="first").start())
    tap = started(closers, RtcpTap(mp.video_rtcp_port))
    src = started(closers, FfmpegSource(tmp_path, mp.video_port, None, RED, rtcp_ports={"video": tap.listen}))
    first.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red for the first viewer")
    assert tap.sent and tap.sent[0][1] == ["SR"], tap.sent
    time.sleep(max(0.0, src.started_at + 3 - time.monotonic()))
    assert not tap.keyframe_requests(), [f.kinds for f in tap.feedback]

    joined = time.monotonic()
    late = started(closers, Viewer(aio, mp, name="late").start())
    time.sleep(max(0.0, joined + 4.5 - time.monotonic()))
    plis = tap.keyframe_requests(joined)
    assert plis, f"no PLI / FIR reached the source's RTCP address; feedback {[(f.kinds, f.source) for f in tap.feedback]}"
    # At once as the viewer starts (its ICE and DTLS take a moment, more on a loaded machine).
    assert plis[0].t - joined < 2.0, f"first PLI {plis[0].t - joined:.2f} s after the join"
    assert all(f.source == ("127.0.0.1", mp.video_rtcp_port) for f in plis), [f.source for f in plis]
    gaps = np.diff([f.t for f in plis])
    assert len(plis) >= 2 and gaps.min() > 0.7, f"PLIs at {[round(f.t - joined, 2) for f in plis]}"
    assert late.frame_count == 0, "ffmpeg answers no PLI: the late viewer has no keyframe yet"


def test_late_viewer_gets_a_picture_within_2s(janus, aio, closers):
    """The source answers PLI / FIR with a keyframe (as Tessera's output must), and sends its sender
    reports to the rtcpport from the socket where it listens: a viewer joining 10 s in is shown the
    picture within 2 s of its `watch`."""
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", audio=False))
    src = started(closers, KeyframeOnRequestSource(mp.video_port, mp.video_rtcp_port, "h264", rgb=RED))
    first = started(closers, Viewer(aio, mp, name="first").start())
    first.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red for the first viewer")
    time.sleep(max(0.0, first.started_at + LATE_JOIN - time.monotonic()))
    src.rgb = BLUE
    joined = time.monotonic()
    late = started(closers, Viewer(aio, mp, name="late").start(wait_connected=False))
    late.wait_for(lambda v: near(v.colour_at(0.5, 0.5), BLUE), PICTURE_WITHIN + 2, "blue for the late viewer")
    took = late.frames[0].t - joined
    assert took <= PICTURE_WITHIN, f"first picture {took:.2f} s after watch"
    plis = src.keyframe_requests(joined)
    assert plis and plis[0].source == ("127.0.0.1", mp.video_rtcp_port), [(f.kinds, f.source) for f in src.requests]
    assert any(t >= joined for t in src.keyframes_sent)
    first.wait_for(lambda v: near(v.colour_at(0.5, 0.5), BLUE), 2, "blue for the first viewer too")


@pytest.mark.parametrize("rtcp", ["none", "mux"])
def test_no_pli_without_rtcp_from_the_source(janus, aio, closers, rtcp):
    """A source sending no RTCP to the rtcpport (none at all, or rtcp-mux: its reports to the RTP
    port) is never sent a PLI nor REMB: Janus has not learnt where to send them. A late viewer then
    waits for the source's next periodic keyframe."""
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", audio=False))
    first = started(closers, Viewer(aio, mp, name="first").start())   # before the source's one keyframe
    src = started(closers, KeyframeOnRequestSource(mp.video_port, mp.video_rtcp_port, "h264", rgb=RED,
                                                   send_rtcp=(rtcp != "none"), rtcp_mux=(rtcp == "mux")))
    first.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red for the first viewer")
    late = started(closers, Viewer(aio, mp, name="late").start(wait_connected=False))
    time.sleep(3)
    assert not src.requests, [(f.kinds, f.source) for f in src.requests]
    assert late.frame_count == 0, late.describe()
    assert first.colour_at(0.5, 0.5) is not None and mp.seen_media("video")


def test_bufferkf_gives_a_late_viewer_the_last_keyframe(janus, aio, closers, tmp_path):
    """`bufferkf: true` on the mountpoint's video: Janus keeps the last keyframe and sends it to each
    new viewer; with ffmpeg (keyframe every 20 s, PLI ignored) a late viewer has a picture at once."""
    mp = started(closers, StreamingMountpoint(janus, video_codec="h264", audio=False, bufferkf=True))
    assert mp.media_info("video").get("videobufferkf") is True, mp.info()
    started(closers, FfmpegSource(tmp_path, mp.video_port, None, RED))
    time.sleep(3)
    joined = time.monotonic()
    late = started(closers, Viewer(aio, mp, name="late").start(wait_connected=False))
    late.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), PICTURE_WITHIN + 2, "red for the late viewer")
    assert late.frames[0].t - joined <= PICTURE_WITHIN, f"{late.frames[0].t - joined:.2f} s"



def test_videoroom_remote_publisher_fed_by_plain_rtp(janus, aio, closers, tmp_path):
    """Janus 1.1.2's VideoRoom "remote publisher" takes plain RTP from any sender: video and audio to
    the one port it gives, SSRC 1000 (mindex 0) and 1010 (mindex 1), payload types rewritten for each
    subscriber; the sender's RTCP on `rtcp_port` is latched and PLI for a new subscriber goes there.
    The room needs `h264_profile` so that subscribers are offered packetization-mode=1."""
    room = started(closers, _Closing(VideoRoom(janus, extra={"h264_profile": "42e01f"}), "destroy"))
    pub = started(closers, RemotePublisher(room.obj))
    assert any(p.get("remote") and p["id"] == pub.id for p in room.obj.participants()), room.obj.participants()
    first = started(closers, Viewer.of_videoroom(aio, janus, room.obj.room, pub.id, name="first").start())
    src = started(closers, KeyframeOnRequestSource(pub.port, pub.rtcp_port, "h264", pt=96, rgb=RED,
                                                   ssrc=pub.ssrcs["video"]))
    # Audio RTCP elsewhere: whatever arrives last on rtcp_port is where Janus's PLIs go.
    started(closers, FfmpegSource(tmp_path, None, pub.port, tone=440, tone_right=1000, audio_pt=111,
                                  ssrcs={"audio": pub.ssrcs["audio"]}, rtcp_ports={"audio": free_port()}))
    first.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), 10, "red for the first subscriber")
    first.wait_for(lambda v: has_tone(v.dominant_tones(1.0, channel=0), 440)
                   and has_tone(v.dominant_tones(1.0, channel=1), 1000), 10, "440 Hz left, 1000 Hz right")
    time.sleep(2)
    joined = time.monotonic()
    late = started(closers, Viewer.of_videoroom(aio, janus, room.obj.room, pub.id, name="late")
                   .start(wait_connected=False))
    late.wait_for(lambda v: near(v.colour_at(0.5, 0.5), RED), PICTURE_WITHIN + 2, "red for the late subscriber")
    assert late.frames[0].t - joined <= PICTURE_WITHIN, f"{late.frames[0].t - joined:.2f} s"
    plis = src.keyframe_requests(joined)
    assert plis and plis[0].source == ("127.0.0.1", pub.rtcp_port), [(f.kinds, f.source) for f in src.requests]


class _Closing:
    """Something whose stop is called `method` (for the closers list)."""

    def __init__(self, obj, method: str):
        self.obj, self.method = obj, method

    def stop(self):
        getattr(self.obj, self.method)()
