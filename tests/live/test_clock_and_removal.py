"""What the output thread must never wait for, and sleeps that last until their deadline:
a removed output whose peer never reads costs the other outputs no late frame; a live input
placed seconds ahead is not drawn before its time; deleting a task whose network input is between
reconnect attempts (back-off up to 5 s) returns at once."""
from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from livetools import (FPS, H, LEFT_PT, RIGHT_PT, TOL, W, StreamReader, colour_mismatch, decode_png_rgb, free_port,
                       halves, side_by_side, wait_stream, wait_until)
from helpers import BLUE, RED

pytestmark = pytest.mark.live

BLACK = (0, 0, 0)


class SilentPeer:
    """A TCP server that accepts every connection and never reads or writes: an RTMP ingest that
    hangs. The publisher's handshake waits on it (up to its open timeout), again and again."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[tuple[float, socket.socket]] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted.append((time.monotonic(), conn))

    def last_accept(self) -> float | None:
        with self.lock:
            return self.accepted[-1][0] if self.accepted else None

    def close(self):
        self.closed = True
        self.sock.close()
        with self.lock:
            for _, conn in self.accepted:
                conn.close()


# serial: no late frame at all across the removal, which a parallel test's load can cost it.
@pytest.mark.serial
def test_removing_a_stuck_output_costs_the_other_no_late_frame(api, rtmp_server, clips, tmp_path):
    peer = SilentPeer()
    try:
        keep = rtmp_server.url("keep")
        stuck = f"rtmp://127.0.0.1:{peer.port}/live/stuck"
        api.create(side_by_side("stuck", clips.red, clips.blue, [keep, stuck]))
        wait_stream(keep, 15)
        reader = StreamReader(keep, tmp_path / "keep.flv", W, H)
        try:
            assert reader.wait_frames(30, 15), f"no frames from {keep}: {reader.stderr()}"
            # Remove it while its publisher is inside a handshake with the silent peer (it gives up
            # after 5 s): a fresh connection, so that it is certainly waiting on the network.
            seen = peer.last_accept() or 0
            assert wait_until(lambda: (peer.last_accept() or 0) > seen, 15), "the stuck output never connected"
            time.sleep(0.3)
            before = api.status("stuck")
            assert before["outputs"][1]["state"] in ("connecting", "reconnecting"), before["outputs"]
            removed_at = time.monotonic()
            r = api.patch("/v1/tasks/stuck", {"outputs": [{"url": keep}]})
            assert r.status == 200, f"PATCH: {r.status} {r.body[:500]!r}"
            # Longer than the removed publisher's finish (2 s) and cancel (2 s) together.
            time.sleep(5)
            after = api.status("stuck")
            assert reader.running(), f"the kept stream ended: {reader.stderr()}"
        finally:
            reader.stop()
        assert len(after["outputs"]) == 1 and after["outputs"][0]["state"] == "live", after["outputs"]
        late = after["lateFrames"] - before["lateFrames"]
        assert late == 0, f"{late} late frames across the removal of a stuck output"
        frames = [(t, f) for t, f in reader.snapshot() if t >= removed_at - 1]
        assert len(frames) >= 4 * FPS, f"{len(frames)} frames of the kept output around the removal"
        gaps = np.diff([t for t, _ in frames])
        assert gaps.max() < 0.5, f"the kept stream stalled {gaps.max():.2f} s around the removal"
        # The removed publisher let go of its connection.
        with peer.lock:
            sockets = [conn for _, conn in peer.accepted]
        assert wait_until(lambda: all(_peer_closed(c) for c in sockets), 5), (
            f"the removed output still holds a connection: {[(round(t - removed_at, 2), _peer_closed(c)) for t, c in peer.accepted]}")
    finally:
        peer.close()


def _peer_closed(conn: socket.socket) -> bool:
    """Whether the publisher closed this connection (what it sent and nobody read comes first)."""
    conn.setblocking(False)
    try:
        while conn.recv(65536):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def _right_half(rgb) -> np.ndarray:
    x, y = RIGHT_PT
    return rgb[y - 2:y + 2, x - 2:x + 2].reshape(-1, 3).astype(np.float64).mean(axis=0)


def test_a_live_input_placed_seconds_ahead_is_not_drawn_before_its_time(api, rtmp_server, clips, tmp_path):
    start_at = 4.0
    doc = side_by_side("later", clips.red, clips.blue, [rtmp_server.url("later")])
    doc["inputs"][1]["startAtMs"] = int(start_at * 1000)
    posted = time.monotonic()
    api.create(doc)
    # The task's clock starts after this POST was sent, so a picture taken `t` s after it shows
    # output time `t` at most: until `start_at` the right half is the black background.
    checked = []
    while time.monotonic() - posted < start_at - 0.3:
        r = api.get("/v1/tasks/later/snapshot.png")
        if r.status == 200:
            taken = time.monotonic() - posted
            rgb = decode_png_rgb(r.body, tmp_path / f"early{len(checked)}.png")
            got = _right_half(rgb)
            assert np.max(np.abs(got - BLACK)) <= TOL, (
                f"{taken:.2f} s after POST the input placed at {start_at} s shows already: right half {np.round(got)}")
            checked.append(taken)
        time.sleep(0.25)
    assert len(checked) >= 3 and max(checked) >= 2.0, f"snapshots before the start: {checked}"

    def shows_blue():
        r = api.get("/v1/tasks/later/snapshot.png")
        return r.status == 200 and np.max(np.abs(_right_half(decode_png_rgb(r.body, tmp_path / "late.png")) - BLUE)) <= TOL

    assert wait_until(shows_blue, 10, 0.25), "the input placed at 4 s never showed"
    shown = time.monotonic() - posted
    assert shown >= start_at, f"shown {shown:.2f} s after POST"


def test_deleting_a_task_whose_input_is_in_back_off_returns_at_once(api, rtmp_server, clips):
    # Nothing listens on this port: each open is refused at once, and the back-off doubles to 5 s.
    absent = f"rtmp://127.0.0.1:{free_port()}/live/absent"
    doc = side_by_side("backoff", clips.red, clips.blue, [rtmp_server.url("backoff")])
    doc["inputs"][1] = {"id": "blue", "url": absent}
    api.create(doc)
    api.wait_state("backoff", "running", 15)
    # 0.5 + 1 + 2 + 4 s of back-off have passed by about 8 s: then it sleeps 4 to 5 s at a time.
    time.sleep(8.5)
    st = api.status("backoff")
    blue = next(i for i in st["inputs"] if i["id"] == "blue")
    assert blue["state"] == "waiting", blue
    started = time.monotonic()
    r = api.delete("/v1/tasks/backoff")
    took = time.monotonic() - started
    assert r.status in (200, 204), f"DELETE: {r.status} {r.body[:300]!r}"
    assert took < 1.5, f"DELETE took {took:.2f} s while the input was between reconnect attempts"
