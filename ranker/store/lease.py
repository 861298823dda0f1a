"""One ranker publishes at a time: a lease in Redis (SET NX PX), renewed while it works.

The holder's random token is the lease value; renewal and release are compare-and-set Lua
scripts, and the publisher's epoch switch checks the token in the same script (fencing), so a
ranker whose lease ran out while it stalled can never switch epochs over another one.
"""

from __future__ import annotations

import secrets
import threading
import time
from types import TracebackType
from typing import Any

from rankcrawl.ranker.store.corrupt import Corruption
from rankcrawl.settings.keys import Keys

RENEW = """
if redis.call('TYPE', KEYS[1]).ok == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
HOLDER = """
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return false end
return redis.call('GET', KEYS[1])
"""
RELEASE = """
if redis.call('TYPE', KEYS[1]).ok == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class LeaseLost(Exception):
    """The lease expired or was taken while this ranker held it."""


class Lease:
    """``with Lease(...) as held:`` — ``held`` is False when another ranker kept it for ``wait`` s.

    While held, a daemon thread renews the expiry every ``ttl / 3`` seconds.
    """

    def __init__(self, client: Any, keys: Keys, ttl: float = 30.0, wait: float = 0.0, poll: float = 0.05,
                 corruption: Corruption | None = None) -> None:
        self.client, self.key = client, keys.lease
        self.corruption = corruption or Corruption()
        self.ttl_ms = max(1, int(ttl * 1000))
        self.wait, self.poll = wait, poll
        self.token = secrets.token_hex(16)
        self.held = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        deadline = time.monotonic() + self.wait
        while True:
            if self.client.set(self.key, self.token, nx=True, px=self.ttl_ms):
                self.held = True
                self._stop.clear()
                self._thread = threading.Thread(target=self._renew, name="rankcrawl-lease", daemon=True)
                self._thread.start()
                return True
            if self.client.pttl(self.key) == -1:  # every lease expires: one without expiry is corrupt
                self.corruption.add(self.key, "a lease without expiry; removed")
                self.client.delete(self.key)
                continue
            if time.monotonic() >= deadline:
                return False
            time.sleep(self.poll)

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl_ms / 3000):
            try:
                if not self.client.eval(RENEW, 1, self.key, self.token, self.ttl_ms):
                    self.held = False
                    return
            except Exception:  # a failed renewal is retried next period; expiry is the safety net
                continue

    def check(self) -> None:
        """Raise LeaseLost unless this ranker still holds the lease."""
        if not self.held or self.client.eval(HOLDER, 1, self.key) != self.token.encode():
            self.held = False
            raise LeaseLost("the ranker lease expired or was taken by another ranker")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.held:
            try:
                self.client.eval(RELEASE, 1, self.key, self.token)
            finally:
                self.held = False

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
