"""IDs of many raw URLs at once, for the bulk import: each distinct URL is normalised and given
its (HostID, LocalID) once, with no Python object per URL on the common path.

Raw URLs are interned as bytes (``_scan.intern``). A new URL already in normal form
(``_scan.normal_host_end``, a subset of the forms ``settings.urls.normalize_url`` leaves as they
are) is split into host key and path in place; any other goes through ``normalize_url``. Paths get their
LocalIDs per host batch from one Lua call (``assign.ASSIGN_IDS``, as for ``GraphStore.ids``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import numpy as np

from rankcrawl.ranker.store import _scan
from rankcrawl.ranker.store.assign import ARGS_PER_CALL, assigned, queue_assign
from rankcrawl.ranker.store.corrupt import key_in, wrong_type
from rankcrawl.ranker.store.graphstore import GraphStore

CALLS_PER_PIPELINE = 256


class Table:
    """Byte strings → entry numbers 0, 1, … (``_scan.intern``), growing as needed."""

    def __init__(self) -> None:
        self.n = 0
        self.table = np.full((1 << 10, 2), -1, dtype=np.int64)  # rows: hash, entry (-1: free)
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.arena = np.zeros(0, dtype=np.uint8)
        self.offsets = np.zeros(1, dtype=np.int64)

    def add(self, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        need, size = self.n + len(starts), int(self.offsets[self.n] + (ends - starts).sum())
        if 2 * need > len(self.table):
            self.table = np.full((1 << int(2 * need).bit_length(), 2), -1, dtype=np.int64)
            _scan.rehash(self.table, self.hashes, self.n)
        if need + 1 > len(self.offsets):
            self.offsets = np.concatenate([self.offsets, np.zeros(need + 1 - len(self.offsets) + need // 2, np.int64)])
            self.hashes = np.concatenate([self.hashes, np.zeros(len(self.offsets) - 1 - len(self.hashes), np.uint64)])
        if size > len(self.arena):
            self.arena = np.concatenate([self.arena, np.zeros(size - len(self.arena) + size // 2, np.uint8)])
        out, self.n = _scan.intern(buf, starts, ends, self.table, self.hashes, self.arena, self.offsets, self.n)
        return out

    def text(self, i: int) -> str:
        return self.arena[self.offsets[i] : self.offsets[i + 1]].tobytes().decode()


class UrlIds:
    """Raw URLs → entry numbers now (``valid[entry]``: False when not http(s)), and their
    (HostID << 32 | LocalID) from ``finish()`` (-1: not valid, or a corrupt stored ID): LocalIDs are assigned by the store in a helper
    thread (``worker``) while the caller reads on."""

    def __init__(self, store: GraphStore, split: Callable[[str], tuple[str, str] | None], worker: Executor) -> None:
        self.store, self.split, self.worker = store, split, worker
        self.urls, self.hosts = Table(), Table()
        self.valid = np.zeros(0, dtype=bool)  # per URL entry
        self.host_ids = np.zeros(0, dtype=np.int64)  # per host entry
        self.grown: set[int] = set()  # hosts that got new pages
        self._parts: list[Future[np.ndarray]] = []  # IDs of consecutive runs of entries

    def of_fields(self, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Entry numbers of the URLs buf[starts[i]:ends[i]] (UTF-8 bytes)."""
        first = self.urls.n
        entry = self.urls.add(buf, starts, ends)
        if self.urls.n > first:
            self._assign(first, self.urls.n)
        return entry

    def finish(self) -> np.ndarray:
        """(HostID << 32 | LocalID) per entry, -1 where not valid (waits for the helper thread)."""
        return np.concatenate([p.result() for p in self._parts] + [np.zeros(0, np.int64)])

    def of_strings(self, urls: list[str]) -> np.ndarray:
        """Entry numbers of URLs given as strings (none holding a line break)."""
        if not urls:
            return np.zeros(0, dtype=np.int64)
        buf = np.frombuffer(("\n".join(urls) + "\n").encode(), dtype=np.uint8)
        ends = np.flatnonzero(buf == _scan.NL)
        if len(ends) != len(urls):
            raise ValueError("a URL holds a line break")
        return self.of_fields(buf, np.concatenate([[0], ends[:-1] + 1]), ends)

    def _assign(self, first: int, last: int) -> None:
        """IDs of URL entries first..last-1: normal form split in place, the rest normalised."""
        t = self.urls
        lo, hi = t.offsets[first:last], t.offsets[first + 1 : last + 1]
        cut = _scan.host_ends(t.arena, lo, hi)
        cut[hi - lo > self.store.max_url_length] = -1  # the URL contract's length: decided in Python
        buf = t.arena
        slow = np.flatnonzero(cut < 0)
        if len(slow):  # normalised in Python; their normal forms go into a side buffer
            parts = [self.split(t.text(first + int(i))) for i in slow.tolist()]
            text = b"".join((h + p).encode() for h, p in (x for x in parts if x is not None))
            side = np.frombuffer(text, dtype=np.uint8)
            lens = np.array([(len(h.encode()), len((h + p).encode())) for h, p in (x for x in parts if x)],
                            np.int64).reshape(-1, 2)
            ok = np.array([x is not None for x in parts], dtype=bool)
            base = len(buf)
            buf = np.concatenate([buf, side])
            ends = np.concatenate([[0], np.cumsum(lens[:, 1])]) if len(lens) else np.zeros(1, np.int64)
            lo, hi, cut = lo.copy(), hi.copy(), cut.copy()
            lo[slow[ok]] = base + ends[:-1]
            cut[slow[ok]] = base + ends[:-1] + lens[:, 0]
            hi[slow[ok]] = base + ends[1:]
            cut[slow[~ok]] = -1
        valid = cut >= 0
        ids = np.full(last - first, -1, dtype=np.int64)
        host_of = np.full(last - first, -1, dtype=np.int64)
        before = self.hosts.n
        host_of[valid] = self.hosts.add(buf, lo[valid], cut[valid])
        if self.hosts.n > before:
            names = [self.hosts.text(i) for i in range(before, self.hosts.n)]
            got = self.store.host_ids(names, create=True)
            self.host_ids = np.concatenate([self.host_ids, np.array([got.get(x, -1) for x in names], dtype=np.int64)])
        hid = np.full(last - first, -1, dtype=np.int64)
        hid[valid] = self.host_ids[host_of[valid]]
        valid &= hid >= 0  # a host whose stored HostID is corrupt (counted by the store)
        order = np.flatnonzero(valid)[np.argsort(hid[valid], kind="stable")]
        paths = _scan.gather(buf, cut[order], hi[order])
        path_len = (hi[order] - cut[order]).astype("<u4")
        path_end = np.cumsum(path_len, dtype=np.int64)
        self.valid = np.concatenate([self.valid, valid])

        def run() -> np.ndarray:
            lids = self._local_ids(hid[order], paths, path_len, path_end)
            ids[order] = np.where(lids >= 0, (hid[order] << 32) | lids, -1)
            return ids

        self._parts.append(self.worker.submit(run))

    def _local_ids(self, hid: np.ndarray, paths: np.ndarray, path_len: np.ndarray, path_end: np.ndarray) -> np.ndarray:
        """LocalIDs of the paths (grouped by host): one ``ASSIGN_IDS`` call per host batch."""
        calls: list[tuple[int, int, int]] = []  # (hid, first, last) per call
        cuts = np.flatnonzero(np.diff(hid)) + 1
        for a, b in zip(np.concatenate([[0], cuts]).tolist(), np.concatenate([cuts, [len(hid)]]).tolist()):
            for i in range(a, b, ARGS_PER_CALL):
                calls.append((int(hid[a]), i, min(i + ARGS_PER_CALL, b)))
        out = np.empty(len(hid), dtype=np.int64)
        keys, raw = self.store.keys, paths.tobytes()
        starts = path_end - path_len
        for j in range(0, len(calls), CALLS_PER_PIPELINE):
            part = calls[j : j + CALLS_PER_PIPELINE]
            pipe: Any = self.store.client.pipeline(transaction=False)
            for h, a, b in part:
                queue_assign(pipe, keys.urls(h), keys.paths(h), raw[starts[a] : path_end[b - 1]], path_len[a:b].tobytes())
            for (h, a, b), res in zip(part, pipe.execute(raise_on_error=False)):
                if isinstance(res, Exception):
                    if not wrong_type(res):
                        raise res
                    self.store.corruption.add(key_in(res), "wrong type", b - a)
                    out[a:b] = -1
                    continue
                lids, new = assigned(res)
                if (bad := int((lids < 0).sum())):
                    self.store.corruption.add(keys.urls(h), "stored LocalID is not a number below the count", bad)
                out[a:b] = lids
                if new:
                    self.grown.add(h)
        return out
