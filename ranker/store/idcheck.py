"""IDs read back from the graph are checked against the counters that handed them out before
anything is sized by them (``store.corrupt``).

HostIDs are dense from 0 and counted by the ``hosts`` hash, a host's LocalIDs by its ``urls``
hash (``assign.ASSIGN_IDS`` numbers new names from their length). A load reads those counters
after the records, so every ID a writer handed out before the record was stored is below them;
an ID at or above them is corrupt, and so is a weight that is not a finite positive number. The
records holding one are dropped and counted per key, the rest is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from rankcrawl.ranker.store.corrupt import Corruption
from rankcrawl.ranker.store.hostedges import HostEdges, Packed, pack
from rankcrawl.settings.keys import Keys


class Counters:
    """The ID counters of one store, read on demand: how many HostIDs, and each host's LocalIDs
    (``limit``: one entry per HostID, -1 where not known yet; sized by the host count, which the
    data justifies)."""

    def __init__(self, client: Any, keys: Keys) -> None:
        self.client, self.keys = client, keys
        self.n_hosts = int(client.hlen(keys.hosts))
        self.limit = np.full(self.n_hosts, -1, dtype=np.int64)
        self._asked = np.zeros(self.n_hosts, dtype=bool)

    def know(self, hids: np.ndarray, pages: np.ndarray) -> None:
        """Page counts read with the records (a lower bound of each counter)."""
        ok = hids < self.n_hosts
        np.maximum.at(self.limit, hids[ok], pages[ok])

    def ask(self, hids: np.ndarray) -> None:
        """Read the counters of hosts ``hids`` (each below ``n_hosts``) not read yet: one pipeline."""
        todo = np.unique(hids[~self._asked[hids]]).tolist()
        if not todo:
            return
        pipe = self.client.pipeline(transaction=False)
        for h in todo:
            pipe.hlen(self.keys.urls(h))
        for h, n in zip(todo, pipe.execute(raise_on_error=False)):
            self.limit[h] = max(int(self.limit[h]), n if isinstance(n, int) else 0)
        self._asked[todo] = True


def _in_range(hosts: np.ndarray, lids: np.ndarray, counters: Counters) -> np.ndarray:
    """bool per (HostID, LocalID): both below their counters; the known page counts are trusted
    first, the counters asked only where they do not suffice."""
    hosts, lids = hosts.astype(np.int64), lids.astype(np.int64)
    ok = (hosts >= 0) & (hosts < counters.n_hosts) & (lids >= 0)
    h = np.where(ok, hosts, 0)
    need = ok & (lids >= counters.limit[h]) if counters.n_hosts else ok
    if need.any():
        counters.ask(h[need])
    if counters.n_hosts:
        ok &= lids < counters.limit[h]
    return ok


def _report(corruption: Corruption, key_of: Callable[[int], str], hosts: np.ndarray, bad: np.ndarray, why: str) -> None:
    if bad.any():
        got, counts = np.unique(hosts[bad], return_counts=True)
        for h, c in zip(got.tolist(), counts.tolist()):
            corruption.add(key_of(int(h)), why, c)


def _all_in_range(p: Packed, counters: Counters) -> bool:
    """True when every ID of ``p`` is below the page counts read with it and every weight is finite
    and positive: a few passes over the edge arrays, no temporaries per edge beyond booleans."""
    n = counters.n_hosts
    if len(p.host_ids) and int(p.host_ids.max()) >= n:
        return False
    counters.know(p.host_ids.astype(np.int64), p.n_pages)
    w = p.weight
    if len(w) and not ((w > 0) & (w < np.inf)).all():
        return False
    for hosts, lids in ((p.dst_host, p.dst_local), (p.alias_target["host"], p.alias_target["local"])):
        if len(hosts) and (int(hosts.max()) >= n or (lids >= counters.limit[hosts]).any()):
            return False
    for counts, lids in ((p.n_edges, p.src_local), (p.n_gone, p.gone), (p.n_alias, p.alias_local)):
        full = counts > 0
        if full.any():
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[full]
            if (np.maximum.reduceat(lids, starts) >= p.n_pages[full]).any():
                return False
    return True


def check_packed(p: Packed, counters: Counters, corruption: Corruption) -> Packed:
    """``p`` without hosts, edges, gone pages and redirects whose IDs are not below their counters
    or whose weights are not finite and positive (each counted in ``corruption`` under its key)."""
    if _all_in_range(p, counters):
        return p
    keys = counters.keys
    host_ids = p.host_ids.astype(np.int64)
    valid_host = host_ids < counters.n_hosts
    for h in host_ids[~valid_host].tolist():
        corruption.add(keys.urls(h), f"HostID {h} is not below the host count {counters.n_hosts}")
    counters.know(host_ids[valid_host], p.n_pages[valid_host])
    pos = np.arange(len(host_ids))

    def per_record(counts: np.ndarray) -> np.ndarray:
        return np.repeat(pos, counts)

    e_host = per_record(p.n_edges)
    src_ok = valid_host[e_host] & _in_range(host_ids[e_host], p.src_local, counters)
    dst_ok = _in_range(p.dst_host, p.dst_local, counters)
    w = np.asarray(p.weight, dtype=np.float64)
    w_ok = np.isfinite(w) & (w > 0)
    keep_e = src_ok & dst_ok & w_ok
    g_host = per_record(p.n_gone)
    keep_g = valid_host[g_host] & _in_range(host_ids[g_host], p.gone, counters)
    a_host = per_record(p.n_alias)
    keep_a = (valid_host[a_host] & _in_range(host_ids[a_host], p.alias_local, counters)
              & _in_range(p.alias_target["host"], p.alias_target["local"], counters))
    ids = host_ids
    _report(corruption, keys.out, ids[e_host], ~(src_ok & dst_ok), "edge with a HostID or LocalID beyond its counter")
    _report(corruption, keys.out, ids[e_host], src_ok & dst_ok & ~w_ok, "edge weight not a finite positive number")
    _report(corruption, keys.gone, ids[g_host], ~keep_g, "LocalID beyond the host's counter")
    _report(corruption, keys.alias, ids[a_host], ~keep_a, "redirect with an ID beyond its counter")
    if keep_e.all() and keep_g.all() and keep_a.all() and valid_host.all():
        return p
    n = len(host_ids)

    def counts(host_of: np.ndarray, keep: np.ndarray) -> np.ndarray:
        return np.bincount(host_of[keep], minlength=n).astype(np.int64)[valid_host]

    return Packed(p.host_ids[valid_host], p.n_pages[valid_host], counts(e_host, keep_e), p.src_local[keep_e],
                  p.dst_host[keep_e], p.dst_local[keep_e], p.weight[keep_e], counts(g_host, keep_g), p.gone[keep_g],
                  counts(a_host, keep_a), p.alias_local[keep_a], p.alias_target[keep_a])


def check_hosts(hosts: dict[int, HostEdges], counters: Counters, corruption: Corruption) -> dict[int, HostEdges]:
    """``check_packed`` of per-host loads; a page-level load's ``pages`` beyond the counters go too
    (counted under the change stream, which named them)."""
    if not hosts:
        return hosts
    checked = check_packed(pack(hosts), counters, corruption)
    cuts = {name: np.concatenate([[0], np.cumsum(getattr(checked, f"n_{name}"))]) for name in ("edges", "gone", "alias")}
    out: dict[int, HostEdges] = {}
    for k, (hid, n_pages) in enumerate(zip(checked.host_ids.tolist(), checked.n_pages.tolist())):
        e, g, a = (slice(int(cuts[x][k]), int(cuts[x][k + 1])) for x in ("edges", "gone", "alias"))
        part = HostEdges(int(n_pages), checked.src_local[e], checked.dst_host[e], checked.dst_local[e], checked.weight[e],
                         checked.gone[g], checked.alias_local[a], checked.alias_target[a], hosts[hid].pages)
        pages = part.pages
        if pages is not None and len(pages):
            ok = _in_range(np.full(len(pages), hid), pages, counters)
            if not ok.all():
                corruption.add(counters.keys.changes, f"{int((~ok).sum())} pages of host {hid} beyond its counter",
                               int((~ok).sum()))
                pages = pages[ok]
            top = int(pages.max()) + 1 if len(pages) else 0  # every page named is numbered, even past a short ``paths``
            part = replace(part, pages=pages, n_pages=max(part.n_pages, top))
        out[hid] = part
    return out
