"""The link graph in Redis as host tuples (HostID, LocalID) (Kohlschütter §3.2.1; SPEC §3).

IDs are handed out by Lua scripts that touch one hash tag each (``{g}`` for hosts, ``{h<id>}``
for a host's pages), so assignment is atomic on a single server and on a Redis Cluster, and
nothing is ever renumbered. A page's out-edges are one packed value that a re-crawl replaces,
so replaying a batch yields the same state. Every batch appends the pages whose stored state it
changed, and the hosts that got new pages, to the change stream — the ranker's work queue, so a
warm epoch reloads those pages only, never whole hosts.
"""

from __future__ import annotations

import json
import math
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
import redis

from rankcrawl.ranker.store.assign import ARGS_PER_CALL, assigned, packed_names, queue_assign
from rankcrawl.ranker.store.changestream import Changes, ChangeStream
from rankcrawl.ranker.store.corrupt import Corruption, CorruptValue, key_in, parse_int, parse_text, wrong_type
from rankcrawl.ranker.store.hostedges import (
    HOST_PACKED,
    PAGES_PACKED,
    PAIR,
    HostEdges,
    Packed,
    assemble,
    unpack_host,
    unpack_packed,
)
from rankcrawl.ranker.store.hostgraph import HostGraph
from rankcrawl.ranker.store.idcheck import Counters, check_hosts, check_packed
from rankcrawl.ranker.store.outpack import HOST_SETS, PACK_HOST, decode, pack_problem, script, set_keys, write_out
from rankcrawl.ranker.store.records import PageRecord, host_and_path, pack_links
from rankcrawl.settings.keys import DEFAULT_PREFIX, Keys
from rankcrawl.settings.urls import MAX_URL_LENGTH, url_problem

HOST_CHUNK = 256
LOAD_CHUNK = 1024  # hosts per MGET and HOST_SETS call of a cold load (one server)

PATHS_OF = """
local out, bad, j = {}, {}, 1
for _, key in ipairs(KEYS) do
  local n = tonumber(ARGV[j])
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'hash' and kind ~= 'none' then bad[#bad + 1] = key end
  for a = j + 1, j + n, 1000 do
    local last = math.min(a + 999, j + n)
    if kind == 'hash' then
      local got = redis.call('HMGET', key, unpack(ARGV, a, last))
      for k = 1, #got do out[#out + 1] = got[k] end
    else
      for k = a, last do out[#out + 1] = false end
    end
  end
  j = j + n + 1
end
return {out, bad}
"""
"""KEYS: hosts' ``paths`` hashes. ARGV: per key, a count n and n LocalIDs. Returns the paths of all
those pages in order (nil where unknown) and the keys of another type (read as empty)."""

T = TypeVar("T")


