"""Render modes crop / fit / stretch, told apart by sources whose thirds differ, drawn into regions
of another aspect ratio (checked on the .y4m composite, before encoding)."""
from helpers import BLUE, GREEN, GREY, MAGENTA, RED, YELLOW, assert_rgb, hex_colour, read_y4m, task

TOL = 20  # R'G'B' levels; samples are taken well inside uniform areas


def test_wide_source_into_square_regions(ws, media):
    # 300x100: red | green | blue, each 100x100. Crop of the centre shows only green; stretch shows
    # all three squeezed; fit shows all three in a 100x~33 strip with yellow bars above and below.
    src = media.stripes([RED, GREEN, BLUE], size=(300, 100))
    doc = task([{"id": "s", "url": src}], [
        {"input": "s", "x": 0, "y": 0, "width": 100, "height": 100, "renderMode": "stretch"},
        {"input": "s", "x": 110, "y": 0, "width": 100, "height": 100, "renderMode": "crop"},
        {"input": "s", "x": 220, "y": 0, "width": 100, "height": 100, "renderMode": "fit",
         "backgroundColor": hex_colour(YELLOW)},
        {"input": "s", "x": 0, "y": 120, "width": 100, "height": 100},  # default mode: crop
    ], background=hex_colour(GREY))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[5]

    for y in (10, 50, 90):
        assert_rgb(f, 16, y, RED, TOL, "stretch left third")
        assert_rgb(f, 50, y, GREEN, TOL, "stretch middle third")
        assert_rgb(f, 84, y, BLUE, TOL, "stretch right third")
    for x in (114, 160, 206):
        for y in (6, 50, 94):
            assert_rgb(f, x, y, GREEN, TOL, "crop (centre third only)")
    assert_rgb(f, 236, 50, RED, TOL, "fit left third")
    assert_rgb(f, 270, 50, GREEN, TOL, "fit middle third")
    assert_rgb(f, 304, 50, BLUE, TOL, "fit right third")
    for x in (236, 270, 304):
        assert_rgb(f, x, 10, YELLOW, TOL, "fit letterbox bar (region backgroundColor) above")
        assert_rgb(f, x, 90, YELLOW, TOL, "fit letterbox bar (region backgroundColor) below")
    for x in (6, 50, 94):
        assert_rgb(f, x, 170, GREEN, TOL, "default render mode is crop")
    assert_rgb(f, 105, 50, GREY, TOL, "canvas between regions")
    assert_rgb(f, 160, 200, GREY, TOL, "canvas below regions")


def test_tall_source_into_wide_regions(ws, media):
    # 100x300: red / green / blue stacked. Into 160x80 regions: crop shows green only, stretch
    # shows three horizontal bands, fit a narrow pillar with bars left and right.
    src = media.stripes([RED, GREEN, BLUE], size=(100, 300), vertical_bands=False)
    doc = task([{"id": "s", "url": src}], [
        {"input": "s", "x": 0, "y": 0, "width": 160, "height": 80, "renderMode": "stretch"},
        {"input": "s", "x": 160, "y": 0, "width": 160, "height": 80, "renderMode": "crop"},
        {"input": "s", "x": 0, "y": 120, "width": 160, "height": 80, "renderMode": "fit",
         "backgroundColor": hex_colour(MAGENTA)},
        {"input": "s", "x": 160, "y": 120, "width": 160, "height": 80, "renderMode": "fit"},
    ], background=hex_colour(GREY))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[5]

    for x in (10, 80, 150):
        assert_rgb(f, x, 10, RED, TOL, "stretch top band")
        assert_rgb(f, x, 40, GREEN, TOL, "stretch middle band")
        assert_rgb(f, x, 70, BLUE, TOL, "stretch bottom band")
        assert_rgb(f, 160 + x, 6, GREEN, TOL, "crop top row")
        assert_rgb(f, 160 + x, 74, GREEN, TOL, "crop bottom row")
    assert_rgb(f, 80, 126, RED, TOL, "fit pillar top")
    assert_rgb(f, 80, 160, GREEN, TOL, "fit pillar middle")
    assert_rgb(f, 80, 194, BLUE, TOL, "fit pillar bottom")
    assert_rgb(f, 20, 160, MAGENTA, TOL, "fit pillarbox bar (left)")
    assert_rgb(f, 140, 160, MAGENTA, TOL, "fit pillarbox bar (right)")
    assert_rgb(f, 240, 160, GREEN, TOL, "fit without backgroundColor: pillar")
    assert_rgb(f, 180, 160, GREY, TOL, "fit without backgroundColor: bars show the canvas")
    assert_rgb(f, 300, 160, GREY, TOL, "fit without backgroundColor: bars show the canvas")


def test_same_aspect_modes_agree(ws, media):
    # A 4:3 source in a 4:3 region: all three modes show the whole picture the same way.
    src = media.stripes([RED, GREEN, BLUE, YELLOW], size=(160, 120))
    regions = [{"input": "s", "x": 0 + i * 106, "y": 60, "width": 100, "height": 76, "renderMode": m}
               for i, m in enumerate(("crop", "fit", "stretch"))]
    doc = task([{"id": "s", "url": src}], regions, background=hex_colour(GREY))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[3]
    for i in range(3):
        x0 = i * 106
        for band, colour in enumerate((RED, GREEN, BLUE, YELLOW)):
            assert_rgb(f, x0 + 12 + band * 25, 98, colour, TOL, f"region {i} band {band}")
