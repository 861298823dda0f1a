"""Published rank epochs (SPEC §4 "warm start and incremental operation"): reading and publishing.

An epoch is a manifest — per HostID, the epoch whose rank key holds that host's vector — plus a
top-pages and a host-rank zset, and the state hash's ``norm``: vectors hold the unnormalised
scores y, rank = y / norm, so a host whose scores did not move is not rewritten: its key from
an earlier epoch stays in the manifest. Readers take (epoch, norm) from one HGETALL, read, then
check that the manifest still exists (``alive``): it is renamed away before any key it names is
deleted. Epoch numbers come from INCR and are never reused, so an interrupted or fenced-off
publish can never overwrite keys another ranker published; its leftovers are cleaned later.
The current and the previous epoch stay readable; older ones are dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import redis

from rankcrawl.ranker.store.corrupt import STREAM_ID, CorruptValue, parse_float, parse_int, parse_text, wrong_type
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.lease import Lease, LeaseLost

TOP_K = 10_000
HOSTS_PER_PIPELINE = 256
HOSTS_PER_MSET = 2048
KEYS_PER_UNLINK = 4096
MANIFEST = np.dtype("<u4")

SWITCH = """
if redis.call('TYPE', KEYS[1]).ok ~= 'string' or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local kind = redis.call('TYPE', KEYS[2]).ok
if kind ~= 'hash' and kind ~= 'none' then redis.call('DEL', KEYS[2]) end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('SREM', KEYS[3], ARGV[2])
if ARGV[3] ~= '' then redis.call('SADD', KEYS[4], ARGV[3]) end
return 1
"""
"""KEYS: lease, state, attempts, retired. ARGV: token, new epoch, epoch retired ('' none), field, value…
A state key of another type (corrupt, counted by ``current``) is replaced."""


@dataclass(frozen=True)
class Published:
    """The state hash: current epoch, the one before it, the norm of its scores, offset, figures."""

    epoch: int
    previous: int
    norm: float
    offset: str
    fields: dict[str, str]


def current(store: GraphStore) -> Published | None:
    """The published state, or None before the first publish and when the state hash is corrupt
    (counted; the next publish replaces it)."""
    key = store.keys.ranks
    try:
        raw = store.client.hgetall(key)
    except redis.ResponseError as exc:
        if not wrong_type(exc):
            raise
        store.corruption.add(key, "wrong type")
        return None
    if not raw or b"epoch" not in raw:
        return None
    try:
        f = {k.decode(): parse_text(v, key, k.decode(errors="replace")) for k, v in raw.items()}
        epoch = parse_int(raw[b"epoch"], key, "epoch")
        previous = parse_int(raw.get(b"previous", b"0"), key, "previous")
        norm = parse_float(raw.get(b"norm", b"1.0"), key, "norm", positive=True)
        offset = f.get("offset", "0-0")
        if STREAM_ID.match(offset) is None or not epoch:
            raise CorruptValue(key, f"epoch {epoch}, offset {offset[:40]!r}")
    except (CorruptValue, UnicodeDecodeError) as exc:
        store.corruption.report(exc if isinstance(exc, CorruptValue) else CorruptValue(key, "a field is not UTF-8"))
        return None
    return Published(epoch, previous, norm, offset, f)


def manifest(store: GraphStore, epoch: int) -> np.ndarray | None:
    """uint32 per HostID: the epoch whose key holds the host's vector in ``epoch`` (None if gone).
    CorruptValue for a manifest of another type, not whole uint32s, or naming an epoch after
    ``epoch``; entries past the host count are dropped (counted)."""
    key = store.keys.manifest(epoch)
    try:
        raw = store.client.get(key)
    except redis.ResponseError as exc:
        if not wrong_type(exc):
            raise
        raise CorruptValue(key, "wrong type") from None
    if raw is None:
        return None
    if len(raw) % MANIFEST.itemsize:
        raise CorruptValue(key, f"{len(raw)} bytes, not whole uint32s")
    m = np.frombuffer(raw, dtype=MANIFEST)
    if (m > epoch).any():
        raise CorruptValue(key, f"names epoch {int(m.max())}, after its own")
    n_hosts = int(store.client.hlen(store.keys.hosts))
    if len(m) > n_hosts and m[n_hosts:].any():
        store.corruption.add(key, f"entries for {len(m)} hosts, {n_hosts} exist")
    return m[:n_hosts]


def alive(store: GraphStore, epoch: int) -> bool:
    """True while ``epoch`` is fully readable; check it AFTER reading to trust what was read."""
    return bool(store.client.exists(store.keys.manifest(epoch)))


def get_many(store: GraphStore, keys: list[str]) -> list[bytes | None]:
    """GET of ``keys``; a key of another type reads as missing (counted)."""
    out: list[bytes | None] = []
    for i in range(0, len(keys), HOSTS_PER_PIPELINE):
        part = keys[i : i + HOSTS_PER_PIPELINE]
        pipe = store.client.pipeline(transaction=False)
        for k in part:
            pipe.get(k)
        got = store.replies(pipe)
        for k, r in zip(part, got):
            if isinstance(r, Exception):
                store.corruption.add(k, "wrong type")
        out += [None if isinstance(r, Exception) else r for r in got]
    return out


def vector_of(store: GraphStore, key: str, raw: bytes) -> np.ndarray | None:
    """A stored score vector: whole float64s, each NaN (not ranked) or finite and not negative;
    None (counted) otherwise."""
    if len(raw) % 8:
        store.corruption.add(key, f"{len(raw)} bytes, not whole float64s")
        return None
    v = np.frombuffer(raw, dtype="<f8")
    if (bad := int((~(np.isnan(v) | (np.isfinite(v) & (v >= 0)))).sum())):
        store.corruption.add(key, f"{bad} scores neither NaN nor finite and >= 0")
        return None
    return v


def readable_manifest(store: GraphStore, epoch: int) -> np.ndarray | None:
    """``manifest``, None (counted) where it is corrupt."""
    try:
        return manifest(store, epoch)
    except CorruptValue as exc:
        store.corruption.report(exc)
        return None


def load_vectors(store: GraphStore, epoch: int) -> dict[int, np.ndarray] | None:
    """Per-host score vectors y of ``epoch`` (HostID → float64 per LocalID), None if it is gone or
    its manifest corrupt; corrupt vectors are left out (each counted)."""
    m = readable_manifest(store, epoch)
    if m is None:
        return None
    hids = np.flatnonzero(m).tolist()
    keys = [store.keys.rank(h, int(m[h])) for h in hids]
    raws = get_many(store, keys)
    if any(r is None for r in raws) or not alive(store, epoch):
        return None
    vectors = {h: vector_of(store, k, r) for h, k, r in zip(hids, keys, raws)}  # type: ignore[arg-type]
    return {h: v for h, v in vectors.items() if v is not None}


class RankPublisher:
    """Writes epochs: only the host vectors that changed since this publisher's last epoch."""

    def __init__(self, store: GraphStore, top_k: int = TOP_K) -> None:
        self.store, self.keys, self.top_k = store, store.keys, top_k
        self.last_epoch: int | None = None  # the epoch this publisher switched to last

    def full_publish_needed(self) -> bool:
        """True when the published epoch is not this publisher's last one (another ranker's, or none)."""
        state = current(self.store)
        return state is None or state.epoch != self.last_epoch

    def publish(self, lease: Lease, hosts: Iterable[int], vector: Callable[[int], np.ndarray], norm: float,
                host_sums: dict[int, float], top: dict[str, float], offset: str, stats: dict[str, Any]) -> int:
        """Publish the vectors of ``hosts`` (all of them when ``full_publish_needed``), the top list and
        the host sums of those hosts as a new epoch, switch to it under ``lease``, drop old epochs.

        ``vector(hid)``: scores y per LocalID (NaN = not ranked); rank = y / ``norm``.
        Raises LeaseLost (nothing switched) when the lease is gone."""
        lease.check()
        self.clean()
        state = current(self.store)
        epoch = self._next_epoch(state)
        self.store.client.sadd(self.keys.attempts, epoch)
        prev = readable_manifest(self.store, state.epoch) if state else None
        full = prev is None or state is None or state.epoch != self.last_epoch
        hids = sorted({int(h) for h in hosts})
        size = max([len(prev) if prev is not None else 0] + [h + 1 for h in hids])
        new = np.zeros(size, dtype=MANIFEST)
        if prev is not None:
            new[: len(prev)] = prev
        if full:
            hids = sorted(set(hids) | set(np.flatnonzero(new).tolist()))
        replaced = np.array([(h, new[h]) for h in hids if h < len(new) and new[h]], dtype=MANIFEST).reshape(-1, 2)
        new[hids] = epoch
        self.store.client.set(self.keys.manifest(epoch), new.tobytes())
        if state is not None:
            self.store.client.set(self.keys.garbage(state.epoch), replaced.tobytes())
        self._write_vectors(epoch, hids, vector)
        self._write_tables(epoch, state.epoch if state and not full else None, host_sums, top)
        fields = {k: str(v) for k, v in stats.items()}
        fields.update(epoch=str(epoch), previous=str(state.epoch if state else 0), norm=repr(float(norm)),
                      offset=offset, published_at=f"{time.time():.3f}", hosts_written=str(len(hids)))
        retired = str(state.previous) if state and state.previous else ""
        args = [x for kv in fields.items() for x in kv]
        switched = self.store.client.eval(
            SWITCH, 4, self.keys.lease, self.keys.ranks, self.keys.attempts, self.keys.retired,
            lease.token, epoch, retired, *args)
        if not switched:
            lease.held = False
            raise LeaseLost(f"lease lost before switching to epoch {epoch}; it will be cleaned up")
        self.last_epoch = epoch
        self.clean()
        return epoch

    def _next_epoch(self, state: Published | None) -> int:
        """A new epoch number (INCR). A counter that is not a number (or below the epochs in use) is
        corrupt: counted, and set past every epoch the state and the bookkeeping sets name."""
        key = self.keys.epoch_counter
        try:
            epoch = int(self.store.client.incr(key))
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            epoch = 0
        in_use = [state.epoch, state.previous] if state else []
        in_use += self._members(self.keys.attempts) + self._members(self.keys.retired)
        floor = max(in_use, default=0)
        if epoch <= floor:
            self.store.corruption.add(key, f"epoch counter {epoch} is not past the epochs in use ({floor})")
            self.store.client.set(key, floor + 1)
            epoch = floor + 1
        return epoch

    def _members(self, key: str) -> list[int]:
        """Epoch numbers of a bookkeeping set; members that are not one (or a set of another type) are
        corrupt: counted and removed."""
        try:
            raw = self.store.client.smembers(key)
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            self.store.corruption.add(key, "wrong type")
            self.store.client.delete(key)
            return []
        out = []
        for m in raw:
            try:
                out.append(parse_int(m, key, "epoch"))
            except CorruptValue as exc:
                self.store.corruption.report(exc)
                self.store.client.srem(key, m)
        return out

    def _write_vectors(self, epoch: int, hids: list[int], vector: Callable[[int], np.ndarray]) -> None:
        cluster = getattr(self.store.client, "nodes_manager", None) is not None
        step = HOSTS_PER_PIPELINE if cluster else HOSTS_PER_MSET
        for i in range(0, len(hids), step):
            values = {self.keys.rank(h, epoch): np.asarray(vector(h), dtype="<f8").tobytes() for h in hids[i : i + step]}
            if cluster:  # one slot per host: a SET each
                pipe = self.store.client.pipeline(transaction=False)
                for key, value in values.items():
                    pipe.set(key, value)
                pipe.execute()
            else:
                self.store.client.mset(values)

    def _write_tables(self, epoch: int, base: int | None, host_sums: dict[int, float], top: dict[str, float]) -> None:
        names = dict(zip(host_sums, self.store.host_names(host_sums)))
        hostrank = {names[h]: s for h, s in host_sums.items() if names[h] is not None}
        top_key, host_key = self.keys.top(epoch), self.keys.hostrank(epoch)
        pipe = self.store.client.pipeline(transaction=False)
        pipe.delete(top_key)
        pipe.delete(host_key)
        if base is not None:
            pipe.copy(self.keys.hostrank(base), host_key)
        for key, mapping in ((top_key, top), (host_key, hostrank)):
            items = list(mapping.items())
            for j in range(0, len(items), 5000):
                pipe.zadd(key, dict(items[j : j + 5000]))
        pipe.execute()

    # -- cleaning --------------------------------------------------------------------------
    def clean(self) -> None:
        """Delete retired epochs and the leftovers of publishes that never switched."""
        state = current(self.store)
        keep = {state.epoch, state.previous} if state else set()
        for e in self._members(self.keys.retired):
            if e not in keep:
                self._drop(e)
            self.store.client.srem(self.keys.retired, e)
        for e in self._members(self.keys.attempts):
            if e in keep:
                continue
            m = readable_manifest(self.store, e)
            own = [] if m is None else np.flatnonzero(m == e).tolist()
            self._delete([self.keys.rank(h, e) for h in own] + [self.keys.top(e), self.keys.hostrank(e),
                                                                 self.keys.manifest(e)])
            self.store.client.srem(self.keys.attempts, e)

    def _drop(self, epoch: int) -> None:
        """Delete a retired epoch: its manifest first (renamed away), then the keys only it read."""
        alive_key, dead = self.keys.manifest(epoch), self.keys.dropping(epoch)
        if self.store.client.exists(alive_key):
            self.store.client.rename(alive_key, dead)
        raw = get_many(self.store, [self.keys.garbage(epoch)])[0] or b""
        if len(raw) % (2 * MANIFEST.itemsize):
            self.store.corruption.add(self.keys.garbage(epoch), f"{len(raw)} bytes, not whole (HostID, epoch) pairs")
            raw = b""
        pairs = np.frombuffer(raw, dtype=MANIFEST).reshape(-1, 2)
        self._delete([self.keys.rank(int(h), int(e)) for h, e in pairs] + [
            self.keys.top(epoch), self.keys.hostrank(epoch), self.keys.garbage(epoch), dead])

    def _delete(self, keys: list[str]) -> None:
        """UNLINK the keys (memory freed by the server in the background): KEYS_PER_UNLINK per
        command on one server, one per key (pipelined) on a cluster, where keys of different
        hosts live in different slots."""
        cluster = getattr(self.store.client, "nodes_manager", None) is not None
        step = HOSTS_PER_PIPELINE if cluster else KEYS_PER_UNLINK
        for i in range(0, len(keys), step):
            part = keys[i : i + step]
            if not cluster:
                self.store.client.unlink(*part)
                continue
            pipe = self.store.client.pipeline(transaction=False)
            for k in part:
                pipe.unlink(k)
            pipe.execute()
