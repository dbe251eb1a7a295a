"""Failures around a live task: the RTMP server dies and comes back; a task's worker process is
killed while another task runs beside it."""
from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from helpers import BLUE, RED
from livetools import (FPS, LEFT_PT, RIGHT_PT, TOL, H, W, StreamReader, colour_mismatch, pid_alive, read_packets,
                       side_by_side, timestamp_problems, wait_stream, wait_until)

pytestmark = pytest.mark.live

ORIGINAL = [(LEFT_PT, RED), (RIGHT_PT, BLUE)]


def test_rtmp_server_restart_reconnects_the_output(api, rtmp_server, clips, tmp_path):
    url = rtmp_server.url("cdn")
    api.create(side_by_side("reconnect", clips.red, clips.blue, [url]))
    api.wait_outputs("reconnect", "live", 15)
    wait_stream(url, 15)

    rtmp_server.stop()          # SIGKILL: the CDN vanishes
    down_at = time.monotonic()
    task_states, out_states = set(), []
    while time.monotonic() - down_at < 3.0:
        st = api.status("reconnect")
        task_states.add(st["state"])
        o = st["outputs"][0]["state"]
        if not out_states or out_states[-1] != o:
            out_states.append(o)
        time.sleep(0.1)
    assert "reconnecting" in out_states, f"output states while the RTMP server was down: {out_states}"
    assert task_states == {"running"}, f"task states while the RTMP server was down: {task_states}"

    rtmp_server.start()         # same port
    up_at = time.monotonic()
    last = {}

    def live_again():
        nonlocal last
        last = api.status("reconnect")
        task_states.add(last["state"])
        return last["outputs"][0]["state"] == "live"

    assert wait_until(live_again, 15), f"output not live 15 s after the RTMP server came back: {last.get('outputs')}"
    print(f"output live again {time.monotonic() - up_at:.1f} s after the server came back")
    assert task_states == {"running"}, f"task states across the outage: {task_states}"
    assert last["outputs"][0]["reconnects"] >= 1, last["outputs"]

    wait_stream(url, 10)
    reader = StreamReader(url, tmp_path / "again.flv", W, H, duration=2)
    assert wait_until(lambda: not reader.running(), 20), "reading the stream again did not finish"
    reader.stop()
    frames = reader.snapshot()
    assert len(frames) >= 40, f"{len(frames)} frames in 2 s after the reconnect: {reader.stderr()}"
    bad = [m for _, f in frames if (m := colour_mismatch(f, ORIGINAL))]
    assert not bad, f"{len(bad)} frames with wrong colours after the reconnect, e.g. {bad[:3]}"
    assert api.status("reconnect")["state"] == "running"


def _restart_evidence(st: dict) -> list[str]:
    ev = []
    if st.get("reason"):
        ev.append(f"reason={st['reason']!r}")
    for k, v in st.items():
        if "restart" in k.lower() and isinstance(v, (int, float)) and v > 0:
            ev.append(f"{k}={v}")
    return ev


def test_killed_worker_fails_or_restarts_only_its_task(api, tessera_server, rtmp_server, clips, tmp_path):
    url_a, url_b = rtmp_server.url("victim"), rtmp_server.url("bystander")
    base = tessera_server.workers()
    st_a = api.create(side_by_side("victim", clips.red, clips.blue, [url_a]))
    new_a = set() if st_a.get("workerPid") else (wait_until(lambda: tessera_server.workers() - base, 10) or set())
    st_b = api.create(side_by_side("bystander", clips.red, clips.blue, [url_b]))
    new_b = set() if st_b.get("workerPid") else (
        wait_until(lambda: tessera_server.workers() - base - new_a, 10) or set())
    # The status may name the worker (workerPid); else each task's worker is the child process of the
    # server that appeared when the task was created.
    pid_a = st_a.get("workerPid") or api.status("victim").get("workerPid")
    pid_b = st_b.get("workerPid") or api.status("bystander").get("workerPid")
    if pid_a is None:
        assert len(new_a) == 1, (f"task victim: expected one new worker process under the server "
                                 f"(PID {tessera_server.pid}), found {sorted(new_a)}")
        pid_a = next(iter(new_a))
    if pid_b is None:
        assert len(new_b) == 1, f"task bystander: expected one new worker process, found {sorted(new_b)}"
        pid_b = next(iter(new_b))
    assert pid_alive(pid_a) and pid_alive(pid_b), (pid_a, pid_b)
    assert pid_a != pid_b

    api.wait_outputs("victim", "live", 15)
    api.wait_outputs("bystander", "live", 15)
    wait_stream(url_b, 15)
    reader = StreamReader(url_b, tmp_path / "bystander.flv", W, H)
    try:
        assert reader.wait_frames(20, 15), f"no frames from the bystander: {reader.stderr()}"
        frames_b0 = api.status("bystander")["frames"]
        os.kill(pid_a, signal.SIGKILL)
        killed = time.monotonic()
        seen = []

        def handled():
            # The processes first: a new worker exists only after the server has counted the
            # restart, so a status read after them cannot be older than the restart they show.
            workers_now = tessera_server.workers() - {pid_b} - base
            st = api.status("victim")
            if not seen or seen[-1] != st["state"]:
                seen.append(st["state"])
            if st["state"] == "failed":
                return st
            pid_now = st.get("workerPid")
            restarted = (pid_now and pid_now != pid_a) or (workers_now - {pid_a})
            if st["state"] == "running" and restarted and st.get("outputs", [{}])[0].get("state") == "live":
                return st
            return None

        st = wait_until(handled, 15, 0.2)
        assert st, f"task victim neither failed nor came back within 15 s of its worker's death; states {seen}, " \
                   f"last {api.status('victim')}"
        # Checked at the end, so that the bystander is checked whatever happened here.
        reporting = None
        if st["state"] == "failed":
            if not st.get("reason"):
                reporting = f"failed task without a reason: {st}"
        else:
            if not _restart_evidence(st):
                reporting = f"task victim was restarted silently (no reason / restart count in its status): {st}"
            wait_stream(url_a, 15)
        print(f"victim after {time.monotonic() - killed:.1f} s: {st['state']} {_restart_evidence(st)}")
        time.sleep(1.0)
        assert reader.running(), f"the bystander's stream ended: {reader.stderr()}"
    finally:
        reader.stop()

    assert pid_alive(pid_b), "the bystander's worker died too"
    st_b = api.status("bystander")
    assert st_b["state"] == "running", st_b
    assert st_b["frames"] > frames_b0 and st_b["outputs"][0]["reconnects"] == 0, st_b
    assert st_b["outputs"][0]["state"] == "live", st_b["outputs"]
    frames = reader.snapshot()
    assert np.diff([t for t, _ in frames]).max() < 0.5, "the bystander's stream stalled"
    bad = [m for _, f in frames if (m := colour_mismatch(f, ORIGINAL, TOL))]
    assert not bad, bad[:3]
    pk = read_packets(reader.dump)
    vp = timestamp_problems(pk, "video", 2.0 / FPS + 0.002)
    assert not vp, f"bystander timestamps: {vp[:5]}"
    assert reporting is None, reporting
