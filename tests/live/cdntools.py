"""A CDN in front of Tessera's HLS origin, for tests/live/test_ll_hls_cdn.py and
bench/llhls-latency.py (stdlib only: the bench runs it with the system Python).

`CachingProxy(root, origin_port, port=None, lock=True)`: Debian's nginx as a caching reverse proxy
on a loopback port, configured as a CDN edge in front of an LL-HLS origin is:

- `proxy_cache` keyed on the whole request URI, query included, so each blocking reload
  (`_HLS_msn` / `_HLS_part`, `_HLS_skip`) is its own entry and never answers another one;
- how long an answer is kept is the origin's `Cache-Control` (playlists a second, blocking answers
  six target durations, media for good, refusals `no-store`); the `proxy_cache_valid` lines are
  what an operator sets for origins that say nothing (a 404 kept 10 s, as CloudFront does by
  default) — the origin's header wins over them, which the test shows;
- `proxy_cache_lock` collapses concurrent misses of one URI (a held hinted part, a held blocking
  reload) into one origin request; `proxy_cache_lock_timeout` / `_age` outlast a hold (three
  target durations) so waiters are not sent to the origin meanwhile. nginx's waiters re-check the
  lock every 500 ms (no wake-up), which a second viewer of the same part pays;
- nginx counts max-age in whole seconds from the second it stored the answer, so a playlist with
  `max-age=1` is served for up to two seconds, and it sends no `Age` header (which hls.js uses to
  ask a stale first playlist again, RFC 8216bis appendix C);
- `proxy_ignore_client_abort on`: a viewer that leaves while its request is held (a hinted part,
  a blocking reload) does not cancel the origin request the others wait on behind the lock; the
  answer is still kept for them (without it they wait for the lock, then ask the origin again);
- buffering stays on: nginx caches only buffered answers, and the origin sends the hinted part
  whole once it is written (it holds the request, it does not stream a growing file);
- HTTP/1.1 keep-alive to the origin; `X-Cache-Status: $upstream_cache_status` on every answer;
  an access log of `msec uri status cache-status request-time` read back by `log()`.

Started and stopped by its own PID (never by name).
"""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from llhls_client import timed_get


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.3):
            return True
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """One answer of the CDN, from its access log."""
    at: float            # wall clock (time.time()) when nginx finished it
    uri: str             # path and query as asked
    status: int
    cache: str           # $upstream_cache_status: HIT, MISS, EXPIRED, UPDATING, … or "-" (not cacheable)
    seconds: float       # $request_time

    @property
    def name(self) -> str:
        return self.uri.split("?", 1)[0].rsplit("/", 1)[-1]


class CachingProxy:
    def __init__(self, root: Path, origin_port: int, port: int | None = None, lock: bool = True):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.origin_port = origin_port
        self.port = port or _free_port()
        self.conf = self.root / "nginx.conf"
        self.access_log = self.root / "access.log"
        self.error_log = self.root / "error.log"
        self.proc: subprocess.Popen | None = None
        r = self.root
        self.conf.write_text(f"""daemon off;
master_process off;
worker_processes 1;
pid {r}/nginx.pid;
error_log {self.error_log} notice;
events {{ worker_connections 2048; }}
http {{
    log_format cdn '$msec $request_uri $status $upstream_cache_status $request_time';
    access_log {self.access_log} cdn;
    client_body_temp_path {r}/body;
    proxy_temp_path {r}/proxy;
    fastcgi_temp_path {r}/fastcgi;
    uwsgi_temp_path {r}/uwsgi;
    scgi_temp_path {r}/scgi;
    proxy_cache_path {r}/cache levels=1:2 keys_zone=hls:8m max_size=512m inactive=10m use_temp_path=off;
    upstream origin {{
        server 127.0.0.1:{origin_port};
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache hls;
            proxy_cache_key $scheme$proxy_host$request_uri;
            proxy_cache_lock {'on' if lock else 'off'};
            proxy_cache_lock_timeout 15s;
            proxy_cache_lock_age 15s;
            proxy_cache_valid 200 10m;
            proxy_cache_valid 404 10s;
            proxy_buffering on;
            proxy_read_timeout 30s;
            proxy_ignore_client_abort on;
            add_header X-Cache-Status $upstream_cache_status always;
        }}
    }}
}}
""")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self, timeout: float = 10.0) -> "CachingProxy":
        assert self.proc is None or self.proc.poll() is not None, "nginx is already running"
        self.proc = subprocess.Popen(["nginx", "-p", str(self.root), "-c", str(self.conf), "-e", str(self.error_log)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.root / "stderr.log", "ab"))
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and not _accepts(self.port):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if self.proc.poll() is not None or not _accepts(self.port):
            self.stop()
            raise RuntimeError(f"nginx (CDN) did not listen on {self.port}: {self.tail(self.error_log)} "
                               f"{self.tail(self.root / 'stderr.log')}")
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    @staticmethod
    def tail(path: Path, size: int = 1500) -> str:
        try:
            return path.read_text(errors="replace")[-size:]
        except OSError:
            return "(no log)"

    def log(self, since: float = 0.0) -> list[Served]:
        """What the CDN answered (at or after `since`, wall clock), oldest first."""
        out = []
        for line in self.tail(self.access_log, 1 << 30).splitlines():
            f = line.split(" ")
            if len(f) == 5 and f[2].isdigit():
                s = Served(float(f[0]), f[1], int(f[2]), f[3], float(f[4]))
                if s.at >= since:
                    out.append(s)
        return out

    def get(self, path: str, headers: dict | None = None, timeout: float = 15):
        """(status, lower-case headers, body, seconds) of one GET through the CDN."""
        return timed_get(self.port, path, headers, timeout)
