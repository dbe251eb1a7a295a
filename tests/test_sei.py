"""H.264 SEI through `tessera mix` (issue 13): an input's user data found byte for byte in the output
frame that first shows its picture; `seiPassthrough: false`; the encoder's own info message not
duplicated; the periodic layout-and-volume message naming the loud input; the new fields validated."""
import json

import pytest

from helpers import ffmpeg, run_tessera, sine, task
from seitools import X264_UUID, annexb, frames_with, frames_with_uuid, sei_per_frame, volume_messages, with_sei_in_every_picture

UUID = "0123456789abcdef0123456789abcdef"
TEXT = "product-42.popup-on"
# h264_metadata writes the text with its terminating NUL.
MESSAGE = (5, bytes.fromhex(UUID) + TEXT.encode() + b"\0")


def sei_clip(media, ext: str, duration=2.0, fps=10, gop=10, colour="0x3060C0", tone=None) -> str:
    """A clip whose H.264 carries MESSAGE (h264_metadata inserts it with every SPS: each keyframe of
    an Annex B stream). Access unit delimiters keep each message with its picture when read back."""
    return media.video(f"color=c={colour}:s=64x48:r={fps}:d={duration}", audio=sine(tone, duration) if tone else None,
                       ext=ext, stem=f"sei-{ext}",
                       extra=["-g", str(gop), "-x264-params", "aud=1", "-bsf:v", f"h264_metadata=sei_user_data={UUID}+{TEXT}"])


def one_input(url: str, out: str, **input_extra) -> dict:
    return task([{"id": "host", "url": url, **input_extra}], [{"input": "host", "x": 0, "y": 0, "width": 64, "height": 48}],
                outputs=[out], width=64, height=48, fps=10)


@pytest.mark.parametrize("ext", ["mp4", "mkv", "ts"])
def test_input_sei_lands_in_the_frames_showing_its_pictures(ws, media, ext):
    clip = sei_clip(media, ext)
    source = sei_per_frame(media.path(clip))
    carried = frames_with(source, *MESSAGE)
    assert len(carried) == 2, f"the test clip carries SEI in frames {carried} ({ext}), expected both keyframes"
    ws.mix(one_input(clip, "out.flv"))
    out = sei_per_frame(ws.out / "out.flv")
    assert len(out) == 20, len(out)
    # Same rate, same start: output frame k shows input frame k, so the same frames carry it.
    if ext == "ts":
        # h264_metadata appends its SEI after the slice of a repeated keyframe, and the TS demuxer
        # then hands it over in the next picture's packet: only the first keyframe is exact.
        assert frames_with(out, *MESSAGE)[0] == 0 and len(frames_with(out, *MESSAGE)) == 2
    else:
        assert frames_with(out, *MESSAGE) == carried
    # Our encoder's info message once (its first frame); the input's copies are not carried.
    assert [i for i, _ in frames_with_uuid(out, X264_UUID)] == [0]


def test_registered_t35_user_data_rides_every_picture(ws, media):
    """user_data_registered_itu_t_t35 (type 4: country code, provider, data), put before the slice
    of every picture of a stream, comes out in every output frame, zero runs and all."""
    t35 = (4, b"\xb5\x00\x3c" + b"tessera\x00\x00\x00\x01\x02" + bytes(range(40)))
    plain = media.video("color=c=0x208040:s=64x48:r=10:d=1", ext="ts", stem="t35-plain", extra=["-x264-params", "aud=1"])
    raw = media.root / "t35.h264"
    raw.write_bytes(with_sei_in_every_picture(annexb(media.path(plain)), [t35]))
    clip = media.root / "t35.mkv"
    ffmpeg("-f", "h264", "-framerate", "10", "-i", str(raw), "-c", "copy", str(clip))
    assert frames_with(sei_per_frame(clip), *t35) == list(range(10))
    ws.mix(one_input(clip.name, "out.mp4"))
    assert frames_with(sei_per_frame(ws.out / "out.mp4"), *t35) == list(range(10))


def test_passthrough_off_carries_nothing(ws, media):
    ws.mix(one_input(sei_clip(media, "mp4"), "out.mp4", seiPassthrough=False))
    out = sei_per_frame(ws.out / "out.mp4")
    assert len(out) == 20 and frames_with(out, *MESSAGE) == []


