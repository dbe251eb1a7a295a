"""Image regions (PNG with its own alpha, JPEG), the background image, region backgroundColor under
an image, and one input shown in several regions."""
from helpers import (BLUE, CYAN, GREEN, GREY, RED, YELLOW, assert_rgb, assert_yuv_block, hex_colour, read_y4m,
                     rgb_to_yuv, task)

LEVELS = 3


def logo(media):
    """80x80 RGBA: left half fully transparent, right-top opaque red, right-bottom red at alpha 128."""
    return media.png("color=c=black:s=80x80:d=1,format=rgba,"
                     "geq=r=255:g=0:b=0:a='if(lt(X\\,40)\\,0\\,if(lt(Y\\,40)\\,255\\,128))'", stem="logo")


def test_png_alpha_over_colour_with_region_alpha(ws, media):
    src = media.solid(GREY, size=(64, 64))
    doc = task([{"id": "v", "url": src}], [
        {"input": "v", "x": 0, "y": 200, "width": 40, "height": 40},
        {"image": logo(media), "x": 100, "y": 80, "width": 80, "height": 80, "alpha": 0.8},
        {"image": logo(media), "x": 200, "y": 40, "width": 80, "height": 80},
    ], background=hex_colour(BLUE))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[3]

    def mix(a, src, dst):
        return a * rgb_to_yuv(src) + (1 - a) * rgb_to_yuv(dst)

    # region alpha 0.8 × image alpha
    assert_yuv_block(f, (104, 84, 136, 156), rgb_to_yuv(BLUE), LEVELS, "transparent half of the logo")
    assert_yuv_block(f, (144, 84, 176, 116), mix(0.8, RED, BLUE), LEVELS, "opaque part at region alpha 0.8")
    assert_yuv_block(f, (144, 124, 176, 156), mix(0.8 * 128 / 255, RED, BLUE), LEVELS,
                     "half-transparent part at region alpha 0.8")
    # region alpha 1: the image's own alpha alone
    assert_yuv_block(f, (204, 44, 236, 116), rgb_to_yuv(BLUE), LEVELS, "transparent half (alpha 1 region)")
    assert_yuv_block(f, (244, 44, 276, 76), rgb_to_yuv(RED), LEVELS, "opaque part (alpha 1 region)")
    assert_yuv_block(f, (244, 84, 276, 116), mix(128 / 255, RED, BLUE), LEVELS, "alpha 128 part (alpha 1 region)")


def test_scaled_png_keeps_alpha(ws, media):
    src = media.solid(GREY, size=(64, 64))
    doc = task([{"id": "v", "url": src}], [
        {"input": "v", "x": 0, "y": 200, "width": 40, "height": 40},
        {"image": logo(media), "x": 60, "y": 20, "width": 200, "height": 200},
    ], background=hex_colour(GREEN))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    assert_yuv_block(f, (70, 30, 150, 210), rgb_to_yuv(GREEN), LEVELS, "transparent half, scaled 2.5x")
    assert_yuv_block(f, (170, 30, 250, 110), rgb_to_yuv(RED), LEVELS, "opaque quarter, scaled 2.5x")
    assert_yuv_block(f, (170, 130, 250, 210), 128 / 255 * rgb_to_yuv(RED) + (1 - 128 / 255) * rgb_to_yuv(GREEN),
                     LEVELS, "alpha-128 quarter, scaled 2.5x")


def test_region_background_colour_under_transparent_image(ws, media):
    src = media.solid(GREY, size=(64, 64))
    doc = task([{"id": "v", "url": src}], [
        {"input": "v", "x": 0, "y": 200, "width": 40, "height": 40},
        {"image": logo(media), "x": 100, "y": 80, "width": 80, "height": 80, "backgroundColor": hex_colour(YELLOW)},
    ], background=hex_colour(BLUE))
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    assert_yuv_block(f, (104, 84, 136, 156), rgb_to_yuv(YELLOW), LEVELS,
                     "the region's backgroundColor shows through the transparent half")
    assert_yuv_block(f, (144, 84, 176, 116), rgb_to_yuv(RED), LEVELS, "opaque part")
    assert_yuv_block(f, (20, 20, 80, 60), rgb_to_yuv(BLUE), LEVELS, "canvas outside the region")


def test_jpeg_image_region(ws, media):
    src = media.solid(GREY, size=(64, 64))
    jpeg = media.jpeg("color=c=0x00FFFF:s=64x48:d=1", stem="cyan")
    doc = task([{"id": "v", "url": src}], [
        {"input": "v", "x": 0, "y": 200, "width": 40, "height": 40},
        {"image": jpeg, "x": 100, "y": 60, "width": 128, "height": 96},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[0]
    assert_rgb(f, 164, 108, CYAN, 12, "JPEG image region")
    assert_rgb(f, 60, 60, (0, 0, 0), 12, "canvas")


def test_background_image_scaled_to_canvas(ws, media):
    # 160x120 with four quadrants, scaled to the 320x240 canvas; backgroundColor is under it.
    bg = media.png("color=c=black:s=160x120:d=1,format=rgb24,"
                   "geq=r='if(lt(X\\,80)\\,255\\,if(lt(Y\\,60)\\,0\\,255))'"
                   ":g='if(lt(X\\,80)\\,if(lt(Y\\,60)\\,0\\,0)\\,255)'"
                   ":b='if(lt(X\\,80)\\,if(lt(Y\\,60)\\,0\\,255)\\,0)'", stem="quadrants", pix_fmt="rgb24")
    # quadrants: top-left red, bottom-left magenta? → r=255,b=255; top-right green; bottom-right yellow
    src = media.solid(GREY, size=(64, 64))
    doc = task([{"id": "v", "url": src}], [
        {"input": "v", "x": 140, "y": 100, "width": 40, "height": 40},
    ], background=hex_colour(CYAN))
    doc["layout"]["backgroundImage"] = bg
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[2]
    assert_rgb(f, 60, 50, RED, 12, "background image top-left quadrant")
    assert_rgb(f, 60, 190, (255, 0, 255), 12, "background image bottom-left quadrant")
    assert_rgb(f, 260, 50, GREEN, 12, "background image top-right quadrant")
    assert_rgb(f, 260, 190, YELLOW, 12, "background image bottom-right quadrant")
    assert_rgb(f, 150, 50, RED, 12, "scaled 2x: still red just left of the middle")
    assert_rgb(f, 170, 50, GREEN, 12, "scaled 2x: green just right of the middle")
    assert_rgb(f, 160, 120, GREY, 12, "the input region over the background image")


def test_one_input_in_two_regions(ws, media):
    src = media.stripes([RED, GREEN, BLUE], size=(300, 100))
    doc = task([{"id": "s", "url": src}], [
        {"input": "s", "x": 0, "y": 0, "width": 300, "height": 100, "renderMode": "stretch"},
        {"input": "s", "x": 100, "y": 140, "width": 150, "height": 60, "renderMode": "stretch", "alpha": 1},
    ])
    ws.mix(doc)
    f = read_y4m(ws.out / "out.y4m").frames[4]
    for x0, w, y in ((0, 300, 50), (100, 150, 170)):
        assert_rgb(f, x0 + w // 6, y, RED, 15, f"region at x {x0}: left third")
        assert_rgb(f, x0 + w // 2, y, GREEN, 15, f"region at x {x0}: middle third")
        assert_rgb(f, x0 + 5 * w // 6, y, BLUE, 15, f"region at x {x0}: right third")
