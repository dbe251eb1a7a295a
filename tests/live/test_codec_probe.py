"""The server never opens callers' media (issue 22): a relay's codec check runs in a short-lived
`tessera probe` child. A probe that dies on a file (here: killed while it blocks opening a FIFO,
as a malformed file crashing FFmpeg would kill it) refuses that POST with 400 and leaves the
server and its running tasks as they were. (SIGKILL, not a sent SIGSEGV: Swift's backtracer
catches an asynchronous SIGSEGV, which interrupts the blocked open instead of crashing.)"""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from livetools import side_by_side, wait_until

pytestmark = pytest.mark.live


def probe_children(server) -> set[int]:
    found = set()
    for pid in server.workers():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"probe" in cmdline:
            found.add(pid)
    return found


def test_a_probe_that_crashes_leaves_the_server_and_its_tasks_running(tessera_server, api, clips, media, rtmp_server):
    api.create(side_by_side("bystander", clips.red, clips.blue, [rtmp_server.url("bystander")]))
    worker = api.wait_state("bystander", "running", 20)["workerPid"]

    fifo = Path(media.root) / "crashes-the-probe.mp4"
    os.mkfifo(fifo)
    answer = {}
    doc = {"taskId": "crasher", "mode": "relay", "inputs": [{"id": "cam", "url": str(fifo.name)}],
           "outputs": [{"url": rtmp_server.url("crasher")}]}
    post = threading.Thread(target=lambda: answer.setdefault("r", api.post("/v1/tasks", doc, timeout=60)))
    post.start()
    probes = wait_until(lambda: probe_children(tessera_server), 15, 0.05)
    assert probes, "no `tessera probe` child ran for the relay's file input"
    for pid in probes:
        os.kill(pid, signal.SIGKILL)
    post.join(30)
    r = answer["r"]
    assert r.status == 400 and r.json["error"]["path"] == "inputs[0].url", r.body
    assert "signal 9" in r.json["error"]["message"], r.body

    # The server and the other task are untouched; nothing was recorded for the refused POST.
    assert tessera_server.proc.poll() is None
    time.sleep(1)
    st = api.status("bystander")
    assert st["state"] == "running" and st["workerPid"] == worker, st
    assert api.get("/v1/tasks/crasher").status == 404
    assert not probe_children(tessera_server)