def test_faster_input_messages_go_into_the_next_output_frame(ws, media):
    """A 30 fps input into a 10 fps output: pictures 0 and 15 (its keyframes) are shown by output
    frames 0 and 5 (15/30 s = frame 5 at 10 fps)."""
    clip = sei_clip(media, "mp4", fps=30, gop=15)
    assert frames_with(sei_per_frame(media.path(clip)), *MESSAGE)[:2] == [0, 15]
    ws.mix(one_input(clip, "out.flv"))
    assert frames_with(sei_per_frame(ws.out / "out.flv"), *MESSAGE)[:2] == [0, 5]


def test_volume_sei_every_interval_names_the_loud_input(ws, media):
    loud = media.video("color=c=red:s=64x48:r=10:d=3", audio=sine(1000, 3, amplitude=0.5), stem="loud")
    quiet = media.video("color=c=blue:s=64x48:r=10:d=3", audio="anullsrc=r=48000:cl=stereo:d=3", stem="quiet")
    doc = task([{"id": "loud", "url": loud}, {"id": "quiet", "url": quiet}],
               [{"input": "loud", "x": 0, "y": 0, "width": 32, "height": 48},
                {"input": "quiet", "x": 32, "y": 0, "width": 32, "height": 48, "zOrder": 1}],
               outputs=["out.flv"], width=64, height=48, fps=10,
               sei={"volume": {"intervalMs": 500}, "appData": "room=7"})
    ws.mix(doc)
    messages = volume_messages(sei_per_frame(ws.out / "out.flv"))
    assert [i for i, _ in messages] == [0, 5, 10, 15, 20, 25], messages
    assert [m["ts"] for _, m in messages] == [0, 500, 1000, 1500, 2000, 2500]
    for _, m in messages:
        assert m["appData"] == "room=7"
        regions = {r["input"]: r for r in m["regions"]}
        assert (regions["loud"]["x"], regions["loud"]["width"], regions["quiet"]["x"]) == (0, 32, 32), m
        assert regions["quiet"]["zOrder"] > regions["loud"]["zOrder"]
    for _, m in messages[1:]:
        levels = {v["input"]: v for v in m["volumes"]}
        # A 0.5-amplitude sine: RMS −9 dBFS → level 85; silence: 0.
        assert 75 <= levels["loud"]["level"] <= 92 and levels["loud"]["speaking"], m
        assert levels["quiet"]["level"] == 0 and not levels["quiet"]["speaking"], m


@pytest.mark.parametrize("sei, path", [
    ({"volume": {"intervalMs": 100}}, "sei.volume.intervalMs"),
    ({"volume": {"uuid": "xyz"}}, "sei.volume.uuid"),
    ({"appData": "x" * 4097}, "sei.appData"),
    ({"volume": {"intervalMs": 1000, "colour": 1}}, "sei.volume.colour"),
])
def test_sei_fields_are_validated_with_their_path(ws, media, sei, path):
    doc = one_input(sei_clip(media, "mp4"), "out.flv")
    doc["sei"] = sei
    r = run_tessera(["validate", ws.write_task(doc)], cwd=media.root)
    assert r.returncode == 1 and path in r.stdout + r.stderr, r.stdout + r.stderr


def test_sei_passthrough_must_be_a_boolean(ws, media):
    r = run_tessera(["validate", ws.write_task(one_input(sei_clip(media, "mp4"), "out.flv", seiPassthrough="yes"))],
                    cwd=media.root)
    assert r.returncode == 1 and "inputs[0].seiPassthrough" in r.stdout + r.stderr, r.stdout + r.stderr


def test_sei_on_an_audio_only_task_is_refused(ws, media):
    doc = {"inputs": [{"id": "a", "url": media.audio(sine(440, 1))}], "encoder": {"audio": {}},
           "outputs": [{"url": "out.mp4"}], "sei": {"volume": {}}}
    r = run_tessera(["validate", ws.write_task(doc)], cwd=media.root)
    assert r.returncode == 1 and "sei" in r.stdout + r.stderr, r.stdout + r.stderr
