"""Webhooks of `tessera serve`: a task's `callbackUrl` receives a signed JSON POST on every task,
input and output state change, retried on 5xx, in order per task, and a slow receiver never slows
the task or the API.

Each test's server (conftest's `tessera_server`) runs with a webhook secret (env
TESSERA_WEBHOOK_SECRET), and a Python HTTP receiver on loopback plays the caller's endpoint.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from livetools import halves, side_by_side, wait_until

pytestmark = pytest.mark.live

SECRET = "webhook-test-secret"


class Receiver:
    """Records every POST (arrival time, headers, raw body); `respond(n)` gives the status code
    and the seconds to wait before answering the n-th request (from 0)."""

    def __init__(self, respond=lambda n: (200, 0.0)):
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    n = len(receiver.requests)
                    receiver.requests.append({"at": time.monotonic(), "path": self.path,
                                              "headers": {k.lower(): v for k, v in self.headers.items()},
                                              "body": body})
                code, delay = respond(n)
                time.sleep(delay)
                try:
                    self.send_response(code)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass   # the sender gave up waiting (timeout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False   # a handler asleep for 20 s must not hold the test's end
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def snapshot(self) -> list[dict]:
        with self.lock:
            return list(self.requests)

    def events(self) -> list[dict]:
        """The distinct events in arrival order (a retried one counts once, where it first arrived)."""
        seen, out = set(), []
        for r in self.snapshot():
            delivery = r["headers"].get("x-tessera-delivery")
            if delivery not in seen:
                seen.add(delivery)
                out.append(json.loads(r["body"]))
        return out

    def wait_event(self, predicate, timeout: float, what: str) -> dict:
        found = wait_until(lambda: next((e for e in self.events() if predicate(e)), None), timeout, 0.05)
        assert found, f"no webhook {what} within {timeout} s; got: {[describe(e) for e in self.events()]}"
        return found

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def describe(event: dict) -> str:
    subject = event.get("task") or event.get("input") or event.get("output") or {}
    name = subject.get("id") or subject.get("url") or ""
    return f"#{event.get('sequence')} {event.get('event')} {name} {subject.get('previousState')}→{subject.get('state')}"


def is_event(event: dict, name: str, state: str, who: str | None = None) -> bool:
    subject = event.get("task") or event.get("input") or event.get("output") or {}
    return (event.get("event") == name and subject.get("state") == state
            and (who is None or subject.get("id") == who or str(subject.get("url", "")).startswith(who)))


@pytest.fixture(autouse=True)
def _webhook_secret(monkeypatch):
    """Autouse, so it runs before `tessera_server` starts the server, which inherits the variable."""
    monkeypatch.setenv("TESSERA_WEBHOOK_SECRET", SECRET)


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(respond=lambda n: (200, 0.0)) -> Receiver:
        made.append(Receiver(respond))
        return made[-1]

    yield make
    for r in made:
        r.close()


def test_signed_events_follow_the_task_in_order(tessera_server, rtmp_server, clips, receivers):
    api = tessera_server.client
    receiver = receivers()
    rtmp = rtmp_server.url("hooked")
    api.create(side_by_side("hooked", clips.red, clips.blue, [rtmp], callbackUrl=receiver.url))
    receiver.wait_event(lambda e: is_event(e, "input.state", "live", "blue"), 15, "input blue live")
    receiver.wait_event(lambda e: is_event(e, "output.state", "live"), 15, "output live")

    # An update that removes an input is an input.removed event.
    r = api.patch("/v1/tasks/hooked", {"inputs": [{"id": "red", "url": clips.red, "loop": True}],
                                       "layout": halves("red", "red")})
    assert r.status == 200, f"PATCH: {r.status} {r.body[:500]!r}"
    receiver.wait_event(lambda e: e["event"] == "input.removed" and e["input"]["id"] == "blue", 10, "input.removed")

    r = api.delete("/v1/tasks/hooked")
    assert r.status == 200 and r.json["state"] == "stopped", (r.status, r.body[:500])
    receiver.wait_event(lambda e: is_event(e, "task.state", "stopped"), 5, "task stopped")

    requests = receiver.snapshot()
    events = [json.loads(r["body"]) for r in requests]
    names = [describe(e) for e in events]
    for req, event in zip(requests, events):
        h = req["headers"]
        expected = "sha256=" + hmac.new(SECRET.encode(), req["body"], hashlib.sha256).hexdigest()
        assert hmac.compare_digest(h.get("x-tessera-signature", ""), expected), \
            f"{describe(event)}: signature {h.get('x-tessera-signature')!r}, expected {expected!r}"
        assert h.get("content-type", "").startswith("application/json")
        assert h.get("x-tessera-event") == event["event"]
        assert h.get("x-tessera-timestamp") == event["timestamp"]
        assert uuid.UUID(h["x-tessera-delivery"])
        assert event["taskId"] == "hooked" and event["status"]["taskId"] == "hooked"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event["timestamp"]), event["timestamp"]
        assert req["path"] == "/hooks"
    # One receiver answering 200 at once: every event arrives once, numbered 1, 2, 3, … in order.
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1)), names
    assert len({r["headers"]["x-tessera-delivery"] for r in requests}) == len(requests), names

    def first(predicate, what):
        index = next((i for i, e in enumerate(events) if predicate(e)), None)
        assert index is not None, f"no {what} among {names}"
        return index

    starting = first(lambda e: is_event(e, "task.state", "starting"), "task starting")
    running = first(lambda e: is_event(e, "task.state", "running"), "task running")
    red_live = first(lambda e: is_event(e, "input.state", "live", "red"), "input red live")
    output_live = first(lambda e: is_event(e, "output.state", "live"), "output live")
    stopping = first(lambda e: is_event(e, "task.state", "stopping"), "task stopping")
    stopped = first(lambda e: is_event(e, "task.state", "stopped"), "task stopped")
    assert starting == 0 and events[0]["task"].get("previousState") is None, names
    # Inputs are opened beside the output clock, so an input may go live just before the task is
    # running; all of it comes after starting and before stopping.
    assert starting < min(running, red_live, output_live), names
    assert max(running, red_live, output_live) < stopping < stopped, names
    assert stopped == len(events) - 1, f"events after the task stopped: {names}"
    assert events[running]["task"]["previousState"] == "starting"
    assert events[red_live]["input"]["previousState"] == "waiting"
    assert events[red_live]["status"]["inputs"][0]["state"] == "live", "the status in an event is taken with it"
    assert events[output_live]["output"]["url"].endswith("/***"), "the output URL is redacted"
    print("events:", names)

    text = tessera_server.client.get("/metrics").body.decode()
    m = re.search(r'^tessera_webhook_events_total\{result="delivered"\} (\d+)', text, re.M)
    assert m and int(m.group(1)) == len(events), f"metrics: {[l for l in text.splitlines() if 'webhook' in l]}"


def test_callback_url_is_checked_and_fixed_for_the_task(tessera_server, clips, receivers):
    api = tessera_server.client
    for bad in ("ftp://127.0.0.1/x", "http:///nohost", "http://h/" + "a" * 2048, 42):
        r = api.post("/v1/tasks", side_by_side("bad-hook", clips.red, clips.blue, ["bad.mp4"], callbackUrl=bad))
        assert r.status == 400, f"callbackUrl {str(bad)[:40]!r}: {r.status} {r.body[:300]!r}"
        assert r.json["error"]["code"] == "InvalidTask" and r.json["error"]["path"] == "callbackUrl", r.json
    receiver = receivers()
    api.create(side_by_side("fixed-hook", clips.red, clips.blue, ["fixed.mp4"], callbackUrl=receiver.url))
    r = api.patch("/v1/tasks/fixed-hook", {"callbackUrl": "http://127.0.0.1:1/elsewhere"})
    assert r.status == 400, (r.status, r.body[:300])
    err = r.json["error"]
    assert err["code"] == "InvalidUpdate" and err["path"] == "callbackUrl", err
    assert "cannot be changed" in err["message"], err
    assert api.delete("/v1/tasks/fixed-hook").status == 200


def test_a_failing_receiver_gets_the_event_again(tessera_server, clips, receivers):
    api = tessera_server.client
    # The first two POSTs fail with 500; everything after succeeds.
    receiver = receivers(lambda n: (500, 0.0) if n < 2 else (200, 0.0))
    api.create(side_by_side("retried", clips.red, clips.blue, ["retried.mp4"], callbackUrl=receiver.url))
    receiver.wait_event(lambda e: is_event(e, "task.state", "running"), 20, "task running")
    requests = receiver.snapshot()
    first = [r for r in requests if json.loads(r["body"])["sequence"] == 1]
    assert len(first) == 3, f"event 1 was posted {len(first)} times (500, 500, then 200 expected)"
    assert [r["headers"]["x-tessera-attempt"] for r in first] == ["1", "2", "3"]
    assert len({r["headers"]["x-tessera-delivery"] for r in first}) == 1, "a retry is the same delivery"
    assert len({r["body"] for r in first}) == 1, "a retry sends the same bytes"
    gaps = [b["at"] - a["at"] for a, b in zip(first, first[1:])]
    assert gaps[0] >= 0.9 and gaps[1] >= 1.9, f"back-off between attempts: {gaps} (1 s, then 2 s expected)"
    # The events behind it waited for it: still in order.
    sequences = [json.loads(r["body"])["sequence"] for r in requests]
    assert sequences == sorted(sequences), sequences
    assert api.delete("/v1/tasks/retried").status == 200


def test_a_slow_receiver_does_not_slow_the_task(tessera_server, clips, receivers):
    api = tessera_server.client
    receiver = receivers(lambda n: (200, 20.0))
    t0 = time.monotonic()
    api.create(side_by_side("patient", clips.red, clips.blue, ["patient.mp4"], callbackUrl=receiver.url))
    assert time.monotonic() - t0 < 3, "POST /v1/tasks waited for the webhook"
    api.wait_state("patient", "running", 15)
    assert wait_until(lambda: receiver.snapshot(), 5), "the receiver got no request at all"

    frames, slowest = [], 0.0
    end = time.monotonic() + 6
    while time.monotonic() < end:
        t = time.monotonic()
        st = api.status("patient")
        slowest = max(slowest, time.monotonic() - t)
        frames.append(st["frames"])
        time.sleep(0.5)
    assert slowest < 1.0, f"GET /v1/tasks/patient took {slowest:.2f} s while the receiver hangs"
    assert frames[-1] - frames[0] >= 100, f"frames counted {frames[0]} → {frames[-1]} over 6 s (30 fps expected)"

    t = time.monotonic()
    r = api.delete("/v1/tasks/patient")
    took = time.monotonic() - t
    assert r.status == 200 and r.json["state"] == "stopped", (r.status, r.body[:300])
    assert took < 5, f"DELETE took {took:.1f} s with a hanging receiver"
    # The first request is abandoned at the 5 s timeout and retried, not held for the receiver's 20 s.
    retried = wait_until(lambda: len(receiver.snapshot()) >= 2, 8)
    assert retried, f"{len(receiver.snapshot())} request(s) in {time.monotonic() - t0:.0f} s: the timeout did not cut the first"
