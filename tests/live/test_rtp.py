"""RTP ingest: participants sent by the `ffmpeg` command line as RTP (H.264 + Opus, VP8 + Opus),
mixed live and read back from a real RTMP server; a lossy network in between; a sender killed and
started again on the same ports; garbage on the media ports; allocated ports and PATCH."""
from __future__ import annotations

import json
import socket
import time

import numpy as np
import pytest

from helpers import BLUE, GREEN, RED, decode_audio, decode_video, hex_colour, tone_amplitude
from livetools import (FPS, H, LEFT_PT, RIGHT_PT, TOL, W, StreamReader, TesseraServer, colour_mismatch,
                       decode_png_rgb, read_packets, timestamp_problems, wait_until)
from ports import free_udp_range
from rtptools import RtpSender, UdpRelay, blast_garbage, free_udp_pair

pytestmark = pytest.mark.live

VIDEO_GAP = 2.0 / FPS + 0.002
BLACK = (0, 0, 0)


def layout(left: str | None, right: str | None, left_bg=GREEN) -> dict:
    """`left` on the left half (green behind it, shown while it has no picture), `right` on the right."""
    regions = []
    if left:
        regions.append({"input": left, "x": 0, "y": 0, "width": W // 2, "height": H, "backgroundColor": hex_colour(left_bg)})
    if right:
        regions.append({"input": right, "x": W // 2, "y": 0, "width": W // 2, "height": H})
    return {"backgroundColor": "#000000", "regions": regions}


def rtp_task(task_id: str, inputs: list, outputs=(), lay=None) -> dict:
    ids = [i["id"] for i in inputs]
    return {
        "taskId": task_id,
        "inputs": inputs,
        "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 800, "gopSeconds": 1,
                              "preset": "ultrafast"},
                    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
        "layout": lay or layout(ids[0], ids[1] if len(ids) > 1 else None),
        "outputs": [{"url": o} for o in (outputs or [f"{task_id}.flv"])],
    }


def snapshot(api, task_id, tmp_path):
    r = api.get(f"/v1/tasks/{task_id}/snapshot.png")
    assert r.status == 200, (r.status, r.body[:200])
    return decode_png_rgb(r.body, tmp_path / "snap.png")


def colour_at(img, pt):
    x, y = pt
    return img[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).mean(axis=0)


def close(rgb, expected, tol=TOL) -> bool:
    return float(np.max(np.abs(np.asarray(rgb) - np.asarray(expected, dtype=np.float64)))) <= tol


def wait_colour(api, task_id, tmp_path, pt, expected, timeout) -> float | None:
    """Seconds until the snapshot shows `expected` at `pt`, or None."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if close(colour_at(snapshot(api, task_id, tmp_path), pt), expected):
            return time.monotonic() - start
        time.sleep(0.1)
    return None


def input_status(api, task_id, input_id) -> dict:
    return next(i for i in api.status(task_id)["inputs"] if i["id"] == input_id)


def wait_input_state(api, task_id, input_id, state, timeout) -> float | None:
    start = time.monotonic()
    ok = wait_until(lambda: input_status(api, task_id, input_id)["state"] == state, timeout, 0.1)
    return time.monotonic() - start if ok else None


def test_h264_and_vp8_participants_are_mixed(api, rtmp_server, senders, tmp_path):
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, vcodec="h264", name="host").start()
    guest = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), BLUE, 1000, vcodec="vp8", name="guest").start()
    senders += [host, guest]
    url = rtmp_server.url("rtpmix")
    api.create(rtp_task("rtp-mix", [{"id": "host", "rtp": {"sdp": host.sdp()}},
                                    {"id": "guest", "rtp": {"sdp": guest.sdp()}}], [url]))
    for who in ("host", "guest"):
        assert wait_input_state(api, "rtp-mix", who, "live", 10) is not None, api.status("rtp-mix")

    reader = StreamReader(url, tmp_path / "mix.flv", W, H, duration=5)
    assert wait_until(lambda: not reader.running(), 30), "5 s read did not finish"
    reader.stop()
    frames = reader.snapshot()
    assert len(frames) >= 130, f"{len(frames)} frames in 5 s (expected ~150): {reader.stderr()}"
    bad = [i for i, (_, f) in enumerate(frames[30:]) if colour_mismatch(f, [(LEFT_PT, RED), (RIGHT_PT, BLUE)])]
    assert not bad, f"{len(bad)} frames without red (H.264) left and blue (VP8) right, e.g. " \
                    f"{colour_mismatch(frames[30 + bad[0]][1], [(LEFT_PT, RED), (RIGHT_PT, BLUE)])}"
    packets = read_packets(reader.dump)
    vts = [p.dts for p in packets if p.kind == "video"]
    rate = (len(vts) - 1) / (vts[-1] - vts[0])
    assert abs(rate - FPS) <= 1.0, f"{rate:.2f} fps"
    pcm = decode_audio(reader.dump, 48000, 2)[9600:]
    a440, a1000 = tone_amplitude(pcm, 48000, 440), tone_amplitude(pcm, 48000, 1000)
    assert a440 > 0.03 and a1000 > 0.03, f"voices: 440 Hz {a440:.3f} (host), 1000 Hz {a1000:.3f} (guest); {api.status('rtp-mix')['inputs']}"

    st = api.status("rtp-mix")
    for i in st["inputs"]:
        assert i["state"] == "live" and i["frames"] > 100, i
        # Counted, and none lost. A loaded machine slows the `ffmpeg` sender itself (296 were sent
        # once in this window with one core busy), so the floor leaves it room.
        assert i["packets"]["received"] > 200 and i["packets"]["lost"] == 0, i


def test_lossy_network_keeps_30_fps_and_the_last_good_picture(api, rtmp_server, senders, tmp_path):
    # host → relay (3 % of its video and audio datagrams dropped, some swapped) → tessera
    relay_v, relay_a = free_udp_pair(), free_udp_pair()
    host = RtpSender(tmp_path, relay_v, relay_a, RED, 440, name="host", gop=30).start()
    guest = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), BLUE, 1000, vcodec="vp8", name="guest").start()
    senders += [host, guest]
    target_v, target_a = free_udp_pair(), free_udp_pair()
    sdp = host.sdp().replace(f"m=video {relay_v} ", f"m=video {target_v} ").replace(f"m=audio {relay_a} ", f"m=audio {target_a} ")
    relay = UdpRelay({relay_v: target_v, relay_v + 1: target_v + 1, relay_a: target_a, relay_a + 1: target_a + 1},
                     lossy={relay_v, relay_a}, loss=0.03, reorder_every=40)
    try:
        url = rtmp_server.url("lossy")
        api.create(rtp_task("lossy", [{"id": "host", "rtp": {"sdp": sdp}}, {"id": "guest", "rtp": {"sdp": guest.sdp()}}], [url]))
        assert wait_input_state(api, "lossy", "host", "live", 10) is not None, api.status("lossy")
        # Drawn first (the first keyframe may itself be hit by loss); the RTMP server then also
        # hands a new reader its cached GOP from before, hence the frames skipped below.
        assert wait_colour(api, "lossy", tmp_path, LEFT_PT, RED, 10) is not None, api.status("lossy")
        reader = StreamReader(url, tmp_path / "lossy.flv", W, H, duration=8)
        assert wait_until(lambda: not reader.running(), 40), "8 s read did not finish"
        reader.stop()
    finally:
        relay.stop()
    frames = reader.snapshot()
    assert len(frames) >= 220, f"{len(frames)} frames in 8 s (expected ~240)"
    packets = read_packets(reader.dump)
    vts = [p.dts for p in packets if p.kind == "video"]
    rate = (len(vts) - 1) / (vts[-1] - vts[0])
    assert abs(rate - FPS) <= 1.0, f"{rate:.2f} fps under loss"
    assert not timestamp_problems(packets, "video", VIDEO_GAP), timestamp_problems(packets, "video", VIDEO_GAP)[:5]
    # No garbage: the lossy participant shows its picture (or the last good one), never broken blocks.
    bad = [i for i, (_, f) in enumerate(frames[45:]) if colour_mismatch(f, [(LEFT_PT, RED), (RIGHT_PT, BLUE)])]
    assert not bad, f"{len(bad)} of {len(frames) - 45} frames with wrong colours under loss, e.g. {bad[:5]}"
    pcm = decode_audio(reader.dump, 48000, 2)[9600:]
    assert tone_amplitude(pcm, 48000, 440) > 0.02, "the lossy participant's voice is missing"
    st = api.status("lossy")
    host_in = next(i for i in st["inputs"] if i["id"] == "host")
    dropped = relay.dropped[relay_v] + relay.dropped[relay_a]
    assert dropped > 20, f"the relay dropped only {dropped} datagrams"
    assert host_in["packets"]["lost"] > 0, host_in
    assert st["state"] == "running", st
    print(f"\nloss: relay dropped {dropped} of {dropped + relay.forwarded[relay_v] + relay.forwarded[relay_a]} "
          f"host datagrams; output {len(frames)} frames in 8 s at {rate:.2f} fps; host packets {host_in['packets']}")


# serial: the fallback must show within 2 s of the kill (1 s silence timeout); a parallel test's load
# made it 2.06 s on a busy machine.
@pytest.mark.serial
def test_sender_restart_falls_back_then_returns(api, senders, tmp_path):
    vport, aport = free_udp_pair(), free_udp_pair()
    host = RtpSender(tmp_path, vport, aport, RED, 440, name="host").start()
    senders.append(host)
    # A 1 s silence timeout (default 2 s): the placeholder shows sooner.
    api.create(rtp_task("restart", [{"id": "host", "rtp": {"sdp": host.sdp()}, "silenceTimeoutMs": 1000}],
                        lay=layout("host", None)))
    assert wait_colour(api, "restart", tmp_path, LEFT_PT, RED, 10) is not None, "host never drawn"

    host.kill()
    fallback = wait_colour(api, "restart", tmp_path, LEFT_PT, GREEN, 6)
    assert fallback is not None, "the region did not fall back to its background after the sender died"
    assert fallback <= 2.0, f"fell back {fallback:.2f} s after the kill with a 1 s silence timeout"
    # The status comes from the worker every 0.5 s: it may trail the picture a little.
    assert wait_input_state(api, "restart", "host", "waiting", 2) is not None, input_status(api, "restart", "host")

    again = RtpSender(tmp_path, vport, aport, RED, 440, name="host-again").start()   # new SSRC, new sequence
    senders.append(again)
    back = wait_colour(api, "restart", tmp_path, LEFT_PT, RED, 8)
    assert back is not None, f"not drawn again after the sender came back: {input_status(api, 'restart', 'host')}"
    assert back <= 3.0, f"drawn again {back:.2f} s after the sender came back (at most 3 s)"
    # The status trails the picture by up to one worker report (0.5 s).
    restarted = wait_until(lambda: (st := input_status(api, "restart", "host"))["state"] == "live"
                           and st["packets"]["senderRestarts"] >= 1, 2, 0.1)
    assert restarted, input_status(api, "restart", "host")
    print(f"\nrestart: fallback {fallback:.2f} s after the kill, drawn again {back:.2f} s after the new sender started")


def test_garbage_datagrams_leave_task_running(api, tessera_server, senders, tmp_path):
    vport, aport = free_udp_pair(), free_udp_pair()
    host = RtpSender(tmp_path, vport, aport, RED, 440, name="host").start()
    senders.append(host)
    api.create(rtp_task("garbage", [{"id": "host", "rtp": {"sdp": host.sdp()}}], lay=layout("host", None)))
    assert wait_colour(api, "garbage", tmp_path, LEFT_PT, RED, 10) is not None
    before = api.status("garbage")["frames"]
    sent = blast_garbage([vport, vport + 1, aport, aport + 1], 3.0)
    assert tessera_server.proc.poll() is None, "tessera serve died"
    assert api.get("/healthz").status == 200
    st = api.status("garbage")
    assert st["state"] == "running" and st["frames"] > before + 60, st
    host_in = st["inputs"][0]
    assert host_in["packets"]["malformed"] > 100, host_in
    assert wait_colour(api, "garbage", tmp_path, LEFT_PT, RED, 3) is not None, "picture lost after the garbage"
    assert input_status(api, "garbage", "host")["state"] == "live"
    print(f"\ngarbage: {sent} datagrams in 3 s; counted malformed {host_in['packets']['malformed']}")


@pytest.fixture
def rtp_range_server(tmp_path, media):
    """`tessera serve --rtp-ports FIRST-LAST` on a range of 8 free ports (four RTP/RTCP pairs)."""
    first = free_udp_range(8)
    srv = TesseraServer(tmp_path / "serve-rtp", media.root, ["--rtp-ports", f"{first}-{first + 7}"])
    srv.start()
    srv.rtp_range = range(first, first + 8)
    try:
        yield srv
    finally:
        try:
            assert srv.terminate(20) == 0
        finally:
            srv.kill()


def test_allocated_ports_and_patch_add_and_remove(rtp_range_server, senders, tmp_path):
    api = rtp_range_server.client
    st = api.create(rtp_task("alloc", [{"id": "host", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}}],
                             lay=layout("host", None)))
    rtp = st["inputs"][0]["rtp"]
    assert rtp["videoPort"] and rtp["audioPort"] and f"m=video {rtp['videoPort']} " in rtp["sdp"], rtp
    assert {rtp["videoPort"], rtp["audioPort"]} <= set(rtp_range_server.rtp_range), (rtp, rtp_range_server.rtp_range)
    host = RtpSender(tmp_path, rtp["videoPort"], rtp["audioPort"], RED, 440, name="host").start()
    senders.append(host)
    assert wait_colour(api, "alloc", tmp_path, LEFT_PT, RED, 10) is not None

    both = [{"id": "host", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}},
            {"id": "guest", "rtp": {"allocate": {"video": "VP8", "audio": "opus"}}}]
    r = api.patch("/v1/tasks/alloc", {"inputs": both, "layout": layout("host", "guest")})
    assert r.status == 200, r.json
    st = api.status("alloc")
    host_rtp, guest_rtp = st["inputs"][0]["rtp"], st["inputs"][1]["rtp"]
    assert host_rtp == rtp, "the kept participant's ports changed"
    assert {guest_rtp["videoPort"], guest_rtp["audioPort"]}.isdisjoint({rtp["videoPort"], rtp["audioPort"]})
    assert {guest_rtp["videoPort"], guest_rtp["audioPort"]} <= set(rtp_range_server.rtp_range)

    # The range holds four RTP/RTCP pairs, all held by host and guest now: a third participant is
    # refused, naming its field, and the task is left as it was.
    third = both + [{"id": "third", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}}]
    r = api.patch("/v1/tasks/alloc", {"inputs": third, "layout": layout("host", "guest")})
    assert r.status == 409 and r.json["error"]["path"] == "inputs[2].rtp.allocate", (r.status, r.json)
    assert wait_until(lambda: [i["id"] for i in api.status("alloc")["inputs"]] == ["host", "guest"], 3, 0.1), \
        f"a refused update changed the task: {api.status('alloc')['inputs']}"
    guest = RtpSender(tmp_path, guest_rtp["videoPort"], guest_rtp["audioPort"], BLUE, 1000, vcodec="vp8", name="guest").start()
    senders.append(guest)
    assert wait_colour(api, "alloc", tmp_path, RIGHT_PT, BLUE, 10) is not None, "added participant not drawn"
    assert close(colour_at(snapshot(api, "alloc", tmp_path), LEFT_PT), RED)

    # An update that leaves `inputs` out keeps every allocation.
    r = api.patch("/v1/tasks/alloc", {"layout": layout("host", "guest", left_bg=BLUE)})
    assert r.status == 200, r.json
    kept = api.status("alloc")["inputs"]
    assert [i.get("rtp") for i in kept] == [host_rtp, guest_rtp], f"a layout-only update lost the allocations: {kept}"

    r = api.patch("/v1/tasks/alloc", {"inputs": [both[1]], "layout": layout(None, "guest")})
    assert r.status == 200, r.json
    assert wait_colour(api, "alloc", tmp_path, LEFT_PT, BLACK, 3) is not None, "removed participant's region not cleared"
    assert close(colour_at(snapshot(api, "alloc", tmp_path), RIGHT_PT), BLUE)

    def released():
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.bind(("0.0.0.0", rtp["videoPort"]))
            return True
        except OSError:
            return False
    assert wait_until(released, 5, 0.1), f"port {rtp['videoPort']} still bound after the participant was removed"


def test_ports_an_sdp_names_are_not_allocated_again(rtp_range_server, tmp_path):
    """One request with an `sdp` input on the range's first pair and an `allocate` input: the
    allocation must skip the pair the SDP input is about to bind."""
    api = rtp_range_server.client
    first = rtp_range_server.rtp_range[0]
    sdp = f"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video {first} RTP/AVP 96\r\n" \
          f"a=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\n"
    st = api.create(rtp_task("sdp-and-alloc", [{"id": "sfu", "rtp": {"sdp": sdp}},
                                               {"id": "alloc", "rtp": {"allocate": {"video": "VP8", "audio": "opus"}}}]))
    got = st["inputs"][1]["rtp"]
    assert {got["videoPort"], got["audioPort"]}.isdisjoint({first, first + 1}), got
    time.sleep(1.5)
    errors = [(i["id"], i.get("lastError")) for i in api.status("sdp-and-alloc")["inputs"] if i.get("lastError")]
    assert not errors, f"an input could not bind its ports: {errors}"


def test_busy_port_is_refused_and_starts_nothing(api, tessera_server, tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        port = free_udp_pair()
        holder.bind(("0.0.0.0", port))
        sdp = f"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video {port} RTP/AVP 96\r\n" \
              f"a=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\n"
        workers = tessera_server.workers()
        start = time.monotonic()
        r = api.post("/v1/tasks", rtp_task("busy", [{"id": "host", "rtp": {"sdp": sdp}}], lay=layout("host", None)))
        assert time.monotonic() - start < 3, "a busy port must be refused at once"
        assert r.status == 409, (r.status, r.json)
        err = r.json["error"]
        assert err["path"] == "inputs[0].rtp.sdp" and str(port) in err["message"], err
        assert "busy" not in json.dumps(api.get("/v1/tasks").json), "a refused task is listed"
        assert tessera_server.workers() == workers, "a worker was started for a refused task"


@pytest.mark.parametrize("first,second", [("pcmu", "aac"), ("pcma", "opus")])
def test_voice_room_of_rtp_audio_codecs(api, tessera_server, senders, tmp_path, first, second):
    a = RtpSender(tmp_path, None, free_udp_pair(), RED, 440, acodec=first, name="a").start()
    b = RtpSender(tmp_path, None, free_udp_pair(), RED, 1000, acodec=second, name="b").start()
    senders += [a, b]
    task_id = f"voice-{first}-{second}"
    st = api.create({"taskId": task_id, "inputs": [{"id": "a", "rtp": {"sdp": a.sdp()}}, {"id": "b", "rtp": {"sdp": b.sdp()}}],
                     "encoder": {"audio": {"sampleRate": 48000, "channels": 2}}, "outputs": [{"url": f"{task_id}.flv"}]})
    for who in ("a", "b"):
        assert wait_input_state(api, task_id, who, "live", 10) is not None, api.status(task_id)
    time.sleep(4)
    st = api.status(task_id)
    assert api.delete(f"/v1/tasks/{task_id}").status == 200
    out = tessera_server.out / f"{task_id}.flv"
    pcm = decode_audio(out, 48000, 2)
    assert len(pcm) > 48000 * 3, f"{len(pcm) / 48000:.1f} s of audio"
    pcm = pcm[-48000 * 3:]
    a440, a1000 = tone_amplitude(pcm, 48000, 440), tone_amplitude(pcm, 48000, 1000)
    assert a440 > 0.03 and a1000 > 0.03, f"{first} 440 Hz {a440:.3f}, {second} 1000 Hz {a1000:.3f}: {st['inputs']}"


# White picture and a 1 kHz beep together for the first half of every second, black and silence
# for the second half: the onsets in the mix show how far picture and sound of one sender drift.
FLASH = r"nullsrc=s=320x240:r=30,geq=lum='if(lt(mod(T\,1)\,0.5)\,235\,16)':cb=128:cr=128,format=yuv420p"
BEEP = r"aevalsrc=exprs='if(lt(mod(t\,1)\,0.5)\,0.5*sin(2*PI*1000*t)\,0)':s=48000"


def onsets(levels, threshold) -> list[int]:
    return [i for i in range(1, len(levels)) if levels[i] > threshold >= levels[i - 1]]


def test_lip_sync_of_one_participant(api, tessera_server, senders, tmp_path):
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 0, name="flash", gop=30,
                     video_source=FLASH, audio_source=BEEP).start()
    senders.append(host)
    api.create(rtp_task("sync", [{"id": "host", "rtp": {"sdp": host.sdp()}}],
                        lay={"regions": [{"input": "host", "x": 0, "y": 0, "width": W, "height": H}]}))
    assert wait_input_state(api, "sync", "host", "live", 10) is not None
    time.sleep(10)   # past ffmpeg's second RTCP sender report (every 5 s)
    assert api.delete("/v1/tasks/sync").status == 200
    out = tessera_server.out / "sync.flv"
    packets = read_packets(out)
    first_video = min(p.pts for p in packets if p.kind == "video")
    first_audio = min(p.pts for p in packets if p.kind == "audio")
    luma = [f.yuv_at(W // 2, H // 2)[0] for f in decode_video(out)]
    video_on = [first_video + i / FPS for i in onsets(luma, 128)]
    pcm = decode_audio(out, 48000, 1)[:, 0]
    window = 240   # 5 ms
    env = np.sqrt(np.mean(pcm[: len(pcm) // window * window].reshape(-1, window) ** 2, axis=1))
    audio_on = [first_audio + i * window / 48000 for i in onsets(env, 0.1)]
    assert len(video_on) >= 6 and len(audio_on) >= 6, f"flashes {video_on}, beeps {audio_on}"
    offsets = [min(audio_on, key=lambda a: abs(a - v)) - v for v in video_on]
    # ffmpeg sends its first sender report with its first packet, before the task exists, and the
    # next 5 s later: until then audio and video are placed by arrival, which ffmpeg's start-up
    # burst can skew by ~250 ms. The flashes from 6 s on (output time) come after that report.
    late = [o for v, o in zip(video_on, offsets) if v - first_video >= 6.0]
    assert len(late) >= 2, f"flashes at {[round(v - first_video, 2) for v in video_on]} s: too few after 6 s"
    worst = max(abs(o) for o in late)
    assert worst <= 0.1, f"sound minus picture per flash (s): {[round(o, 3) for o in offsets]}"
    print(f"\nlip sync: sound - picture per flash {[round(o * 1000) for o in offsets]} ms")
