"""A store outage is not a stream outage (issue 22): three `tessera serve` nodes on one real
PostgreSQL, tasks publishing to RTMP, every stream read back continuously (livetools
StreamReader), worker processes counted on every node.

- PostgreSQL paused (SIGSTOP) under running tasks: no stream gap over 1 s, no worker restarted,
  nothing moved, one recording file per output; during the outage reads are answered (a
  remote task's live status, the list marked partial), writes get 503 StoreUnavailable with
  Retry-After at once, /readyz stays 200 saying `store unreachable`;
- one node cut off from the store only (a TCP proxy the test pauses): it keeps its task, its
  /readyz is 503, nothing runs twice;
- a node cut off from the store and from its peers stops its workers before another node
  starts its task;
- a repeated POST of the same task is answered as created; a different document is 409."""
from __future__ import annotations

import os
import queue
import select
import signal
import socket
import threading
import time

import pytest

from livetools import StreamReader, TesseraServer, W, H, child_pids, side_by_side, wait_stream, wait_until, pid_alive
from pgtools import PostgresServer
from test_cluster import Cluster, postgres  # noqa: F401 (the module's PostgreSQL fixture)

pytestmark = pytest.mark.live

NODE_TIMEOUT = 4


class PausableProxy:
    """A TCP proxy on a free loopback port to `target`; `pause()` black-holes it (bytes held, new
    connections left unanswered), `resume()` lets everything through again. With `delay_seconds`
    every chunk is held that long each way (a slow store link: 0.1 adds 200 ms to a round trip)."""

    def __init__(self, target_host: str, target_port: int, delay_seconds: float = 0.0):
        self.target = (target_host, target_port)
        self.delay = delay_seconds
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.paused = threading.Event()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def pause(self):
        self.paused.set()

    def resume(self):
        self.paused.clear()

    def close(self):
        self.closed = True
        self.listener.close()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket):
        while self.paused.is_set() and not self.closed:
            time.sleep(0.05)
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        pair = {client: upstream, upstream: client}
        senders = {sock: self._delayed_sender(sock) for sock in pair} if self.delay else {}
        try:
            while not self.closed:
                ready, _, _ = select.select(list(pair), [], [], 0.1)
                if self.paused.is_set():
                    continue
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if senders:
                        senders[pair[sock]].put((time.monotonic() + self.delay, data))
                    else:
                        pair[sock].sendall(data)
        except OSError:
            return
        finally:
            for queue in senders.values():
                queue.put(None)
            client.close()
            upstream.close()

    @staticmethod
    def _delayed_sender(sock: socket.socket) -> "queue.Queue":
        """A queue of (due, bytes) that one thread sends to `sock` in order, each when it is due."""
        chunks: queue.Queue = queue.Queue()

        def send():
            while (item := chunks.get()) is not None:
                due, data = item
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    sock.sendall(data)
                except OSError:
                    return
        threading.Thread(target=send, daemon=True).start()
        return chunks


class Nodes(Cluster):
    """test_cluster's three nodes, each reached through a pausable proxy (so a test can cut one
    off from the others); `proxied` nodes reach the store through one as well."""

    def __init__(self, tmp_path, media_root, store_url: str, pg_port: int, proxied: set[int] = frozenset(),
                 store_delay: float = 0.0, max_tasks: int = 1):
        self.out = tmp_path / "shared-out"
        self.out.mkdir()
        self.nodes: list[TesseraServer] = []
        self.store_proxies: dict[int, PausableProxy] = {}
        self.api_proxies: dict[int, PausableProxy] = {}
        for i in range(3):
            node = TesseraServer(tmp_path / f"node{i + 1}", media_root, [])
            store = store_url
            if i in proxied:
                proxy = self.store_proxies[i] = PausableProxy("127.0.0.1", pg_port, store_delay)
                store = store_url.replace(f":{pg_port}/", f":{proxy.port}/")
            api = self.api_proxies[i] = PausableProxy("127.0.0.1", node.port)
            node.extra_args = ["--store", store, "--node-id", f"node{i + 1}", "--advertise-url", f"http://127.0.0.1:{api.port}",
                               "--node-timeout-seconds", str(NODE_TIMEOUT), "--max-tasks", str(max_tasks),
                               "--rtp-ports", f"{23000 + 100 * i}-{23000 + 100 * i + 99}", "--shutdown-seconds", "15"]
            node.out = self.out
            self.nodes.append(node)

    def workers(self) -> dict[str, set[int]]:
        return {f"node{i + 1}": n.workers() for i, n in enumerate(self.nodes) if n.proc and n.proc.poll() is None}

    def stop(self):
        proxies = [*self.store_proxies.values(), *self.api_proxies.values()]
        for proxy in proxies:
            proxy.resume()
        super().stop()
        for proxy in proxies:
            proxy.close()


