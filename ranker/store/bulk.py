"""Bulk edge import (``rankcrawl graph import``): millions of ``src<TAB>dst[<TAB>weight]`` lines.

Lines are split, plain weights parsed and URLs interned as bytes by compiled kernels
(``_scan``); each distinct URL is normalised once (``urlids``: a URL already in normal form is
split in place, any other by ``settings.urls.normalize_url``) and IDs are assigned per host
batch (one Lua call each, pipelined, names and IDs packed). Edges become integer arrays,
duplicate links are summed and self-links dropped with numpy, and every source page's packed
out-edges are written per host in a few large HSETs. As with ``put_pages``, a source's edges
replace the ones stored for it, and the change stream names the pages stored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from rankcrawl.ranker.store import _scan
from rankcrawl.ranker.store.corrupt import key_in
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.hostedges import CHECKED, EDGE, HEAD
from rankcrawl.ranker.store.outpack import PACK, SET_OUT, TYPED
from rankcrawl.ranker.store.records import host_and_path
from rankcrawl.ranker.store.urlids import UrlIds
from rankcrawl.settings.urls import url_problem

CHARS_PER_CHUNK = 1 << 26  # read in pieces of ≈ 64 MiB (about a million lines), then to the line end
CALLS_PER_PIPELINE = 64
WRITE_PAGES = CHECKED + "local KINDS = {'hash', 'hash', 'string'}\n" + TYPED + SET_OUT + """
local pack_key = KEYS[3]
for a = 1, #lids, 1000 do
  local part = {unpack(lids, a, math.min(a + 999, #lids))}
  local known, stored = redis.call('HMGET', KEYS[2], unpack(part)), {}
  for j, l in ipairs(part) do
    if not known[j] then
      stored[#stored + 1] = l
      stored[#stored + 1] = '{}'
    end
  end
  if #stored > 0 then redis.call('HSET', KEYS[2], unpack(stored)) end
end
if redis.call('HLEN', KEYS[1]) == n then
  redis.call('SET', pack_key, ARGV[3] .. data)
else
""" + PACK + """
end
return bad
"""
"""KEYS: a host's ``out`` and ``meta`` hashes and its ``outpack``. ARGV: HEAD records (LocalID, byte
count) of the host's source pages, their packed edges back to back, and the pack's head (count
and HEAD records of the pages with edges). Sets each page's edges (``SET_OUT``, as ``put_pages``
does; none: deletes them), marks it stored (existing metadata kept) and leaves the host's pack
current — the one sent when these pages are all of its ``out`` hash, else rebuilt from the hash:
one atomic call per host. Returns the malformed records of ``out`` left out of a rebuilt pack
(``key<TAB>problem`` each)."""
UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""What no URL of an edge line may hold: control characters other than the tab and line ends that
separate fields and lines, and lone surrogates (bytes that were not UTF-8)."""


@dataclass(frozen=True)
class ImportReport:
    edges: int  # distinct edges stored
    pages: int  # source pages stored
    bad: int  # lines skipped


class EdgeImporter:
    """Reads edge lines into integer arrays, then writes them: ``import_lines(lines)``."""

    def __init__(self, store: GraphStore, report_bad: Callable[[int, str], None]) -> None:
        self.store = store
        self.report_bad = report_bad
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="rankcrawl-import")  # Redis round trips, in order
        self.ids = UrlIds(store, lambda url: host_and_path(url, store.max_url_length), self.worker)
        self.src: list[np.ndarray] = []
        self.dst: list[np.ndarray] = []
        self.weight: list[np.ndarray] = []
        self.bad = 0

    def _chunk(self, lines: list[str], first: int) -> None:
        srcs, dsts, ws, numbers = [], [], [], []
        for number, line in enumerate(lines, first):
            line = line.rstrip("\r\n")
            if not line or line[0] == "#" or not line.strip():
                continue
            f = line.split("\t")
            problem = next((self._problem(u) for u in f[:2] if UNSAFE.search(u)), None)
            if problem:  # a URL that could not even be passed on as text
                self._bad(number, problem)
                continue
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
        self._keep(self.ids.of_strings(srcs), self.ids.of_strings(dsts), np.asarray(ws, dtype=np.float64), numbers,
                   lambda i, src: srcs[i] if src else dsts[i])

    def _keep(self, s: np.ndarray, d: np.ndarray, ws: np.ndarray, numbers: Sequence[int],
              url: Callable[[int, bool], str]) -> None:
        """Keep the edges of lines ``numbers`` (URL entries ``s`` → ``d``); lines with a URL that
        is not http(s) are reported (``url(i, is_source)``: that URL's text)."""
        valid = self.ids.valid
        ok = valid[s] & valid[d]
        for i in np.flatnonzero(~ok).tolist():
            self._bad(numbers[i], self._problem(url(i, not valid[s[i]])))
        self.src.append(s[ok])
        self.dst.append(d[ok])
        self.weight.append(ws[ok])

    def _problem(self, url: str) -> str:
        """A line's report of a URL that is not stored: the contract it breaks, and a safe excerpt."""
        why = url_problem(url, self.store.max_url_length) or "not an http(s) URL (or a corrupt stored ID)"
        shown = repr(url[:100].encode("utf-8", "surrogateescape"))[1:]  # the bytes as read
        return f"{why}: {shown}" + ("…" if len(url) > 100 else "")

    def _bad(self, number: int, problem: str) -> None:
        self.bad += 1
        self.report_bad(number, problem)

    def _columns(self, text: str, first: int) -> int:
        """The compiled path: a chunk whose lines all hold the same 2 or 3 tab-separated fields
        (no blank or comment line, valid weights) is split and its URLs interned as bytes;
        returns its line count, or 0, having stored nothing, for any other chunk (the per-line
        path then reports its bad lines)."""
        buf = np.frombuffer(text.encode(), dtype=np.uint8)
        fields, k = _scan.split_lines(buf)
        if k == 0:
            return 0
        w = np.ones(len(fields))
        if k == 3:
            w, other = _scan.parse_weights(buf, fields[:, 4], fields[:, 5])
            for i in np.flatnonzero(other).tolist():
                try:
                    w[i] = float(buf[fields[i, 4] : fields[i, 5]].tobytes().decode())
                except ValueError:
                    return 0
            if not (np.isfinite(w) & (w > 0)).all():
                return 0
        s = self.ids.of_fields(buf, fields[:, 0], fields[:, 1])
        d = self.ids.of_fields(buf, fields[:, 2], fields[:, 3])
        self._keep(s, d, w, range(first, first + len(fields)),
                   lambda i, src: buf[fields[i, 0 if src else 2] : fields[i, 1 if src else 3]].tobytes().decode())
        return len(fields)

    def read(self, f: TextIO) -> None:
        first = 1
        while True:
            text = f.read(CHARS_PER_CHUNK)
            if not text:
                return
            text += f.readline()
            if not text.endswith("\n"):
                text += "\n"
            lines = 0 if UNSAFE.search(text) else self._columns(text, first)  # control characters, undecodable bytes
            if not lines:
                split = text.split("\n")[:-1]
                self._chunk(split, first)
                lines = len(split)
            first += lines

    def write(self) -> ImportReport:
        """Store every source's merged out-edges (self-links dropped) and rebuild the hosts' packs;
        announce the pages stored and the hosts that got new pages."""
        ids = self.ids.finish()
        src = np.concatenate(self.src or [np.zeros(0, np.int64)])
        dst = np.concatenate(self.dst or [np.zeros(0, np.int64)])
        weight = np.concatenate(self.weight or [np.zeros(0)])
        known = (ids[src] >= 0) & (ids[dst] >= 0)  # an end with a corrupt stored ID (counted by the store): dropped
        if not known.all():
            src, dst, weight = src[known], dst[known], weight[known]
        uniq, dense = np.unique(ids, return_inverse=True)  # page numbers in ID order
        ptr, d, w = _scan.merge_links(dense[src], dense[dst], weight, len(uniq))
        stored = np.zeros(len(uniq), dtype=bool)  # every source line stored, even one whose only link was to itself
        stored[dense[src]] = True
        rows = np.flatnonzero(stored)
        pages, lo, hi = uniq[rows], ptr[rows], ptr[rows + 1]
        d = uniq[d]
        edges = np.empty(len(d), dtype=EDGE)
        edges["host"], edges["local"], edges["weight"] = d >> 32, d & 0xFFFFFFFF, w
        hosts = pages >> 32
        cuts = np.concatenate([[0], np.flatnonzero(np.diff(hosts)) + 1, [len(pages)]]).tolist()
        pipe, sent, calls = self.store.client.pipeline(transaction=False), [], []
        for a, b in zip(cuts[:-1], cuts[1:]):
            if b > a:
                hid = int(hosts[a])
                self._write_host(pipe, hid, pages[a:b] & 0xFFFFFFFF, edges, lo[a:b], hi[a:b])
                calls.append((a, b))
            if len(pipe) >= CALLS_PER_PIPELINE:
                sent.append(self.worker.submit(self.store.replies, pipe))
                pipe = self.store.client.pipeline(transaction=False)
        sent.append(self.worker.submit(self.store.replies, pipe))
        replies = [r for done in sent for r in done.result()]
        written = np.ones(len(pages), dtype=bool)
        for (a, b), res in zip(calls, replies):
            if isinstance(res, Exception):  # a key of the wrong type: the host's pages are not stored
                self.store.corruption.add(key_in(res), "wrong type", b - a)
                written[a:b] = False
            else:
                self.store.count_skipped([res])
        pages = pages[written]
        if len(pages) or self.ids.grown:  # the pages stored, and the hosts that got new pages
            self.store.announce(pages >> 32, pages & 0xFFFFFFFF, self.ids.grown)
        return ImportReport(int((np.repeat(written, hi - lo)).sum()), len(pages), self.bad)

    def _write_host(self, pipe: Any, hid: int, lids: np.ndarray, edges: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Queue the ``WRITE_PAGES`` call of one host's source pages ``lids`` (edges[lo[i]:hi[i]] each)."""
        keys = self.store.keys
        head = np.empty(len(lids), dtype=HEAD)
        head["local"], head["nbytes"] = lids, (hi - lo) * EDGE.itemsize
        full = head[head["nbytes"] > 0]
        data = edges[lo[0] : hi[-1]].tobytes()
        pipe.execute_command("EVAL", WRITE_PAGES, 3, keys.out(hid), keys.meta(hid), keys.outpack(hid), head.tobytes(), data,
                             np.uint32(len(full)).tobytes() + full.tobytes())


def import_edges(store: GraphStore, f: TextIO, report_bad: Callable[[int, str], None]) -> ImportReport:
    """Import every edge line of ``f`` (bad lines reported by number and skipped)."""
    importer = EdgeImporter(store, report_bad)
    try:
        importer.read(f)
        return importer.write()
    finally:
        importer.worker.shutdown(cancel_futures=True)
