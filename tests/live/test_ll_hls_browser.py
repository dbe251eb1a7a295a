"""A real browser on Tessera's LL-HLS origin: Debian's Chromium, headless.

Chromium plays no LL-HLS by itself, so the test ships a page, served from another origin (as a
shop's web player is: CORS is exercised), with a small LL-HLS part feeder written in it: it loads
the playlist, appends the init section and every part from the last independent one to a Media Source Extensions
SourceBuffer, and follows with blocking reloads (`_HLS_msn` / `_HLS_part`). A `<video>` element
plays that; the page draws the playing picture into a canvas and reads the sender's frame number
from it (flashclock's strip). Chromium 156 also answers "maybe" to `canPlayType("application/
vnd.apple.mpegurl")`: its own HLS player (classic: whole segments, from the playlist's start, no
parts or blocking reloads, as its requests show) plays a second `<video src=…m3u8 crossorigin>`
beside it (it refuses a live playlist of two segments, Tessera's classic ones too, with
DEMUXER_ERROR_COULD_NOT_PARSE: the page is opened once there are three). The test asserts both elements play (currentTime advancing, the sender's frame numbers
advancing), and prints what the browser did, with the delay from the sender's frame to the MSE
element presenting it (requestVideoFrameCallback, wall clock)."""
from __future__ import annotations

import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browsertools import screenshot, start_chromium
from flashclock import CELLS, FlashSender, rtp_args, rtp_sdp
from livetools import wait_until
from ports import free_port, free_udp_pair

# serial: a headless Chromium decoding video beside the encoder loads both cores.
pytestmark = [pytest.mark.live, pytest.mark.serial]
KEY = "browser_viewer_key_0123"
W, H, FPS = 320, 180, 30

