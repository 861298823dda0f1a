"""The change stream: the graph store's log of what each batch changed, the ranker's work queue.

Every batch appends the pages whose stored state it changed (packed (HostID, LocalID) pairs)
and the hosts that got new pages; a warm epoch reads the entries after its offset and reloads
those pages only. The stream is capped (STREAM_MAXLEN entries); a reader whose offset was
trimmed away must reload everything (``stream_gap``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import redis

from rankcrawl.ranker.store.corrupt import MAX_ID, Corruption, CorruptValue, parse_int, wrong_type
from rankcrawl.ranker.store.hostedges import PAIR
from rankcrawl.settings.keys import Keys

STREAM_MAXLEN = 100_000
PAGES_PER_ENTRY = 1 << 16


@dataclass
class Changes:
    """What the change stream names after an offset: pages whose state changed (uint64
    HostID << 32 | LocalID), hosts that got new pages, and hosts to reload whole (entries of
    the older host-level format)."""

    last: str
    pages: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    grown: set[int] = field(default_factory=set)
    whole: set[int] = field(default_factory=set)

    @property
    def hosts(self) -> set[int]:
        """Every host the changes touch."""
        return set((self.pages >> np.uint64(32)).astype(np.int64).tolist()) | self.grown | self.whole

    def __bool__(self) -> bool:
        return bool(len(self.pages) or self.grown or self.whole)


def pair_keys(hosts: np.ndarray, locals_: np.ndarray) -> np.ndarray:
    """uint64 HostID << 32 | LocalID."""
    return (np.asarray(hosts, np.uint64) << np.uint64(32)) | np.asarray(locals_, np.uint64)


def stream_id_key(sid: str | bytes) -> tuple[int, int]:
    """Stream IDs as comparable tuples."""
    ms, _, seq = (sid.decode() if isinstance(sid, bytes) else sid).partition("-")
    return int(ms), int(seq or 0)


class ChangeStream:
    """Writing and reading the change stream; the graph store is one (``client``, ``keys``)."""

    client: Any
    keys: Keys
    corruption: Corruption

    def announce(self, hosts: np.ndarray, locals_: np.ndarray, grown: Iterable[int]) -> None:
        """Append the pages (HostID, LocalID arrays) whose stored state changed and the hosts that got
        new pages to the change stream (entries of at most PAGES_PER_ENTRY pages)."""
        packed = np.empty(len(hosts), dtype=PAIR)
        packed["host"], packed["local"] = hosts, locals_
        grown_field = ",".join(map(str, sorted(set(grown))))
        for i in range(0, max(len(packed), 1), PAGES_PER_ENTRY):
            entry = {"pages": packed[i : i + PAGES_PER_ENTRY].tobytes(), "grown": grown_field if i == 0 else ""}
            try:
                self.client.xadd(self.keys.changes, entry, maxlen=STREAM_MAXLEN, approximate=True)
            except redis.ResponseError as exc:
                if not wrong_type(exc):
                    raise
                self.corruption.add(self.keys.changes, "wrong type; replaced by a new stream (the ranker reloads all)")
                self.client.delete(self.keys.changes)
                self.client.xadd(self.keys.changes, entry, maxlen=STREAM_MAXLEN, approximate=True)

    def stream_head(self) -> str:
        """ID of the newest change entry (``0-0`` when there is none, or the key is not a stream: counted)."""
        try:
            last = self.client.xrevrange(self.keys.changes, count=1)
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            self.corruption.add(self.keys.changes, "wrong type")
            return "0-0"
        return last[0][0].decode() if last else "0-0"

    def stream_gap(self, since: str) -> bool:
        """True if entries after ``since`` were trimmed away (the caller must reload everything)."""
        try:
            info = self.client.xinfo_stream(self.keys.changes)
        except redis.ResponseError:  # no stream (or not one: counted by ``stream_head``)
            return False
        deleted = info.get("max-deleted-entry-id") or b"0-0"
        return stream_id_key(deleted) > stream_id_key(since)

    def changes_since(self, stream_id: str, until: str | None = None, block_ms: int | None = None) -> Changes:
        """What changed after ``stream_id`` (up to ``until``); ``.last`` = the last entry ID read.

        With ``block_ms`` and no entry yet, waits that long for one (XREAD BLOCK).
        """
        out = Changes(stream_id)
        key = self.keys.changes
        try:
            if block_ms is not None and not self.client.xread({key: stream_id}, count=1, block=block_ms):
                return out
            first = self.client.xrange(key, f"({out.last}", until or "+", count=5000)
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            self.corruption.add(key, "wrong type")
            return out
        end = until or "+"
        packed: list[bytes] = []
        entries = first
        while True:
            for sid, fields in entries:
                pages = fields.get(b"pages", b"")
                if len(pages) % PAIR.itemsize:
                    self.corruption.add(key, f"pages of entry {sid.decode()} are {len(pages)} bytes, not whole pairs")
                else:
                    packed.append(pages)
                for name, into in ((b"grown", out.grown), (b"hosts", out.whole)):  # ``hosts``: host-level format
                    for h in fields.get(name, b"").split(b","):
                        try:
                            if h:
                                into.add(parse_int(h, key, f"{name.decode()} of entry {sid.decode()}", MAX_ID + 1))
                        except CorruptValue as exc:
                            self.corruption.report(exc)
                out.last = sid.decode()
            if len(entries) < 5000:
                pairs = np.frombuffer(b"".join(packed), dtype=PAIR)
                out.pages = np.unique(pair_keys(pairs["host"], pairs["local"]))
                return out
            entries = self.client.xrange(key, f"({out.last}", end, count=5000)
