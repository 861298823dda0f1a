"""``FrontierQueue``: one entry per queued URL, re-scorable, popped best-first per politeness slot.

Every queued URL has exactly one entry (a key, its slot — the download slot, by default the host —
a score and a payload, the request). A later discovery of a queued URL changes its entry's score
instead of adding a second one. Ties pop in insertion order (first seen first), so with all scores
equal the queue is FIFO: breadth-first.

Layout: one binary heap per slot of ``(-score, seq, key)`` and one heap of the slots' heads.
A score change pushes a new tuple and leaves the old one in place (lazy deletion: a tuple counts
only while it matches its entry's current score), so an update costs O(log n) and a pop skips the
stale tuples it meets; a heap is rebuilt when stale tuples outnumber live ones. ``pop`` takes a
predicate ``busy(slot)``: busy slots are passed over, so a host whose downloads are all in flight
never blocks the rest (the idea of Scrapy's ``DownloaderAwarePriorityQueue``, which prefers the
slot with the fewest active downloads).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

COMPACT_MIN = 64
"""A slot heap is rebuilt once it holds more than twice its live entries plus this many tuples."""


@dataclass(slots=True)
class Entry:
    """A queued URL: its key, politeness slot, current score, insertion number and payload."""

    key: Hashable
    slot: str
    score: float
    seq: int
    payload: Any


class FrontierQueue:
    """A re-scorable priority queue of unique keys, popped best-first among slots that are not busy.

    ``slot_score(slot, score)``, if given, is what the best entries of different slots are compared
    by; within a slot entries are ordered by their own score, so it must be increasing in ``score``.
    It may depend on the slot's state (its host's counts): after that state changes, ``refresh(slot)``."""

    def __init__(self, slot_score: Callable[[str, float], float] | None = None) -> None:
        self.entries: dict[Hashable, Entry] = {}
        self.slot_score = slot_score
        self._heaps: dict[str, list[tuple[float, int, Hashable]]] = {}
        self._live: dict[str, int] = {}
        self._heads: list[tuple[float, int, str]] = []
        self._registered: dict[str, tuple[float, int]] = {}
        """Per slot, its current tuple in ``_heads`` (−slot score of its best entry, that entry's seq)."""
        self._seq = 0

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())

    def push(self, key: Hashable, slot: str, score: float, payload: Any) -> Entry:
        """Add a new entry (the key must not be queued); returns it."""
        self._seq += 1
        entry = self.entries[key] = Entry(key, slot, float(score), self._seq, payload)
        self._live[slot] = self._live.get(slot, 0) + 1
        self._offer(entry)
        return entry

    def rescore(self, key: Hashable, score: float) -> None:
        """Set a queued key's score (higher pops first)."""
        self.rescore_many(((key, score),))

    def rescore_many(self, scores: Iterable[tuple[Hashable, float]]) -> None:
        """Set the scores of many queued keys (an epoch's): each touched slot is compacted and
        registered once, not once per key."""
        touched: set[str] = set()
        for key, score in scores:
            entry = self.entries[key]
            score = float(score)
            if score != entry.score:
                entry.score = score
                heapq.heappush(self._heaps.setdefault(entry.slot, []), (-score, entry.seq, key))
                touched.add(entry.slot)
        for slot in touched:
            self._compact(slot)
            self.refresh(slot)

    def remove(self, key: Hashable) -> Entry | None:
        """Drop a queued key (its heap tuples go stale); the entry, or None if it was not queued."""
        entry = self.entries.pop(key, None)
        if entry is not None:
            self._live[entry.slot] -= 1
            self.refresh(entry.slot)
        return entry

    def _offer(self, entry: Entry) -> None:
        self._compact(entry.slot)
        heapq.heappush(self._heaps.setdefault(entry.slot, []), (-entry.score, entry.seq, entry.key))
        self.refresh(entry.slot)

    def _compact(self, slot: str) -> None:
        """Rebuild the slot's heap from its live entries once stale tuples outnumber them."""
        heap = self._heaps.get(slot)
        if heap is not None and len(heap) > 2 * self._live[slot] + COMPACT_MIN:
            heap[:] = [(-e.score, e.seq, e.key) for e in self._slot_entries(heap, slot)]
            heapq.heapify(heap)

    def refresh(self, slot: str) -> None:
        """Register the slot's best entry, with its slot score now, in the heads heap."""
        head = self._head(slot)
        if head is None:
            self._registered.pop(slot, None)
            return
        neg = head[0] if self.slot_score is None else -self.slot_score(slot, -head[0])
        if self._registered.get(slot) != (neg, head[1]):
            self._registered[slot] = (neg, head[1])
            heapq.heappush(self._heads, (neg, head[1], slot))
        if len(self._heads) > 4 * len(self._registered) + COMPACT_MIN:
            self._heads[:] = [(neg, seq, s) for s, (neg, seq) in self._registered.items()]
            heapq.heapify(self._heads)

    def _slot_entries(self, heap: list[tuple[float, int, Hashable]], slot: str) -> list[Entry]:
        seen = {key for _, _, key in heap}
        return [self.entries[k] for k in seen if k in self.entries and self.entries[k].slot == slot]

    def _valid(self, item: tuple[float, int, Hashable]) -> bool:
        entry = self.entries.get(item[2])
        return entry is not None and entry.seq == item[1] and -entry.score == item[0]

    def _head(self, slot: str) -> tuple[float, int, Hashable] | None:
        """The slot's best valid tuple (stale ones above it dropped), or None."""
        heap = self._heaps.get(slot)
        while heap and not self._valid(heap[0]):
            heapq.heappop(heap)
        if not heap:
            self._heaps.pop(slot, None)
            self._live.pop(slot, None)
            return None
        return heap[0]

    def pop(self, busy: Callable[[str], bool] | None = None) -> Entry | None:
        """Remove and return the best entry whose slot is not busy; None if every queued slot is busy."""
        skipped: list[tuple[float, int, str]] = []
        found: Entry | None = None
        heads = self._heads
        while heads:
            item = heapq.heappop(heads)
            slot = item[2]
            if self._registered.get(slot) != item[:2]:
                continue  # superseded by a later registration
            if busy is not None and busy(slot):
                skipped.append(item)
                continue
            head = self._head(slot)
            if head is None:  # pragma: no cover - every change of a slot re-registers it
                del self._registered[slot]
                continue
            heapq.heappop(self._heaps[slot])
            found = self.entries.pop(head[2])
            self._live[slot] -= 1
            del self._registered[slot]
            self.refresh(slot)
            break
        for item in skipped:
            heapq.heappush(heads, item)
        return found