PAGE = """<!doctype html><html><body>
<video id="v" muted playsinline width="320" height="180"></video>
<video id="n" muted playsinline crossorigin="anonymous" width="320" height="180"></video>
<canvas id="c" width="320" height="180"></canvas>
<script>
window.report = {log: [], numbers: [], times: [], appended: 0, errors: [], lag: [], shown: [],
                 native: {numbers: [], times: [], events: [], errors: []}};
const R = window.report, log = m => R.log.push(m);
const attr = (line, name) => { const m = line.match(new RegExp(name + '=("([^"]*)"|[^,]*)')); return m ? (m[2] ?? m[1]) : null; };
function parse(text) {
  const pl = {parts: [], hint: null, map: null, msn: 0, segs: 0, end: false};
  for (const line of text.split('\\n')) {
    if (line.startsWith('#EXT-X-MEDIA-SEQUENCE:')) pl.msn = +line.split(':')[1];
    else if (line.startsWith('#EXT-X-SKIP:')) pl.segs += +attr(line, 'SKIPPED-SEGMENTS');
    else if (line.startsWith('#EXT-X-MAP:')) pl.map = attr(line, 'URI');
    else if (line.startsWith('#EXT-X-PART:')) pl.parts.push({uri: attr(line, 'URI'), msn: pl.msn + pl.segs,
                                                             ind: attr(line, 'INDEPENDENT') === 'YES'});
    else if (line.startsWith('#EXT-X-PRELOAD-HINT:')) pl.hint = attr(line, 'URI');
    else if (line.startsWith('#EXT-X-ENDLIST')) pl.end = true;
    else if (line && !line.startsWith('#')) pl.segs += 1;
  }
  let index = 0;
  for (let i = 0; i < pl.parts.length; i++) {
    index = i > 0 && pl.parts[i].msn === pl.parts[i - 1].msn ? index + 1 : 0;
    pl.parts[i].index = index;
  }
  pl.next = pl.parts.length && pl.parts[pl.parts.length - 1].msn === pl.msn + pl.segs
    ? [pl.msn + pl.segs, pl.parts[pl.parts.length - 1].index + 1] : [pl.msn + pl.segs, 0];
  return pl;
}
async function get(url, kind) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ': ' + r.status);
  return kind === 'text' ? r.text() : new Uint8Array(await r.arrayBuffer());
}
function append(sb, data) {
  return new Promise((ok, bad) => { sb.addEventListener('updateend', ok, {once: true});
                                     sb.addEventListener('error', bad, {once: true}); sb.appendBuffer(data); });
}
function readNumber(video) {
  const c = document.getElementById('c'), g = c.getContext('2d', {willReadFrequently: true});
  g.clearRect(0, 0, 320, 180);   // nothing of the other element's picture stays
  g.drawImage(video, 0, 0, 320, 180);
  const px = g.getImageData(0, 0, 320, 180).data, y = 180 - Math.floor(180 / 12) - 1, cell = 320 / CELLS;
  const bits = [];
  for (let i = 0; i < CELLS; i++) bits.push(px[(y * 320 + Math.floor(cell * i + cell / 2)) * 4 + 1] > 128);
  if (!bits[0] || !bits[CELLS - 1]) return null;
  let n = 0; for (let i = 1; i < CELLS - 1; i++) if (bits[i]) n += 1 << (i - 1);
  return n;
}
async function play(url, type) {
  const video = document.getElementById('v');
  R.mse = typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(type);
  if (!R.mse) { log('no MSE for ' + type); return; }
  const ms = new MediaSource();
  video.src = URL.createObjectURL(ms);
  await new Promise(r => ms.addEventListener('sourceopen', r, {once: true}));
  const sb = ms.addSourceBuffer(type);
  let pl = parse(await get(url, 'text'));
  await append(sb, await get(new URL(pl.map, url), 'bin'));
  let start = pl.parts.length - 1;
  while (start > 0 && !(pl.parts[start].ind && pl.parts.length - start >= 3)) start--;
  let have = [pl.parts[start].msn, pl.parts[start].index - 1];
  const after = (p) => p.msn > have[0] || (p.msn === have[0] && p.index > have[1]);
  let started = false;
  while (!pl.end && R.appended < 400) {
    for (const p of pl.parts.filter(after)) {
      await append(sb, await get(new URL(p.uri, url), 'bin'));
      have = [p.msn, p.index]; R.appended++;
    }
    if (!started && sb.buffered.length) {
      video.currentTime = sb.buffered.start(0); started = true;
      video.play().then(() => log('playing'), e => R.errors.push('play: ' + e));
      // Each frame as it is presented: its number and the wall clock (glass-to-glass).
      const onFrame = () => { if (R.shown.length < 900) R.shown.push([readNumber(video), Date.now()]);
                              video.requestVideoFrameCallback(onFrame); };
      video.requestVideoFrameCallback(onFrame);
    }
    pl = parse(await get(url + '?_HLS_msn=' + pl.next[0] + '&_HLS_part=' + pl.next[1], 'text'));
  }
}
function sample() {
  const v = document.getElementById('v'), n = document.getElementById('n');
  if (v.readyState >= 2) {
    R.numbers.push(readNumber(v)); R.times.push(v.currentTime);
    if (v.buffered.length) R.lag.push(v.buffered.end(v.buffered.length - 1) - v.currentTime);
  }
  if (n.readyState >= 2) {
    try { R.native.numbers.push(readNumber(n)); } catch (e) { R.native.errors.push(String(e)); }
    R.native.times.push(n.currentTime);
  }
}
// Chromium's own HLS player (<video src=…m3u8>), beside the MSE feeder.
function playNative(url) {
  const n = document.getElementById('n');
  for (const e of ['loadedmetadata', 'playing', 'waiting', 'stalled', 'error'])
    n.addEventListener(e, () => R.native.events.push(e + (n.error ? ' ' + n.error.code + ' ' + n.error.message : '')));
  n.src = url;
  n.play().catch(e => R.native.errors.push('play: ' + e));
}
setInterval(sample, 250);
window.start = (url, type) => { R.canPlayType = document.getElementById('n').canPlayType('application/vnd.apple.mpegurl');
                                if (R.canPlayType) playNative(url);
                                play(url, type).catch(e => R.errors.push(String(e))); };
</script></body></html>""".replace("const R = window.report", f"const CELLS = {CELLS};\nconst R = window.report")


