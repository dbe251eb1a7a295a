"""Which stream is hurt, and why, from outside: `--log-format json` makes every line on standard
error (the server's, its workers', FFmpeg's) one JSON object, each line about a task carrying its
`task_id` and `node`; FFmpeg's own messages (a dead RTMP port's tcp errors) come through the same
logger with the task and a level; a refused POST logs its code and field. `/metrics`, parsed with
prometheus_client, has per-task series that match the tasks' statuses, and a deleted task's
series go. All of it with a CPU hog on one core (the machine is shared and busy in CI)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from livetools import free_port, side_by_side, wait_until

# serial: it keeps a core busy itself (cpu_hog); a parallel test on the other core would leave it none.
pytestmark = [pytest.mark.live, pytest.mark.serial]


@pytest.fixture
def cpu_hog():
    """`yes > /dev/null` on one core for the test's length, ended by its PID."""
    hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        yield hog
    finally:
        hog.kill()
        hog.wait(10)


def scrape(api) -> dict[tuple[str, tuple], float]:
    """(sample name, sorted labels) → value, from /metrics parsed by prometheus_client."""
    r = api.get("/metrics")
    assert r.status == 200, r.status
    samples = {}
    for family in text_string_to_metric_families(r.body.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def series(samples, name: str, **labels) -> dict[tuple, float]:
    """The samples of `name` whose labels include `labels`."""
    return {key: value for key, value in samples.items()
            if key[0] == name and all(dict(key[1]).get(k) == v for k, v in labels.items())}


def value(samples, name: str, **labels) -> float:
    key = (name, tuple(sorted(labels.items())))
    assert key in samples, f"no sample {name}{labels}; those of {name}: {series(samples, name)}"
    return samples[key]


def log_lines(path) -> list[dict]:
    """Every line of the server's log (standard output and error together), each parsed as JSON."""
    lines = []
    for number, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            raise AssertionError(f"serve.log line {number} is not JSON: {raw[:300]!r}") from None
        assert isinstance(obj, dict), f"line {number}: {raw[:300]!r}"
        for key in ("time", "level", "logger", "message"):
            assert isinstance(obj.get(key), str), f"line {number} has no {key}: {raw[:300]!r}"
        assert obj["time"].endswith("Z") and "T" in obj["time"], f"line {number}: time not ISO 8601 UTC: {obj['time']}"
        lines.append(obj)
    return lines


@pytest.mark.serve_args("--log-format", "json")
def test_json_logs_and_per_task_metrics(api, tessera_server, rtmp_server, clips, cpu_hog):
    dead = f"rtmp://127.0.0.1:{free_port()}/live/deadkey"
    api.create(side_by_side("obs-a", clips.red, clips.blue, [rtmp_server.url("obs-a"), dead]))
    api.create(side_by_side("obs-b", clips.blue, clips.red, [rtmp_server.url("obs-b")]))
    api.wait_outputs("obs-a", "live", 30, indices=[0])
    api.wait_outputs("obs-b", "live", 30)

    # A refused document: its code and field path in the log.
    bad = side_by_side("refused-doc", clips.red, clips.blue, [rtmp_server.url("refused")])
    bad["layout"]["regions"][0]["onVideoLoss"] = "freeze"
    r = api.post("/v1/tasks", bad)
    assert r.status == 400, r.body[:500]
    field = r.json["error"].get("path")
    assert field == "layout.regions[0].onVideoLoss", r.json

    # The dead output keeps trying (FFmpeg's tcp errors) while output 0 stays live.
    wait_until(lambda: api.status("obs-a")["outputs"][1]["state"] in ("reconnecting", "failed"), 30, 0.2)
    time.sleep(3)

    # -- metrics: every labelled series names one of the two tasks, with plausible values --------
    samples = scrape(api)
    statuses = {t: api.status(t) for t in ("obs-a", "obs-b")}
    cost_problems = []
    labelled = {key for key in samples if "task_id" in dict(key[1])}
    assert {dict(k[1])["task_id"] for k in labelled} == {"obs-a", "obs-b"}, sorted(labelled)[:20]
    for task_id, status in statuses.items():
        assert value(samples, "tessera_task_running", task_id=task_id) == 1
        cpu = value(samples, "tessera_task_cpu_seconds_total", task_id=task_id)
        # A worker encoding 25 fps uses some CPU; no more than every core for its whole life.
        # (Checked last, so that the rest is told first when the status lacks its CPU.)
        if not 0.05 < cpu <= status["uptimeSeconds"] * os.cpu_count() + 1:
            cost_problems.append(f"{task_id}: tessera_task_cpu_seconds_total {cpu} for {status['uptimeSeconds']} s")
        if not (isinstance(status.get("cpuSeconds"), (int, float)) and status["cpuSeconds"] >= cpu * 0.5):
            cost_problems.append(f"{task_id}: status cpuSeconds {status.get('cpuSeconds')!r}")
        per_minute = status.get("cpuSecondsPerOutputMinute")
        if not (isinstance(per_minute, (int, float)) and 0 < per_minute <= 60 * os.cpu_count()):
            cost_problems.append(f"{task_id}: status cpuSecondsPerOutputMinute {per_minute!r}")
        assert value(samples, "tessera_worker_restarts_total", task_id=task_id) == 0
        late = value(samples, "tessera_task_late_frames_total", task_id=task_id)
        assert 0 <= late <= status["frames"], (late, status["frames"])
        frames = value(samples, "tessera_task_frames_encoded_total", task_id=task_id)
        assert 0 < frames <= status["frames"], (frames, status["frames"])
        assert value(samples, "tessera_upload_backlog_bytes", task_id=task_id) == 0
        for index, output in enumerate(status["outputs"]):
            up = value(samples, "tessera_output_up", task_id=task_id, output=str(index))
            assert up == (1 if output["state"] == "live" else 0), (task_id, index, up, output["state"])
            assert value(samples, "tessera_output_info", task_id=task_id, output=str(index), url=output["url"]) == 1
            sent = value(samples, "tessera_output_bytes_total", task_id=task_id, output=str(index))
            assert sent <= output["bytes"], (task_id, index, sent, output["bytes"])
            assert (sent > 10_000) == (output["state"] == "live"), (task_id, index, sent, output)
        for input_ in status["inputs"]:
            assert value(samples, "tessera_input_up", task_id=task_id, input=input_["id"]) == 1
    assert value(samples, "tessera_output_up", task_id="obs-a", output="1") == 0
    assert "deadkey" not in json.dumps([k for k in samples]), "a stream key leaked into a label"
    stats = os.statvfs(tessera_server.out)
    free = value(samples, "tessera_output_dir_free_bytes")
    assert abs(free - stats.f_bavail * stats.f_frsize) < 512 * 1024 * 1024, free
    assert value(samples, "tessera_store_up") == 1

    # -- a deleted task's series go (after its final values were scraped and a short grace) --------
    r = api.delete("/v1/tasks/obs-b")
    assert r.status in (200, 202), r.status
    api.wait_state("obs-b", ("stopped",), 30)
    final = scrape(api)
    assert value(final, "tessera_task_running", task_id="obs-b") == 0
    time.sleep(6)
    scrape(api)
    after = scrape(api)
    assert not [k for k in after if dict(k[1]).get("task_id") == "obs-b"], "series of the deleted task remain"
    assert value(after, "tessera_task_running", task_id="obs-a") == 1

    # -- a worker killed: restarted, counted, logged once; no counter of the task goes down -------
    before = after
    pid = api.status("obs-a")["workerPid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: (api.status("obs-a").get("workerRestarts") or 0) >= 1, 30, 0.2), api.status("obs-a")
    api.wait_outputs("obs-a", "live", 30, indices=[0])
    restarted = scrape(api)
    assert value(restarted, "tessera_worker_restarts_total", task_id="obs-a") == 1
    for name, labels in (("tessera_task_cpu_seconds_total", {}), ("tessera_task_frames_encoded_total", {}),
                         ("tessera_task_late_frames_total", {}), ("tessera_output_bytes_total", {"output": "0"})):
        old, new = value(before, name, task_id="obs-a", **labels), value(restarted, name, task_id="obs-a", **labels)
        assert new >= old, f"{name} went down over a worker restart: {old} → {new}"

    # -- the log: every line JSON; the task's lines carry its id --------------------------------
    time.sleep(1)
    lines = log_lines(tessera_server.log)
    for line in lines:
        text = json.dumps(line)
        for task_id in ("obs-a", "obs-b"):
            if task_id in text:
                assert line.get("task_id") == task_id, f"a line about {task_id} without its task_id: {line}"
                assert line.get("node"), f"a line about {task_id} without its node: {line}"
    ffmpeg = [l for l in lines if l["logger"] == "ffmpeg" and l.get("task_id") == "obs-a"]
    assert any(l["level"] in ("error", "warning") and l.get("component") == "tcp" for l in ffmpeg), \
        f"no tcp error of FFmpeg with the task's id; ffmpeg lines: {ffmpeg[:5]}"
    refused = [l for l in lines if l.get("code") == "InvalidTask"]
    assert refused and refused[0].get("field") == field and refused[0]["level"] == "info", refused
    assert field in refused[0]["message"] and "400" in refused[0]["message"], refused[0]
    reconnecting = [l for l in lines if l.get("task_id") == "obs-a" and l["message"] == "output reconnecting"]
    # Once a run: the worker's restart below starts the dead output afresh.
    assert 1 <= len(reconnecting) <= 2, reconnecting
    assert all(l["level"] == "warning" and l.get("output") == "1" and "refused" in l.get("last_error", "").lower()
               for l in reconnecting), reconnecting
    assert [l for l in lines if l.get("task_id") == "obs-b" and l["message"] == "task stopped"], "no stop line for obs-b"
    restarts = [l for l in lines if l.get("task_id") == "obs-a" and l["message"] == "worker restarted"]
    assert len(restarts) == 1 and restarts[0]["level"] == "warning" and restarts[0].get("worker_restarts") == "1", restarts
    # Polls are debug: none of the many GETs above is in the log at info.
    assert not [l for l in lines if l["message"].startswith("GET /v1/tasks/") and l["level"] != "debug"]
    # The workers' own lines are there too, with the task's id (their standard error is the server's).
    assert [l for l in lines if l["logger"].startswith("tessera.") and l.get("task_id") == "obs-a"
            and "CLOCK_MONOTONIC" in l["message"]], "no worker line of obs-a"
    assert not cost_problems, cost_problems
