"""Bulk edge import (``rankcrawl graph import``): millions of ``src<TAB>dst[<TAB>weight]`` lines.

Each distinct URL is normalised once: a URL already in normal form (lower-case http(s) host of
plain labels, no port or a non-default one, a path of unreserved characters and no query) is
recognised by one regular expression and split directly; anything else goes through
``settings.urls.normalize_url``. IDs are assigned per host batch (one Lua call each, pipelined),
edges become integer arrays, duplicate links are summed and self-links dropped with numpy, and
every source page's packed out-edges are written per host in a few large HSETs. As with
``put_pages``, a source's edges replace the ones stored for it, and the change stream names
the pages stored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TextIO

import numpy as np

from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.hostedges import EDGE, HEAD
from rankcrawl.ranker.store.outpack import PACK_HOST, script
from rankcrawl.ranker.store.records import host_and_path
from rankcrawl.settings.urls import DEFAULT_PORTS

CHARS_PER_CHUNK = 1 << 26  # read in pieces of ≈ 64 MiB (about a million lines), then to the line end
FIELDS_PER_CALL = 2000
CALLS_PER_PIPELINE = 64
LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
WRITE_PAGES = """
local head, data, pos = ARGV[1], ARGV[2], 1
local set, empty = {}, {}
for i = 1, #head, 8 do
  local lid, nbytes = struct.unpack('<I4I4', head, i)
  if nbytes > 0 then
    set[#set + 1] = lid
    set[#set + 1] = string.sub(data, pos, pos + nbytes - 1)
    pos = pos + nbytes
  else
    empty[#empty + 1] = lid
  end
  redis.call('HSETNX', KEYS[2], lid, '{}')
end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
if #empty > 0 then redis.call('HDEL', KEYS[1], unpack(empty)) end
redis.call('DEL', KEYS[3])
"""
"""KEYS: a host's ``out`` and ``meta`` hashes and its ``outpack`` (dropped: rebuilt after the import).
ARGV: HEAD records (LocalID, byte count) of up to
FIELDS_PER_CALL source pages and their packed edges back to back. Sets each page's edges (none:
deletes them) and marks it stored (existing metadata kept): one call per host batch."""
HOST = re.compile(rf"(?:{LABEL}\.)*{LABEL}")
NORMAL = re.compile(r"(https?)://([^/:?#@\\\s]+)(?::([1-9][0-9]{0,4}))?(/[A-Za-z0-9._~/-]*)")  # host checked by HOST
LINES = re.compile(rf"^(?:(https?://(?![^/\n]*--)(?:{LABEL}\.)*{LABEL})((?![^\n]*/\.)/[A-Za-z0-9._~/-]*)|.*)$", re.M)
"""One URL per line: (host key, path) of a URL already in normal form without a port, two empty
strings for any other line (those go through ``split_normal``)."""


@dataclass(frozen=True)
class ImportReport:
    edges: int  # distinct edges stored
    pages: int  # source pages stored
    bad: int  # lines skipped


@lru_cache(maxsize=1 << 16)
def _plain_host(host: str) -> bool:
    """True for a lower-case host of plain labels (no IDNA-sensitive ``--``): already normal."""
    return HOST.fullmatch(host) is not None and "--" not in host


def split_normal(url: str) -> tuple[str, str] | None:
    """(host key, path+query) of ``url`` after normalisation; None if it is not http(s)."""
    m = NORMAL.fullmatch(url)
    if m is None or not _plain_host(m.group(2)) or "/." in m.group(4):  # IDNA-sensitive labels, dot segments
        return host_and_path(url)
    scheme, host, port, path = m.groups()
    if port is not None:
        if int(port) > 65535 or int(port) == DEFAULT_PORTS[scheme]:
            return host_and_path(url)
        host = f"{host}:{port}"
    return f"{scheme}://{host}", path


def split_many(urls: list[str]) -> list[tuple[str, str] | None]:
    """``split_normal`` of many URLs: the ones already in normal form are recognised by one
    ``findall`` over the joined batch (no Python call per URL), the rest one by one."""
    found = LINES.findall("\n".join(urls)) if urls else []
    if len(found) != len(urls):  # a URL holding a line break: one by one
        return [split_normal(u) for u in urls]
    return [(h, p) if h else split_normal(u) for (h, p), u in zip(found, urls)]


class EdgeImporter:
    """Reads edge lines into integer arrays, then writes them: ``import_lines(lines)``."""

    def __init__(self, store: GraphStore, report_bad: Callable[[int, str], None]) -> None:
        self.store = store
        self.report_bad = report_bad
        self.cache: dict[str, int] = {}  # raw URL → (HostID << 32 | LocalID), -1 if not http(s)
        self.src: list[np.ndarray] = []
        self.dst: list[np.ndarray] = []
        self.weight: list[np.ndarray] = []
        self.bad = 0
        self.grown: set[int] = set()  # hosts that got new pages

    def _ids(self, urls: Iterable[str]) -> None:
        new = list(set(urls).difference(self.cache))
        ids = self.store.ids_of_split(split_many(new), create=True)
        self.grown |= self.store.grown_hosts
        self.cache.update((u, -1 if i is None else (i[0] << 32) | i[1]) for u, i in zip(new, ids))

    def _chunk(self, lines: list[str], first: int) -> None:
        srcs, dsts, ws, numbers = [], [], [], []
        for number, line in enumerate(lines, first):
            line = line.rstrip("\r\n")
            if not line or line[0] == "#" or not line.strip():
                continue
            f = line.split("\t")
            if len(f) == 2:
                w = 1.0
            elif len(f) == 3:
                try:
                    w = float(f[2])
                except ValueError:
                    w = math.nan
                if not (math.isfinite(w) and w > 0):
                    self._bad(number, f"weight must be a positive number: {f[2]!r}")
                    continue
            else:
                self._bad(number, f"expected 2 or 3 tab-separated fields, got {len(f)}")
                continue
            srcs.append(f[0])
            dsts.append(f[1])
            ws.append(w)
            numbers.append(number)
        self._store_ids(srcs, dsts, np.asarray(ws, dtype=np.float64), numbers)

    def _store_ids(self, srcs: list[str], dsts: list[str], ws: np.ndarray, numbers: Sequence[int]) -> None:
        """Edges of lines ``numbers`` as ID arrays (lines with a URL that is not http(s) reported)."""
        self._ids(srcs + dsts)
        get = self.cache.__getitem__
        s = np.fromiter(map(get, srcs), dtype=np.int64, count=len(srcs))
        d = np.fromiter(map(get, dsts), dtype=np.int64, count=len(dsts))
        for i in np.flatnonzero((s < 0) | (d < 0)).tolist():
            self._bad(numbers[i], f"not an http(s) URL: {srcs[i] if s[i] < 0 else dsts[i]!r}")
        ok = (s >= 0) & (d >= 0)
        self.src.append(s[ok])
        self.dst.append(d[ok])
        self.weight.append(ws[ok])

    def _bad(self, number: int, problem: str) -> None:
        self.bad += 1
        self.report_bad(number, problem)

    def _columns(self, text: str, first: int) -> bool:
        """The vectorised path: a chunk whose lines all hold the same 2 or 3 tab-separated fields
        (no blank or comment line, valid weights) is split with one ``str.split``; returns False,
        having stored nothing, for any other chunk (the per-line path then reports its bad lines)."""
        raw = np.frombuffer(text.encode(), dtype=np.uint8)
        sep = raw[(raw == 9) | (raw == 10)]
        k = int(np.argmax(sep == 10)) + 1 if len(sep) else 0
        if k not in (2, 3) or "\r" in text or len(sep) % k:
            return False
        rows = sep.reshape(-1, k)
        if not ((rows[:, :-1] == 9).all() and (rows[:, -1] == 10).all()):
            return False
        fields = text.replace("\n", "\t").split("\t")
        srcs, dsts = fields[0 : len(fields) - 1 : k], fields[1 : len(fields) - 1 : k]
        if any(u[:1] == "#" or not u.strip() for u in set(srcs)):
            return False
        try:
            w = np.fromiter(map(float, fields[2::k]), dtype=np.float64, count=len(srcs)) if k == 3 else np.ones(len(srcs))
        except ValueError:
            return False
        if not (np.isfinite(w) & (w > 0)).all():
            return False
        self._store_ids(srcs, dsts, w, range(first, first + len(srcs)))
        return True

    def read(self, f: TextIO) -> None:
        first = 1
        while True:
            text = f.read(CHARS_PER_CHUNK)
            if not text:
                return
            text += f.readline()
            if not text.endswith("\n"):
                text += "\n"
            if not self._columns(text, first):
                self._chunk(text.split("\n")[:-1], first)
            first += text.count("\n")

    def write(self) -> ImportReport:
        """Store every source's merged out-edges (self-links dropped); announce the pages stored and
        the hosts that got new pages."""
        src, dst = np.concatenate(self.src or [np.zeros(0, np.int64)]), np.concatenate(self.dst or [np.zeros(0, np.int64)])
        weight = np.concatenate(self.weight or [np.zeros(0)])
        keep = src != dst
        pages = np.unique(src)  # every source line stored, even one whose only link was to itself
        src, dst, weight = src[keep], dst[keep], weight[keep]
        order = np.lexsort((dst, src))
        src, dst, weight = src[order], dst[order], weight[order]
        first = np.ones(len(src), dtype=bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        starts = np.flatnonzero(first)
        s, d = src[starts], dst[starts]
        w = np.add.reduceat(weight, starts).astype(np.float32) if len(starts) else np.zeros(0, np.float32)
        edges = np.empty(len(s), dtype=EDGE)
        edges["host"], edges["local"], edges["weight"] = d >> 32, d & 0xFFFFFFFF, w
        bounds = np.searchsorted(s, pages), np.searchsorted(s, pages, side="right")
        hosts = pages >> 32
        cuts = np.flatnonzero(np.diff(hosts)) + 1
        pipe = self.store.client.pipeline(transaction=False)
        for block, lo, hi in zip(np.split(pages, cuts), np.split(bounds[0], cuts), np.split(bounds[1], cuts)):
            if len(block):
                self._write_host(pipe, int(block[0] >> 32), block & 0xFFFFFFFF, edges, lo, hi)
            if len(pipe) >= CALLS_PER_PIPELINE:
                pipe.execute()
        pipe.execute()
        self._pack(np.unique(hosts).tolist())
        if len(pages) or self.grown:  # the pages stored, and the hosts that got new pages
            self.store.announce(pages >> 32, pages & 0xFFFFFFFF, self.grown)
        return ImportReport(len(s), len(pages), self.bad)

    def _pack(self, hids: list[int]) -> None:
        """Rebuild the ``outpack`` of the hosts written, so the next cold load reads one value each."""
        call, keys = script(self.store.client, PACK_HOST), self.store.keys
        for i in range(0, len(hids), CALLS_PER_PIPELINE):
            pipe = self.store.client.pipeline(transaction=False)
            for hid in hids[i : i + CALLS_PER_PIPELINE]:
                pipe.execute_command(*call, 2, keys.out(hid), keys.outpack(hid), "0")
            pipe.execute()

    def _write_host(self, pipe: Any, hid: int, lids: np.ndarray, edges: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Queue the ``WRITE_PAGES`` calls of one host's source pages ``lids`` (edges[lo[i]:hi[i]] each)."""
        keys = self.store.keys
        for i in range(0, len(lids), FIELDS_PER_CALL):
            head = np.empty(len(lids[i : i + FIELDS_PER_CALL]), dtype=HEAD)
            head["local"], head["nbytes"] = lids[i : i + FIELDS_PER_CALL], (hi - lo)[i : i + FIELDS_PER_CALL] * EDGE.itemsize
            data = edges[lo[i] : hi[i + len(head) - 1]].tobytes()
            pipe.execute_command("EVAL", WRITE_PAGES, 3, keys.out(hid), keys.meta(hid), keys.outpack(hid), head.tobytes(),
                                 data)


def import_edges(store: GraphStore, f: TextIO, report_bad: Callable[[int, str], None]) -> ImportReport:
    """Import every edge line of ``f`` (bad lines reported by number and skipped)."""
    importer = EdgeImporter(store, report_bad)
    importer.read(f)
    return importer.write()
