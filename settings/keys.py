"""The key registry: every Redis key rankcrawl writes, in one place (graph, ranks, site state,
near-duplicate index, frontier).

Global keys share the hash tag ``{g}`` and per-host keys carry ``{h<id>}``, so on a Redis
Cluster every Lua script and every atomic update touches a single slot (SPEC §3). Each method's
docstring starts with the key's type; ``python -m rankcrawl.settings.keys docs/REDIS_KEYS.md``
rewrites the table of docs/REDIS_KEYS.md from them.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from rankcrawl.settings.generated_docs import replace_between

DEFAULT_PREFIX = "rc:"
FRONTIER_REQUESTS = ":req"
FRONTIER_SEQ = ":seq"
FRONTIER_HOSTS = ":hosts"
FRONTIER_HOST = ":h:"
"""Suffixes of the shared frontier's companion keys (scrapy-redis hands the queue only its own key)."""


@dataclass(frozen=True)
class Keys:
    """Key names under ``prefix`` (default ``rc:``)."""

    prefix: str = DEFAULT_PREFIX

    # -- global (slot of {g}) -------------------------------------------------------------
    @property
    def hosts(self) -> str:
        """hash: host key (``scheme://host[:port]``) → HostID."""
        return f"{self.prefix}{{g}}:hosts"

    @property
    def hostnames(self) -> str:
        """hash: HostID → host key."""
        return f"{self.prefix}{{g}}:hostnames"

    def probe(self, token: str) -> str:
        """string: a start-up probe's key, written then deleted at once (60 s TTL as a safety net)."""
        return f"{self.prefix}{{g}}:probe:{token}"

    @property
    def changes(self) -> str:
        """stream: one entry per batch — ``pages`` = packed uint32 (HostID, LocalID) pairs of the pages
        whose stored state changed, ``grown`` = comma-separated HostIDs that got new pages."""
        return f"{self.prefix}{{g}}:changes"

    @property
    def ranks(self) -> str:
        """hash: the published state — epoch, previous, norm, stream offset consumed, error bound, figures."""
        return f"{self.prefix}{{g}}:ranks"

    @property
    def epoch_counter(self) -> str:
        """string: the last epoch number handed out (INCR; numbers are never reused)."""
        return f"{self.prefix}{{g}}:ranks:next"

    @property
    def attempts(self) -> str:
        """set: epochs being written and not switched to yet (leftovers of a crash are cleaned)."""
        return f"{self.prefix}{{g}}:ranks:attempts"

    @property
    def retired(self) -> str:
        """set: epochs switched away from and not readable any more, still to be deleted."""
        return f"{self.prefix}{{g}}:ranks:retired"

    @property
    def lease(self) -> str:
        """string: token of the one ranker allowed to publish, with an expiry (SET NX PX)."""
        return f"{self.prefix}{{g}}:ranks:lease"

    def manifest(self, epoch: int) -> str:
        """string: packed uint32 per HostID — the epoch whose rank key holds that host's vector
        in ``epoch`` (0: none). Exists exactly while ``epoch`` is readable."""
        return f"{self.prefix}{{g}}:ranks:manifest:{epoch}"

    def dropping(self, epoch: int) -> str:
        """string: the manifest of an epoch being deleted (renamed from ``manifest`` first)."""
        return f"{self.prefix}{{g}}:ranks:dropping:{epoch}"

    def garbage(self, epoch: int) -> str:
        """string: packed uint32 (HostID, epoch) pairs of rank keys that ``epoch`` still reads but
        its successor replaced: deleted when ``epoch`` is dropped."""
        return f"{self.prefix}{{g}}:ranks:garbage:{epoch}"

    def top(self, epoch: int) -> str:
        """zset: URL → unnormalised score y of the best pages of ``epoch`` (rank = y / ``norm`` of the state hash)."""
        return f"{self.prefix}{{g}}:top:{epoch}"

    def hostrank(self, epoch: int) -> str:
        """zset: host key → summed unnormalised score of its pages in ``epoch`` (rank = score / ``norm``)."""
        return f"{self.prefix}{{g}}:hostrank:{epoch}"

    # -- per host (slot of {h<id>}) -------------------------------------------------------
    def urls(self, hid: int) -> str:
        """hash: path+query → LocalID."""
        return f"{self.prefix}{{h{hid}}}:urls"

    def paths(self, hid: int) -> str:
        """hash: LocalID → path+query."""
        return f"{self.prefix}{{h{hid}}}:paths"

    def out(self, hid: int) -> str:
        """hash: LocalID → packed out-edges (uint32 HostID, uint32 LocalID, float32 weight)*."""
        return f"{self.prefix}{{h{hid}}}:out"

    def outpack(self, hid: int) -> str:
        """string: the ``out`` hash as one value for cold loads — uint32 n, n (uint32 LocalID, uint32 byte
        count), then those pages' packed edges; dropped by every write to ``out``, rebuilt from it."""
        return f"{self.prefix}{{h{hid}}}:outpack"

    def gone(self, hid: int) -> str:
        """set: LocalIDs of pages that answered 4xx/5xx: they leave the graph (no rank, no in-links)."""
        return f"{self.prefix}{{h{hid}}}:gone"

    def alias(self, hid: int) -> str:
        """hash: LocalID of a redirecting URL → packed (uint32 HostID, uint32 LocalID) of its target."""
        return f"{self.prefix}{{h{hid}}}:alias"

    def meta(self, hid: int) -> str:
        """hash: LocalID → JSON page metadata (present once the page was crawled/imported)."""
        return f"{self.prefix}{{h{hid}}}:meta"

    def rank(self, hid: int, epoch: int) -> str:
        """string: packed float64 per LocalID of host ``hid``, written in ``epoch``: the unnormalised
        score y (rank = y / the state's ``norm``); NaN for pages outside the graph (gone, alias)."""
        return f"{self.prefix}{{h{hid}}}:rank:{epoch}"

    # -- site-level state (pipelines/site/sketch.py) ------------------------------------------
    # Per host under the hash tag {<host key>} (``scheme://host[:port]``), so one Lua call
    # touches one slot; crawl-wide site keys share {g}. Flat per host: see site/sketch.py.
    def site_meta(self, host: str) -> str:
        """hash: ``n`` (pages counted, decayed) and ``gen`` (current Bloom generation) of a host."""
        return f"{self.prefix}site:{{{host}}}:m"

    def site_sketch(self, host: str) -> str:
        """string: count-min sketch (uint16 cells) of a host's pagelet/fingerprint/label/term keys."""
        return f"{self.prefix}site:{{{host}}}:cm"

    def site_seen(self, host: str, generation: int) -> str:
        """string: Bloom filter of the page keys counted in one generation (0 or 1)."""
        return f"{self.prefix}site:{{{host}}}:seen{generation}"

    def site_classes(self, host: str) -> str:
        """string: count-min sketch of block-class counts n_C and n_{t,C} (``block`` weighting)."""
        return f"{self.prefix}site:{{{host}}}:cls"

    @property
    def site_neardup(self) -> str:
        """hash: near-duplicate band key (8 bytes) → the canonical page's key (8 bytes)."""
        return f"{self.prefix}site:{{g}}:nd"

    @property
    def site_df(self) -> str:
        """hash: term → pages containing it, crawl-wide (``lexical`` weighting)."""
        return f"{self.prefix}site:{{g}}:df"

    @property
    def site_df_n(self) -> str:
        """string: pages counted in ``site_df``."""
        return f"{self.prefix}site:{{g}}:dfn"

    # -- distributed frontier (scrapy-redis; ``%(spider)s`` is filled in by it) -----------
    @property
    def frontier(self) -> str:
        """zset: distributed mode: the shared frontier's hosts, host → score of its best queued URL (higher first)."""
        return f"{self.prefix}{{crawl}}:%(spider)s:requests"

    def frontier_host(self, host: str) -> str:
        """zset: distributed mode: a host's queued URLs, request fingerprint → evidence (``RANKCRAWL_FRONTIER``)."""
        return self.frontier + FRONTIER_HOST + host

    @property
    def frontier_hosts(self) -> str:
        """hash: distributed mode: ``q:<host>`` URLs queued, ``f:<host>`` URLs taken, per host."""
        return self.frontier + FRONTIER_HOSTS

    @property
    def frontier_requests(self) -> str:
        """hash: distributed mode: fingerprint → the queued request as JSON (never pickle)."""
        return self.frontier + FRONTIER_REQUESTS

    @property
    def frontier_seq(self) -> str:
        """string: distributed mode: entries ever queued (insertion numbers: equal scores pop first-in first)."""
        return self.frontier + FRONTIER_SEQ

    @property
    def dupefilter(self) -> str:
        """set: distributed mode: fingerprints of the requests already scheduled."""
        return f"{self.prefix}{{crawl}}:%(spider)s:dupefilter"


PLACEHOLDERS = {"hid": "<id>", "epoch": "<epoch>", "token": "<token>", "host": "<host>", "generation": "<0|1>"}
TABLE_START = "<!-- keys table: generated by python -m rankcrawl.settings.keys docs/REDIS_KEYS.md -->"
TABLE_END = "<!-- /keys table -->"


def markdown(prefix: str = DEFAULT_PREFIX) -> str:
    """The registry as a Markdown table: key pattern, type, content (from each docstring)."""
    keys, rows = Keys(prefix), ["| key | type | content |", "|---|---|---|"]
    for name, member in vars(Keys).items():
        func = member.fget if isinstance(member, property) else member
        if name.startswith("_") or not inspect.isfunction(func):
            continue
        args = [PLACEHOLDERS.get(p, f"<{p}>") for p in list(inspect.signature(func).parameters)[1:]]
        key = func(keys, *args)
        kind, _, content = " ".join((inspect.getdoc(func) or "").split()).partition(": ")
        rows.append(f"| `{key.replace('%(spider)s', '<spider>')}` | {kind} | {content} |")
    return "\n".join(rows)


if __name__ == "__main__":
    replace_between(Path(sys.argv[1]), TABLE_START, TABLE_END, markdown())