def start_nodes(tmp_path, media, postgres, proxied=frozenset(), **kw) -> Nodes:
    nodes = Nodes(tmp_path, media.root, postgres.new_database(), postgres.port, set(proxied), **kw)
    nodes.start()
    return nodes


def signal_postgres(postgres: PostgresServer, sig: int) -> None:
    """The whole server: the postmaster and every backend (a SIGSTOP of the postmaster alone
    leaves open connections answering)."""
    for pid in [postgres.proc.pid, *child_pids(postgres.proc.pid)]:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def longest_gap(reader: StreamReader, since: float) -> float:
    times = [t for t, _ in reader.snapshot() if t >= since]
    if len(times) < 2:
        return float("inf")
    return max(b - a for a, b in zip(times, times[1:]))


def start_tasks(nodes: Nodes, clips, rtmp_server, names):
    statuses = {}
    for name in names:
        statuses[name] = nodes.nodes[0].client.create(
            side_by_side(name, clips.red, clips.blue, [rtmp_server.url(name), f"{name}.mp4"]))
    for name in names:
        nodes.nodes[0].client.wait_state(name, "running", 20)
        wait_stream(rtmp_server.url(name), 20)
    return statuses


def assert_nothing_noticed_the_outage(nodes: Nodes, names, statuses, readers, workers_before, outage_at: float):
    """After the store came back: no stream gap over 1 s since the outage began, nothing
    restarted, moved or ran twice, one recording per output, every node ready, and the store
    takes writes again (a PATCH through another node than the owner is accepted)."""
    for name, reader in zip(names, readers):
        gap = longest_gap(reader, outage_at - 1)
        assert gap <= 1.0, f"{name}: a gap of {gap:.2f} s in the stream"
    assert nodes.workers() == workers_before, (workers_before, nodes.workers())
    for name in names:
        st = nodes.nodes[2].client.status(name)
        assert st["state"] == "running" and st["node"] == statuses[name]["node"], st
        assert "restarted" not in (st.get("reason") or ""), st
        assert st["outputs"][1]["files"] == [f"{name}.mp4"], st["outputs"]
    prefix = names[0][:2]
    assert sorted(p.name for p in nodes.out.glob(f"{prefix}*.mp4")) == [f"{n}.mp4" for n in names]
    for node in nodes.nodes:
        assert node.client.get("/readyz").status == 200
    r = nodes.nodes[2].client.get("/v1/tasks")
    assert r.status == 200 and not r.json.get("partial"), r.body
    name = next(n for n in names if statuses[n]["node"] != "node3")
    sequence = nodes.nodes[2].client.status(name).get("sequence", 0)
    r = nodes.nodes[2].client.patch(f"/v1/tasks/{name}", {"sequence": sequence + 1})
    assert r.status == 200, r.body


