"""Publishing rank vectors as epochs (SPEC §4 "warm start and incremental operation").

An epoch is written in full — per-host packed float64 vectors, the top-pages and host-rank
zsets, the list of its hosts — before one HSET on the state hash switches readers to it
together with the change-stream offset it covers (so a restart knows exactly what it has
seen). The previous epoch stays readable for one more cycle; older ones are then dropped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankcrawl.ranker.store.graphstore import GraphStore, with_retry
from rankcrawl.ranker.store.hostgraph import HostGraph

TOP_K = 10_000
HOSTS_PER_PIPELINE = 256


@dataclass(frozen=True)
class Published:
    """The state hash: current epoch, stream offset it covers, and solve figures."""

    epoch: int
    offset: str
    fields: dict[str, str]


def current(store: GraphStore) -> Published | None:
    """The published state, or None before the first publish."""
    raw = with_retry(lambda: store.client.hgetall(store.keys.ranks))
    if not raw or b"epoch" not in raw:
        return None
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    return Published(int(fields["epoch"]), fields.get("offset", "0-0"), fields)


def epoch_host_ids(store: GraphStore, epoch: int) -> np.ndarray | None:
    """HostIDs with a rank vector in ``epoch`` (None if the epoch is gone)."""
    raw = with_retry(lambda: store.client.get(store.keys.epoch_hosts(epoch)))
    return None if raw is None else np.frombuffer(raw, dtype="<u4")


def load_vectors(store: GraphStore, epoch: int) -> dict[int, np.ndarray] | None:
    """Per-host rank vectors of ``epoch`` (HostID → float64 per LocalID), None if it is gone."""
    hids = epoch_host_ids(store, epoch)
    if hids is None:
        return None
    out: dict[int, np.ndarray] = {}
    for i in range(0, len(hids), HOSTS_PER_PIPELINE):
        part = [int(h) for h in hids[i : i + HOSTS_PER_PIPELINE]]

        def run() -> list[Any]:
            pipe = store.client.pipeline(transaction=False)
            for h in part:
                pipe.get(store.keys.rank(h, epoch))
            return pipe.execute()

        for h, raw in zip(part, with_retry(run)):
            if raw is None:
                return None
            out[h] = np.frombuffer(raw, dtype="<f8")
    return out


def _drop(store: GraphStore, epoch: int) -> None:
    """Delete every key of ``epoch``.

    The host list is first renamed to a tombstone, so a reader that still sees the host list
    after its reads knows none of the keys it read was deleted yet; an interrupted drop is
    finished by the next one.
    """
    alive, dead = store.keys.epoch_hosts(epoch), store.keys.epoch_dropping(epoch)
    if with_retry(lambda: store.client.exists(alive)):
        with_retry(lambda: store.client.rename(alive, dead))
    raw = with_retry(lambda: store.client.get(dead))
    hids = np.frombuffer(raw, dtype="<u4") if raw else np.zeros(0, dtype="<u4")
    for i in range(0, len(hids), HOSTS_PER_PIPELINE):
        part = hids[i : i + HOSTS_PER_PIPELINE]

        def run() -> None:
            pipe = store.client.pipeline(transaction=False)
            for h in part:
                pipe.delete(store.keys.rank(int(h), epoch))
            pipe.execute()

        with_retry(run)
    with_retry(lambda: store.client.delete(store.keys.top(epoch), store.keys.hostrank(epoch)))
    with_retry(lambda: store.client.delete(dead))


def _exists(store: GraphStore, epoch: int) -> bool:
    keys = (store.keys.epoch_hosts(epoch), store.keys.epoch_dropping(epoch))
    return bool(with_retry(lambda: store.client.exists(*keys)))


def drop_old(store: GraphStore, epoch: int) -> None:
    """Drop epochs before ``epoch - 1``, oldest first (the previous one stays for readers)."""
    oldest = epoch - 2
    while oldest > 1 and _exists(store, oldest - 1):
        oldest -= 1
    for e in range(max(oldest, 1), epoch - 1):
        _drop(store, e)


def alive(store: GraphStore, epoch: int) -> bool:
    """True while ``epoch`` is fully readable; check it AFTER reading to trust what was read."""
    return bool(with_retry(lambda: store.client.exists(store.keys.epoch_hosts(epoch))))


def publish(store: GraphStore, graph: HostGraph, r: np.ndarray, offset: str, stats: dict[str, Any], top_k: int = TOP_K) -> int:
    """Write ``r`` (graph order) as the next epoch, switch to it, drop old epochs; returns the epoch."""
    state = current(store)
    epoch = (state.epoch if state else 0) + 1
    _drop(store, epoch)  # leftovers of a publish interrupted before its switch
    offsets = graph.host_offsets
    hids = [int(h) for h in graph.host_ids]
    for i in range(0, len(hids), HOSTS_PER_PIPELINE):

        def run(i: int = i) -> None:
            pipe = store.client.pipeline(transaction=False)
            for k in range(i, min(i + HOSTS_PER_PIPELINE, len(hids))):
                pipe.set(store.keys.rank(hids[k], epoch), r[offsets[k] : offsets[k + 1]].astype("<f8").tobytes())
            pipe.execute()

        with_retry(run)
    best = np.argsort(-r, kind="stable")[:top_k]
    host_pos = np.searchsorted(offsets, best, side="right") - 1
    urls = store.urls_of(zip(graph.host_ids[host_pos].tolist(), (best - offsets[host_pos]).tolist()))
    top = {u: float(r[i]) for u, i in zip(urls, best) if u is not None}
    host_sum = np.bincount(graph.host_of_page, weights=r, minlength=graph.n_hosts)
    names = store.host_names(hids)
    hostrank = {n: float(s) for n, s in zip(names, host_sum) if n is not None}

    def run_tables() -> None:
        pipe = store.client.pipeline(transaction=False)
        for key, mapping in ((store.keys.top(epoch), top), (store.keys.hostrank(epoch), hostrank)):
            pipe.delete(key)
            items = list(mapping.items())
            for j in range(0, len(items), 5000):
                pipe.zadd(key, dict(items[j : j + 5000]))
        pipe.set(store.keys.epoch_hosts(epoch), np.asarray(hids, dtype="<u4").tobytes())
        pipe.execute()

    with_retry(run_tables)
    fields = {k: str(v) for k, v in stats.items()}
    fields.update(epoch=str(epoch), offset=offset, published_at=f"{time.time():.3f}")
    with_retry(lambda: store.client.hset(store.keys.ranks, mapping=fields))
    drop_old(store, epoch)
    return epoch
