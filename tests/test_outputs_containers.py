"""Outputs: one encode into .mp4 (fragmented) / .flv / .mkv / .ts, H.264 + AAC with the task's
size, fps, GOP, bitrate, preset and audio settings; colour tags; layout colours in the encoded
output; --output; overwriting; path resolution."""
import numpy as np
import pytest

from helpers import (BLUE, GREEN, GREY, RED, WHITE, YELLOW, Workspace, assert_rgb, assert_yuv_block,
                     count_video_frames, decode_video, ffprobe, hex_colour, mp4_top_level_boxes, read_y4m,
                     rgb_to_yuv, sine, streams, task, video_frame_info)

CONTAINERS = ["mp4", "flv", "mkv", "ts"]


@pytest.fixture(scope="module")
def encoded(tmp_path_factory, media):
    """One task, every container: 2 s of 320x240 at 15 fps, GOP 1 s, 600 kbps, AAC 44.1 kHz mono."""
    ws = Workspace(tmp_path_factory.mktemp("containers"), media)
    src = media.video("testsrc2=s=320x240:r=25:d=2", audio=sine(440, 2.0), stem="testsrc2")
    doc = {
        "inputs": [{"id": "t", "url": src}],
        "encoder": {"video": {"width": 320, "height": 240, "fps": 15, "bitrateKbps": 600, "gopSeconds": 1,
                              "codec": "h264", "preset": "veryfast"},
                    "audio": {"sampleRate": 44100, "channels": 1, "bitrateKbps": 96, "codec": "aac"}},
        "layout": {"regions": [{"input": "t", "x": 0, "y": 0, "width": 320, "height": 240}]},
        "outputs": [{"url": f"all.{ext}"} for ext in CONTAINERS],
    }
    ws.mix(doc)
    return ws


@pytest.mark.parametrize("ext", CONTAINERS)
def test_streams_codecs_and_sizes(encoded, ext):
    out = encoded.out / f"all.{ext}"
    assert out.exists(), f"all.{ext} was not written"
    v = streams(out, "video")
    a = streams(out, "audio")
    assert len(v) == 1 and len(a) == 1, f"expected one video and one audio stream, got {len(v)} / {len(a)}"
    v, a = v[0], a[0]
    assert v["codec_name"] == "h264", v["codec_name"]
    assert (int(v["width"]), int(v["height"])) == (320, 240)
    assert v["pix_fmt"] == "yuv420p", v["pix_fmt"]
    assert v["r_frame_rate"] == "15/1", f"frame rate {v['r_frame_rate']}"
    assert a["codec_name"] == "aac"
    assert int(a["sample_rate"]) == 44100 and int(a["channels"]) == 1


@pytest.mark.parametrize("ext", CONTAINERS)
def test_duration_and_frame_count(encoded, ext):
    out = encoded.out / f"all.{ext}"
    duration = float(ffprobe(out)["format"]["duration"])
    assert abs(duration - 2.0) <= 0.1, f"duration {duration} s, expected 2.0"
    n = count_video_frames(out)
    assert n == 30, f"2 s at 15 fps: expected 30 frames, got {n}"
    times = [f["time"] for f in video_frame_info(out)]
    steps = np.diff(times)
    assert np.allclose(steps, 1 / 15, atol=0.002), f"frame timestamps not 1/15 s apart: {np.unique(np.round(steps, 4))}"


@pytest.mark.parametrize("ext", CONTAINERS)
def test_gop_is_one_second(encoded, ext):
    frames = video_frame_info(encoded.out / f"all.{ext}")
    keys = [i for i, f in enumerate(frames) if int(f["key_frame"]) == 1]
    assert keys[:2] == [0, 15], f"gopSeconds 1 at 15 fps: keyframes expected at 0, 15; got {keys}"
    assert all(b - a <= 15 for a, b in zip(keys, keys[1:])), f"keyframe gap above 15 frames: {keys}"
    assert frames[15]["pict_type"] == "I"


@pytest.mark.parametrize("ext", CONTAINERS)
def test_colour_tags_bt709_limited(encoded, ext):
    v = streams(encoded.out / f"all.{ext}", "video")[0]
    assert v.get("color_range") == "tv", f"color_range {v.get('color_range')}"
    assert v.get("color_space") == "bt709", f"color_space {v.get('color_space')}"
    assert v.get("color_primaries") == "bt709", f"color_primaries {v.get('color_primaries')}"
    assert v.get("color_transfer") == "bt709", f"color_transfer {v.get('color_transfer')}"


def test_mp4_is_fragmented(encoded):
    boxes = mp4_top_level_boxes(encoded.out / "all.mp4")
    assert boxes[:2] == ["ftyp", "moov"], f"top-level boxes {boxes[:6]}"
    assert "moof" in boxes and "mdat" in boxes, f"no fragments (moof) in the MP4: {boxes[:10]}"
    assert boxes.index("moov") < boxes.index("moof")


