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

CHECKED = """
local bad = {}
local function lid_of(v)
  if #v <= 10 and string.match(v, '^%d+$') then
    local x = tonumber(v)
    if x <= 4294967295 then return x end
  end
  return nil
end
local function read(cmd, key)
  local got = redis.pcall(cmd, key)
  if type(got) == 'table' and got.err then
    bad[#bad + 1] = key .. '\twrong type'
    return cmd == 'HLEN' and 0 or {}
  end
  return got
end
"""
"""Lua prelude of every script that reads graph keys: ``bad`` collects ``key<TAB>problem`` of each
record skipped, ``lid_of`` parses a LocalID strictly (nil: not one), ``read`` runs a read command
and treats a key of the wrong type as empty."""

OUT_RECORDS = """
local t = read('HGETALL', out_key)
local head, data = {}, {}
for i = 1, #t, 2 do
  local lid = lid_of(t[i])
  if lid and #t[i + 1] % 12 == 0 then
    head[#head + 1] = struct.pack('<I4I4', lid, #t[i + 1])
    data[#data + 1] = t[i + 1]
  else
    bad[#bad + 1] = out_key .. '\tfield is not a LocalID with packed edges'
  end
end
"""
"""Lua fragment (after ``CHECKED``): the ``out`` hash at ``out_key`` as HEAD records (``head``) and the
packed edges in the same order (``data``); malformed records skipped into ``bad``."""

GONE_AND_ALIASES = """
local gone = {}
for _, member in ipairs(read('SMEMBERS', gone_key)) do
  local lid = lid_of(member)
  if lid then gone[#gone + 1] = struct.pack('<I4', lid) else bad[#bad + 1] = gone_key .. '\tmember is not a LocalID' end
end
local a = read('HGETALL', alias_key)
local alias_from, alias_to = {}, {}
for i = 1, #a, 2 do
  local lid = lid_of(a[i])
  if lid and #a[i + 1] == 8 then
    alias_from[#alias_from + 1] = struct.pack('<I4', lid)
    alias_to[#alias_to + 1] = a[i + 1]
  else
    bad[#bad + 1] = alias_key .. '\tfield is not a LocalID with a packed target'
  end
end
"""
"""Lua fragment (after ``CHECKED``): a host's gone LocalIDs (``gone``, uint32s), redirecting LocalIDs
(``alias_from``, uint32s) and their targets (``alias_to``, as stored) from the keys ``gone_key`` and
``alias_key``; malformed members and fields skipped into ``bad``."""

HOST_PACKED = CHECKED + "local out_key = KEYS[2]\n" + OUT_RECORDS + """
local gone_key, alias_key = KEYS[3], KEYS[4]
""" + GONE_AND_ALIASES + """
return {read('HLEN', KEYS[1]), table.concat(head), table.concat(data), table.concat(gone),
        table.concat(alias_from), table.concat(alias_to), bad}
"""
"""KEYS: a host's ``paths``, ``out``, ``gone`` and ``alias`` keys. Returns the whole host as its page
count and five buffers — HEAD records, packed edges in the same order, gone LocalIDs (uint32),
redirecting LocalIDs (uint32) and their PAIR targets — so a host crosses the wire in one reply
parsed with ``np.frombuffer``, not two values per page; last, the records skipped (``bad``)."""

PAGES_PACKED = CHECKED + """
local n = read('HLEN', KEYS[1])
local lids = {}
for i = 1, #ARGV[1], 4 do lids[#lids + 1] = tostring(struct.unpack('<I4', ARGV[1], i)) end
local function many(cmd, key)
  local got = redis.pcall(cmd, key, unpack(lids))
  if type(got) == 'table' and got.err then
    bad[#bad + 1] = key .. '\twrong type'
    return {}
  end
  return got
end
local out = many('HMGET', KEYS[2])
local gone = many('SMISMEMBER', KEYS[3])
local alias = many('HMGET', KEYS[4])
local head, data, g, alias_from, alias_to = {}, {}, {}, {}, {}
for i, lid in ipairs(lids) do
  if out[i] then
    if #out[i] % 12 == 0 then
      head[#head + 1] = struct.pack('<I4I4', tonumber(lid), #out[i])
      data[#data + 1] = out[i]
    else
      bad[#bad + 1] = KEYS[2] .. '\tvalue is not packed edges'
    end
  end
  if gone[i] == 1 then g[#g + 1] = struct.pack('<I4', tonumber(lid)) end
  if alias[i] then
    if #alias[i] == 8 then
      alias_from[#alias_from + 1] = struct.pack('<I4', tonumber(lid))
      alias_to[#alias_to + 1] = alias[i]
    else
      bad[#bad + 1] = KEYS[4] .. '\tvalue is not a packed target'
    end
  end
end
return {n, table.concat(head), table.concat(data), table.concat(g), table.concat(alias_from), table.concat(alias_to), bad}
"""
"""KEYS: as ``HOST_PACKED``; ARGV[1]: LocalIDs as packed uint32. The same reply for those pages only (their
out-edges, which are gone, which redirect), so a warm epoch reads each host's changed pages in
one call instead of four commands."""


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
    """A whole host from the first six parts of a ``HOST_PACKED`` reply."""
    n_pages, head_raw, data, gone, alias_from, alias_to = reply[:6]
    head = np.frombuffer(head_raw, dtype=HEAD)
    counts = head["nbytes"].astype(np.int64) // EDGE.itemsize
    edges = np.frombuffer(data, dtype=EDGE)
    return HostEdges(int(n_pages), np.repeat(head["local"], counts), edges["host"], edges["local"], edges["weight"],
                     np.sort(np.frombuffer(gone, dtype="<u4")), np.frombuffer(alias_from, dtype="<u4"),
                     np.frombuffer(alias_to, dtype=PAIR))