def test_the_store_paused_under_running_tasks_stops_no_stream(tmp_path, media, clips, postgres, rtmp_server):
    nodes = start_nodes(tmp_path, media, postgres)
    readers: list[StreamReader] = []
    try:
        names = ["po1", "po2", "po3"]
        statuses = start_tasks(nodes, clips, rtmp_server, names)
        assert {s["node"] for s in statuses.values()} == {"node1", "node2", "node3"}, statuses
        workers_before = nodes.workers()
        readers = [StreamReader(rtmp_server.url(n), tmp_path / f"{n}.flv", W, H) for n in names]
        assert all(r.wait_frames(30, 20) for r in readers)
        time.sleep(1)
        paused_at = time.monotonic()
        signal_postgres(postgres, signal.SIGSTOP)
        try:
            time.sleep(NODE_TIMEOUT * 1.5 + 2)
            a = nodes.nodes[0].client
            # Every node sees the outage: still ready, saying so.
            for node in nodes.nodes:
                r = node.client.get("/readyz", timeout=5)
                assert r.status == 200 and r.json["status"] == "store unreachable", (r.status, r.body)
            # Reads: a task another node runs, live from its owner.
            remote = next(n for n in names if statuses[n]["node"] != "node1")
            t0 = time.monotonic()
            r = a.get(f"/v1/tasks/{remote}", timeout=10)
            assert r.status == 200 and r.json["state"] == "running" and r.json["node"] == statuses[remote]["node"], r.body
            assert time.monotonic() - t0 < 3
            r = a.get("/v1/tasks", timeout=10)
            assert r.status == 200 and r.json.get("partial"), r.body
            assert sorted(t["taskId"] for t in r.json["tasks"]) == names, r.body
            assert all(t["state"] == "running" for t in r.json["tasks"]), r.body
            # Its picture, and an SEI message (it changes nothing stored), through the same node.
            r = a.get(f"/v1/tasks/{remote}/snapshot.png", timeout=10)
            assert r.status == 200 and r.body[:8] == b"\x89PNG\r\n\x1a\n", (r.status, r.body[:200])
            r = a.post(f"/v1/tasks/{remote}/sei", {"payload": "during the outage"}, timeout=10)
            assert r.status == 202 and r.json["taskId"] == remote, (r.status, r.body)
            # Writes: 503 at once, with Retry-After.
            for method, path, body in [("PATCH", f"/v1/tasks/{remote}", {"sequence": 1}), ("DELETE", f"/v1/tasks/{remote}", None),
                                       ("POST", "/v1/tasks", side_by_side("po9", clips.red, clips.blue, []))]:
                t0 = time.monotonic()
                r = a.request(method, path, body, timeout=10)
                assert r.status == 503 and r.json["error"]["code"] == "StoreUnavailable", (method, r.status, r.body)
                assert r.headers.get("retry-after"), r.headers
                assert time.monotonic() - t0 < 1, f"{method} took {time.monotonic() - t0:.1f} s"
            time.sleep(max(0, 15 - (time.monotonic() - paused_at)))
        finally:
            signal_postgres(postgres, signal.SIGCONT)
        time.sleep(NODE_TIMEOUT * 2 + 4)
        assert_nothing_noticed_the_outage(nodes, names, statuses, readers, workers_before, paused_at)
    finally:
        for reader in readers:
            reader.stop()
        nodes.stop()


def test_the_store_stopped_and_started_again_under_running_tasks_stops_no_stream(tmp_path, media, clips, postgres,
                                                                                  rtmp_server):
    """A minor upgrade or a failover: PostgreSQL shut down (every connection closed) and started
    again 12 s later on the same address; the nodes reconnect and nothing else happens."""
    nodes = start_nodes(tmp_path, media, postgres)
    readers: list[StreamReader] = []
    try:
        names = ["rs1", "rs2", "rs3"]
        statuses = start_tasks(nodes, clips, rtmp_server, names)
        workers_before = nodes.workers()
        readers = [StreamReader(rtmp_server.url(n), tmp_path / f"{n}.flv", W, H) for n in names]
        assert all(r.wait_frames(30, 20) for r in readers)
        time.sleep(1)
        down_at = time.monotonic()
        postgres.restart(down_seconds=12)
        time.sleep(NODE_TIMEOUT * 2 + 4)
        assert_nothing_noticed_the_outage(nodes, names, statuses, readers, workers_before, down_at)
    finally:
        for reader in readers:
            reader.stop()
        nodes.stop()


