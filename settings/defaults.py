"""Every ``RANKCRAWL_*`` Scrapy setting: name, default, one line of documentation and what it allows.

The table is the single source of defaults and of validation: ``rankcrawl.settings.config``
builds one typed, checked ``RankcrawlConfig`` from it, and the README's settings table is
generated from it (``python -m rankcrawl.settings.config README.md``). A row without a kind
gets one from its default's type (``kinds.kind_for``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rankcrawl.settings.kinds import Checked, Choice, Flag, Int, Kind, Number, OptionalInt, RedisURL, Terms, Text, kind_for
from rankcrawl.settings.urls import MAX_URL_LENGTH


class Setting(NamedTuple):
    name: str
    default: Any
    doc: str
    kind: Kind | None = None

    def check(self) -> Kind:
        """The setting's kind (explicit, else from its default's type)."""
        return self.kind or kind_for(self.default)


FOLLOW_SCOPES = ("all", "non-template", "content", "none")
EDGE_SCOPES = ("content", "non-template", "all")
LINK_WEIGHTINGS = ("uniform", "block", "lexical")
FRONTIERS = ("pagerank", "opic", "inlinks", "breadth-first", "static")
CLASSIFIER = Checked("rankcrawl.pipelines.page_analyzer:check_classifier",
                     "a classifier of rankcrawl.pipelines.page.classifiers, optionally +filter")

SETTINGS: tuple[Setting, ...] = (
    Setting("RANKCRAWL_ENABLED", True, "Master switch; False makes every rankcrawl component raise NotConfigured.", Flag()),
    Setting("RANKCRAWL_REDIS_URL", None, "Redis/Valkey URL; falls back to REDIS_URL, unset → the embedded Valkey.", RedisURL()),
    Setting("RANKCRAWL_KEY_PREFIX", "rc:", "Prefix of every Redis key rankcrawl writes (graph, ranks, site state, frontier).",
            Text()),
    Setting("RANKCRAWL_FOLLOW_SCOPE", "all", "Links the crawl follows (content links first, template links last); "
            "none = only the spider's own requests.", Choice(FOLLOW_SCOPES)),
    Setting("RANKCRAWL_EDGE_SCOPE", "content", "Links that become graph edges (follow ≠ count).", Choice(EDGE_SCOPES)),
    Setting("RANKCRAWL_LINK_WEIGHTING", "uniform", "Edge weights pushed to the graph (docs/ARCHITECTURE.md, Site-level).",
            Choice(LINK_WEIGHTINGS)),
    Setting("RANKCRAWL_CLASSIFIER", None, "Boilerplate classifier; None → the analysis default.", CLASSIFIER),
    Setting("RANKCRAWL_SITE_LEVEL", True,
            "Run the per-host template/block-weight analysis after per-page analysis (docs/ARCHITECTURE.md, Site-level).",
            Flag()),
    Setting("RANKCRAWL_MAX_PAGE_BYTES", 2_000_000, "Pages are analysed up to this many bytes; DOWNLOAD_MAXSIZE is 4× this.",
            Int(1)),
    Setting("RANKCRAWL_MAX_URL_LENGTH", MAX_URL_LENGTH, "URLs longer than this (characters, before or after normalisation) "
            "are not stored, like URLs with control characters or invalid UTF-8 (counted: rankcrawl/urls/rejected).",
            Int(16)),
    Setting("RANKCRAWL_ANALYSIS_TIMEOUT", 5.0, "Seconds of analysis per page, decoding and parsing included: the whole page "
            "gets half, then its first eighth the rest, else it is skipped (stats). 0 = no limit.", Number(0.0, closed=True)),
    Setting("RANKCRAWL_ALLOW_PRIVATE", False, "Allow requests to private, loopback, link-local, reserved addresses.", Flag()),
    Setting("RANKCRAWL_SSRF_FAIL_OPEN", False, "Let a request through when its host name cannot be resolved "
            "(the address guard fails closed by default).", Flag()),
    Setting("RANKCRAWL_MAX_PAGES", 0, "Page budget: the crawl closes after this many pages reached the spider; 0 = unbounded.",
            Int(0)),
    Setting("RANKCRAWL_TOPIC_TERMS", [], "Topic terms; anchor/block text matching them raises a link's priority.", Terms()),
    Setting("RANKCRAWL_BIAS_TO_SEEDS", False, "Topic-specific PageRank: teleport to the seeds (Kohlschütter §3.1 Eq. 3.4).",
            Flag()),
    Setting("RANKCRAWL_FRONTIER", "pagerank", "Order of the frontier: every queued URL has one entry re-scored as in-links "
            "and published ranks arrive (pagerank: live PageRank; opic: OPIC cash; inlinks: in-link count; "
            "breadth-first; static: the link's priority when first seen).", Choice(FRONTIERS)),
    Setting("RANKCRAWL_ANALYSIS_BACKLOG", None, "Fetched pages awaiting analysis at which a re-scoring frontier "
            "(pagerank, opic, inlinks) hands out no more URLs until one is analysed, so it chooses with their links "
            "known; unset = two per analysis worker process (2 with RANKCRAWL_ANALYSIS_WORKERS = 0), 0 = never wait.", OptionalInt(0)),
    Setting("RANKCRAWL_RANK_REFRESH", 2.0, "Seconds between background reads of the published ranks for priorities "
            "(1e6: rank-blind FIFO).", Number(0.0)),
    Setting("RANKCRAWL_RANKER", True, "Run the ranker service inside the crawl process (off when a separate ranker runs).",
            Flag()),
    Setting("RANKCRAWL_ALPHA", 0.85, "PageRank damping factor alpha of the in-process ranker.", Number(0.0, high=1.0)),
    Setting("RANKCRAWL_TOL", 1e-10, "L1 stopping tolerance of the in-process ranker.", Number(0.0)),
    Setting("RANKCRAWL_INTERIM_TOL", 1e-6, "Certified L1 error bound of the in-process ranker's interim epochs, "
            "published while pages keep arriving; the epoch once they pause, and the final one after the crawl, "
            "meet RANKCRAWL_TOL (a value below it counts as RANKCRAWL_TOL).", Number(0.0)),
    Setting("RANKCRAWL_PARTITIONS", 1, "Threads of the ranker's cold solve: contiguous blocks of hosts, one thread each "
            "(Gauss–Seidel sweeps, cross-block votes one sweep late).", Int(1)),
    Setting("RANKCRAWL_EDGE_BATCH", 64, "Pages per graph-store write batch of the edge writer.", Int(1)),
    Setting("RANKCRAWL_EDGE_BUFFER", 10_000, "Pages the edge writers buffer while Redis is down (split evenly over the analysis "
            "workers); beyond it, backpressure.",
            Int(1)),
    Setting("RANKCRAWL_FLUSH_TIMEOUT", 60.0, "Seconds the edge writer waits for Redis: at close for buffered edges, and "
            "during the crawl (at least RANKCRAWL_OUTAGE_TIMEOUT) before a Redis that takes no write ends it "
            "(finish reason redis_unavailable).", Number(0.0, closed=True)),
    Setting("RANKCRAWL_OUTAGE_TIMEOUT", 30.0, "Seconds without a write reaching Redis before fetching pauses (it pauses "
            "at once when RANKCRAWL_EDGE_BUFFER is full) until writes go through again.", Number(0.0)),
    Setting("RANKCRAWL_DISTRIBUTED", False, "Share the frontier and dupefilter through Redis (scrapy-redis) across processes.",
            Flag()),
    Setting("RANKCRAWL_IDLE_TIMEOUT", 5.0, "Distributed mode: seconds an idle process waits for shared work before closing.",
            Number(0.0, closed=True)),
    Setting("RANKCRAWL_PROGRESS_INTERVAL", 60.0, "Seconds between the crawl's progress lines (pages/min, analysed, edges "
            "stored, frontier, last epoch); 0 = none.", Number(0.0, closed=True)),
    # -- analysis execution and graph conventions (pipelines/page_analyzer.py, pipelines/workers/pool.py) --
    Setting("RANKCRAWL_ANALYSIS_WORKERS", None, "Analysis worker processes, each the owner of its hosts' pages (analysis, site-level step, edge "
            "writes); unset = one per CPU core, 0 = one worker in a thread of the crawl process.", OptionalInt(0)),
    Setting("RANKCRAWL_SUM_REPEATED_LINKS", False, "Repeated links from a page to one target add up their weights "
            "(default: one edge, counted once).", Flag()),
)

DEFAULTS: dict[str, Any] = {s.name: s.default for s in SETTINGS}


def markdown() -> str:
    """The settings table as Markdown (for the README)."""
    rows = [f"| `{s.name}` | `{s.default!r}` | {s.check().allowed} | {s.doc} |" for s in SETTINGS]
    return "\n".join(["| setting | default | allowed | meaning |", "|---|---|---|---|", *rows])
