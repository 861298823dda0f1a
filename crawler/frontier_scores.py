"""Frontier strategies (``RANKCRAWL_FRONTIER``): a queued URL's first score and how evidence raises it.

Evidence reaches an entry in two ways:

* an in-link, when a fetched page links to the URL: the page's *value* v (its own entry's score when
  it was popped, carried to its links) and the link's *share* s of the page's vote (w / Σw over the
  page's counted links; 0 for a link that is followed but is no edge);
* a published epoch (``pagerank`` only): the URL's rank in the live PageRank of the crawl graph,
  which already includes every uncrawled URL an edge points to.

Strategies (score higher = fetched sooner; equal scores pop first-seen first, i.e. breadth-first):

``breadth-first``
    Every URL scores 0: FIFO, breadth-first (Najork & Wiener 2001: a strong baseline).
``static``
    The link's request priority when first seen, never changed (the rank-aware priorities of
    ``crawler/priority.py``).
``inlinks``
    Number of counted in-links seen so far (Cho, Garcia-Molina & Page 1998, "backlink count").
``opic``
    OPIC cash (Abiteboul, Preda & Cobena 2003): seeds start with 1; a fetched page hands its cash on
    along its counted links in proportion to their shares; a queued URL's score is the cash it
    received.
``pagerank``
    Live PageRank: each published epoch sets a queued URL's score to its rank r(u) (Cho et al.'s
    partial-PageRank ordering, computed by the ranker over the content graph); between epochs each
    new in-link adds the vote it will carry in the next epoch, α · v · s, with v the linking page's
    rank when it was fetched — the OPIC step with ranks as cash, so evidence counts at once and the
    epoch corrects what the estimate got wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

SEED_VALUE = 1.0
"""Value of a start request (OPIC's initial cash), handed on to the links of the seed page."""


@dataclass(frozen=True)
class Strategy:
    """How one frontier order scores: ``first`` for a new URL, ``vote`` per later in-link."""

    name: str
    vote_factor: float = 0.0
    """Score added per in-link: vote_factor · value · share (0: in-links do not re-score)."""
    count_links: bool = False
    """Score added per counted in-link: 1 (``inlinks``)."""
    use_priority: bool = False
    """The first score is the request's priority (``static``)."""
    uses_ranks: bool = False
    """Published epochs set the scores of the URLs they rank."""

    @property
    def rescores(self) -> bool:
        return self.vote_factor > 0 or self.count_links

    def vote(self, value: float, share: float) -> float:
        """Score added to the target of one in-link from a page of ``value`` with vote ``share``."""
        if self.count_links:
            return 1.0 if share > 0 else 0.0
        return self.vote_factor * value * share

    def first(self, priority: int, value: float, share: float) -> float:
        """Score of a URL when it is first seen through a link."""
        return float(priority) if self.use_priority else self.vote(value, share)

    def seed(self, priority: int) -> float:
        """Score of a start request (no linking page)."""
        return float(priority) if self.use_priority else (SEED_VALUE if self.rescores else 0.0)


def strategy(name: str, alpha: float = 0.85) -> Strategy:
    """The ``RANKCRAWL_FRONTIER`` strategy ``name`` (damping ``alpha`` for ``pagerank``)."""
    table = {
        "breadth-first": Strategy("breadth-first"),
        "static": Strategy("static", use_priority=True),
        "inlinks": Strategy("inlinks", count_links=True),
        "opic": Strategy("opic", vote_factor=1.0),
        "pagerank": Strategy("pagerank", vote_factor=alpha, uses_ranks=True),
    }
    try:
        return table[name]
    except KeyError:
        raise ValueError(f"unknown frontier {name!r}; choose from {', '.join(table)}") from None


LINK_META = "rankcrawl_link"
"""Request meta set by the follow middleware: ``[value, share]`` of the in-link that found the URL."""
VALUE_META = "rankcrawl_value"
"""Request meta set by the scheduler when it hands a request out: the entry's score then (the page's value)."""
