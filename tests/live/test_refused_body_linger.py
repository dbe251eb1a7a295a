"""An oversized body sent the way ordinary HTTP clients send it: the whole body, with no
`Expect: 100-continue`, before reading the answer (Python's urllib here; `requests`, Go and most
SDKs do the same). The server answers 413, reads and discards the rest without holding it, and
closes the connection (a lingering close)."""
from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

BODY_BYTES = 30 << 20     # 30 MiB, thirty times the default 1 MiB limit
MIB = 1 << 20


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in KiB, from /proc/PID/status."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def assert_413(status: int, body: bytes, what: str):
    assert status == 413, f"{what}: expected 413, got {status}: {body[:300]!r}"
    err = json.loads(body)["error"]
    assert err["code"] == "PayloadTooLarge", f"{what}: {err}"


def test_urllib_sending_30_mib_reads_the_413(tessera_server, api):
    pid = tessera_server.pid
    before = memory_kib(pid)
    body = b" " * BODY_BYTES
    request = urllib.request.Request(f"http://127.0.0.1:{tessera_server.port}/v1/tasks", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            pytest.fail(f"a 30 MiB body was accepted: {answer.status} {answer.read()[:300]!r}")
    except urllib.error.HTTPError as refused:
        elapsed = time.monotonic() - started
        assert_413(refused.code, refused.read(), "urllib POST of 30 MiB")
        assert refused.headers.get("Connection", "").lower() == "close", dict(refused.headers)
    # urllib.error.URLError (a timeout, a reset) propagates: that is the failure this test is for.
    assert elapsed < 5, f"the 413 took {elapsed:.1f} s to reach the client"

    after = memory_kib(pid)
    grew = (after["VmRSS"] - before["VmRSS"]) / 1024
    assert grew < 10, f"the server's resident memory grew by {grew:.1f} MiB over a discarded 30 MiB body"
    peak = (after["VmHWM"] - max(before["VmHWM"], before["VmRSS"])) / 1024
    assert peak < 10, f"the server's peak memory rose {peak:.1f} MiB while it discarded a 30 MiB body"
    # The next request, on a fresh connection, is served.
    assert api.get("/healthz").status == 200
    assert api.task_ids() == []


def test_a_keep_alive_client_reads_the_413_and_the_connection_closes(tessera_server):
    # As `requests` and Go send it: HTTP/1.1 keep-alive (no `Connection: close`), no `Expect`,
    # the whole body before reading.
    body = b"x" * (20 * MIB)
    head = (f"POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1:{tessera_server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", tessera_server.port), timeout=10) as sock:
        sock.sendall(head + body)   # a server that stopped reading makes this time out
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break                # the server closed the connection after its answer
            data += chunk
    elapsed = time.monotonic() - started
    assert elapsed < 5, f"answer and close took {elapsed:.1f} s"
    head_text, _, payload = data.partition(b"\r\n\r\n")
    lines = head_text.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
    assert_413(int(lines[0].split()[1]), payload, "keep-alive POST of 20 MiB")
    assert headers.get("connection", "").lower() == "close", headers
    assert urllib.request.urlopen(f"http://127.0.0.1:{tessera_server.port}/healthz", timeout=5).status == 200
