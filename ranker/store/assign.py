"""Handing out IDs: one Lua script gives names (host keys, or a host's paths) their numbers.

HostIDs (``hosts``/``hostnames`` under ``{g}``) and LocalIDs (a host's ``urls``/``paths`` under
``{h<id>}``) are assigned alike: a name already known keeps its number, a new one gets the next
(the hash's length), both directions are written in the same atomic call. Names and IDs travel
packed, so a call of ARGS_PER_CALL names is two arguments and one reply string. A stored ID read
back that is not a number below the count comes back as CORRUPT, never as an ID.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ARGS_PER_CALL = 3000
CORRUPT = 0xFFFFFFFF
ASSIGN_IDS = "local CORRUPT = 4294967295\n" + """
local blob, lens, names, pos = ARGV[1], ARGV[2], {}, 1
for i = 1, #lens, 4 do
  local len = struct.unpack('<I4', lens, i)
  names[#names + 1] = string.sub(blob, pos, pos + len - 1)
  pos = pos + len
end
for _, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'hash' and kind ~= 'none' then return redis.error_reply('WRONGTYPE key ' .. key .. ' holds a ' .. kind) end
end
local n = redis.call('HLEN', KEYS[1])
local first = n
local ids = redis.call('HMGET', KEYS[1], unpack(names))
local fwd, back, seen, out = {}, {}, {}, {}
for i, name in ipairs(names) do
  local id = seen[name]
  local v = ids[i]
  if v then
    id = CORRUPT
    if #v <= 10 and string.match(v, '^%d+$') and tonumber(v) < first then id = tonumber(v) end
  end
  if not id then
    id = n
    n = n + 1
    seen[name] = id
    fwd[#fwd + 1] = name
    fwd[#fwd + 1] = id
    back[#back + 1] = id
    back[#back + 1] = name
  end
  out[i] = struct.pack('<I4', id)
end
if #fwd > 0 then
  redis.call('HSET', KEYS[1], unpack(fwd))
  redis.call('HSET', KEYS[2], unpack(back))
end
return {table.concat(out), #fwd / 2}
"""
"""KEYS: name→ID hash, ID→name hash (same hash tag). ARGV: up to ARGS_PER_CALL names back to back
and their byte lengths (uint32). Returns their IDs (uint32, packed; new names get the next
numbers, a name given twice one number, CORRUPT where the stored ID is not a number below the
count) and how many were new. A key of another type: a WRONGTYPE error naming it."""


def queue_assign(pipe: Any, name_key: str, id_key: str, names: bytes, lengths: bytes) -> None:
    """Queue one ``ASSIGN_IDS`` call: ``names`` back to back, ``lengths`` their byte counts (``<u4``)."""
    pipe.execute_command("EVAL", ASSIGN_IDS, 2, name_key, id_key, names, lengths)


def packed_names(names: list[str]) -> tuple[bytes, bytes]:
    """(names back to back, their byte lengths as ``<u4``): the arguments of ``queue_assign``."""
    encoded = [n.encode() for n in names]
    return b"".join(encoded), np.fromiter(map(len, encoded), dtype="<u4", count=len(encoded)).tobytes()


def assigned(reply: list[Any]) -> tuple[np.ndarray, int]:
    """The IDs of an ``ASSIGN_IDS`` reply (int64, -1 where CORRUPT) and how many names were new."""
    ids = np.frombuffer(reply[0], dtype="<u4").astype(np.int64)
    ids[ids == CORRUPT] = -1
    return ids, int(reply[1])
