"""Redis key names of the graph store and the published ranks, in one place.

Global keys share the hash tag ``{g}`` and per-host keys carry ``{h<id>}``, so on a Redis
Cluster every Lua script and every atomic update touches a single slot (SPEC §3).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PREFIX = "rc:"


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

    @property
    def changes(self) -> str:
        """stream: one entry per batch, field ``hosts`` = comma-separated changed HostIDs."""
        return f"{self.prefix}{{g}}:changes"

    @property
    def ranks(self) -> str:
        """hash: the published state — epoch, stream offset consumed, solve figures."""
        return f"{self.prefix}{{g}}:ranks"

    def epoch_hosts(self, epoch: int) -> str:
        """string: packed uint32 HostIDs that have a rank vector in ``epoch``."""
        return f"{self.prefix}{{g}}:ranks:hosts:{epoch}"

    def epoch_dropping(self, epoch: int) -> str:
        """string: the host list of an epoch being deleted (renamed from ``epoch_hosts`` first)."""
        return f"{self.prefix}{{g}}:ranks:dropping:{epoch}"

    def top(self, epoch: int) -> str:
        """zset: URL → rank, the best pages of ``epoch``."""
        return f"{self.prefix}{{g}}:top:{epoch}"

    def hostrank(self, epoch: int) -> str:
        """zset: host key → summed rank of its pages in ``epoch``."""
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

    def meta(self, hid: int) -> str:
        """hash: LocalID → JSON page metadata (present once the page was crawled/imported)."""
        return f"{self.prefix}{{h{hid}}}:meta"

    def rank(self, hid: int, epoch: int) -> str:
        """string: packed float64 rank per LocalID of host ``hid`` in ``epoch``."""
        return f"{self.prefix}{{h{hid}}}:rank:{epoch}"

    # -- site-level state (pipelines/sitestate.py) ------------------------------------------
    # Per host under the hash tag {<host key>} (``scheme://host[:port]``), so one Lua call
    # touches one slot; crawl-wide site keys share {g}. Flat per host: see sitestate.py.
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