def test_x264_settings_carry_task_values(encoded):
    data = (encoded.out / "all.mp4").read_bytes()
    i = data.find(b"x264 - core")
    assert i >= 0, "no x264 SEI in the H.264 stream"
    sei = data[i:i + 2000].split(b"\x00")[0].decode("latin-1")
    assert "keyint=15" in sei, f"GOP 1 s at 15 fps should give keyint=15: {sei}"
    assert "bitrate=600" in sei, f"bitrateKbps 600 should give bitrate=600: {sei}"
    assert "subme=2" in sei, f"preset veryfast sets subme=2: {sei}"


def test_preset_and_bitrate_change_the_encode(ws, media):
    src = media.video("testsrc2=s=160x120:r=10:d=1", stem="testsrc2-small")
    doc = task([{"id": "t", "url": src}], [{"input": "t", "x": 0, "y": 0, "width": 160, "height": 120}],
               outputs=["u.mp4"], width=160, height=120, fps=10, audio_encoder=False)
    doc["encoder"]["video"].update({"preset": "ultrafast", "bitrateKbps": 300, "gopSeconds": 0.5})
    ws.mix(doc)
    data = (ws.out / "u.mp4").read_bytes()
    i = data.find(b"x264 - core")
    sei = data[i:i + 2000].split(b"\x00")[0].decode("latin-1")
    assert "cabac=0" in sei and "subme=0" in sei, f"preset ultrafast: {sei}"
    assert "bitrate=300" in sei and "keyint=5" in sei, sei


def test_layout_colours_survive_encoding(ws, media):
    """#FF0000 decodes back as red; the .y4m composite equals the encoded picture."""
    white_tall = media.solid(WHITE, size=(60, 180))
    blue = media.solid(BLUE, size=(64, 64))
    yellow = media.still_png(YELLOW)
    doc = task([{"id": "w", "url": white_tall}, {"id": "b", "url": blue}], [
        {"input": "w", "x": 0, "y": 0, "width": 160, "height": 120, "renderMode": "fit",
         "backgroundColor": hex_colour(GREEN)},
        {"input": "b", "x": 160, "y": 0, "width": 160, "height": 120},
        {"image": yellow, "x": 0, "y": 120, "width": 160, "height": 120},
        {"image": media.still_png(GREY), "x": 200, "y": 160, "width": 80, "height": 60},
    ], background=hex_colour(RED), outputs=["c.y4m", "c.mp4"], fps=10)
    ws.mix(doc)
    raw = read_y4m(ws.out / "c.y4m").frames
    enc = decode_video(ws.out / "c.mp4")
    assert len(raw) == len(enc) == 10
    checks = [((20, 60), GREEN, "fit bar (region backgroundColor #00FF00)"),
              ((80, 60), WHITE, "white input"),
              ((240, 60), BLUE, "blue input"),
              ((80, 180), YELLOW, "PNG #FFFF00"),
              ((240, 190), GREY, "PNG #808080"),
              ((180, 140), RED, "layout backgroundColor #FF0000"),
              ((300, 230), RED, "layout backgroundColor #FF0000")]
    for (x, y), colour, what in checks:
        assert_rgb(enc[5], x, y, colour, 12, f"encoded .mp4: {what}")
        assert_rgb(raw[5], x, y, colour, 6, f".y4m composite: {what}")
    assert_yuv_block(raw[5], (170, 130, 190, 150), rgb_to_yuv(RED), 2, ".y4m background #FF0000 in BT.709")
    for r, e in zip(raw, enc):
        diff = np.abs(r.y.astype(int) - e.y.astype(int)).mean()
        assert diff < 2.5, f"the encoded picture differs from the composite by {diff:.2f} luma levels on average"
    y4m = read_y4m(ws.out / "c.y4m")
    assert (y4m.width, y4m.height, y4m.fps) == (320, 240, (10, 1))


def test_output_option_replaces_the_outputs(ws, media):
    src = media.solid(RED, duration=1.0, tone=440)
    doc = task([{"id": "r", "url": src}], [{"input": "r", "x": 0, "y": 0, "width": 320, "height": 240}],
               outputs=["a.mp4", "b.flv"])
    override = ws.root / "elsewhere" / "override.mkv"
    override.parent.mkdir()
    ws.mix(doc, "--output", override)
    assert override.exists(), "--output file not written"
    assert ws.output_files() == [], f"--output must replace the task's outputs, yet {ws.output_files()} were written"
    assert streams(override, "video")[0]["codec_name"] == "h264"


