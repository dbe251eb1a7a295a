"""Relative units, clipping of regions that reach outside the canvas, and even snapping.
Edges are checked on the luma plane of the .y4m composite, column by column."""
from helpers import BLUE, GREEN, GREY, RED, assert_rgb, hex_colour, read_y4m, rgb_to_yuv, task

Y_RED = rgb_to_yuv(RED)[0]        # ≈ 62.6
Y_BLACK = rgb_to_yuv((0, 0, 0))[0]  # 16
Y_GREEN = rgb_to_yuv(GREEN)[0]
EDGE_TOL = 4


def luma(f, x, y):
    return float(f.y[y, x])


def assert_luma(f, x, y, expected, what):
    got = luma(f, x, y)
    assert abs(got - expected) <= EDGE_TOL, f"{what}: luma at ({x},{y}) expected {expected:.0f}, got {got:.0f}"


def test_relative_units(ws, media):
    red = media.solid(RED, size=(64, 64), codec="ffv1", ext="mkv")
    green = media.solid(GREEN, size=(64, 64), codec="ffv1", ext="mkv")
    doc = task([{"id": "r", "url": red}, {"id": "g", "url": green}], [
        # (160, 60) 80x120
        {"input": "r", "units": "relative", "x": 0.5, "y": 0.25, "width": 0.25, "height": 0.5},
        # pixels, in the same layout: (20, 20) 40x40
        {"input": "g", "x": 20, "y": 20, "width": 40, "height": 40},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[3]
    assert_luma(f, 159, 100, Y_BLACK, "left of the relative region")
    assert_luma(f, 160, 100, Y_RED, "first column of the relative region (x = 0.5 · 320)")
    assert_luma(f, 239, 100, Y_RED, "last column (x + w = 0.75 · 320 = 240)")
    assert_luma(f, 240, 100, Y_BLACK, "right of the relative region")
    assert_luma(f, 200, 59, Y_BLACK, "above (y = 0.25 · 240 = 60)")
    assert_luma(f, 200, 60, Y_RED, "first row")
    assert_luma(f, 200, 179, Y_RED, "last row (y + h = 0.75 · 240 = 180)")
    assert_luma(f, 200, 180, Y_BLACK, "below")
    assert_luma(f, 19, 40, Y_BLACK, "left of the pixel region")
    assert_luma(f, 20, 40, Y_GREEN, "pixel region")
    assert_luma(f, 59, 40, Y_GREEN, "pixel region last column")
    assert_luma(f, 60, 40, Y_BLACK, "right of the pixel region")
    assert_rgb(f, 200, 120, RED, 12, "relative region colour")


def test_relative_full_canvas_and_thirds(ws, media):
    red = media.solid(RED, size=(64, 64), codec="ffv1", ext="mkv")
    doc = task([{"id": "r", "url": red}], [
        {"input": "r", "units": "relative", "x": 1 / 3, "y": 0, "width": 1 / 3, "height": 1},
    ], width=320, height=240)
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    # 320/3 = 106.67: the position and the size snap down to even pixels: x 106, width 106.
    assert_luma(f, 105, 120, Y_BLACK, "left of a one-third region")
    assert_luma(f, 106, 120, Y_RED, "one-third region starts at 106")
    assert_luma(f, 211, 120, Y_RED, "one-third region ends at 212")
    assert_luma(f, 212, 120, Y_BLACK, "right of the one-third region")
    assert_luma(f, 150, 0, Y_RED, "full height: first row")
    assert_luma(f, 150, 239, Y_RED, "full height: last row")


def test_negative_position_is_clipped_not_shifted(ws, media):
    lr = media.stripes([RED, BLUE], size=(120, 100))                       # left red, right blue
    tb = media.stripes([RED, BLUE], size=(100, 120), vertical_bands=False)  # top red, bottom blue
    doc = task([{"id": "lr", "url": lr}, {"id": "tb", "url": tb}], [
        # x -40..80: red on -40..20, blue on 20..80
        {"input": "lr", "x": -40, "y": -20, "width": 120, "height": 100, "renderMode": "stretch"},
        # y -30..90: red on -30..30, blue on 30..90
        {"input": "tb", "x": 200, "y": -30, "width": 100, "height": 120, "renderMode": "stretch"},
    ], background=hex_colour(GREY))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_rgb(f, 8, 40, RED, 15, "the visible part of the left (red) half")
    assert_rgb(f, 40, 40, BLUE, 15, "blue starts at canvas x 20, not at 60")
    assert_rgb(f, 70, 40, BLUE, 15, "blue")
    assert_rgb(f, 100, 40, GREY, 15, "right of the clipped region")
    assert_rgb(f, 40, 90, GREY, 15, "below the clipped region (y + h = 80)")
    assert_rgb(f, 250, 14, RED, 15, "top (red) half, clipped above")
    assert_rgb(f, 250, 50, BLUE, 15, "blue starts at canvas y 30")
    assert_rgb(f, 250, 100, GREY, 15, "below (y + h = 90)")


def test_region_past_the_canvas_is_clipped(ws, media):
    lr = media.stripes([RED, BLUE], size=(120, 100))
    doc = task([{"id": "lr", "url": lr}], [
        {"input": "lr", "x": 260, "y": 180, "width": 120, "height": 100, "renderMode": "stretch"},
        {"input": "lr", "x": 400, "y": 300, "width": 60, "height": 60},       # wholly outside
        {"input": "lr", "x": -200, "y": -200, "width": 60, "height": 60},     # wholly outside
        {"input": "lr", "x": -50, "y": -50, "width": 420, "height": 340, "zOrder": -1,
         "renderMode": "stretch"},                                              # larger than the canvas
    ], background=hex_colour(GREY))
    ws.mix(doc)
    y4m = read_y4m(ws.out / "out.y4m")
    assert (y4m.width, y4m.height) == (320, 240)
    f = y4m.frames[2]
    assert_rgb(f, 270, 200, RED, 15, "region reaching past the right edge: its red half")
    assert_rgb(f, 316, 236, RED, 15, "bottom-right corner of the canvas")
    # The big region (-50..370 stretched from red|blue): red on -50..160, blue on 160..370.
    assert_rgb(f, 100, 100, RED, 15, "oversized region, left half")
    assert_rgb(f, 220, 100, BLUE, 15, "oversized region, right half")


def test_positions_and_sizes_snap_down_to_even(ws, media):
    red = media.solid(RED, size=(64, 64), codec="ffv1", ext="mkv")
    # x 31 → 30, y 21 → 20, width 51 → 50, height 41 → 40: covers [30, 80) × [20, 60).
    doc = task([{"id": "r", "url": red}], [
        {"input": "r", "x": 31, "y": 21, "width": 51, "height": 41},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[1]
    assert_luma(f, 29, 40, Y_BLACK, "left of x 30")
    assert_luma(f, 30, 40, Y_RED, "x 31 snaps down to 30")
    assert_luma(f, 79, 40, Y_RED, "last column 79 (width 51 → 50)")
    assert_luma(f, 80, 40, Y_BLACK, "column 80 outside")
    assert_luma(f, 50, 19, Y_BLACK, "above y 20")
    assert_luma(f, 50, 20, Y_RED, "y 21 snaps down to 20")
    assert_luma(f, 50, 59, Y_RED, "last row 59 (height 41 → 40)")
    assert_luma(f, 50, 60, Y_BLACK, "row 60 outside")
    # Chroma rectangle is exactly half the luma one: chroma columns 15..39, rows 10..29.
    cr_red = rgb_to_yuv(RED)[2]
    assert abs(int(f.v[20, 15]) - cr_red) <= EDGE_TOL and abs(int(f.v[20, 39]) - cr_red) <= EDGE_TOL
    assert abs(int(f.v[20, 14]) - 128) <= EDGE_TOL and abs(int(f.v[20, 40]) - 128) <= EDGE_TOL
