"""The mix back into the room, through a real SFU (issue 21): Debian's Janus takes Tessera's RTP
output on a Streaming RTP mountpoint (or as a VideoRoom remote publisher) and aiortc WebRTC
viewers on 127.0.0.1 watch and hear it.

| test | shows |
| --- | --- |
| test_participants_mixed_back_into_the_room | two aiortc publishers in a VideoRoom, forwarded to Tessera, their composite and both voices seen and heard by a viewer of the mountpoint; a viewer who joins 10 s later (GOP 20 s) has a picture within 2 s, because Janus's PLI reaches Tessera |
| test_voice_room_heard_through_the_sfu | audio-only: two speakers' voices mixed, Opus alone, into an audio mountpoint |
| test_srtp_into_the_sfu (h264, vp8) | SDES SRTP (AES_CM_128_HMAC_SHA1_80) to an SRTP mountpoint, H.264 and VP8 |
| test_videoroom_remote_publisher | the mix as a VideoRoom remote publisher (one port, SSRC 1000 / 1010), watched by a subscriber and a late one |
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from helpers import BLUE, RED
from roomviewer import RemotePublisher, StreamingMountpoint, Viewer
from sfutools import srtp_key
from test_room_viewer import _Closing, has_tone, near, started
from test_sfu_janus import (LEFT_TONE, RIGHT_TONE, STRING_ALLOCATE, aio, closers, create_task, janus,  # noqa: F401
                            noloop_preload, publishers, rewrite_to, room, sfu_task, start_publishers, tessera)
from livetools import H, W, side_by_side, wait_until

pytestmark = pytest.mark.live

LATE_JOIN = 10.0
PICTURE_WITHIN = 2.0


def output_status(api, task_id: str, url: str, timeout: float = 10) -> dict:
    found: dict = {}

    def live():
        for out in api.status(task_id)["outputs"]:
            if out["url"] == url and out["state"] == "live" and out.get("sdp"):
                found.update(out)
                return True
        return False

    assert wait_until(live, timeout), api.status(task_id)["outputs"]
    return found


def video_sent_once(api, task_id: str, url: str, done, timeout: float = 3) -> dict:
    """The output's `rtp.video` once `done(video)` holds: the status carries the worker's RTCP
    counters as of its last report (at least once a second), so a keyframe request that just
    reached Tessera shows a moment later."""
    seen: dict = {}

    def check():
        seen.update(output_status(api, task_id, url)["rtp"]["video"])
        return done(seen)

    wait_until(check, timeout)
    return seen


def sees_halves(viewer: Viewer) -> bool:
    return near(viewer.colour_at(0.25, 0.5), RED) and near(viewer.colour_at(0.75, 0.5), BLUE)


def hears_both(viewer: Viewer) -> bool:
    tones = viewer.dominant_tones(1.0, count=4)
    return has_tone(tones, LEFT_TONE) and has_tone(tones, RIGHT_TONE)


def test_participants_mixed_back_into_the_room(janus, room, aio, publishers, tessera, closers):
    api = tessera.client
    left, right = start_publishers(aio, room, publishers)
    mountpoint = started(closers, StreamingMountpoint(janus, video_codec="h264"))
    url = f"rtp://127.0.0.1:{mountpoint.video_port}"
    doc = sfu_task("back-into-room", STRING_ALLOCATE)
    # A long GOP: a late viewer's picture can only come from its keyframe request reaching Tessera.
    doc["encoder"]["video"]["gopSeconds"] = 20
    doc["outputs"] = [{"url": url, "rtp": {"audioPort": mountpoint.audio_port}}]
    rtp = create_task(api, doc)
    for pub, who in ((left, "left"), (right, "right")):
        pub.forward(rtp[who]["videoPort"], rtp[who]["audioPort"], rewrite_pt=rewrite_to(rtp[who]))
    out = output_status(api, "back-into-room", url)
    assert "profile-level-id=42e01f" in out["sdp"], out["sdp"]

    viewer = started(closers, Viewer(aio, mountpoint, name="first").start())
    viewer.wait_for(sees_halves, 10, "the composite: red left (the left publisher), blue right")
    viewer.wait_for(hears_both, 10, f"{LEFT_TONE} Hz and {RIGHT_TONE} Hz mixed")
    assert mountpoint.seen_media("video") and mountpoint.seen_media("audio"), mountpoint.info()

    time.sleep(max(0.0, LATE_JOIN - (time.monotonic() - viewer.frames[0].t)))
    joined = time.monotonic()
    late = started(closers, Viewer(aio, mountpoint, name="late").start(wait_connected=False))
    late.wait_for(sees_halves, PICTURE_WITHIN + 3, "the composite for a viewer who joined late")
    first_frame = late.frames[0].t - joined
    assert first_frame <= PICTURE_WITHIN, f"late viewer's first picture {first_frame:.2f} s after joining"
    video = video_sent_once(api, "back-into-room", url, lambda v: v["pli"] + v["fir"] >= 1 and v["keyframesRequested"] >= 1)
    assert video["pli"] + video["fir"] >= 1 and video["keyframesRequested"] >= 1, video
    assert video["senderReports"] >= 5, video
    print(f"\nlate viewer: first picture {first_frame:.2f} s after joining; output rtp {video}")


def test_voice_room_heard_through_the_sfu(janus, room, aio, publishers, tessera, closers):
    api = tessera.client
    left, right = start_publishers(aio, room, publishers)
    mountpoint = started(closers, StreamingMountpoint(janus, video_codec=None))
    url = f"rtp://127.0.0.1:{mountpoint.audio_port}"
    doc = {"taskId": "voice-room", "inputs": [{"id": who, "rtp": {"allocate": {"audio": "opus"}}} for who in ("left", "right")],
           "outputs": [{"url": url}]}
    st = api.create(doc)
    inputs = {i["id"]: i["rtp"] for i in st["inputs"]}
    for pub, who in ((left, "left"), (right, "right")):
        pub.forward(None, inputs[who]["audioPort"], rewrite_pt=rewrite_to(inputs[who]))
    out = output_status(api, "voice-room", url)
    assert "m=video" not in out["sdp"] and api.status("voice-room")["encodes"] == ["opus"]
    viewer = started(closers, Viewer(aio, mountpoint, name="listener").start())
    viewer.wait_for(hears_both, 10, "both speakers")
    assert viewer.frame_count == 0


@pytest.mark.parametrize("codec", ["h264", "vp8"])
def test_srtp_into_the_sfu(janus, aio, tessera, clips, closers, codec):
    api = tessera.client
    key = srtp_key(21)
    mountpoint = started(closers, StreamingMountpoint(janus, video_codec=codec, srtp_crypto=key))
    url = f"rtp://127.0.0.1:{mountpoint.video_port}"
    doc = side_by_side(f"srtp-{codec}", clips.red, clips.blue, [])
    doc["outputs"] = [{"url": url, "rtp": {"audioPort": mountpoint.audio_port, "videoCodec": codec,
                                           "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": key}}}]
    api.create(doc)
    output_status(api, f"srtp-{codec}", url)
    viewer = started(closers, Viewer(aio, mountpoint, name="srtp").start())
    viewer.wait_for(sees_halves, 10, "the composite through SRTP")
    viewer.wait_for(hears_both, 10, "both tones through SRTP")


def test_videoroom_remote_publisher(janus, aio, tessera, clips, closers):
    """Janus 1.1's VideoRoom remote publisher: every stream to one port, SSRC 1000 (video) and 1010
    (audio); subscribers of the room receive the mix as one more participant."""
    from sfutools import VideoRoom
    api = tessera.client
    room = started(closers, _Closing(VideoRoom(janus, extra={"h264_profile": "42e01f"}), "destroy"))
    remote = started(closers, RemotePublisher(room.obj, display="tessera-mix"))
    url = f"rtp://127.0.0.1:{remote.port}"
    doc = side_by_side("remote-publisher", clips.red, clips.blue, [])
    doc["encoder"]["video"]["gopSeconds"] = 20
    # Janus answers with the port and the RTCP port it listens on (not port + 1) and fixed SSRCs.
    doc["outputs"] = [{"url": url, "rtp": {"audioPort": remote.port, "videoRtcpPort": remote.rtcp_port,
                                           "audioRtcpPort": remote.rtcp_port, "videoSsrc": remote.ssrcs["video"],
                                           "audioSsrc": remote.ssrcs["audio"]}}]
    api.create(doc)
    output_status(api, "remote-publisher", url)
    first = started(closers, Viewer.of_videoroom(aio, janus, room.obj.room, remote.id, name="subscriber").start())
    first.wait_for(sees_halves, 10, "the composite for a subscriber")
    first.wait_for(hears_both, 10, "both tones for a subscriber")
    time.sleep(3)
    joined = time.monotonic()
    late = started(closers, Viewer.of_videoroom(aio, janus, room.obj.room, remote.id, name="late").start(wait_connected=False))
    late.wait_for(sees_halves, PICTURE_WITHIN + 3, "the composite for a late subscriber")
    assert late.frames[0].t - joined <= PICTURE_WITHIN, f"{late.frames[0].t - joined:.2f} s"
    video = video_sent_once(api, "remote-publisher", url, lambda v: v["pli"] >= 1)
    assert video["pli"] >= 1, video
