"""Text regions (FreeType), sourceCrop, cornerRadius and maskImage, checked on the .y4m composite
of `tessera mix`: text ink only inside its region and where its alignment puts it, a cropped
quadrant filling its region, rounded corners showing the background with an anti-aliased edge,
and a circle mask PNG cutting a video to a disc."""
import math

import numpy as np

from helpers import BLACK, BLUE, GREEN, RED, WHITE, YELLOW, assert_rgb, assert_yuv_block, hex_colour, read_y4m, rgb_to_yuv, task

LEVELS = 3
W, H = 320, 240


def black_canvas_task(media, regions):
    """A black lossless input under the whole canvas, then `regions` on top."""
    black = media.solid(BLACK, size=(W, H), codec="ffv1", ext="mkv")
    return task([{"id": "bg", "url": black}],
                [{"input": "bg", "x": 0, "y": 0, "width": W, "height": H}, *regions])


def ink_columns(frame, box, threshold=100):
    """Columns (canvas x) of `box` (x0, y0, x1, y1) holding luma above `threshold`."""
    x0, y0, x1, y1 = box
    ys = frame.y[y0:y1, x0:x1]
    return np.nonzero((ys > threshold).any(axis=0))[0] + x0


def test_text_is_drawn_inside_its_region_and_nowhere_else(ws, media):
    box = (40, 60, 280, 120)
    doc = black_canvas_task(media, [
        {"text": "Tessera 3:1", "fontSize": 36, "color": "#FFFFFF",
         "x": box[0], "y": box[1], "width": box[2] - box[0], "height": box[3] - box[1]},
    ])
    ws.mix(doc)
    for f in read_y4m(ws.out / "out.y4m").frames[:3]:
        inside = f.y[box[1]:box[3], box[0]:box[2]].astype(int)
        assert (inside > 200).sum() > 200, f"too little bright ink in the text box: {(inside > 200).sum()} pixels"
        # Anti-aliased: edge pixels between black and white.
        assert ((inside > 40) & (inside < 200)).sum() > 20, "no intermediate (anti-aliased) text pixels"
        outside = f.y.astype(int).copy()
        outside[box[1]:box[3], box[0]:box[2]] = 16
        assert np.abs(outside - 16).max() <= 1, f"luma changed outside the text box (max {outside.max()})"
        u, v = f.u.astype(int).copy(), f.v.astype(int).copy()
        for plane in (u, v):
            plane[box[1] // 2:box[3] // 2, box[0] // 2:box[2] // 2] = 128
            assert np.abs(plane - 128).max() <= 1, "chroma changed outside the text box"


def test_text_background_and_colour(ws, media):
    doc = black_canvas_task(media, [
        {"text": "||||||||||||", "fontSize": 48, "color": hex_colour(RED), "backgroundColor": hex_colour(BLUE),
         "x": 20, "y": 20, "width": 280, "height": 80},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    assert_rgb(f, 300 - 6, 100 - 6, BLUE, 12, "text region background, away from the ink")
    # Some ink pixels are red (the glyph stems are several pixels wide at 48 px).
    reds = [(x, y) for y in range(30, 90, 2) for x in range(24, 296, 2)
            if np.max(np.abs(f.rgb_at(x, y, 1) - np.array(RED))) < 30]
    assert reds, "no red text pixels on the blue text background"


def test_alignment_puts_the_ink_left_centre_or_right(ws, media):
    rows = {"left": (0, 80), "center": (80, 160), "right": (160, 240)}
    doc = black_canvas_task(media, [
        {"text": "AB", "fontSize": 40, "align": align, "x": 0, "y": y0, "width": W, "height": y1 - y0}
        for align, (y0, y1) in rows.items()
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    spans = {align: ink_columns(f, (0, y0, W, y1)) for align, (y0, y1) in rows.items()}
    for align, cols in spans.items():
        assert cols.size > 0, f"no ink for align {align}"
    assert spans["left"].min() < 10 and spans["left"].max() < W // 2, f"left ink at {spans['left'].min()}–{spans['left'].max()}"
    assert spans["right"].max() > W - 10 and spans["right"].min() > W // 2, f"right ink at {spans['right'].min()}–{spans['right'].max()}"
    middle = (spans["center"].min() + spans["center"].max()) / 2
    assert abs(middle - W / 2) < 12, f"centred ink's middle at {middle}"


def test_text_wraps_to_the_region_width(ws, media):
    doc = black_canvas_task(media, [
        {"text": "one two three four", "fontSize": 30, "x": 0, "y": 0, "width": 120, "height": 240},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    ink_rows = np.nonzero((f.y[:, :120] > 100).any(axis=1))[0]
    assert ink_rows.size and ink_rows.max() > 70, f"the text did not wrap onto further lines (ink rows up to {ink_rows.max()})"
    assert (f.y[:, 120:] <= 17).all(), "ink past the region's right edge"


def quadrants(media):
    """320x240: red top-left, green top-right, blue bottom-left, yellow bottom-right (lossless)."""
    graph = ";".join(f"color=c={c}:s=160x120:r=10:d=1[{n}]" for n, c in
                     (("a", "0xFF0000"), ("b", "0x00FF00"), ("c", "0x0000FF"), ("d", "0xFFFF00")))
    graph += ";[a][b]hstack[top];[c][d]hstack[bottom];[top][bottom]vstack"
    return media.video(graph, ext="mkv", codec="ffv1", stem="quadrants")


def test_source_crop_shows_one_quadrant(ws, media):
    q = quadrants(media)
    doc = task([{"id": "q", "url": q}], [
        {"input": "q", "x": 0, "y": 0, "width": 160, "height": 120,
         "sourceCrop": {"x": 0.5, "y": 0, "width": 0.5, "height": 0.5}},
        {"input": "q", "x": 160, "y": 0, "width": 160, "height": 120, "renderMode": "stretch",
         "sourceCrop": {"x": 0, "y": 0.5, "width": 0.5, "height": 0.5}},
        {"input": "q", "x": 0, "y": 120, "width": 160, "height": 120, "renderMode": "fit", "backgroundColor": "#FFFFFF",
         "sourceCrop": {"x": 0.5, "y": 0.5, "width": 0.5, "height": 0.5}},
        # Crop the right half (160x240, portrait) and fit it into a landscape region: bars each side.
        {"input": "q", "x": 160, "y": 120, "width": 160, "height": 120, "renderMode": "fit",
         "sourceCrop": {"x": 0.5, "y": 0, "width": 0.5, "height": 1}},
    ], background=hex_colour(BLACK))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_yuv_block(f, (2, 2, 158, 118), rgb_to_yuv(GREEN), LEVELS, "top-right quadrant")
    assert_yuv_block(f, (162, 2, 318, 118), rgb_to_yuv(BLUE), LEVELS, "bottom-left quadrant")
    assert_yuv_block(f, (2, 122, 158, 238), rgb_to_yuv(YELLOW), LEVELS, "bottom-right quadrant (fit: same aspect)")
    # Right half (160x240) fitted: 80x120 in the middle of 160x120 (x 200–280), green above yellow;
    # black bars left and right.
    assert_yuv_block(f, (162, 122, 198, 238), rgb_to_yuv(BLACK), LEVELS, "fit bar (left)")
    assert_yuv_block(f, (282, 122, 318, 238), rgb_to_yuv(BLACK), LEVELS, "fit bar (right)")
    assert_yuv_block(f, (204, 124, 276, 176), rgb_to_yuv(GREEN), LEVELS, "cropped right half, top")
    assert_yuv_block(f, (204, 184, 276, 236), rgb_to_yuv(YELLOW), LEVELS, "cropped right half, bottom")


def corner_coverage(dx, dy, r):
    ux, uy = r - (dx + 0.5), r - (dy + 0.5)
    return min(1.0, max(0.0, r - math.hypot(ux, uy) + 0.5))


def test_rounded_corners_show_the_background(ws, media):
    green = media.solid(GREEN, size=(W, H), codec="ffv1", ext="mkv")
    x, y, w, h, r = 40, 40, 200, 160, 40
    doc = task([{"id": "g", "url": green}], [
        {"input": "g", "x": x, "y": y, "width": w, "height": h, "cornerRadius": r},
    ], background=hex_colour(BLUE))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_yuv_block(f, (x, y, x + 8, y + 8), rgb_to_yuv(BLUE), LEVELS, "top-left corner shows the background")
    assert_yuv_block(f, (x + w - 8, y + h - 8, x + w, y + h), rgb_to_yuv(BLUE), LEVELS, "bottom-right corner")
    assert_yuv_block(f, (x + 60, y + 40, x + w - 60, y + h - 40), rgb_to_yuv(GREEN), LEVELS, "centre shows the video")
    assert_yuv_block(f, (x + r, y, x + w - r, y + 4), rgb_to_yuv(GREEN), LEVELS, "straight top edge is not cut")
    # An edge pixel on the arc, half covered: luma between the two, as the coverage says.
    cands = [(abs(corner_coverage(dx, dy, r) - 0.5), dx, dy) for dy in range(r) for dx in range(r)]
    _, dx, dy = min(cands)
    cov = corner_coverage(dx, dy, r)
    want = cov * rgb_to_yuv(GREEN)[0] + (1 - cov) * rgb_to_yuv(BLUE)[0]
    got = float(f.y[y + dy, x + dx])
    assert abs(got - want) <= LEVELS, f"arc pixel ({x + dx},{y + dy}) coverage {cov:.2f}: luma {got}, expected {want:.1f}"
    assert rgb_to_yuv(BLUE)[0] + 10 < got < rgb_to_yuv(GREEN)[0] - 10, "the arc pixel is not partially blended"


def test_mask_image_cuts_a_circle(ws, media):
    green = media.solid(GREEN, size=(W, H), codec="ffv1", ext="mkv")
    circle = media.png("color=c=white:s=64x64:d=1,format=rgba,"
                       "geq=r=255:g=255:b=255:a='if(lt(hypot(X-31.5,Y-31.5),30),255,0)'", stem="circle")
    x, y, w, h = 60, 40, 200, 160
    doc = task([{"id": "g", "url": green}], [
        {"input": "g", "x": x, "y": y, "width": w, "height": h, "maskImage": circle, "backgroundColor": "#FF0000"},
    ], background=hex_colour(BLUE))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_yuv_block(f, (x + w // 2 - 20, y + h // 2 - 20, x + w // 2 + 20, y + h // 2 + 20), rgb_to_yuv(GREEN), LEVELS,
                     "centre of the disc shows the video")
    # The region's own background is masked too: the corners show the canvas, not red.
    for cx, cy in ((x, y), (x + w - 10, y), (x, y + h - 10), (x + w - 10, y + h - 10)):
        assert_yuv_block(f, (cx, cy, cx + 10, cy + 10), rgb_to_yuv(BLUE), LEVELS, f"region corner at {cx},{cy}")


def test_corners_and_mask_apply_to_text_and_image_regions(ws, media):
    red_png = media.still_png(RED)
    doc = black_canvas_task(media, [
        {"image": red_png, "x": 20, "y": 20, "width": 120, "height": 120, "cornerRadius": 30},
        {"text": "X", "fontSize": 40, "backgroundColor": hex_colour(WHITE), "cornerRadius": 20,
         "x": 180, "y": 20, "width": 120, "height": 120},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    assert_yuv_block(f, (20, 20, 24, 24), rgb_to_yuv(BLACK), LEVELS, "image region corner")
    assert_yuv_block(f, (60, 60, 100, 100), rgb_to_yuv(RED), LEVELS, "image region centre")
    assert_yuv_block(f, (180, 20, 184, 24), rgb_to_yuv(BLACK), LEVELS, "text region corner (its background is cut)")
    assert_yuv_block(f, (180 + 50, 120, 180 + 70, 136), rgb_to_yuv(WHITE), LEVELS, "text region background")


def test_preview_draws_the_new_region_kinds(ws, media):
    doc = black_canvas_task(media, [
        {"text": "Score", "x": 20, "y": 20, "width": 120, "height": 40},
        {"input": "bg", "x": 160, "y": 20, "width": 120, "height": 120, "cornerRadius": 30, "maskImage": "m.png",
         "sourceCrop": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}},
    ])
    out = ws.root / "preview.png"
    r = ws.run("preview", doc, "--output", out)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0
