"""A host's out-edges as one packed string, for cold loads (``Keys.outpack``).

The ``out`` hash holds one field per source page, which costs a round of parsing per page on
both sides when a whole host is read. Beside it, ``rc:{h<id>}:outpack`` holds the same edges as
one value: uint32 n, then n HEAD records (LocalID, byte count), then the packed edges in that
order. Every write to ``out`` goes through ``SET_OUT``: in ``WRITE_OUT``, which deletes the pack
in the same atomic step, or in the bulk importer's script, which leaves it current; so a pack that
exists equals its ``out`` hash. ``PACK_HOST`` rebuilds one atomically. A cold load reads the packs of many hosts with one MGET
and their page counts, gone sets and redirects with one ``HOST_SETS`` call (each kind joined on
the server), and decodes all hosts at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankcrawl.ranker.store.hostedges import CHECKED, EDGE, GONE_AND_ALIASES, HEAD, OUT_RECORDS, PAIR, Packed
from rankcrawl.settings.keys import Keys

PAGES_PER_CALL = 2000

TYPED = """
for i, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= KINDS[i] then return redis.error_reply('WRONGTYPE key ' .. key .. ' holds a ' .. kind) end
end
"""
"""Lua prelude of a script that writes: a WRONGTYPE error naming the first of its KEYS that holds
another type than ``KINDS`` (a Lua table of type names, one per key) says, before anything is written."""

SET_OUT = """
local head, data, pos = ARGV[1], ARGV[2], 1
local lids, set, empty, n = {}, {}, {}, 0
local function flush(cmd, args)
  if #args > 0 then redis.call(cmd, KEYS[1], unpack(args)) end
  return {}
