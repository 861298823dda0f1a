"""Reading published ranks: for users, the CLI and the crawler's request priorities.

Every query reads the epoch and its norm once (one HGETALL) and then only keys that epoch's
manifest names; if the epoch was dropped meanwhile (two publishes during one query), it starts
over on the new epoch. Stored scores are unnormalised: rank = score / norm; NaN = not ranked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import redis

from rankcrawl.ranker.store.corrupt import CorruptValue, parse_float, parse_text, wrong_type
from rankcrawl.ranker.store.epochs import MANIFEST, Published, alive, current, get_many, manifest, vector_of
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.settings.keys import DEFAULT_PREFIX

ATTEMPTS = 5
CACHE_SIZE = 100_000


def score_pairs(raw: list[Any]) -> list[tuple[bytes, Any]]:
    """(member, score) pairs of a raw ``WITHSCORES`` reply: RESP3's pairs or RESP2's flat list. Read raw,
    as redis-py's parser turns every RESP3 score back into text and parses it again (most of the
    crawler's rank reads' CPU)."""
    if raw and isinstance(raw[0], list):
        return [(m, s) for m, s in raw]
    it = iter(raw)
    return list(zip(it, it))


class EpochGone(Exception):
    """The epoch being read was dropped; the query restarts on the current one."""


class RankQueries:
    """Queries over the published epoch. ``refresh``: seconds the cached epoch number is trusted."""

    def __init__(self, client: Any, prefix: str = DEFAULT_PREFIX, refresh: float = 1.0) -> None:
        self.store = GraphStore(client, prefix)
        self.keys = self.store.keys
        self.refresh = refresh
        self._cached_epoch: int | None = None
        self._checked = -math.inf
        self._page_ranks: dict[str, float | None] = {}

    def epoch(self) -> int | None:
        """The published epoch (None before the first publish)."""
        state = current(self.store)
        return state.epoch if state else None

    def _consistent(self, read: Any) -> Any:
        """Run ``read(state)`` on one epoch, restarting if that epoch vanishes underneath."""
        for _ in range(ATTEMPTS):
            state = current(self.store)
            if state is None:
                return read(None)
            try:
                return read(state)
            except EpochGone:
                continue
        raise RuntimeError("ranks are being republished faster than they can be read")

    def _zrange(self, key_of: Any, n: int) -> list[tuple[str, float]]:
        def read(state: Published | None) -> list[tuple[str, float]]:
            if state is None or n <= 0:
                return []
            key = key_of(state.epoch)
            try:
                rows = score_pairs(self.store.client.execute_command("ZREVRANGE", key, 0, n - 1, "WITHSCORES"))
            except redis.ResponseError as exc:
                if not wrong_type(exc):
                    raise
                self.store.corruption.add(key, "wrong type")
                rows = []
            if not alive(self.store, state.epoch):
                raise EpochGone
            out = []
            for u, s in rows:
                try:
                    out.append((parse_text(u, key, "member"), parse_float(s, key, "score") / state.norm))
                except CorruptValue as exc:
                    self.store.corruption.report(exc)
            return out

        return self._consistent(read)

    def top(self, n: int = 10) -> list[tuple[str, float]]:
        """The ``n`` best pages (at most the published top list) as (url, rank)."""
        return self._zrange(self.keys.top, n)

    def top_hosts(self, n: int = 10) -> list[tuple[str, float]]:
        """The ``n`` best hosts as (host key, summed rank of its pages)."""
        return self._zrange(self.keys.hostrank, n)

    def _written_in(self, epoch: int, hids: list[int]) -> dict[int, int]:
        """HostID → the epoch whose rank key holds its vector in ``epoch`` (0: none, or a corrupt entry:
        counted)."""
        key = self.keys.manifest(epoch)
        pipe = self.store.client.pipeline(transaction=False)
        for h in hids:
            pipe.getrange(key, 4 * h, 4 * h + 3)
        raw = self.store.replies(pipe)
        out = {}
        for h, b in zip(hids, raw):
            e = int(np.frombuffer(b, dtype=MANIFEST)[0]) if isinstance(b, bytes) and len(b) == 4 else 0
            if isinstance(b, Exception) or e > epoch:
                self.store.corruption.add(key, "wrong type" if isinstance(b, Exception) else f"names epoch {e}")
                e = 0
            out[h] = e
        return out

    def rank(self, urls: Iterable[str]) -> dict[str, float | None]:
        """Rank of each URL in the published epoch; None if the page is not ranked (yet, or at all)."""
        urls = list(urls)

        def read(state: Published | None) -> dict[str, float | None]:
            ids = self.store.ids(urls, create=False)
            if state is None:
                return {u: None for u in urls}
            written = self._written_in(state.epoch, sorted({i[0] for i in ids if i is not None}))
            found = [i for i in ids if i is not None and written[i[0]]]
            pipe = self.store.client.pipeline(transaction=False)
            for h, lid in found:
                pipe.getrange(self.keys.rank(h, written[h]), 8 * lid, 8 * lid + 7)
            raw = dict(zip(found, self.store.replies(pipe)))
            if not alive(self.store, state.epoch):
                raise EpochGone
            out: dict[str, float | None] = {}
            for u, i in zip(urls, ids):
                b = raw.get(i, b"") if i is not None else b""
                if isinstance(b, Exception):
                    self.store.corruption.add(self.keys.rank(i[0], written[i[0]]), "wrong type")  # type: ignore[index]
                    b = b""
                x = float(np.frombuffer(b, dtype="<f8")[0]) if len(b) == 8 else math.nan
                if not (math.isnan(x) or (math.isfinite(x) and x >= 0)):
                    self.store.corruption.add(self.keys.rank(i[0], written[i[0]]), f"score {x!r}")  # type: ignore[index]
                    x = math.nan
                out[u] = None if math.isnan(x) else x / state.norm
            return out

        return self._consistent(read)

    def export(self) -> Iterator[tuple[str, float]]:
        """Every ranked page as (url, rank), host by host; the ranks sum to 1."""
        for _ in range(ATTEMPTS):
            state = current(self.store)
            if state is None:
                return
            rows = self._export_epoch(state)
            if rows is not None:
                yield from rows
                return
        raise RuntimeError("ranks are being republished faster than they can be read")

    def _export_epoch(self, state: Published) -> list[tuple[str, float]] | None:
        m = manifest(self.store, state.epoch)
        if m is None:
            return None
        hids = np.flatnonzero(m).tolist()
        rows: list[tuple[str, float]] = []
        names = self.store.host_names(hids)
        for hid, name in zip(hids, names):
            key = self.keys.rank(hid, int(m[hid]))
            raw = get_many(self.store, [key])[0]
            if raw is None:
                return None
            vector = vector_of(self.store, key, raw)
            if vector is None or name is None:  # counted
                continue
            r = vector / state.norm
            by_lid = self.store.paths(hid)
            rows += [(f"{name}{by_lid[lid]}", float(x)) for lid, x in enumerate(r) if not math.isnan(x) and lid in by_lid]
        return rows if alive(self.store, state.epoch) else None

    # -- cheap cached lookups for the crawler ------------------------------------------------
    def _epoch_cached(self) -> int | None:
        now = time.monotonic()
        if now - self._checked >= self.refresh:
            epoch = self.epoch()
            self._checked = now
            if epoch != self._cached_epoch:
                self._cached_epoch = epoch
                self._page_ranks = {}
        return self._cached_epoch

    def page_rank(self, url: str) -> float | None:
        """Rank of one page, cached per epoch."""
        self._epoch_cached()
        if url not in self._page_ranks:
            if len(self._page_ranks) >= CACHE_SIZE:
                self._page_ranks.clear()
            self._page_ranks[url] = self.rank([url])[url]
        return self._page_ranks[url]