def test_existing_output_is_overwritten(ws, media):
    src = media.solid(RED, duration=1.0)
    (ws.out / "again.mp4").write_bytes(b"not a video" * 1000)
    doc = task([{"id": "r", "url": src}], [{"input": "r", "x": 0, "y": 0, "width": 320, "height": 240}],
               outputs=["again.mp4"])
    ws.mix(doc)
    assert count_video_frames(ws.out / "again.mp4") == 10


def test_paths_default_to_working_directory(ws, media):
    """Without --media-root / --output-dir both are the working directory; absolute paths and file:
    URLs work as they are."""
    src = media.solid(RED, duration=1.0)
    (ws.root / "local.mp4").symlink_to(media.path(src))
    doc = task([{"id": "rel", "url": "local.mp4"},
                {"id": "abs", "url": str(media.path(src))},
                {"id": "fileurl", "url": "file:" + str(media.path(src))}],
               [{"input": "rel", "x": 0, "y": 0, "width": 100, "height": 100},
                {"input": "abs", "x": 110, "y": 0, "width": 100, "height": 100},
                {"input": "fileurl", "x": 220, "y": 0, "width": 100, "height": 100}],
               outputs=["here.y4m", str(ws.root / "abs-out.y4m")])
    ws.mix(doc, media_root=False, output_dir=False)
    assert (ws.root / "here.y4m").exists(), "relative output not written in the working directory"
    assert (ws.root / "abs-out.y4m").exists()
    f = read_y4m(ws.root / "here.y4m").frames[0]
    for x in (50, 160, 270):
        assert_rgb(f, x, 50, RED, 12, "input by relative path / absolute path / file: URL")


COLOUR_INPUTS = {
    "h264-mp4": dict(ext="mp4", codec="h264"),
    "vp9-webm": dict(ext="webm", codec="vp9"),
    "vp8-webm": dict(ext="webm", codec="vp8"),
    "ffv1-mkv": dict(ext="mkv", codec="ffv1"),
    "h264-ts": dict(ext="ts", codec="h264"),
    "h264-flv": dict(ext="flv", codec="h264"),
    "hevc-mp4": dict(ext="mp4", codec="hevc"),
    "hevc-mkv": dict(ext="mkv", codec="hevc"),
    "av1-mkv": dict(ext="mkv", codec="av1"),
    "mpeg2-ts": dict(ext="ts", codec="mpeg2"),
}


@pytest.mark.parametrize("kind", list(COLOUR_INPUTS))
def test_input_containers_and_codecs(ws, media, kind):
    spec = COLOUR_INPUTS[kind]
    audio = sine(440, 1.0) if spec["ext"] != "flv" else None
    src = media.video("color=c=0x00FF00:s=96x64:r=15:d=1", audio=audio, stem=f"in-{kind}", **spec)
    doc = task([{"id": "i", "url": src}], [{"input": "i", "x": 40, "y": 40, "width": 96, "height": 64}],
               outputs=["k.y4m"])
    ws.mix(doc)
    frames = read_y4m(ws.out / "k.y4m").frames
    assert 9 <= len(frames) <= 11, f"a 1 s input at 10 fps output: {len(frames)} frames"
    assert_rgb(frames[5], 88, 72, GREEN, 14, f"{kind} input")


TAGGED = {
    # name: (scale filter options, output options) — how the input's Y'CbCr is stored and tagged
    "bt601-limited-untagged": ("out_color_matrix=bt601:out_range=tv", []),
    "bt709-limited-tagged": ("out_color_matrix=bt709:out_range=tv",
                             ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                              "-color_range", "tv"]),
    "bt601-full-tagged": ("out_color_matrix=bt601:out_range=pc",
                          ["-colorspace", "smpte170m", "-color_range", "pc"]),
    "bt709-full-tagged": ("out_color_matrix=bt709:out_range=pc",
                          ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                           "-color_range", "pc"]),
}


@pytest.mark.parametrize("name", list(TAGGED))
def test_input_colour_matrix_and_range_are_converted(ws, media, name):
    scale, opts = TAGGED[name]
    colours = [GREEN, (200, 100, 50), BLUE]
    parts = [f"color=c=0x{r:02X}{g:02X}{b:02X}:s=64x64:r=10:d=1,format=rgb24[c{i}]" for i, (r, g, b) in enumerate(colours)]
    graph = ";".join(parts) + ";[c0][c1][c2]hstack=inputs=3,scale=" + scale + ",format=yuv420p"
    src = media.video(graph, ext="mkv", codec="ffv1", stem=f"tag-{name}", extra=opts)
    doc = task([{"id": "i", "url": src}], [{"input": "i", "x": 0, "y": 0, "width": 192, "height": 64}])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[3]
    for i, c in enumerate(colours):
        assert_rgb(f, 32 + 64 * i, 32, c, 12, f"{name} input, colour {c}")
