"""A cluster of `tessera serve` nodes on one PostgreSQL task store (SPEC §6), tried as an operator
would: three nodes on loopback ports sharing a real PostgreSQL (Debian's, started by the fixture
as the `postgres` user from its own data dir) and an nginx-rtmp, streams read back with ffmpeg.

- any node answers for any task (create, read, update, stop, snapshot, SEI, list; 409 from any node);
- placement spreads tasks by --max-tasks, 429 + Retry-After only when no node has room;
- a node and its workers killed with SIGKILL: its tasks run and publish elsewhere in time;
- SIGTERM drains a node: /readyz 503 at once, tasks move, the RTMP output comes back, exit 0;
- the number of worker processes always equals the number of running tasks;
- no recording is overwritten by a move (shared output directory)."""
from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from helpers import ffprobe
from livetools import TesseraServer, log_tail, pid_alive, side_by_side, wait_stream, wait_until
from pgtools import PostgresServer
from seitools import TESSERA_UUID, frames_with, sei_per_frame
from test_webhooks import Receiver

pytestmark = pytest.mark.live

NODE_TIMEOUT = 4


@pytest.fixture(scope="module")
def postgres():
    server = PostgresServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Cluster:
    def __init__(self, tmp_path, media_root, store: str, n: int = 3, max_tasks: int = 4):
        self.out = tmp_path / "shared-out"
        self.out.mkdir()
        self.nodes: list[TesseraServer] = []
        for i in range(n):
            node = TesseraServer(tmp_path / f"node{i + 1}", media_root, [
                "--store", store, "--node-id", f"node{i + 1}", "--node-timeout-seconds", str(NODE_TIMEOUT),
                "--max-tasks", str(max_tasks), "--rtp-ports", f"{21000 + 100 * i}-{21000 + 100 * i + 99}",
                "--shutdown-seconds", "15"])
            node.out = self.out
            self.nodes.append(node)

    def start(self):
        for node in self.nodes:
            node.start()
        # Every node has heartbeated once the first of its control rounds ran.
        assert wait_until(lambda: all(n.client.get("/readyz").status == 200 for n in self.nodes), 10)

    def by_id(self, node_id: str) -> TesseraServer:
        return self.nodes[int(node_id.removeprefix("node")) - 1]

    def running_workers(self) -> int:
        return sum(len(n.workers()) for n in self.nodes if n.proc and n.proc.poll() is None)

    def stop(self):
        for node in self.nodes:
            if node.proc and node.proc.poll() is None:
                try:
                    node.terminate(30)
                except AssertionError:
                    pass
            node.kill()


@pytest.fixture
def cluster(tmp_path, media, postgres, rtmp_server):
    c = Cluster(tmp_path, media.root, postgres.new_database())
    c.start()
    try:
        yield c
    finally:
        c.stop()



def test_any_node_answers_for_any_task(cluster, clips, rtmp_server):
    a, b, c = (n.client for n in cluster.nodes)
    url = rtmp_server.url("anynode")
    st = a.create(side_by_side("anynode", clips.red, clips.blue, [url]))
    owner = st["node"]
    assert owner in {"node1", "node2", "node3"}, st
    for client in (a, b, c):
        got = client.wait_state("anynode", "running", 15)
        assert got["node"] == owner and got["taskId"] == "anynode", got
        assert "anynode" in client.task_ids()
    # The id is unique across the cluster; the same document again is the same task (a repeated POST).
    for client in (a, b, c):
        r = client.post("/v1/tasks", side_by_side("anynode", clips.red, clips.blue, [url]))
        assert r.status == 201 and r.json["node"] == owner, r.body
        r = client.post("/v1/tasks", side_by_side("anynode", clips.blue, clips.red, [url]))
        assert r.status == 409 and r.json["error"]["code"] == "TaskExists", r.body
    # Updates through any node, ordered by sequence across nodes.
    r = b.patch("/v1/tasks/anynode", {"sequence": 5, "layout": side_by_side("x", "r", "b", [])["layout"]})
    assert r.status == 200 and r.json["sequence"] == 5, r.body
    r = c.patch("/v1/tasks/anynode", {"sequence": 4})
    assert r.status == 409 and r.json["error"]["code"] == "StaleSequence", r.body
    r = c.patch("/v1/tasks/anynode", {"sequence": 6, "encoder": {}})
    assert r.status == 400 and r.json["error"]["path"] == "encoder", r.body
    # A snapshot through a node that does not run the task.
    other = next(n for n in cluster.nodes if n is not cluster.by_id(owner))
    r = other.client.get("/v1/tasks/anynode/snapshot.png")
    assert r.status == 200 and r.body[:8] == b"\x89PNG\r\n\x1a\n", r.status
    wait_stream(url, 15)
    # Stopped through a third node.
    r = c.delete("/v1/tasks/anynode")
    assert r.status == 200 and r.json["state"] == "stopped", r.body
    assert a.status("anynode")["state"] == "stopped"
    assert wait_until(lambda: cluster.running_workers() == 0, 10)
    assert b.get("/v1/tasks/nosuch").status == 404