@dataclass(frozen=True)
class Packed:
    """Whole hosts concatenated (the vectorised form of ``dict[int, HostEdges]``): per host its
    HostID, page count and how many edges, gone pages and redirects it contributes, in order."""

    host_ids: np.ndarray  # uint32[H]
    n_pages: np.ndarray  # int64[H]
    n_edges: np.ndarray  # int64[H]
    src_local: np.ndarray  # [E]
    dst_host: np.ndarray  # uint32[E]
    dst_local: np.ndarray  # [E]
    weight: np.ndarray  # float32[E]
    n_gone: np.ndarray  # int64[H]
    gone: np.ndarray  # uint32 LocalIDs
    n_alias: np.ndarray  # int64[H]
    alias_local: np.ndarray  # uint32 LocalIDs
    alias_target: np.ndarray  # PAIR


def pack(hosts: dict[int, HostEdges]) -> Packed:
    """``hosts`` concatenated."""
    parts = list(hosts.values())

    def cat(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts]).astype(dtype) if parts else np.zeros(0, dtype)

    def lens(name: str) -> np.ndarray:
        return np.array([len(getattr(p, name)) for p in parts], dtype=np.int64)

    return Packed(np.fromiter(hosts, dtype=np.uint32, count=len(hosts)), np.array([p.n_pages for p in parts], dtype=np.int64),
                  lens("src_local"), cat("src_local", np.int64), cat("dst_host", np.uint32), cat("dst_local", np.int64),
                  cat("weight", np.float32), lens("gone"), cat("gone", np.uint32), lens("alias_local"),
                  cat("alias_local", np.uint32), cat("alias_target", PAIR))


def numbering(size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(HostIDs present, position of each HostID (-1: absent), host offsets) from the pages of every
    HostID 0..top (-1: absent)."""
    host_ids = np.flatnonzero(size >= 0).astype(np.uint32)
    pos = np.full(len(size), -1, dtype=np.int64)
    pos[host_ids] = np.arange(len(host_ids))
    return host_ids, pos, np.concatenate([[0], np.cumsum(size[host_ids])]).astype(np.int64)


def layout(p: Packed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Host order and page numbering of ``assemble_packed`` (``numbering``; HostIDs sorted: the loaded
    hosts, edge and redirect targets); a host's page count is its stored one, extended by targets
    numbered after it."""
    targets = p.alias_target
    top = max([int(a.max()) for a in (p.host_ids, p.dst_host, targets["host"]) if len(a)], default=-1)
    size = np.full(top + 1, -1, dtype=np.int64)
    size[p.host_ids] = p.n_pages
    for hosts, lids in ((p.dst_host, p.dst_local), (targets["host"], targets["local"])):
        need = lids.astype(np.int64) + 1
        over = need > size[hosts]  # targets only, or pages numbered after their host's count was read
        if over.any():
            np.maximum.at(size, hosts[over], need[over])
    return numbering(size)


def assemble_packed(p: Packed) -> tuple[HostGraph, np.ndarray, np.ndarray]:
    """The ``HostGraph`` of all hosts (sorted by HostID) under the graph conventions (SPEC §2.7):
    edges into a redirecting page go to its target, edges into gone pages and self-links are
    dropped, gone and redirecting pages are ``excluded``. Edge targets extend page counts.
    Also the redirects as page numbers (from, to), before their chains are followed."""
    host_ids, pos, offsets = layout(p)
    base = offsets[pos[p.host_ids]]
    src = np.repeat(base, p.n_edges) + p.src_local
    dst = offsets[pos[p.dst_host]] + p.dst_local.astype(np.int64)
    gone = np.repeat(base, p.n_gone) + p.gone
    alias_from = np.repeat(base, p.n_alias) + p.alias_local
    alias_to = offsets[pos[p.alias_target["host"]]] + p.alias_target["local"].astype(np.int64)
    graph = HostGraph.with_conventions(host_ids, offsets, src, dst, np.asarray(p.weight, dtype=np.float32), gone,
                                       alias_from, alias_to)
    return graph, alias_from, alias_to


def assemble(hosts: dict[int, HostEdges]) -> HostGraph:
    """``assemble_packed`` of whole hosts (``GraphStore.load_hosts``)."""
    return assemble_packed(pack(hosts))[0]
