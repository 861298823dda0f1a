"""Frontier strategies (``RANKCRAWL_FRONTIER``): a queued URL's evidence and the score it gives.

Every queued URL carries one number, its *evidence*, which only in-links and published epochs
change; its score (higher = fetched sooner; equal scores pop first-seen first) is a function of the
evidence, the request's priority and, for ``pagerank``, the counts of its host (``HostCounts``).

An in-link brings the linking page's *value* v (its own entry's score when it was handed out) and
the link's *share* s of that page's vote (w / Σw over the page's counted links; 0 for a link that
is followed but is no edge of the ranked graph).

``breadth-first``
    Every URL scores 0: FIFO, breadth-first (Najork & Wiener 2001: a strong baseline).
``static``
    The link's request priority when first seen, never changed (``crawler/priority.py``).
``inlinks``
    Number of counted in-links seen so far (Cho, Garcia-Molina & Page 1998, "backlink count").
``opic``
    OPIC cash (Abiteboul, Preda & Cobena 2003): start requests hold 1; a fetched page hands its
    cash on along its counted links in proportion to their shares.
``pagerank``
    An estimate of the URL's final PageRank in units of the average page (1): (1 − α) + α · the
    votes it will receive, nearly all from pages of its own host. The crawl has fetched F of the
    D URLs it knows on the host (handed out plus queued); E, the evidence, is the number of fetched
    pages with a counted link to the URL, so E / F estimates the share of the host's pages that
    link to it, and each of the D − F pages not fetched yet is expected to link to it at that rate,
    with the host's mean share per counted link s̄ (the summed shares over the number of counted
    in-links of the host's URLs)::

        score = (1 − α) + α · s̄ · (D − F) · (E + p₀) / (F + 1)

    with a prior of ``PRIOR_PAGES`` pages that link to the URL with the probability
    p₀ = ``PRIOR_PAGES`` · min(1, 1 / (s̄ D)) (its mean number of links over D), which is also the
    whole estimate for a host not fetched yet. The evidence E includes the URL's sibling evidence
    (``crawler/sibling_urls.py``: in-links counted to the pages of its host with the same file
    name), which the scheduler adds when it scores an entry. Scaling by host puts hosts of very different
    sizes on one scale — the global budget goes where the remaining votes are — and a host that
    is fetched out, or whose pages link to few of its queued URLs, falls back. Each published
    epoch blends into the evidence of the queued URLs it ranks their live PageRank above the
    epoch's lowest rank (their in-flow from the crawl graph, weighted by the linking pages' ranks,
    which include the in-links found after they were fetched), scaled per host to the host's
    summed evidence, with the weight ``EPOCH_WEIGHT`` (``epoch_evidence``): among URLs of equal
    in-link counts the better-linked come first. The partial graph's ranks are biased towards
    its explored part, so they correct the counts but do not replace them.
    The host factor s̄ (D − F) / (F + 1) changes with every fetch: scores set under different
    factors would not compare, so a host's entries are re-scored together whenever its factor has
    drifted by ``RESCORE_DRIFT`` since their last re-scoring (``rescore_due``), and all entries once
    per epoch.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

SEED_CASH = 1.0
"""OPIC's initial cash of a start request, handed on to the links of its page."""
EPOCH_WEIGHT = 0.1
"""Weight of a published epoch's in-flow in the evidence of the URLs it ranks (the rest: the counts)."""
PRIOR_PAGES = 2.0
"""``pagerank``'s prior: pages, of the mean link rate, that link to every queued URL of a host."""
RESCORE_DRIFT = 0.5
"""A host's entries are re-scored together once its host factor moved by this share of itself:
O(log F) times per host while F pages of it are fetched."""


@dataclass(slots=True)
class HostCounts:
    """Per host (politeness slot): URLs queued, and URLs handed out to be fetched."""

    queued: int = 0
    fetched: int = 0
    links: int = 0
    """Counted in-links seen to the host's URLs (queued, fetched or new alike)."""
    shares: float = 0.0
    """Their summed shares."""
    scale: float = 0.0
    """The strategy's ``host_factor`` when every queued entry of the host was last re-scored."""
    crawl: HostCounts | None = None
    """The crawl's counted in-links over all hosts: the prior mean share of a host with none yet."""


@dataclass
class HostTally:
    """``HostCounts`` of every host, kept by the frontier as it pushes, pops and removes entries."""

    hosts: dict[str, HostCounts] = field(default_factory=dict)
    crawl: HostCounts = field(default_factory=HostCounts)
    """Counted in-links (``links``, ``shares``) over every host."""

    def of(self, host: str) -> HostCounts:
        counts = self.hosts.get(host)
        if counts is None:
            counts = self.hosts[host] = HostCounts(crawl=self.crawl)
        return counts

    def queued(self, host: str) -> None:
        self.of(host).queued += 1

    def taken(self, host: str) -> None:
        """A queued URL of ``host`` was handed out to be fetched."""
        counts = self.of(host)
        counts.queued -= 1
        counts.fetched += 1

    def linked(self, host: str, share: float) -> None:
        """A fetched page has a counted link (``share`` > 0) to a URL of ``host``."""
        if share > 0:
            for counts in (self.of(host), self.crawl):
                counts.links += 1
                counts.shares += share

    def dropped(self, host: str) -> None:
        """A queued URL of ``host`` left the queue unfetched."""
        self.of(host).queued -= 1


