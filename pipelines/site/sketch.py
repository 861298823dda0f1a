"""Per-host site state in Redis: bounded sketches, one round trip per page (SPEC §2.4, §2.7).

A host's evidence is how many of its pages carry a key — a pagelet shingle, a segment fingerprint,
a link-list DOM label, a title term (``lexical``) — and, for ``block`` weighting, Oliveira's class
counts n_C and n_{t,C}. They live in a count-min sketch (Cormode & Muthukrishnan) with conservative
update: DEPTH rows × WIDTH unsigned 16-bit cells in one Redis string; a key's count is the minimum
of its DEPTH cells, never below the true count. When the host's page count n reaches DECAY_AT every
cell and n are halved (exponential decay: the evidence is a window of the last ~DECAY_AT pages, and
the shares count/n that decide templates stay). A page is added once: a two-generation Bloom filter
of page keys (rotated at each decay) makes re-processing a page read-only.

Bytes per host (flat in the number of pages): sketch DEPTH·WIDTH·2 = 16 KiB, Bloom filters
2 × BLOOM_BITS/8 = 8 KiB, a small hash (n, generation) ≈ 0.1 KiB — ≈ 24 KiB; ``block`` weighting
adds a class sketch of 32 KiB. Crawl-wide (``{g}`` slot): the near-duplicate band index
(``neardup``: 4 fields of 8 + 8 bytes per canonical page) and, for ``lexical``, document
frequencies per term.

``SiteState.update`` is ONE Lua call (EVALSHA) per page: it tests and sets the page in the Bloom
filter, increments the page's keys (if new), optionally reads extra keys, registers or matches the
near-duplicate bands and moves/reads document frequencies, and returns everything the decision
needs. On a Redis Cluster the host keys and the crawl-wide keys live in different slots, so the
same script runs twice (host part, then global part): two round trips there.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import redis

from rankcrawl.ranker.store.corrupt import Corruption
from rankcrawl.settings.keys import Keys

DEPTH, WIDTH = 3, 4096
BLOCK_WIDTH = 8192
DECAY_AT = 2000
BLOOM_BITS, BLOOM_HASHES = 1 << 15, 4
KIND_SEEDS = {"sh": 0x5348, "fp": 0x4650, "ll": 0x4C4C, "tt": 0x5454, "cls": 0x434C, "ct": 0x4354, "rg": 0x5247, "lt": 0x4C54}

SCRIPT = """
local sections = ARGV[1]
local at = 2
local out = {}
local bad = {}
local function arg() local v = ARGV[at]; at = at + 1; return v end
-- Stored state is checked as it is read: a key of another type is removed, a count that is not a
-- non-negative integer is reset to 0; each is named in ``bad`` (the state is evidence, rebuilt by
-- the pages that follow).
local function typed(key, kind)
  local t = redis.call('TYPE', key).ok
  if t ~= 'none' and t ~= kind then
    redis.call('DEL', key)
    bad[#bad + 1] = key .. '\twrong type (' .. t .. '); removed'
  end
end
local function count(v, key, what)
  if not v then return 0 end
  if #v <= 15 and string.match(v, '^%d+$') then return tonumber(v) end
  bad[#bad + 1] = key .. '\t' .. what .. ' is not a count; reset'
  return nil
end
-- Sketch op on the cells of a binary string of big-endian u16 cell indices (DEPTH per key):
-- INCRBY by the key's amount (nil: 1) when writing, GET otherwise; the key counts (row minimum).
local function sketch(key, cells, depth, write, amounts)
  local n = #cells / 2
  if n == 0 then return {} end
  local ops, m = {}, 0
  for i = 0, n - 1 do
    local hi, lo = string.byte(cells, 2 * i + 1, 2 * i + 2)
    if write then
      ops[m + 1] = 'INCRBY'; ops[m + 2] = 'u16'; ops[m + 3] = (hi * 256 + lo) * 16
      ops[m + 4] = amounts and amounts[math.floor(i / depth) + 1] or 1
      m = m + 4
    else
      ops[m + 1] = 'GET'; ops[m + 2] = 'u16'; ops[m + 3] = (hi * 256 + lo) * 16
      m = m + 3
    end
  end
  local per = write and 4 or 3
  local chunk = per * 1000
  local vals = {}
  for i = 1, m, chunk do
    local part
    if write then
      part = redis.call('BITFIELD', key, 'OVERFLOW', 'SAT', unpack(ops, i, math.min(i + chunk - 1, m)))
    else
      part = redis.call('BITFIELD_RO', key, unpack(ops, i, math.min(i + chunk - 1, m)))
    end
    for _, v in ipairs(part) do vals[#vals + 1] = v end
  end
  local counts = {}
  for k = 0, n / depth - 1 do
    local est = vals[k * depth + 1]
    for d = 2, depth do est = math.min(est, vals[k * depth + d]) end
    counts[k + 1] = est
  end
  return counts
end
local function halve(key)
  local s = redis.call('GET', key)
  if not s then return end
  local parts = {}
  for i = 1, #s - 1, 2 do
    local v = math.floor((string.byte(s, i) * 256 + string.byte(s, i + 1)) / 2)
    parts[#parts + 1] = string.char(math.floor(v / 256), v % 256)
  end
  redis.call('SET', key, table.concat(parts))
end
-- Strings are created at their full size once: grown by BITFIELD/SETBIT they would carry
-- Redis's greedy preallocation (up to twice their length).
local function sized(key, bytes)
  if redis.call('EXISTS', key) == 0 then redis.call('SET', key, string.rep('\0', bytes)) end
end
local seen = 0
local k = 1
if string.find(sections, 'H') then
  local meta, cm, classes = KEYS[1], KEYS[2], KEYS[5]
  typed(meta, 'hash'); typed(cm, 'string'); typed(KEYS[3], 'string'); typed(KEYS[4], 'string'); typed(classes, 'string')
  local depth = tonumber(arg())
  local decay_at = tonumber(arg())
  local cm_bytes, class_bytes, bloom_bytes = tonumber(arg()), tonumber(arg()), tonumber(arg())
  sized(cm, cm_bytes)
  local n_bits = tonumber(arg())
  local bits = {}
  for i = 1, n_bits do bits[i] = tonumber(arg()) end
  local gen = count(redis.call('HGET', meta, 'gen'), meta, 'gen')
  if gen ~= 0 and gen ~= 1 then
    if gen then bad[#bad + 1] = meta .. '\tgen ' .. gen .. ' is not 0 or 1; reset' end
    gen = 0
    redis.call('HSET', meta, 'gen', 0)
  end
  for g = 0, 1 do
    local all = n_bits > 0
    for _, b in ipairs(bits) do
      if redis.call('GETBIT', KEYS[3 + g], b) == 0 then all = false; break end
    end
    if all then seen = 1 end
  end
  local n = count(redis.call('HGET', meta, 'n'), meta, 'n')
  if not n then
    n = 0
    redis.call('HSET', meta, 'n', 0)
  end
  local write = seen == 0
  if write then
    sized(KEYS[3 + gen], bloom_bytes)
    for _, b in ipairs(bits) do redis.call('SETBIT', KEYS[3 + gen], b, 1) end
    n = n + 1
  end
  local counts = sketch(cm, arg(), depth, write, nil)
  local query = sketch(cm, arg(), depth, false, nil)
  local class_cells = arg()
  local n_amounts = tonumber(arg())
  local amounts = {}
  for i = 1, n_amounts do amounts[i] = tonumber(arg()) end
  if n_amounts > 0 then sized(classes, class_bytes) end
  local class_counts = sketch(classes, class_cells, depth, write, amounts)
  if write then
    if n >= decay_at then
      halve(cm); halve(classes)
      n = math.floor(n / 2)
      gen = 1 - gen
      redis.call('DEL', KEYS[3 + gen])
      redis.call('HSET', meta, 'gen', gen)
    end
    redis.call('HSET', meta, 'n', n)
  end
  out = {n, seen, counts, query, class_counts, false, 0, {}}
  k = 6
else
  seen = tonumber(arg())
  out = {0, seen, {}, {}, {}, false, 0, {}}
end
if string.find(sections, 'G') then
  local nd, df, dfn = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  typed(nd, 'hash'); typed(df, 'hash'); typed(dfn, 'string')
  if not count(redis.call('GET', dfn), dfn, 'the page count') then redis.call('SET', dfn, 0) end
  local me = arg()
  local n_bands = tonumber(arg())
  local bands = {}
  for i = 1, n_bands do bands[i] = arg() end
  local canonical = false
  for _, b in ipairs(bands) do
    local owner = redis.call('HGET', nd, b)
    if owner and #owner ~= 8 then
      bad[#bad + 1] = nd .. '\ta band owner is not a page key; replaced'
      redis.call('HDEL', nd, b)
      owner = false
    end
    if owner and owner ~= me then canonical = owner; break end
  end
  if not canonical then
    for _, b in ipairs(bands) do redis.call('HSETNX', nd, b, me) end
  end
  local n_add = tonumber(arg())
  local add = {}
  for i = 1, n_add do add[i] = arg() end
  if seen == 0 and n_add > 0 then
    local now = redis.call('HMGET', df, unpack(add))
    for i, t in ipairs(add) do
      if not count(now[i], df, 'a document frequency') then redis.call('HSET', df, t, 0) end
    end
    for _, t in ipairs(add) do redis.call('HINCRBY', df, t, 1) end
    redis.call('INCR', dfn)
  end
  local n_read = tonumber(arg())
  local read = {}
  for i = 1, n_read do read[i] = arg() end
  local values = {}
  if n_read > 0 then values = redis.call('HMGET', df, unpack(read)) end
  for i = 1, n_read do values[i] = count(values[i], df, 'a document frequency') or 0 end
  out[6] = canonical
  out[7] = count(redis.call('GET', dfn), dfn, 'the page count') or 0
  out[8] = values
end
out[9] = bad
return out
"""


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser of a ``uint64`` array (array arithmetic wraps around without a warning,
    so no ``np.errstate`` is needed: entering one costs more than mixing a page's keys)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def cells(keys: np.ndarray, width: int, depth: int = DEPTH) -> bytes:
    """The DEPTH sketch cells of every key (row d's cell = d·width + h_d(key) mod width), packed
    as big-endian uint16 in key order."""
    if len(keys) == 0:
        return b""
    k = np.asarray(keys, dtype=np.uint64)
    rows = np.arange(depth, dtype=np.uint64)
    h = mix64(k[:, None] ^ (rows[None, :] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)))
    idx = (h % np.uint64(width)) + rows[None, :] * np.uint64(width)
    return idx.astype(">u2").tobytes()


def typed_keys(kind: str, values: list[int]) -> np.ndarray:
    """Keys of one kind (``sh``, ``fp``, ``ll``, ``lt``, ``tt``, ``cls``, ``ct``, ``rg``) in a shared key space."""
    v = np.asarray(values, dtype=np.uint64).reshape(-1)
    return mix64(v ^ np.uint64(KIND_SEEDS[kind] * 0x100000001B3))


def page_key(url: str) -> bytes:
    """8-byte key of a page URL (Bloom filter and near-duplicate index)."""
    return hashlib.blake2b(url.encode(), digest_size=8).digest()


def bloom_bits(key: bytes) -> list[int]:
    h = int.from_bytes(hashlib.blake2b(key, digest_size=16).digest(), "big")
    return [(h >> (32 * i)) % BLOOM_BITS for i in range(BLOOM_HASHES)]


@dataclass
class Reply:
    """What one update returned: the host's page count n (after), whether the page had been seen,
    the counts of the page's keys (after), of the extra query keys, of the block-class keys, the
    canonical page's key for a near-duplicate, and document frequencies."""

    n: int
    seen: bool
    counts: list[int]
    query: list[int]
    block_counts: list[int]
    canonical: bytes | None = None
    df_n: int = 0
    df: dict[str, int] = field(default_factory=dict)


class SiteState:
    """The Redis side of the site-level step: ``update`` is the page's one round trip."""

    def __init__(self, client: redis.Redis, prefix: str = "rc:") -> None:
        self.r, self.keys = client, Keys(prefix)
        self.script = client.register_script(SCRIPT)
        self.corruption = Corruption()  # corrupt values met (each repaired by the script), per key family
        self.cluster = hasattr(client, "get_nodes")

    def host_keys(self, host: str) -> list[str]:
        k = self.keys
        return [k.site_meta(host), k.site_sketch(host), k.site_seen(host, 0), k.site_seen(host, 1),
                k.site_classes(host)]

    def global_keys(self) -> list[str]:
        return [self.keys.site_neardup, self.keys.site_df, self.keys.site_df_n]

    def update(self, host: str, url: str, keys: np.ndarray, query: np.ndarray | None = None,
               block_keys: np.ndarray | None = None, block_amounts: list[int] | None = None,
               bands: list[int] | None = None, df_add: list[str] | None = None,
               df_read: list[str] | None = None) -> Reply:
        """Add the page ``url`` (its sketch ``keys``, distinct) to ``host`` unless seen; read
        ``query`` keys; count ``block_keys`` by ``block_amounts`` (block weighting); match or
        register the near-duplicate ``bands``; add ``df_add`` terms to the document frequencies
        (new pages only) and read ``df_read``."""
        me = page_key(url)
        bits = bloom_bits(me)
        empty = np.zeros(0, dtype=np.uint64)
        b_keys = block_keys if block_keys is not None else empty
        sizes = [DEPTH * WIDTH * 2, DEPTH * BLOCK_WIDTH * 2, BLOOM_BITS // 8]
        host_args: list[Any] = [DEPTH, DECAY_AT, *sizes, len(bits), *bits, cells(keys, WIDTH),
                                   cells(query if query is not None else empty, WIDTH),
                                   cells(b_keys, BLOCK_WIDTH), len(b_keys), *(block_amounts or [])]
        band_fields = [int(b).to_bytes(8, "big") for b in bands or []]
        read = list(df_read or [])
        global_args: list[Any] = [me, len(band_fields), *band_fields, len(df_add or []), *(df_add or []),
                                     len(read), *read]
        if self.cluster:
            raw = self.script(keys=self.host_keys(host), args=["H", *host_args])
            tail = self.script(keys=self.global_keys(), args=["G", raw[1], *global_args])
            raw = [*raw[:5], *tail[5:8], raw[8] + tail[8]]
        else:
            raw = self.script(keys=self.host_keys(host) + self.global_keys(), args=["HG", *host_args, *global_args])
        for entry in raw[8]:
            key, _, why = entry.decode(errors="replace").partition("\t")
            self.corruption.add(key, why)
        canonical = raw[5] if raw[5] else None
        return Reply(n=int(raw[0]), seen=bool(raw[1]), counts=list(raw[2]), query=list(raw[3]),
                     block_counts=list(raw[4]), canonical=canonical, df_n=int(raw[6]),
                     df={t: int(v) for t, v in zip(read, raw[7]) if int(v) > 0})

    def memory(self, host: str) -> int:
        """Bytes Redis uses for the host's keys (MEMORY USAGE)."""
        return sum(int(self.r.memory_usage(k, samples=0) or 0) for k in self.host_keys(host))
