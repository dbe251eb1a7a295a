"""Layouts that follow the room, offline (`tessera mix`): `layout.fill: "present"` re-flows a
template as file inputs start at `startAtMs` and end; `layout.main`; template `speaker` follows the
tone that plays; `onVideoLoss: "lastFrame"` keeps an ended input's last picture. Checked by pixel
colour at slot centres of the frames written."""
from helpers import BLUE, GREEN, GREY, RED, YELLOW, assert_rgb, hex_colour, read_y4m, task

TOL = 15


def grid_task(inputs, **layout) -> dict:
    doc = task(inputs, None)
    doc["layout"] = {"template": "grid", "backgroundColor": hex_colour(GREY), **layout}
    return doc


def test_present_grid_reflows_when_an_input_starts_and_ends(ws, media):
    # a and c play 0–3 s; b plays 1–2 s (startAtMs 1000). 320x240 canvas at 10 fps.
    a = media.solid(RED, duration=3.0)
    b = media.solid(GREEN, duration=1.0)
    c = media.solid(BLUE, duration=3.0)
    inputs = [{"id": "a", "url": a}, {"id": "b", "url": b, "startAtMs": 1000}, {"id": "c", "url": c}]
    ws.mix(grid_task(inputs, fill="present"))
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 30
    halves = {(80, 120): RED, (240, 120): BLUE}
    quarters = {(80, 60): RED, (240, 60): GREEN, (80, 180): BLUE, (240, 180): GREY}
    for n, f in enumerate(frames):
        # Frame 10 is the first at b's start (1.0 s) and frame 20 the first after its end: the grid
        # re-flows in that same frame.
        expected, when = (quarters, "while b plays") if 10 <= n <= 19 else (halves, "a and c only")
        for (x, y), colour in expected.items():
            assert_rgb(f, x, y, colour, TOL, f"frame {n} ({when}) at {x},{y}")


def test_fill_all_keeps_every_slot(ws, media):
    a = media.solid(RED, duration=2.0)
    b = media.solid(GREEN, duration=1.0)
    ws.mix(grid_task([{"id": "a", "url": a}, {"id": "b", "url": b, "startAtMs": 1000}]))
    frames = read_y4m(ws.out / "out.y4m").frames
    for n in (0, 5, 15):
        assert_rgb(frames[n], 80, 120, RED, TOL, f"frame {n}: a keeps the left half")
        assert_rgb(frames[n], 240, 120, GREEN if n >= 10 else GREY, TOL, f"frame {n}: b's slot stays")


def test_audio_only_slots(ws, media):
    a = media.solid(RED, duration=1.0)
    voice = media.audio("sine=frequency=440:sample_rate=48000:duration=1", stem="voice")
    for slots, expect_half in ((False, False), (True, True)):
        ws.mix(grid_task([{"id": "a", "url": a}, {"id": "voice", "url": voice}], fill="present", audioOnlySlots=slots))
        f = read_y4m(ws.out / "out.y4m").frames[5]
        if expect_half:
            assert_rgb(f, 80, 120, RED, TOL, "audioOnlySlots: a on the left half")
            assert_rgb(f, 240, 120, GREY, TOL, "audioOnlySlots: the audio-only input keeps the right half")
        else:
            assert_rgb(f, 240, 120, RED, TOL, "without audioOnlySlots a fills the canvas")


def test_main_takes_the_big_picture(ws, media):
    a, b = media.solid(RED), media.solid(GREEN)
    doc = task([{"id": "a", "url": a}, {"id": "b", "url": b}], None)
    doc["layout"] = {"template": "float", "main": "b"}
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[5]
    assert_rgb(f, 100, 120, GREEN, TOL, "main fills the canvas")
    assert_rgb(f, 278, 30, RED, TOL, "the other floats top right")


def toned(media, rgb, freq, start, end, total=9.0):
    """A solid-colour clip whose tone plays only from `start` to `end` seconds."""
    graph = f"color=c=0x{hex_colour(rgb)[1:]}:s=160x120:r=10:d={total}"
    audio = f"aevalsrc=0.4*sin(2*PI*{freq}*t)*between(t\\,{start}\\,{end - 0.001}):s=48000:d={total}"
    return media.video(graph, audio=audio, stem="toned")


def test_speaker_follows_the_tone(ws, media):
    # a speaks 0–3 s, b 3–6 s, c 6–9 s. A switch needs a 1.5 s lead and a 2 s hold: b takes over
    # about 4.5 s (its level passes a's within the 300 ms level window), c about 7.5 s.
    inputs = [{"id": "a", "url": toned(media, RED, 440, 0, 3)}, {"id": "b", "url": toned(media, GREEN, 660, 3, 6)},
              {"id": "c", "url": toned(media, BLUE, 880, 6, 9)}]
    doc = task(inputs, None)
    doc["layout"] = {"template": "speaker", "backgroundColor": hex_colour(GREY)}
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 90
    big, strip_left, strip_right = (160, 90), (128, 210), (192, 210)
    expected = {20: (RED, GREEN, BLUE), 42: (RED, GREEN, BLUE), 52: (GREEN, RED, BLUE), 72: (GREEN, RED, BLUE),
                82: (BLUE, RED, GREEN)}
    for n, (speaker, left, right) in expected.items():
        assert_rgb(frames[n], *big, speaker, TOL, f"frame {n}: the speaker in the big picture")
        assert_rgb(frames[n], *strip_left, left, TOL, f"frame {n}: first strip tile")
        assert_rgb(frames[n], *strip_right, right, TOL, f"frame {n}: second strip tile")
    # Never flaps: the big picture changes exactly twice.
    lumas = [float(f.y[88:92, 158:162].mean()) for f in frames]
    changes = sum(1 for p, q in zip(lumas, lumas[1:]) if abs(p - q) > 20)
    assert changes == 2, f"the big picture changed {changes} times"
    print(f"\nspeaker switches at frames {[n + 1 for n, (p, q) in enumerate(zip(lumas, lumas[1:])) if abs(p - q) > 20]}")


def test_last_frame_keeps_the_last_picture(ws, media):
    # `short` is red then green and ends at 1 s; `long` keeps the task going to 2 s.
    short = media.video("color=c=red:s=160x120:r=10:d=0.5[r];color=c=lime:s=160x120:r=10:d=0.5[g];[r][g]concat",
                        stem="redgreen")
    long = media.solid(BLUE, duration=2.0)
    yellow = media.still_png(YELLOW)
    doc = task([{"id": "short", "url": short}, {"id": "long", "url": long}], [
        {"input": "short", "x": 0, "y": 0, "width": 160, "height": 120, "onVideoLoss": "lastFrame",
         "placeholderImage": yellow},
        {"input": "short", "x": 160, "y": 0, "width": 160, "height": 120, "placeholderImage": yellow},
        {"input": "long", "x": 0, "y": 120, "width": 320, "height": 120},
    ])
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 20
    for n in (2, 7):
        assert_rgb(frames[n], 80, 60, RED if n < 5 else GREEN, TOL, f"frame {n}: playing")
    for n in (12, 19):
        assert_rgb(frames[n], 80, 60, GREEN, TOL, f"frame {n}: lastFrame keeps the last picture")
        assert_rgb(frames[n], 240, 60, YELLOW, TOL, f"frame {n}: the default shows the placeholder")
