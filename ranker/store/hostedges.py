"""A host's part of the graph as stored (packed out-edges, gone pages, redirects), and the
assembly of hosts into the solver's ``HostGraph`` under the graph conventions (SPEC §2.7)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankcrawl.ranker.store.hostgraph import HostGraph

EDGE = np.dtype([("host", "<u4"), ("local", "<u4"), ("weight", "<f4")])
"""One packed out-edge: 12 bytes."""

PAIR = np.dtype([("host", "<u4"), ("local", "<u4")])


@dataclass(frozen=True)
class HostEdges:
    """One host's part of the graph: page count, out-edges by source LocalID, pages out of the graph."""

    n_pages: int
    src_local: np.ndarray
    dst_host: np.ndarray
    dst_local: np.ndarray
    weight: np.ndarray
    gone: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))  # LocalIDs (4xx/5xx)
    alias_local: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))  # redirecting LocalIDs
    alias_target: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=PAIR))  # their targets
    pages: np.ndarray | None = None  # LocalIDs whose state this holds (a page-level delta); None = every page


HEAD = np.dtype([("local", "<u4"), ("nbytes", "<u4")])
"""Header of a packed host (``OUT_PACKED``): per stored page, its LocalID and its edges' byte count."""

HOST_PACKED = """
local t = redis.call('HGETALL', KEYS[2])
local head, data = {}, {}
for i = 1, #t, 2 do
  head[#head + 1] = struct.pack('<I4I4', tonumber(t[i]), #t[i + 1])
  data[#data + 1] = t[i + 1]
end
local gone = {}
for i, lid in ipairs(redis.call('SMEMBERS', KEYS[3])) do gone[i] = struct.pack('<I4', tonumber(lid)) end
local a = redis.call('HGETALL', KEYS[4])
local alias_from, alias_to = {}, {}
for i = 1, #a, 2 do
  alias_from[#alias_from + 1] = struct.pack('<I4', tonumber(a[i]))
  alias_to[#alias_to + 1] = a[i + 1]
end
return {redis.call('HLEN', KEYS[1]), table.concat(head), table.concat(data), table.concat(gone),
        table.concat(alias_from), table.concat(alias_to)}
"""
"""KEYS: a host's ``paths``, ``out``, ``gone`` and ``alias`` keys. Returns the whole host as its page
count and five buffers — HEAD records, packed edges in the same order, gone LocalIDs (uint32),
redirecting LocalIDs (uint32) and their PAIR targets — so a host crosses the wire in one reply
parsed with ``np.frombuffer``, not two values per page."""


def _host(n_pages: int, lids: np.ndarray, counts: np.ndarray, edges: np.ndarray, gone: Iterable[bytes],
          alias: dict[bytes, bytes] | None, pages: np.ndarray | None) -> HostEdges:
    alias = alias or {}
    return HostEdges(n_pages, np.repeat(lids, counts), edges["host"], edges["local"], edges["weight"],
                     np.array(sorted(map(int, gone)), dtype=np.uint32),
                     np.array(list(map(int, alias)), dtype=np.uint32),
                     np.frombuffer(b"".join(alias.values()), dtype=PAIR), pages)


def unpack_host(n_pages: int, out: dict[bytes, bytes], gone: Iterable[bytes] = (),
                alias: dict[bytes, bytes] | None = None, pages: np.ndarray | None = None) -> HostEdges:
    """Vectorised unpacking of a host's ``out`` hash (LocalID → packed edges), gone set and aliases."""
    values = list(out.values())
    lids = np.array(list(map(int, out)), dtype=np.uint32)
    counts = np.fromiter(map(len, values), dtype=np.int64, count=len(values)) // EDGE.itemsize
    return _host(n_pages, lids, counts, np.frombuffer(b"".join(values), dtype=EDGE), gone, alias, pages)


def unpack_packed(reply: list) -> HostEdges:
    """A whole host from the reply of ``HOST_PACKED``."""
    n_pages, head_raw, data, gone, alias_from, alias_to = reply
    head = np.frombuffer(head_raw, dtype=HEAD)
    counts = head["nbytes"].astype(np.int64) // EDGE.itemsize
    edges = np.frombuffer(data, dtype=EDGE)
    return HostEdges(int(n_pages), np.repeat(head["local"], counts), edges["host"], edges["local"], edges["weight"],
                     np.sort(np.frombuffer(gone, dtype="<u4")), np.frombuffer(alias_from, dtype="<u4"),
                     np.frombuffer(alias_to, dtype=PAIR))


def assemble(hosts: dict[int, HostEdges]) -> HostGraph:
    """The ``HostGraph`` of all hosts (sorted by HostID) under the graph conventions (SPEC §2.7):
    edges into a redirecting page go to its target, edges into gone pages and self-links are
    dropped, gone and redirecting pages are ``excluded``. Edge targets extend page counts."""
    known = np.fromiter(hosts, dtype=np.uint32, count=len(hosts))
    parts = list(hosts.values())

    def cat(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts]).astype(dtype) if parts else np.zeros(0, dtype)

    src_host = np.repeat(known, [len(p.src_local) for p in parts]).astype(np.uint32)
    src_local, dst_host, dst_local = cat("src_local", np.int64), cat("dst_host", np.uint32), cat("dst_local", np.int64)
    weight = cat("weight", np.float32)
    targets = cat("alias_target", PAIR)
    host_ids = np.union1d(np.union1d(known, dst_host), targets["host"]).astype(np.uint32)
    sizes = np.zeros(len(host_ids), dtype=np.int64)
    sizes[np.searchsorted(host_ids, known)] = [p.n_pages for p in parts]
    dst_pos = np.searchsorted(host_ids, dst_host)
    np.maximum.at(sizes, dst_pos, dst_local + 1)
    alias_pos = np.searchsorted(host_ids, targets["host"])
    np.maximum.at(sizes, alias_pos, targets["local"].astype(np.int64) + 1)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    base = offsets[np.searchsorted(host_ids, known)]
    gone = np.concatenate([b + p.gone for b, p in zip(base, parts)] + [np.zeros(0, np.int64)]).astype(np.int64)
    alias_from = np.concatenate([b + p.alias_local for b, p in zip(base, parts)] + [np.zeros(0, np.int64)])
    alias_to = offsets[alias_pos] + targets["local"]
    src = offsets[np.searchsorted(host_ids, src_host)] + src_local
    dst = offsets[dst_pos] + dst_local
    return HostGraph.with_conventions(host_ids, offsets, src, dst, weight, gone, alias_from.astype(np.int64), alias_to)