def test_sei_through_a_node_that_does_not_run_the_task(cluster, clips, rtmp_server):
    a = cluster.nodes[0].client
    url = rtmp_server.url("seinode")
    owner = a.create(side_by_side("seinode", clips.red, clips.blue, [url]))["node"]
    other = next(n for n in cluster.nodes if n is not cluster.by_id(owner)).client
    other.wait_state("seinode", "running", 15)
    wait_stream(url, 15)
    r = other.post("/v1/tasks/seinode/sei", {"payload": "x", "repeat": 99})
    assert r.status == 400 and r.json["error"]["path"] == "repeat", r.body
    assert other.post("/v1/tasks/nosuch/sei", {"payload": "x"}).status == 404
    # Forwarded to the owner and into its worker: 30 frames running in the stream.
    dump = cluster.out / "seinode.flv"
    reader = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-i", url, "-t", "4",
                               "-c", "copy", "-flush_packets", "1", "-y", str(dump)],
                              stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Sent once the reader is writing the stream (each packet flushed: past the FLV header and a
        # few frames), so all 30 frames fall inside its 4 s; a fixed 1.5 s wait missed the first of
        # them when the reader's ffmpeg was slow to connect on a loaded machine.
        assert wait_until(lambda: dump.exists() and dump.stat().st_size > 4096, 15, 0.05), "the reader took no stream"
        r = other.post("/v1/tasks/seinode/sei", {"payload": "via-peer", "repeat": 30})
        assert r.status == 202 and r.json["repeat"] == 30, r.body
        reader.wait(30)
    finally:
        if reader.poll() is None:
            reader.kill()
    found = frames_with(sei_per_frame(dump), 5, TESSERA_UUID + b"via-peer")
    assert found and found == list(range(found[0], found[0] + 30)), found


def test_placement_spreads_tasks_and_refuses_only_when_full(tmp_path, media, postgres, clips):
    cluster = Cluster(tmp_path, media.root, postgres.new_database(), n=3, max_tasks=1)
    cluster.start()
    try:
        first = cluster.nodes[0].client
        nodes = set()
        for i in range(3):
            st = first.create(side_by_side(f"spread{i}", clips.red, clips.blue, [f"spread{i}.mp4"]))
            nodes.add(st["node"])
        assert nodes == {"node1", "node2", "node3"}, nodes
        r = first.post("/v1/tasks", side_by_side("spread3", clips.red, clips.blue, ["spread3.mp4"]))
        assert r.status == 429 and int(r.headers["retry-after"]) > 0, r.body
        assert wait_until(lambda: cluster.running_workers() == 3, 10), cluster.running_workers()
    finally:
        cluster.stop()


def test_a_killed_node_s_tasks_run_and_publish_elsewhere(cluster, clips, rtmp_server):
    url = rtmp_server.url("failover")
    hooks = Receiver()
    doc = side_by_side("failover", clips.red, clips.blue, [url, "failover.mp4"], callbackUrl=hooks.url)
    doc["inputs"].append({"id": "sfu", "rtp": {"allocate": {"video": "H264"}}})
    try:
        st = cluster.nodes[0].client.create(doc)
        victim = cluster.by_id(st["node"])
        survivor = next(n for n in cluster.nodes if n is not victim)
        survivor.client.wait_state("failover", "running", 15)
        old_rtp = st["inputs"][2]["rtp"]
        wait_stream(url, 15)
        time.sleep(3)
        before = max(e["sequence"] for e in hooks.events())
        victim.crash()
        killed_at = time.monotonic()

        def moved():
            s = survivor.client.get("/v1/tasks/failover").json or {}
            return s if s.get("state") == "running" and s.get("node") != st["node"] else None

        moved_status = wait_until(moved, NODE_TIMEOUT + 10, 0.2)
        assert moved_status, survivor.client.status("failover")
        print(f"task running on {moved_status['node']} {time.monotonic() - killed_at:.1f} s after the kill")
        # The arrival note names the lost node; a worker's own passing reason (an output still
        # connecting under load) is shown before it while it lasts.
        def names_lost_node():
            s = survivor.client.get("/v1/tasks/failover").json or {}
            return s if st["node"] in (s.get("reason") or "") else None
        assert wait_until(names_lost_node, 10, 0.2), survivor.client.status("failover")
        wait_stream(url, 15)
        assert moved_status["outputs"][1]["files"] == ["failover.mp4", "failover.1.mp4"], moved_status["outputs"]
        assert wait_until(lambda: cluster.running_workers() == 1, 5), cluster.running_workers()

        # The allocated RTP input has ports on its new node, in the status and in an `input.rtp` event.
        new_rtp = moved_status["inputs"][2]["rtp"]
        assert new_rtp["videoPort"] != old_rtp["videoPort"] and new_rtp["sdp"] != old_rtp["sdp"], (old_rtp, new_rtp)
        event = hooks.wait_event(lambda e: e["event"] == "input.rtp" and e["sequence"] > before, 10, "input.rtp after the move")
        assert event["input"]["rtp"] == new_rtp, event
        # Events keep counting across the move, and task.state names it.
        moved_event = hooks.wait_event(lambda e: e["event"] == "task.state" and e["sequence"] > before, 10, "task.state")
        assert st["node"] in (moved_event["task"].get("reason") or ""), moved_event
        sequences = [e["sequence"] for e in hooks.events()]
        assert len(sequences) == len(set(sequences)), f"a sequence number was used twice: {sequences}"

        # Both recordings are playable: nothing was overwritten.
        time.sleep(2)
        survivor.client.delete("/v1/tasks/failover")
        for name in ("failover.mp4", "failover.1.mp4"):
            info = ffprobe(cluster.out / name)
            assert float(info["format"]["duration"]) > 1, (name, info["format"])
    finally:
        hooks.close()


def test_sigterm_drains_a_node_and_its_tasks_move(cluster, clips, rtmp_server):
    client = cluster.nodes[0].client
    placed = {}
    for i in range(3):
        url = rtmp_server.url(f"drain{i}")
        st = client.create(side_by_side(f"drain{i}", clips.red, clips.blue, [url]))
        placed[f"drain{i}"] = st["node"]
    for task in placed:
        client.wait_state(task, "running", 15)
    leaving_id = placed["drain0"]
    leaving = cluster.by_id(leaving_id)
    staying = next(n for n in cluster.nodes if n is not leaving)
    moving = [t for t, n in placed.items() if n == leaving_id]
    for t in moving:
        wait_stream(rtmp_server.url(t), 15)

    leaving.proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    # From the signal on, the node never says it is ready: 503 until it stops listening (a small
    # drain can end within milliseconds, before the first probe).
    # The signal takes a moment to arrive: answers in the first 100 ms may still be 200.
    answers = []
    while leaving.proc.poll() is None and time.monotonic() - sent < 30:
        try:
            answers.append((round(time.monotonic() - sent, 3), leaving.client.get("/readyz", timeout=2).status))
        except OSError:
            answers.append((round(time.monotonic() - sent, 3), "closed"))
        time.sleep(0.02)
    assert not [a for a in answers if a[1] == 200 and a[0] > 0.1], f"/readyz answers after SIGTERM: {answers}"
    rc = leaving.proc.wait(30)
    assert rc == 0, log_tail(leaving.log)
    for t in moving:
        st = wait_until(lambda: (s := staying.client.status(t))["state"] == "running" and s["node"] != leaving_id and s, 10)
        assert st, staying.client.status(t)
        wait_stream(rtmp_server.url(t), 15)
        print(f"{t}: publishing again on {st['node']} {time.monotonic() - sent:.1f} s after SIGTERM")
    assert wait_until(lambda: cluster.running_workers() == 3, 5), cluster.running_workers()


def test_a_paused_node_stops_its_workers_before_another_node_takes_over(cluster, clips, rtmp_server):
    """Never twice: a node that cannot renew its lease (here: the whole server paused with SIGSTOP,
    so it cannot even fence its own workers) loses its tasks only after its workers have stopped by
    themselves (their own lease from the server ran out)."""
    url = rtmp_server.url("paused")
    st = cluster.nodes[0].client.create(side_by_side("paused", clips.red, clips.blue, [url]))
    victim = cluster.by_id(st["node"])
    others = [n for n in cluster.nodes if n is not victim]
    others[0].client.wait_state("paused", "running", 15)
    old_workers = victim.workers()
    assert len(old_workers) == 1, old_workers
    wait_stream(url, 15)

    os.kill(victim.pid, signal.SIGSTOP)
    try:
        old_gone_at = new_seen_at = None
        deadline = time.monotonic() + NODE_TIMEOUT + 15
        while time.monotonic() < deadline and new_seen_at is None:
            now = time.monotonic()
            if old_gone_at is None and not any(pid_alive(p) for p in old_workers):
                old_gone_at = now
            if any(n.workers() for n in others):
                new_seen_at = now
                if old_gone_at is None and not any(pid_alive(p) for p in old_workers):
                    old_gone_at = now
            time.sleep(0.05)
        assert new_seen_at is not None, "no other node started the paused node's task"
        assert old_gone_at is not None and old_gone_at <= new_seen_at, \
            f"the paused node's worker still ran when another node started the task ({old_gone_at}, {new_seen_at})"
        moved = wait_until(lambda: (s := others[0].client.status("paused"))["state"] == "running"
                           and s["node"] != st["node"] and s, 10)
        assert moved, others[0].client.status("paused")
        wait_stream(url, 15)
    finally:
        os.kill(victim.pid, signal.SIGCONT)
    # Back from its pause, the node sees the task is no longer its own and starts nothing.
    time.sleep(3)
    assert victim.workers() == set(), victim.workers()
    assert cluster.running_workers() == 1
    assert victim.client.status("paused")["node"] == moved["node"]


def test_one_recording_has_one_writer_across_the_cluster(cluster, clips, rtmp_server):
    """Issue 30: two tasks on two nodes naming one file both answered 201 and one recording was
    lost. The claim is in the shared store: every node refuses the second, naming the holder."""
    a, b, c = (n.client for n in cluster.nodes)
    st = a.create(side_by_side("holder", clips.red, clips.blue, ["claims/rec.mp4"]))
    owner = st["node"]
    for client in (a, b, c):
        r = client.post("/v1/tasks", side_by_side(f"taker-{client.port}", clips.blue, clips.red,
                                                  [rtmp_server.url("t"), "claims/rec.mp4"]))
        assert r.status == 409, r.body
        err = r.json["error"]
        assert err["code"] == "OutputInUse" and err["path"] == "outputs[1].url" and '"holder"' in err["message"], err
    assert all(t.startswith("holder") for t in a.task_ids()), a.task_ids()
    # Once the holder ended (through another node than its own), the name is free again.
    other = next(n for n in cluster.nodes if n is not cluster.by_id(owner))
    assert other.client.delete("/v1/tasks/holder").status == 200
    st = b.create(side_by_side("taker", clips.blue, clips.red, ["claims/rec.mp4"]))
    assert st["outputs"][0]["files"] == ["claims/rec.1.mp4"], st["outputs"][0]
    assert c.delete("/v1/tasks/taker").status == 200