end
for i = 1, #head, 8 do
  local lid, nbytes = struct.unpack('<I4I4', head, i)
  lids[#lids + 1] = lid
  if nbytes > 0 then
    set[#set + 1] = lid
    set[#set + 1] = string.sub(data, pos, pos + nbytes - 1)
    pos = pos + nbytes
    n = n + 1
  else
    empty[#empty + 1] = lid
  end
  if #set >= 2000 then set = flush('HSET', set) end
  if #empty >= 2000 then empty = flush('HDEL', empty) end
end
flush('HSET', set)
flush('HDEL', empty)
"""
"""Lua (after ``TYPED``): the one writer of the ``out`` hash (KEYS[1]). ARGV[1]: HEAD records
(LocalID, byte count) of any number of pages; ARGV[2]: their packed edges back to back. Sets each
page's edges (none: deletes them), a few thousand fields a command; leaves ``lids`` (the pages, in
order), ``data`` (ARGV[2]) and ``n`` (how many pages have edges) to the script around it."""

WRITE_OUT = "local KINDS = {'hash', 'string'}\n" + TYPED + SET_OUT + "redis.call('DEL', KEYS[2])\n"
"""KEYS: a host's ``out`` hash and ``outpack``. ARGV: as ``SET_OUT``. Sets each page's edges and
drops the pack, atomically."""

PACK = "local out_key = KEYS[1]\n" + OUT_RECORDS + """
local pack_kind = redis.call('TYPE', pack_key).ok
if pack_kind ~= 'none' and pack_kind ~= 'string' then bad[#bad + 1] = pack_key .. '\twrong type' end
redis.call('SET', pack_key, struct.pack('<I4', #head) .. table.concat(head) .. table.concat(data))
"""
"""Lua (after ``CHECKED``): the pack of ``out`` (KEYS[1]) stored in the key ``pack_key`` (whatever
that key held is replaced; malformed records of ``out`` are left out and named in ``bad``)."""

PACK_HOST = CHECKED + "local pack_key = KEYS[2]\n" + PACK + "return {redis.call('GET', pack_key), bad}\n"
"""KEYS: a host's ``out`` hash and ``outpack``. Rebuilds the pack from the hash and returns it with
the records left out (one atomic step, so no write can fall between reading and storing)."""

HOST_SETS = CHECKED + """
local n_pages, gones, n_gone, froms, n_alias, tos = {}, {}, {}, {}, {}, {}
for i = 1, #KEYS, 3 do
  local gone_key, alias_key = KEYS[i + 1], KEYS[i + 2]
""" + GONE_AND_ALIASES + """
  n_pages[#n_pages + 1] = struct.pack('<I4', read('HLEN', KEYS[i]))
  gones[#gones + 1] = table.concat(gone)
  n_gone[#n_gone + 1] = struct.pack('<I4', #gone)
  froms[#froms + 1] = table.concat(alias_from)
  n_alias[#n_alias + 1] = struct.pack('<I4', #alias_from)
  tos[#tos + 1] = table.concat(alias_to)
end
return {table.concat(n_pages), table.concat(gones), table.concat(n_gone), table.concat(froms), table.concat(n_alias),
        table.concat(tos), bad}
"""
"""KEYS: per host its ``paths``, ``gone`` and ``alias`` (three keys a host, any number of hosts;
one host a call on a cluster, where hosts live in different slots). Returns, for all of them
back to back, page counts (uint32), gone LocalIDs (uint32), gone counts (uint32), redirecting
LocalIDs (uint32), redirect counts (uint32) and their PAIR targets: six strings, not a reply a host;
last, the records skipped (``bad``)."""


def write_out(pipe: Any, keys: Keys, hid: int, lids: list[int], values: list[bytes]) -> None:
    """Queue ``WRITE_OUT`` calls setting the out-edges of pages ``lids`` of host ``hid`` to the packed
    ``values`` (b"": none), ``PAGES_PER_CALL`` pages a call."""
    for i in range(0, len(lids), PAGES_PER_CALL):
        part = values[i : i + PAGES_PER_CALL]
        head = np.empty(len(part), dtype=HEAD)
        head["local"], head["nbytes"] = lids[i : i + PAGES_PER_CALL], list(map(len, part))
        pipe.execute_command("EVAL", WRITE_OUT, 2, keys.out(hid), keys.outpack(hid), head.tobytes(), b"".join(part))


def script(client: Any, source: str) -> tuple[Any, ...]:
    """("EVALSHA", sha) on one server; ("EVAL", source) on a cluster (its pipelines refuse EVALSHA)."""
    if getattr(client, "nodes_manager", None) is not None:
        return ("EVAL", source)
    return ("EVALSHA", client.script_load(source))


def set_keys(keys: Keys, hids: list[int]) -> list[str]:
    """The KEYS of ``HOST_SETS`` for hosts ``hids``."""
    return [key for hid in hids for key in (keys.paths(hid), keys.gone(hid), keys.alias(hid))]


def pack_problem(blob: bytes) -> str | None:
    """Why ``blob`` is not a well-formed pack (None: it is one)."""
    if len(blob) < 4:
        return "shorter than its count"
    n = int.from_bytes(blob[:4], "little")
    split = 4 + HEAD.itemsize * n
    if split > len(blob):
        return f"{n} records announced, {len(blob)} bytes"
    nbytes = np.frombuffer(blob, dtype=HEAD, count=n, offset=4)["nbytes"].astype(np.int64)
    if (nbytes % EDGE.itemsize).any() or int(nbytes.sum()) != len(blob) - split:
        return "edge byte counts do not add up"
    return None


def decode(host_ids: list[int], packs: list[bytes], sets: list[list[bytes]]) -> Packed:
    """Hosts ``host_ids``: their well-formed packs (``pack_problem``) and the ``HOST_SETS`` replies
    covering them (in order), each kind of buffer joined and read with one ``np.frombuffer``."""
    heads, edges = [], []
    for blob in packs:
        view = memoryview(blob)
        split = 4 + HEAD.itemsize * int.from_bytes(view[:4], "little")
        heads.append(view[4:split])
        edges.append(view[split:])
    edge_len = np.fromiter(map(len, edges), dtype=np.int64, count=len(edges))
    head = np.frombuffer(b"".join(heads), dtype=HEAD)
    edge = np.frombuffer(b"".join(edges), dtype=EDGE)
    n_pages, gone, n_gone, alias_from, n_alias, alias_to = (b"".join(r[j] for r in sets) for j in range(6))

    def counts(raw: bytes) -> np.ndarray:
        return np.frombuffer(raw, dtype="<u4").astype(np.int64)

    return Packed(np.asarray(host_ids, dtype=np.uint32), counts(n_pages), edge_len // EDGE.itemsize,
                  np.repeat(head["local"], head["nbytes"] // EDGE.itemsize), edge["host"], edge["local"],
                  edge["weight"], counts(n_gone), np.frombuffer(gone, "<u4"), counts(n_alias),
                  np.frombuffer(alias_from, "<u4"), np.frombuffer(alias_to, PAIR))
