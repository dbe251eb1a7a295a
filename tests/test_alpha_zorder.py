"""Region alpha (out = a·src + (1 − a)·dst on the encoded values, within ±3 levels on the .y4m
composite) and z-order (higher on top, ties in array order)."""
import numpy as np
import pytest

from helpers import (BLACK, BLUE, GREEN, RED, YELLOW, assert_rgb, assert_yuv_block, hex_colour, read_y4m,
                     rgb_to_yuv, task)

LEVELS = 3  # the contract's tolerance for blending on the composite


def blend(a, src, dst):
    return a * rgb_to_yuv(src) + (1 - a) * rgb_to_yuv(dst)


def inset(x, y, w, h, m=6):
    return (x + m, y + m, x + w - m, y + h - m)


def test_alpha_blending_within_three_levels(ws, media):
    green = media.solid(GREEN, size=(160, 120), codec="ffv1", ext="mkv")
    red_png = media.still_png(RED)
    half_red_png = media.still_png(RED, alpha=128)   # the image's own alpha: 128/255
    doc = task([{"id": "g", "url": green}], [
        {"input": "g", "x": 0, "y": 0, "width": 100, "height": 100, "alpha": 0.5},
        {"image": red_png, "x": 110, "y": 0, "width": 100, "height": 100, "alpha": 0.25},
        {"image": red_png, "x": 220, "y": 0, "width": 100, "height": 100, "alpha": 0.75},
        {"input": "g", "x": 0, "y": 120, "width": 100, "height": 100, "alpha": 1},
        {"input": "g", "x": 110, "y": 120, "width": 100, "height": 100, "alpha": 0},
        {"image": half_red_png, "x": 220, "y": 120, "width": 100, "height": 100},
    ], background=hex_colour(BLUE))
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    for f in (frames[0], frames[len(frames) // 2], frames[-1]):
        assert_yuv_block(f, inset(0, 0, 100, 100), blend(0.5, GREEN, BLUE), LEVELS, "video at alpha 0.5")
        assert_yuv_block(f, inset(110, 0, 100, 100), blend(0.25, RED, BLUE), LEVELS, "image at alpha 0.25")
        assert_yuv_block(f, inset(220, 0, 100, 100), blend(0.75, RED, BLUE), LEVELS, "image at alpha 0.75")
        assert_yuv_block(f, inset(0, 120, 100, 100), rgb_to_yuv(GREEN), LEVELS, "video at alpha 1")
        assert_yuv_block(f, inset(110, 120, 100, 100), rgb_to_yuv(BLUE), LEVELS, "video at alpha 0 (invisible)")
        assert_yuv_block(f, inset(220, 120, 100, 100), blend(128 / 255, RED, BLUE), LEVELS,
                         "PNG with its own alpha 128")
        assert_yuv_block(f, (300, 220, 320, 240), rgb_to_yuv(BLUE), LEVELS, "background #0000FF")


def test_alpha_multiplies_over_video(ws, media):
    # An image at alpha 0.5 over a video region (not over the background): dst is the video.
    green = media.solid(GREEN, size=(160, 120), codec="ffv1", ext="mkv")
    red_png = media.still_png(RED)
    doc = task([{"id": "g", "url": green}], [
        {"image": red_png, "x": 80, "y": 60, "width": 160, "height": 120, "alpha": 0.5, "zOrder": 1},
        {"input": "g", "x": 0, "y": 0, "width": 320, "height": 240},
    ], background=hex_colour(BLACK))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[4]
    assert_yuv_block(f, inset(80, 60, 160, 120), blend(0.5, RED, GREEN), LEVELS, "red at 0.5 over green video")
    assert_yuv_block(f, (8, 8, 60, 50), rgb_to_yuv(GREEN), LEVELS, "video outside the overlay")


@pytest.mark.parametrize("tie_order", ["green-first", "blue-first"])
def test_z_order_and_ties_in_array_order(ws, media, tie_order):
    red = media.solid(RED, size=(120, 120))
    blue = media.solid(BLUE, size=(120, 120))
    green_png = media.still_png(GREEN)
    yellow_png = media.still_png(YELLOW)
    r_red = {"input": "r", "x": 40, "y": 40, "width": 120, "height": 120, "zOrder": 5}
    r_green = {"image": green_png, "x": 100, "y": 60, "width": 120, "height": 120, "zOrder": 1}
    r_blue = {"input": "b", "x": 130, "y": 80, "width": 120, "height": 120, "zOrder": 1}
    r_under = {"image": yellow_png, "x": 0, "y": 0, "width": 320, "height": 240, "zOrder": -1}
    ties = [r_green, r_blue] if tie_order == "green-first" else [r_blue, r_green]
    # The highest zOrder is listed first and the lowest last: drawing order must come from zOrder.
    doc = task([{"id": "r", "url": red}, {"id": "b", "url": blue}], [r_red, *ties, r_under])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[5]
    top_of_tie = BLUE if tie_order == "green-first" else GREEN

    assert_rgb(f, 50, 50, RED, 12, "red alone (over the zOrder -1 image)")
    assert_rgb(f, 120, 100, RED, 12, "red (z 5) over green (z 1)")
    assert_rgb(f, 145, 100, RED, 12, "red (z 5) over green and blue (z 1)")
    assert_rgb(f, 200, 70, GREEN, 12, "green alone")
    assert_rgb(f, 200, 130, top_of_tie, 12, f"green/blue tie at z 1, {tie_order}: the later one is on top")
    assert_rgb(f, 240, 190, BLUE, 12, "blue alone")
    assert_rgb(f, 300, 10, YELLOW, 12, "zOrder -1 image over the canvas")
    assert_rgb(f, 20, 220, YELLOW, 12, "zOrder -1 image over the canvas")


def test_default_z_order_is_array_order(ws, media):
    red_png = media.still_png(RED)
    green_png = media.still_png(GREEN)
    src = media.solid(BLUE, size=(64, 64))
    doc = task([{"id": "b", "url": src}], [
        {"image": red_png, "x": 0, "y": 0, "width": 200, "height": 200},
        {"image": green_png, "x": 100, "y": 40, "width": 200, "height": 200},
        {"input": "b", "x": 150, "y": 100, "width": 60, "height": 60},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_rgb(f, 50, 50, RED, 12, "first region")
    assert_rgb(f, 120, 120, GREEN, 12, "second region over the first")
    assert_rgb(f, 180, 130, BLUE, 12, "third region over both")
    assert np.isfinite(f.rgb()).all()