class GraphStore(ChangeStream):
    """Host-tuple graph over a redis-py client (``redis.Redis`` or ``RedisCluster``)."""

    def __init__(self, client: Any, prefix: str = DEFAULT_PREFIX, max_url_length: int = MAX_URL_LENGTH) -> None:
        self.client = client
        self.keys = Keys(prefix)
        self.max_url_length = max_url_length  # the URL contract's limit (RANKCRAWL_MAX_URL_LENGTH)
        self.rejected_urls = 0  # link targets not stored: not http(s), or breaking the URL contract
        self.grown_hosts: set[int] = set()  # hosts that got new pages in the last ``ids_of_split``
        self.corruption = Corruption()  # corrupt values met (skipped or repaired), per key family
        self.unstored: list[str] = []  # URLs of the last ``put_pages`` not stored: a corrupt ID of theirs

    # -- IDs ------------------------------------------------------------------------------
    def _assign(self, pipe: Any, name_key: str, id_key: str, names: list[str]) -> None:
        for i in range(0, len(names), ARGS_PER_CALL):
            queue_assign(pipe, name_key, id_key, *packed_names(names[i : i + ARGS_PER_CALL]))

    def host_ids(self, host_keys: list[str], create: bool = True) -> dict[str, int]:
        """HostIDs of host keys (``scheme://host[:port]``); unknown ones omitted unless ``create``."""
        unique = sorted(set(host_keys))
        if not unique:
            return {}

        pipe = self.client.pipeline(transaction=False)
        if create:
            self._assign(pipe, self.keys.hosts, self.keys.hostnames, unique)
        else:
            pipe.hlen(self.keys.hosts)
            pipe.hmget(self.keys.hosts, unique)
        got = pipe.execute()
        if create:
            ids = [x for res in got for x in assigned(res)[0].tolist()]
        else:
            ids = [None if i is None else self._parse_id(i, self.keys.hosts, h, got[0]) for h, i in zip(unique, got[1])]
        return {h: int(i) for h, i in zip(unique, self._checked_ids(ids, self.keys.hosts, unique)) if i is not None}

    def _parse_id(self, raw: Any, key: str, name: str, limit: int) -> int | None:
        """A stored ID read back (HMGET): a number below the count, else None (counted)."""
        try:
            return parse_int(raw, key, f"ID of {name[:80]!r}", limit)
        except CorruptValue as exc:
            self.corruption.report(exc)
            return None

    def _checked_ids(self, ids: list[Any], key: str, names: list[str]) -> list[int | None]:
        """IDs of an ID-assigning call or a parsed HMGET: -1 (a corrupt stored ID) becomes None, counted."""
        out: list[int | None] = []
        for name, i in zip(names, ids):
            if i is not None and int(i) < 0:
                self.corruption.add(key, f"ID of {name[:80]!r} is not a number below the count")
                out.append(None)
            else:
                out.append(i)
        return out

    def replies(self, pipe: Any) -> list[Any]:
        """``pipe.execute()``, with a reply error caused by a key's content (a wrong type) left in its
        place for the caller; any other error raised."""
        got = pipe.execute(raise_on_error=False)
        for res in got:
            if isinstance(res, Exception) and not wrong_type(res):
                raise res
        return got

    def ids(self, urls: Iterable[str], create: bool = True) -> list[tuple[int, int] | None]:
        """(HostID, LocalID) per URL; None for non-http(s) URLs and, unless ``create``, unknown ones."""
        return self.ids_of_split([host_and_path(u, self.max_url_length) for u in urls], create)

    def ids_of_split(self, split: list[tuple[str, str] | None], create: bool = True) -> list[tuple[int, int] | None]:
        """(HostID, LocalID) per (host key, path+query) of normalised URLs (None stays None).

        One ID-assigning Lua call per host batch of up to ARGS_PER_CALL paths, all pipelined."""
        hids = self.host_ids([s[0] for s in split if s], create)
        by_host: dict[int, set[str]] = defaultdict(set)
        for s in split:
            if s and s[0] in hids:
                by_host[hids[s[0]]].add(s[1])
        order = [(hid, sorted(paths)) for hid, paths in by_host.items()]
        pipe = self.client.pipeline(transaction=False)
        for hid, paths in order:
            if create:
                self._assign(pipe, self.keys.urls(hid), self.keys.paths(hid), paths)
            else:
                pipe.hlen(self.keys.urls(hid))
                pipe.hmget(self.keys.urls(hid), paths)
        results = iter(self.replies(pipe))
        lids: dict[tuple[int, str], int] = {}
        self.grown_hosts = set()
        for hid, paths in order:
            got: list[Any] = []
            urls_key = self.keys.urls(hid)
            for at in range(0, len(paths), ARGS_PER_CALL) if create else [0]:
                part = paths[at : at + ARGS_PER_CALL] if create else paths
                res = next(results) if create else [next(results), next(results)]
                if isinstance(res, Exception) or any(isinstance(r, Exception) for r in res):  # a key of the wrong type
                    self.corruption.add(key_in(res if isinstance(res, Exception) else res[0]), "wrong type", len(part))
                    got += [None] * len(part)
                elif create:
                    assigned_lids, new = assigned(res)
                    if new:
                        self.grown_hosts.add(hid)
                    got += self._checked_ids(assigned_lids.tolist(), urls_key, part)
                else:
                    got += [None if v is None else self._parse_id(v, urls_key, p, res[0]) for p, v in zip(part, res[1])]
            lids.update({(hid, p): int(lid) for p, lid in zip(paths, got) if lid is not None})
        out: list[tuple[int, int] | None] = []
        for s in split:
            key = (hids[s[0]], s[1]) if s and s[0] in hids else None
            out.append((key[0], lids[key]) if key is not None and key in lids else None)
        return out

    def urls_of(self, pairs: Iterable[tuple[int, int]]) -> list[str | None]:
        """URLs of (HostID, LocalID) pairs (None where unknown): the host names in one HMGET, the paths
        in one ``PATHS_OF`` call per ARGS_PER_CALL pages (a host a call on a cluster), pipelined."""
        pairs = [(int(h), int(l)) for h, l in pairs]
        by_host: dict[int, list[int]] = defaultdict(list)
        for h, l in pairs:
            by_host[h].append(l)
        hosts = sorted(by_host)
        cluster = getattr(self.client, "nodes_manager", None) is not None
        calls: list[tuple[list[str], list[int]]] = []
        for h in hosts:
            lids = by_host[h]
            for i in range(0, len(lids), ARGS_PER_CALL):
                part = lids[i : i + ARGS_PER_CALL]
                if not calls or cluster or len(calls[-1][1]) + len(part) > ARGS_PER_CALL:
                    calls.append(([], []))
                calls[-1][0].append(self.keys.paths(h))
                calls[-1][1].extend([len(part), *part])
        if not hosts:
            return []
        call = script(self.client, PATHS_OF)
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.keys.hostnames, hosts)
        for keys, args in calls:
            pipe.execute_command(*call, len(keys), *keys, *args)
        names, *paths = pipe.execute()
        for _, bad in paths:
            for key in bad:
                self.corruption.add(key.decode(errors="replace"), "wrong type")
        found = iter([p for got, _ in paths for p in got])
        urls: dict[tuple[int, int], str] = {}
        for h, name in zip(hosts, names):
            host = self._text(name, self.keys.hostnames, f"name of host {h}")
            for l in by_host[h]:
                p = next(found)
                path = self._text(p, self.keys.paths(h), f"path of page {l}")
                if host is not None and path is not None:
                    urls[(h, l)] = host + path
        return [urls.get(p) for p in pairs]

    def _text(self, raw: bytes | None, key: str, what: str) -> str | None:
        """A stored name read back: UTF-8 without control characters, else None (counted)."""
        if raw is None:
            return None
        try:
            return parse_text(raw, key, what)
        except CorruptValue as exc:
            self.corruption.report(exc)
            return None

    def url_of(self, hid: int, lid: int) -> str | None:
        """The URL of page (HostID, LocalID), or None."""
        return self.urls_of([(hid, lid)])[0]

    # -- pages and edges ------------------------------------------------------------------
    def put_pages(self, records: Iterable[PageRecord], batch_size: int = 500) -> int:
        """Store pages with their out-edges (replacing earlier ones) and metadata; returns pages stored.

        Link targets get IDs too (uncrawled targets are dangling pages). Links whose URL is not
        http(s) or breaks the URL contract (counted in ``rejected_urls``) or whose weight is not a
        positive finite number are dropped, and so are links to the page itself. ``meta["status"] >= 400`` marks the page gone (no edges, no rank); a
        record with a lower status makes it a page again. Empty ``meta`` keeps the stored one.
        Raises ValueError for a page URL that is not http(s). A page whose stored ID is corrupt is
        not stored (its URL in ``unstored``, the value counted in ``corruption``); a link to one is dropped.
        """
        self.unstored = []
        batch: list[PageRecord] = []
        stored = 0
        for rec in records:
            batch.append(rec)
            if len(batch) >= batch_size:
                stored += self._put_batch(batch)
                batch = []
        if batch:
            stored += self._put_batch(batch)
        return stored

    def _put_batch(self, batch: list[PageRecord]) -> int:
        for rec in batch:
            if host_and_path(rec.url, self.max_url_length) is None:
                raise ValueError(f"{url_problem(rec.url, self.max_url_length) or 'not an http(s) URL'}: {rec.url[:200]!r}")
        links = [[] if rec.gone else
                 [(t, float(w)) for t, w in rec.links if math.isfinite(float(w)) and float(w) > 0] for rec in batch]
        self.rejected_urls += sum(host_and_path(t, self.max_url_length) is None for ls in links for t, _ in ls)
        all_urls = [r.url for r in batch] + [t for ls in links for t, _ in ls]
        all_ids = self.ids(all_urls, create=True)
        page_ids, target_ids = all_ids[: len(batch)], iter(all_ids[len(batch) :])
        self.unstored += [rec.url for rec, ids in zip(batch, page_ids) if ids is None]  # a corrupt stored ID
        writes = []
        for rec, ids, ls in zip(batch, page_ids, links):
            if ids is None:
                for _ in ls:
                    next(target_ids)
                continue
            hid, lid = ids
            kept = [(tid, w) for (_, w), tid in zip(ls, target_ids) if tid is not None and tid != (hid, lid)]
            packed = pack_links([t for t, _ in kept], [w for _, w in kept])
            meta = json.dumps(rec.meta, sort_keys=True, default=str) if rec.meta else None
            writes.append((hid, lid, packed, meta, rec.gone, "status" in rec.meta))
        stored = np.array([i for i in page_ids if i is not None], dtype=np.uint32).reshape(-1, 2)
        grown = set(self.grown_hosts)

        out: dict[int, tuple[list[int], list[bytes]]] = defaultdict(lambda: ([], []))
        for hid, lid, packed, *_ in writes:
            out[hid][0].append(lid)
            out[hid][1].append(packed)
        pipe = self.client.pipeline(transaction=False)
        for hid, (lids, values) in out.items():  # out-edges and the host's pack: one atomic call per host
            write_out(pipe, self.keys, hid, lids, values)
        for hid, lid, _, meta, gone, fetched in writes:
            if gone:
                pipe.sadd(self.keys.gone(hid), lid)
            elif fetched:  # answered again: a page of the graph, not gone, not an alias
                pipe.srem(self.keys.gone(hid), lid)
                pipe.hdel(self.keys.alias(hid), lid)
            if meta is None:  # no metadata: keep the stored one (a re-push), mark it stored
                pipe.hsetnx(self.keys.meta(hid), lid, "{}")
            else:
                pipe.hset(self.keys.meta(hid), lid, meta)
        pipe.execute()
        self.announce(stored[:, 0], stored[:, 1], grown)
        return len(writes)

    def put_redirect(self, from_url: str, to_url: str, meta: dict[str, Any] | None = None) -> None:
        """``from_url`` redirects to ``to_url``: it becomes an alias (SPEC §2.7) — links to it count
        for the target, it has no out-links and no rank of its own. A later ``put_pages`` of
        ``from_url`` with a 2xx status makes it a page again. Not stored (``unstored``) when a stored ID
        of either URL is corrupt."""
        for url in (from_url, to_url):
            if host_and_path(url, self.max_url_length) is None:
                raise ValueError(f"{url_problem(url, self.max_url_length) or 'not an http(s) URL'}: {url[:200]!r}")
        self.unstored = []
        ids = self.ids([from_url, to_url], create=True)
        if ids[0] is None or ids[1] is None:  # a corrupt stored ID (counted): not stored
            self.unstored = [from_url]
            return
        (hid, lid), target = ids[0], ids[1]
        grown = set(self.grown_hosts)
        if target == (hid, lid):
            return
        packed = np.array([target], dtype=PAIR).tobytes()
        record = json.dumps(meta or {"redirect": to_url}, sort_keys=True, default=str)
        pipe = self.client.pipeline(transaction=False)
        write_out(pipe, self.keys, hid, [lid], [b""])
        pipe.srem(self.keys.gone(hid), lid)
        pipe.hset(self.keys.alias(hid), lid, packed)
        pipe.hset(self.keys.meta(hid), lid, record)
        pipe.execute()
        self.announce(np.array([hid]), np.array([lid]), grown)

    def meta(self, url: str) -> dict[str, Any] | None:
        """The stored metadata of a page (None if it was never stored as a page)."""
        ids = self.ids([url], create=False)[0]
        if ids is None:
            return None
        key = self.keys.meta(ids[0])
        try:
            raw = self.client.hget(key, ids[1])
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            self.corruption.add(key, "wrong type")
            return None
        if raw is None:
            return None
        try:
            meta = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            meta = None
        if not isinstance(meta, dict):
            self.corruption.add(key, f"metadata of page {ids[1]} is not a JSON object")
            return None
        return meta

    # -- loading --------------------------------------------------------------------------
    def all_host_ids(self) -> list[int]:
        """Every HostID handed out so far (fields of ``hostnames`` that are not one are counted, skipped)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hkeys(self.keys.hostnames)
        pipe.hlen(self.keys.hosts)
        fields, n_hosts = pipe.execute()
        out = []
        for h in fields:
            try:
                out.append(parse_int(h, self.keys.hostnames, "HostID", n_hosts))
            except CorruptValue as exc:
                self.corruption.report(exc)
        return sorted(out)

    def _host_replies(self, hids: list[int], chunk: int) -> Iterator[list[Any]]:
        """``HOST_PACKED`` replies of ``hids``, one pipeline of ``chunk`` script calls at a time."""
        cluster = getattr(self.client, "nodes_manager", None) is not None  # cluster pipelines refuse EVALSHA
        call = ("EVAL", HOST_PACKED) if cluster else ("EVALSHA", self.client.script_load(HOST_PACKED) if hids else "")
        k = self.keys
        for i in range(0, len(hids), chunk):
            pipe = self.client.pipeline(transaction=False)
            for hid in hids[i : i + chunk]:
                pipe.execute_command(*call, 4, k.paths(hid), k.out(hid), k.gone(hid), k.alias(hid))
            yield pipe.execute()

    def load_hosts(self, host_ids: Iterable[int], chunk: int = HOST_CHUNK) -> dict[int, HostEdges]:
        """Page counts, out-edges, gone pages and redirects of the given hosts: one ``HOST_PACKED``
        script call per host (pipelined), unpacked with numpy."""
        hids = list(host_ids)
        replies = [r for part in self._host_replies(hids, chunk) for r in part]
        self.count_skipped(r[6] for r in replies)
        return check_hosts(dict(zip(hids, map(unpack_packed, replies))), Counters(self.client, self.keys), self.corruption)

    def count_skipped(self, lists: Iterable[list[bytes]]) -> None:
        """Count the records a load script skipped (``key<TAB>problem`` each)."""
        for bad in lists:
            for entry in bad:
                key, _, why = entry.decode(errors="replace").partition("\t")
                self.corruption.add(key, why)

    def load_packed(self, host_ids: Iterable[int], meanwhile: Callable[[], Any] | None = None) -> Packed:
        """``load_hosts`` as one ``hostedges.Packed``: per ``LOAD_CHUNK`` hosts one MGET of their
        ``outpack`` (rebuilt by ``PACK_HOST`` where a write dropped it) and one ``HOST_SETS`` call, all
        pipelined (on a cluster, where hosts live in different slots, a GET and a call per host), and
        decoded once for all hosts. A helper thread reads (mostly waiting on the socket, GIL
        released) while this one runs ``meanwhile``; its errors are raised here."""
        hids = list(host_ids)
        packs: list[bytes | None] = []
        sets: list[Any] = []
        rebuilt: list[list[bytes]] = []
        failed: list[BaseException] = []
        cluster = getattr(self.client, "nodes_manager", None) is not None
        chunk = 1 if cluster else LOAD_CHUNK

        def fetch() -> None:
            try:
                k, call = self.keys, script(self.client, HOST_SETS)
                pipe = self.client.pipeline(transaction=False)
                for i in range(0, len(hids), chunk):
                    part = hids[i : i + chunk]
                    if cluster:
                        pipe.get(k.outpack(part[0]))
                    else:
                        pipe.mget([k.outpack(h) for h in part])
                    keys = set_keys(k, part)
                    pipe.execute_command(*call, len(keys), *keys)
                got = pipe.execute()
                for blobs in got[0::2]:
                    packs.extend([blobs] if cluster else blobs)
                sets.extend(got[1::2])
                for j, blob in enumerate(packs):
                    why = None if blob is None else pack_problem(blob)
                    if why is not None:  # rebuilt from the ``out`` hash below
                        self.corruption.add(k.outpack(hids[j]), why)
                        packs[j] = None
                missing = [j for j, b in enumerate(packs) if b is None]
                if missing:  # a write dropped the pack: rebuilt (and kept) by the server
                    rebuild = script(self.client, PACK_HOST)
                    pipe = self.client.pipeline(transaction=False)
                    for j in missing:
                        pipe.execute_command(*rebuild, 2, k.out(hids[j]), k.outpack(hids[j]))
                    for j, (blob, bad) in zip(missing, pipe.execute()):
                        packs[j] = blob
                        rebuilt.append(bad)
            except BaseException as exc:  # re-raised in the caller's thread
                failed.append(exc)

        reader = threading.Thread(target=fetch, name="rankcrawl-load", daemon=True)
        reader.start()
        try:
            if meanwhile is not None:
                meanwhile()
        finally:
            reader.join()
        if failed:
            raise failed[0]
        self.count_skipped([*rebuilt, *(r[6] for r in sets)])
        counters = Counters(self.client, self.keys)  # read after the records: every ID handed out before is below
        return check_packed(decode(hids, packs, sets), counters, self.corruption)  # type: ignore[arg-type]

    def load_pages(self, pages: np.ndarray, grown: Iterable[int] = ()) -> dict[int, HostEdges]:
        """The stored state of some pages (uint64 HostID << 32 | LocalID): per host, a ``HostEdges``
        with ``pages`` = those LocalIDs, their out-edges, which are gone or redirect, and the host's
        page count; hosts in ``grown`` come with their page count only. Reads are pipelined."""
        keys = np.unique(np.asarray(pages, dtype=np.uint64))
        hosts = (keys >> np.uint64(32)).astype(np.int64)
        lids = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
        cuts = np.flatnonzero(np.diff(hosts)) + 1
        groups = {int(h[0]): l.tolist() for h, l in zip(np.split(hosts, cuts), np.split(lids, cuts)) if len(h)}
        for h in grown:
            groups.setdefault(int(h), [])
        order = sorted(groups)
        cluster = getattr(self.client, "nodes_manager", None) is not None  # cluster pipelines refuse EVALSHA
        call = ("EVAL", PAGES_PACKED) if cluster else ("EVALSHA", self.client.script_load(PAGES_PACKED) if order else "")
        result: dict[int, HostEdges] = {}
        bad: list[list[bytes]] = []
        k = self.keys
        for i in range(0, len(order), HOST_CHUNK):
            part = order[i : i + HOST_CHUNK]
            pipe = self.client.pipeline(transaction=False)
            for hid in part:
                host_keys = (k.paths(hid), k.out(hid), k.gone(hid), k.alias(hid))
                if not groups[hid]:
                    pipe.hlen(host_keys[0])
                lids = np.asarray(groups[hid], dtype="<u4")
                for j in range(0, len(lids), ARGS_PER_CALL):
                    pipe.execute_command(*call, 4, *host_keys, lids[j : j + ARGS_PER_CALL].tobytes())
            res = iter(self.replies(pipe))
            for hid in part:
                ls = groups[hid]
                if not ls:
                    n = next(res)
                    if isinstance(n, Exception):
                        self.corruption.add(self.keys.paths(hid), "wrong type")
                    result[hid] = unpack_host(0 if isinstance(n, Exception) else int(n), {}, pages=np.zeros(0, np.uint32))
                    continue
                replies = [next(res) for _ in range(0, len(ls), ARGS_PER_CALL)]
                bad += [r[6] for r in replies]
                joined = [replies[0][0]] + [b"".join(r[f] for r in replies) for f in range(1, 6)]
                result[hid] = replace(unpack_packed(joined), pages=np.array(ls, dtype=np.uint32))
        self.count_skipped(bad)
        return check_hosts(result, Counters(self.client, self.keys), self.corruption)

    def load_changes(self, changes: Changes) -> dict[int, HostEdges]:
        """What ``changes`` names, read back: whole hosts for host-level entries, pages otherwise."""
        whole = self.load_hosts(sorted(changes.whole))
        keys = changes.pages[~np.isin((changes.pages >> np.uint64(32)).astype(np.int64), list(whole))]
        return {**self.load_pages(keys, changes.grown - set(whole)), **whole}

    def load_graph(self, host_ids: Iterable[int] | None = None) -> HostGraph:
        """The graph of all hosts (or of the out-edges of ``host_ids``) as a ``HostGraph``."""
        return assemble(self.load_hosts(self.all_host_ids() if host_ids is None else host_ids))

    def paths(self, hid: int) -> dict[int, str]:
        """LocalID → path of every page of a host (fields and values that are not one counted, skipped)."""
        key = self.keys.paths(hid)
        try:
            raw = self.client.hgetall(key)
        except redis.ResponseError as exc:
            if not wrong_type(exc):
                raise
            self.corruption.add(key, "wrong type")
            return {}
        out: dict[int, str] = {}
        for k, v in raw.items():
            try:
                out[parse_int(k, key, "LocalID")] = parse_text(v, key, "path")
            except CorruptValue as exc:
                self.corruption.report(exc)
        return out

    def host_names(self, host_ids: Iterable[int]) -> list[str | None]:
        """Host keys of HostIDs."""
        hids = list(host_ids)
        if not hids:
            return []
        names = self.client.hmget(self.keys.hostnames, hids)
        return [self._text(n, self.keys.hostnames, f"name of host {h}") for h, n in zip(hids, names)]

    def iter_edges(self, resolved: bool = False) -> Iterator[tuple[str, str, float]]:
        """Every stored edge as (source URL, target URL, weight), host by host. ``resolved``: the
        edges of ``load_graph`` (SPEC §2.7, as the ranker counts them) — targets moved to the end of
        their redirect chain, links into gone pages, out of gone or redirecting pages and self-links dropped."""
        if resolved:
            g = self.load_graph()
            k = np.repeat(np.arange(g.n_hosts), np.diff(g.host_offsets))
            urls = self.urls_of(zip(g.host_ids[k].tolist(), (np.arange(g.n_pages) - g.host_offsets[k]).tolist()))
            for s, d, w in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist()):
                yield urls[s], urls[d], float(w)
            return
        names: dict[int, str] = {}
        paths: dict[int, dict[int, str]] = {}

        def url(hid: int, lid: int) -> str:
            if hid not in names:
                names[hid] = self.host_names([hid])[0] or ""
                paths[hid] = self.paths(hid)
            return names[hid] + paths[hid].get(lid, "")

        for hid in self.all_host_ids():
            edges = self.load_hosts([hid])[hid]
            for s, h, l, w in zip(edges.src_local, edges.dst_host, edges.dst_local, edges.weight):
                yield url(hid, int(s)), url(int(h), int(l)), float(w)