def test_concurrent_posts_over_a_slow_store_start_every_task_once(tmp_path, media, clips, postgres):
    """200 ms added to every store round trip of every node; nine new tasks POSTed at once, three
    through each node: every POST is 201 (none 409), every task runs on exactly one worker, none
    was stopped, and no node runs more than its --max-tasks."""
    nodes = start_nodes(tmp_path, media, postgres, proxied={0, 1, 2}, store_delay=0.1, max_tasks=4)
    try:
        small = {"video": {"width": 160, "height": 120, "fps": 10, "bitrateKbps": 200, "gopSeconds": 1,
                           "preset": "ultrafast"},
                 "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 64}}
        names = [f"cp{i}" for i in range(9)]
        answers: dict[str, object] = {}

        def post(i: int, name: str):
            doc = side_by_side(name, clips.red, clips.blue, [f"{name}.mp4"], encoder=small)
            answers[name] = nodes.nodes[i % 3].client.post("/v1/tasks", doc, timeout=60)
        threads = [threading.Thread(target=post, args=(i, n)) for i, n in enumerate(names)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        refused = {n: (r.status, r.body) for n, r in answers.items() if r.status != 201}
        assert len(answers) == len(names) and not refused, refused
        for name in names:
            nodes.nodes[0].client.wait_state(name, "running", 30)
        time.sleep(3)
        owners = {n: nodes.nodes[1].client.status(n) for n in names}
        assert all(st["state"] == "running" for st in owners.values()), owners
        per_node = {node: sum(1 for st in owners.values() if st["node"] == node) for node in ("node1", "node2", "node3")}
        workers = nodes.workers()
        assert {node: len(pids) for node, pids in workers.items()} == per_node, (workers, per_node)
        assert max(per_node.values()) <= 4, per_node
        print(f"nine concurrent POSTs over a 200 ms store link: {per_node}")
    finally:
        nodes.stop()


def test_a_node_cut_off_from_the_store_alone_keeps_its_task(tmp_path, media, clips, postgres, rtmp_server):
    nodes = start_nodes(tmp_path, media, postgres, proxied={0})
    reader = None
    try:
        # One task per node (--max-tasks 1): node1's is the one cut off.
        statuses = start_tasks(nodes, clips, rtmp_server, ["al1", "al2", "al3"])
        name = next(n for n, st in statuses.items() if st["node"] == "node1")
        before = nodes.workers()
        reader = StreamReader(rtmp_server.url(name), tmp_path / f"{name}.flv", W, H)
        assert reader.wait_frames(30, 20)
        cut_at = time.monotonic()
        nodes.store_proxies[0].pause()
        try:
            time.sleep(NODE_TIMEOUT * 3)
            assert nodes.nodes[0].client.get("/readyz", timeout=5).status == 503
            # Another node answers for it, live from node1.
            st = nodes.nodes[1].client.status(name)
            assert st["state"] == "running" and st["node"] == "node1", st
            assert nodes.workers() == before, (before, nodes.workers())
        finally:
            nodes.store_proxies[0].resume()
        time.sleep(NODE_TIMEOUT * 2)
        assert nodes.workers() == before, (before, nodes.workers())
        assert longest_gap(reader, cut_at) <= 1.0
        assert nodes.nodes[0].client.get("/readyz").status == 200
    finally:
        if reader:
            reader.stop()
        nodes.stop()


def test_a_node_cut_off_from_store_and_peers_stops_before_another_starts_its_task(tmp_path, media, clips, postgres, rtmp_server):
    nodes = start_nodes(tmp_path, media, postgres, proxied={0})
    try:
        statuses = start_tasks(nodes, clips, rtmp_server, ["is1", "is2"])
        if "node1" not in {st["node"] for st in statuses.values()}:
            pytest.skip("placement left node1 empty")
        old = nodes.nodes[0].workers()
        assert len(old) == 1
        # node1 loses the store and both peers; they lose node1.
        nodes.store_proxies[0].pause()
        for proxy in nodes.api_proxies.values():
            proxy.pause()
        cut_at = time.monotonic()
        try:
            old_gone_at = new_seen_at = None
            deadline = cut_at + NODE_TIMEOUT * 2 + 20
            while time.monotonic() < deadline and new_seen_at is None:
                now = time.monotonic()
                if old_gone_at is None and not any(pid_alive(p) for p in old):
                    old_gone_at = now
                if sum(len(nodes.nodes[i].workers()) for i in (1, 2)) > 1:
                    new_seen_at = now
                time.sleep(0.05)
            assert old_gone_at is not None, "node1 never stopped its worker"
            assert new_seen_at is not None, "no other node took the task over"
            assert old_gone_at <= new_seen_at, (old_gone_at - cut_at, new_seen_at - cut_at)
            print(f"node1 stopped its worker {old_gone_at - cut_at:.1f} s after the cut; another node started it "
                  f"{new_seen_at - cut_at:.1f} s after")
        finally:
            for proxy in nodes.api_proxies.values():
                proxy.resume()
            nodes.store_proxies[0].resume()
        log = (nodes.nodes[0].root / "serve.log").read_text(errors="replace")
        assert "stopping every task on this node" in log and "warning" in log.lower(), log[-3000:]
        time.sleep(NODE_TIMEOUT)
        assert sum(len(w) for w in nodes.workers().values()) == 2, nodes.workers()
    finally:
        nodes.stop()


def test_a_repeated_post_is_answered_as_created(tmp_path, media, clips, postgres, rtmp_server):
    nodes = start_nodes(tmp_path, media, postgres)
    try:
        doc = side_by_side("again", clips.red, clips.blue, [rtmp_server.url("again")])
        first = nodes.nodes[0].client.post("/v1/tasks", doc)
        assert first.status == 201, first.body
        for node in nodes.nodes:
            r = node.client.post("/v1/tasks", doc)
            assert r.status == 201 and r.json["node"] == first.json["node"], r.body
        other = dict(doc, outputs=[{"url": rtmp_server.url("again2")}])
        r = nodes.nodes[1].client.post("/v1/tasks", other)
        assert r.status == 409 and r.json["error"]["code"] == "TaskExists", r.body
        nodes.nodes[0].client.wait_state("again", "running", 20)
        time.sleep(2)
        assert sum(len(w) for w in nodes.workers().values()) == 1, nodes.workers()
    finally:
        nodes.stop()