@dataclass(frozen=True)
class Strategy:
    """How one frontier order scores (module docstring)."""

    name: str
    alpha: float = 0.85
    """PageRank damping (``pagerank``)."""

    @property
    def rescores(self) -> bool:
        """In-links found for a queued URL change its score."""
        return self.name in ("inlinks", "opic", "pagerank")

    @property
    def uses_ranks(self) -> bool:
        """Published epochs change the evidence of the URLs they rank."""
        return self.name == "pagerank"

    @property
    def uses_siblings(self) -> bool:
        """A URL's evidence includes its sibling URLs' (``crawler/sibling_urls.py``)."""
        return self.name == "pagerank"

    @property
    def uses_hosts(self) -> bool:
        """The score depends on the host's counts: a host's entries are re-scored together when
        ``rescore_due``, and every entry once per epoch."""
        return self.name == "pagerank"

    def host_factor(self, host: HostCounts) -> float:
        """What a host's counts weigh evidence by (``pagerank``: s̄ (D − F) / (F + 1))."""
        if self.name != "pagerank":
            return 1.0
        return mean_share(host) * max(host.queued, 0) / (max(host.fetched, 0) + 1.0)

    def rescore_due(self, host: HostCounts) -> bool:
        """The host's entries hold scores of a host factor that has drifted by more than
        ``RESCORE_DRIFT`` of itself since they were set: re-score every queued entry of the host
        (and set ``host.scale``), so its entries compare with each other and with other hosts'."""
        if not self.uses_hosts:
            return False
        return abs(self.host_factor(host) - host.scale) > RESCORE_DRIFT * host.scale or host.scale == 0.0

    def evidence(self, value: float, share: float) -> float:
        """Evidence one in-link adds: from a page of ``value`` with vote ``share``."""
        if self.name in ("inlinks", "pagerank"):
            return 1.0 if share > 0 else 0.0
        if self.name == "opic":
            return value * share
        return 0.0

    def seed_evidence(self) -> float:
        """Evidence of a start request (no linking page)."""
        return SEED_CASH if self.name in ("inlinks", "opic") else 0.0

    def score(self, evidence: float, priority: int = 0, host: HostCounts | None = None) -> float:
        """The score of a queued URL with ``evidence``, request ``priority`` and its ``host``'s counts."""
        if self.name == "static":
            return float(priority)
        if self.name in ("inlinks", "opic"):
            return evidence
        if self.name == "pagerank":
            return self.estimate(evidence, host or HostCounts(queued=1))
        return 0.0

    def vote(self, value: float, share: float, host: HostCounts | None = None) -> float:
        """The score an in-link adds to a queued URL (scores are linear in the evidence)."""
        e = self.evidence(value, share)
        if self.name == "pagerank":
            return self.estimate(e, host or HostCounts(queued=1)) - self.estimate(0.0, host or HostCounts(queued=1))
        return e

    def first(self, priority: int, value: float, share: float, host: HostCounts | None = None) -> float:
        """The score of a URL first seen through an in-link."""
        return self.score(self.evidence(value, share), priority, host)

    def seed(self, priority: int, host: HostCounts | None = None) -> float:
        """The score of a start request."""
        return self.score(self.seed_evidence(), priority, host)

    def estimate(self, evidence: float, host: HostCounts) -> float:
        """``pagerank``'s estimate of the final PageRank (average page = 1) of a URL queued on ``host``."""
        fetched = max(host.fetched, 0)
        known = max(fetched + host.queued, 1)
        share = mean_share(host)
        prior = PRIOR_PAGES * min(1.0, 1.0 / (share * known))
        return (1.0 - self.alpha) + self.alpha * share * (known - fetched) * (evidence + prior) / (fetched + 1)


def mean_share(host: HostCounts) -> float:
    """The host's mean share per counted in-link; before any is seen, the crawl's (so that a counted
    in-link never ranks a URL of an unseen host below one that has none), and 1 / D before that."""
    for counts in (host, host.crawl):
        if counts is not None and counts.links > 0 and counts.shares > 0:
            return counts.shares / counts.links
    return 1.0 / max(host.fetched + host.queued, 1)


def epoch_evidence(items: Iterable[tuple[Hashable, str, float, float]],
                   weight: float = EPOCH_WEIGHT) -> dict[Hashable, float]:
    """New evidence of the ranked queued URLs from one published epoch.

    ``items``: (key, host, published rank, current evidence) of every queued URL the epoch ranks.
    A URL's in-flow is its rank above the lowest rank of the batch (the teleport and dangling share
    every node gets); per host the in-flows are scaled to the host's summed current evidence, and
    the new evidence is ``weight`` · scaled in-flow + (1 − ``weight``) · evidence. A host whose URLs
    all sit at the lowest rank keeps its evidence.
    """
    rows = list(items)
    if not rows:
        return {}
    low = min(rank for _, _, rank, _ in rows)
    evidence: dict[str, float] = {}
    inflow: dict[str, float] = {}
    for _, host, rank, ev in rows:
        evidence[host] = evidence.get(host, 0.0) + ev
        inflow[host] = inflow.get(host, 0.0) + (rank - low)
    out: dict[Hashable, float] = {}
    for key, host, rank, ev in rows:
        total = inflow[host]
        out[key] = weight * (rank - low) * evidence[host] / total + (1.0 - weight) * ev if total > 0 else ev
    return out


NAMES = ("breadth-first", "static", "inlinks", "opic", "pagerank")


def strategy(name: str, alpha: float = 0.85) -> Strategy:
    """The ``RANKCRAWL_FRONTIER`` strategy ``name`` (damping ``alpha`` for ``pagerank``)."""
    if name not in NAMES:
        raise ValueError(f"unknown frontier {name!r}; choose from {', '.join(NAMES)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"frontier damping must be in (0, 1), got {alpha!r}")
    return Strategy(name, alpha)


LINK_META = "rankcrawl_link"
"""Request meta set by the follow middleware: ``[value, share]`` of the in-link that found the URL."""
VALUE_META = "rankcrawl_value"
"""Request meta set by the scheduler when it hands a request out: the entry's score then (the page's value)."""
