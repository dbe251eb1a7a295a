"""What SIGTERM does to running tasks, chosen by `--on-shutdown`: `resume` (the default) ends them
properly and they run again when a server starts on the same task store; `stop` ends them for
good: final status `stopped`, reason "server shut down", and a server started again does not run
them. Either way the recording made before the signal is finished and playable."""
from __future__ import annotations

import time

import pytest

from helpers import ffprobe
from livetools import TesseraServer, log_tail, side_by_side, wait_until

pytestmark = pytest.mark.live


def _playable_seconds(path) -> float:
    info = ffprobe(path, "-count_packets", "-select_streams", "v:0")
    return int(info["streams"][0]["nb_read_packets"]) / 30.0


@pytest.mark.parametrize("mode", [None, "resume", "stop"], ids=["default", "resume", "stop"])
def test_sigterm_then_restart_on_the_same_store(mode, tmp_path, media, clips):
    args = ["--state-dir", str(tmp_path / "state")] + (["--on-shutdown", mode] if mode else [])
    first = TesseraServer(tmp_path / "serve", media.root, args)
    first.start()
    api = first.client
    try:
        api.create(side_by_side("show", clips.red, clips.blue, ["rec/show.mp4"]))
        api.wait_state("show", "running", 20)
        time.sleep(4)   # a few seconds recorded
        assert first.terminate(30) == 0, log_tail(first.log)
    finally:
        first.kill()
    recording = first.out / "rec" / "show.mp4"
    before = _playable_seconds(recording)
    assert before >= 3, f"the recording ended by SIGTERM holds {before:.1f} s"
    size = recording.stat().st_size

    second = TesseraServer(tmp_path / "serve", media.root, args)
    second.port, second.client = first.port, first.client
    second.start()
    try:
        if mode == "stop":
            st = api.status("show")
            assert st["state"] == "stopped", st
            assert st.get("reason") == "server shut down", st
            # It stays stopped: no worker starts for it, nothing is added to its recording.
            time.sleep(4)
            st = api.status("show")
            assert st["state"] == "stopped", st
            assert second.workers() == set(), f"workers {second.workers()} for a task stopped for good"
            assert recording.stat().st_size == size
            assert not (first.out / "rec" / "show.1.mp4").exists()
            # The id is free: a new task of that name may start.
            assert api.post("/v1/tasks", side_by_side("show", clips.red, clips.blue, ["rec/again.mp4"])).status == 201
            api.wait_state("show", "running", 20)
        else:
            st = api.wait_state("show", "running", 15)
            assert len(second.workers()) == 1, second.workers()
            # It records again (in a new file beside the first: nothing is overwritten).
            assert wait_until(lambda: (first.out / "rec" / "show.1.mp4").exists(), 15), st
            assert recording.stat().st_size == size
        assert api.delete("/v1/tasks/show").status == 200
    finally:
        rc = second.terminate(30)
        second.kill()
    assert rc == 0, log_tail(second.log)
