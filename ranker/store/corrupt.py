"""Values read back from Redis are input: the one error type for a value that breaks its key's
format (``CorruptValue``), strict parsers for what rankcrawl stores, and the per-family count
of what was skipped (``Corruption``).

Another program, a crash half-way through a write or an operator can leave anything in a key.
Every place that decodes a stored value checks it here (numbers strictly, IDs against the
counters that handed them out) and skips or repairs the record instead of failing; each key
family (``rc:{h<id>}:out``, ``rc:{g}:ranks`` …) is logged once, with the first key met, and
counted.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter
from typing import Any

log = logging.getLogger("rankcrawl.corrupt")

MAX_ID = 0xFFFFFFFF
INTEGER = re.compile(rb"0|[1-9][0-9]{0,18}\Z")
STREAM_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}\Z")
FAMILY_PARTS = (
    (re.compile(r"\{h[0-9]+\}"), "{h<id>}"),
    (re.compile(r"^(.*site:)\{.*\}(:[a-z0-9]+)$", re.S), r"\1{<host>}\2"),
    (re.compile(r":[0-9]+$"), ":<n>"),
)
_logged: set[str] = set()
_logged_lock = threading.Lock()


class CorruptValue(ValueError):
    """The value at ``key`` does not have the format rankcrawl writes there (``why``)."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"corrupt value at key {key}: {why}")
        self.key, self.why = key, why

    @property
    def family(self) -> str:
        return family(self.key)


def family(key: str) -> str:
    """The key pattern of ``key`` (``rc:{h12}:out`` → ``rc:{h<id>}:out``)."""
    for pattern, repl in FAMILY_PARTS:
        key = pattern.sub(repl, key)
    return key


def _text(raw: Any) -> bytes:
    return raw if isinstance(raw, bytes) else str(raw).encode()


def parse_int(raw: Any, key: str, what: str, limit: int | None = None) -> int:
    """A non-negative decimal integer (below ``limit`` when given); CorruptValue otherwise."""
    text = _text(raw)
    if INTEGER.match(text) is None:
        raise CorruptValue(key, f"{what} is not a non-negative integer: {text[:40]!r}")
    value = int(text)
    if limit is not None and value >= limit:
        raise CorruptValue(key, f"{what} {value} is not below {limit}")
    return value


def parse_float(raw: Any, key: str, what: str, positive: bool = False) -> float:
    """A finite number (``positive``: > 0); CorruptValue otherwise."""
    text = _text(raw)
    try:
        value = float(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise CorruptValue(key, f"{what} is not a number: {text[:40]!r}") from None
    if not math.isfinite(value) or (positive and value <= 0):
        raise CorruptValue(key, f"{what} is not a finite{' positive' if positive else ''} number: {value!r}")
    return value


def parse_text(raw: bytes, key: str, what: str) -> str:
    """UTF-8 text without control characters; CorruptValue otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptValue(key, f"{what} is not UTF-8: {raw[:40]!r}") from None
    if not text.isprintable():
        raise CorruptValue(key, f"{what} holds control characters: {text[:40]!r}")
    return text


def wrong_type(exc: BaseException) -> bool:
    """True for a Redis reply error caused by what a key holds (a wrong type, a value that is not a
    number), not by the connection or the server's state."""
    msg = str(exc)
    return "WRONGTYPE" in msg or "not an integer" in msg or "not a valid float" in msg


def key_in(exc: BaseException) -> str:
    """The key named by a pipeline error (``Command # 3 (SADD rc:{h0}:gone 5) …``), else '?'."""
    m = re.search(r"WRONGTYPE key (\S+)", str(exc)) or re.search(r"\(\w+ (\S+)", str(exc))
    return m.group(1) if m else "?"


class Corruption:
    """Corrupt values met, per key family; the first of each family (in this process) is logged."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def report(self, exc: CorruptValue, count: int = 1) -> None:
        """Count ``count`` corrupt records like ``exc`` (skipped or repaired by the caller)."""
        fam = exc.family
        with self._lock:
            self.counts[fam] += count
        with _logged_lock:
            first = fam not in _logged
            _logged.add(fam)
        if first:
            log.warning("rankcrawl: %s; skipped (further corrupt values of %s are counted, not logged)", exc, fam)

    def add(self, key: str, why: str, count: int = 1) -> None:
        self.report(CorruptValue(key, why), count)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        """``N corrupt values skipped (family: n, …)``, or '' when none."""
        if not self.counts:
            return ""
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items()))
        return f"{self.total} corrupt values in Redis skipped ({parts})"
