"""Ports for the tests' servers and RTP peers, chosen so that neither another process nor a
parallel test can take one between the test's check and the server's bind.

A port found by binding port 0 and closing the socket comes from the kernel's ephemeral range
(net.ipv4.ip_local_port_range, 32768-60999 on Debian), which every socket bound to port 0 also
draws from: ffmpeg's and GStreamer's RTP senders, Janus, tessera's own outputs, pytest workers.
Between the check and the receiver's bind one of them could take it (CI once failed on "UDP port
55167 ... already in use" exactly so). Here ports come from below that range, where the kernel never
hands one out by itself, and outside the ranges the servers allocate from on their own (VideoRoom's
remote publishers 10000-10999, `tessera serve --rtp-ports` 20000-20999 by default, and the 21000+ /
23000+ ranges test_cluster and test_store_outage give their nodes). Each pytest-xdist worker gets a
disjoint slice of them, so two workers never pick the same port, and inside one worker a port is
not handed out again until the slice has been walked round once.
"""
from __future__ import annotations

import os
import random
import socket

POOL = [*range(11000, 20000), *range(24000, 32768)]


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _worker_slice() -> list[int]:
    """This process's share of POOL: the whole of it without xdist, 1/n of it in worker gw<i> of n."""
    pool = [p for p in POOL if p < _ephemeral_low()]
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    share = len(pool) // max(count, 1)
    return pool[index * share:(index + 1) * share]


class _Cursor:
    """Walks this worker's slice round from a random start (so two separate pytest runs on one
    machine rarely meet), skipping ports the check finds taken."""

    def __init__(self):
        self.ports = _worker_slice()
        self.next = random.Random(os.getpid() ^ id(self)).randrange(len(self.ports))

    def take(self, count: int, even: bool, free) -> int:
        for _ in range(len(self.ports)):
            if self.next + count > len(self.ports):
                self.next = 0
            first = self.ports[self.next]
            if even and first % 2:
                self.next += 1
                continue
            block = self.ports[self.next:self.next + count]
            self.next += 1
            # consecutive in the pool (not across the hole between its two ranges), and all free
            if block[-1] - first == count - 1 and all(free(p) for p in block):
                self.next += count - 1
                return first
        raise AssertionError(f"no {count} consecutive free ports in this worker's slice "
                             f"{self.ports[0]}-{self.ports[-1]}")


_cursor: _Cursor | None = None


def _take(count: int, even: bool, free) -> int:
    global _cursor
    if _cursor is None:
        _cursor = _Cursor()
    return _cursor.take(count, even, free)


def _bindable(kind: int, port: int) -> bool:
    try:
        with socket.socket(socket.AF_INET, kind) as s:
            s.bind(("0.0.0.0", port))
        return True
    except OSError:
        return False


def tcp_free(port: int) -> bool:
    return _bindable(socket.SOCK_STREAM, port)


def udp_free(port: int) -> bool:
    return _bindable(socket.SOCK_DGRAM, port)


def free_port() -> int:
    """A free TCP port for a test's server (tessera, nginx, Janus's HTTP, PostgreSQL, moto)."""
    return _take(1, False, tcp_free)


def free_udp_pair() -> int:
    """An even UDP port whose odd neighbour (RTCP) is free too."""
    return _take(2, True, udp_free)


def free_udp_range(count: int) -> int:
    """The first port (even) of `count` consecutive free UDP ports."""
    return _take(count, True, udp_free)