class PageServer:
    """The test's page, served from its own origin (a different port than the HLS origin)."""

    def __init__(self):
        page = PAGE.encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_chromium_plays_the_ll_hls_stream_through_mse(api, tessera_server, tmp_path):
    video, audio = free_udp_pair(), free_udp_pair()
    sender = FlashSender(rtp_args(video, audio, FPS), 120, W, H, FPS, log=open(tmp_path / "sender.log", "wb"))
    page = PageServer()
    driver = None
    try:
        api.create({"taskId": "llbrowser", "inputs": [{"id": "cam", "rtp": {"sdp": rtp_sdp(video, audio)}}],
                    "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 500, "gopSeconds": 1,
                                          "preset": "ultrafast", "latency": "low"},
                                "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 64}},
                    "layout": {"regions": [{"input": "cam", "x": 0, "y": 0, "width": W, "height": H}]},
                    "outputs": [{"url": "b/room.m3u8", "hls": {"lowLatency": {"partSeconds": 0.333}, "viewerKey": KEY}}]})
        url = f"http://127.0.0.1:{tessera_server.port}/v1/tasks/llbrowser/hls/{KEY}/room.m3u8"
        assert wait_until(lambda: api.get(url.split(str(tessera_server.port))[1]).status == 200 and
                          (tessera_server.out / "b" / "room_00002.m4s").exists(), 30), "no LL-HLS playlist"
        driver = start_chromium(800, 600)
        driver.get(f"http://127.0.0.1:{page.port}/")
        # The codecs of Tessera's HLS: H.264 (avc1, profile in the init's SPS) and AAC-LC.
        driver.execute_script("window.start(arguments[0], arguments[1])", url, 'video/mp4; codecs="avc1.64001f,mp4a.40.2"')
        time.sleep(8)
        report = driver.execute_script("return window.report")
        screenshot(driver, "ll-hls-browser")
        wall = time.time() - time.monotonic()   # Date.now() is the wall clock; the sender's is monotonic
        delays = sorted(ms / 1000 - wall - sender.sent[n] for n, ms in report["shown"] if n in sender.sent)
        native = report["native"]
        print(f"chromium: native HLS canPlayType={report['canPlayType']!r}, events {native['events']}, "
              f"frames {[n for n in native['numbers'] if n is not None][-6:]}, errors {native['errors']}; "
              f"MSE LL-HLS feeder: {report['appended']} parts appended, frames {report['numbers'][-6:]}, "
              f"buffer ahead {report['lag'][-3:]}, sender to presented frame "
              f"{statistics.median(delays) if delays else float('nan'):.3f} s (median of {len(delays)}), errors {report['errors']}")
        assert report["mse"], f"Chromium's MSE refuses H.264 + AAC fMP4: {report}"
        assert not report["errors"], report["errors"]
        assert report["appended"] >= 12, f"only {report['appended']} parts appended in 8 s: {report}"
        for who, numbers, times in (("MSE feeder", report["numbers"], report["times"]),
                                    ("native <video src>", native["numbers"], native["times"])):
            if who.startswith("native") and not report["canPlayType"]:
                continue   # a Chromium without its own HLS player
            seen = [n for n in numbers if n is not None]
            assert len(seen) >= 10 and seen[-1] - seen[0] >= 3 * FPS, \
                f"{who}: the <video> did not play the sender's frames on: {numbers} {native['events']}"
            assert times[-1] - times[0] >= 4, f"{who}: currentTime did not advance: {times}"
        assert delays and delays[len(delays) // 2] <= 5, f"MSE feeder: sender to presented frame {delays[::10]}"
    finally:
        if driver is not None:
            driver.quit()
        page.stop()
        sender.stop()
        api.delete("/v1/tasks/llbrowser")
