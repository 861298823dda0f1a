"""Every ``RANKCRAWL_*`` Scrapy setting: name, default and one line of documentation, in one table.

Components read their settings as ``settings.get(name, DEFAULTS[name])`` so the table is the single
source of defaults; the add-on writes them at ``addon`` priority so users override them as usual.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Setting(NamedTuple):
    name: str
    default: Any
    doc: str


SETTINGS: tuple[Setting, ...] = (
    Setting("RANKCRAWL_ENABLED", True, "Master switch; False makes every rankcrawl component raise NotConfigured."),
    Setting("RANKCRAWL_REDIS_URL", None, "Redis/Valkey URL; falls back to REDIS_URL, unset → the embedded Valkey."),
    Setting("RANKCRAWL_KEY_PREFIX", "rc:", "Prefix of every Redis key rankcrawl writes (graph, ranks, site state, frontier)."),
    Setting("RANKCRAWL_LINK_SCOPE", "content", "Links that count (graph edges) and are followed: content | non-template | all."),
    Setting("RANKCRAWL_LINK_WEIGHTING", "uniform", "Edge weights pushed to the graph: uniform | block | lexical (SPEC §2.5)."),
    Setting("RANKCRAWL_CLASSIFIER", None, "Boilerplate classifier name (rankcrawl.pipelines registry); None → its default."),
    Setting("RANKCRAWL_SITE_LEVEL", True, "Run the per-host template/block-weight analysis (SPEC §2.4) after per-page analysis."),
    Setting("RANKCRAWL_MAX_PAGE_BYTES", 2_000_000, "Pages are analysed up to this many bytes; DOWNLOAD_MAXSIZE is 4× this."),
    Setting("RANKCRAWL_ALLOW_PRIVATE", False, "Allow requests to private, loopback, link-local, reserved addresses."),
    Setting("RANKCRAWL_MAX_PAGES", 0, "Page budget: the spider closes after fetching this many pages; 0 = unbounded."),
    Setting("RANKCRAWL_TOPIC_TERMS", [], "Topic terms; anchor/block text matching them raises a link's priority."),
    Setting("RANKCRAWL_BIAS_TO_SEEDS", False, "Topic-specific PageRank: teleport to the seeds (Kohlschütter §3.1 Eq. 3.4)."),
    Setting("RANKCRAWL_RANK_REFRESH", 2.0, "Seconds between background reads of the published ranks for priorities (1e6: rank-blind FIFO)."),
    Setting("RANKCRAWL_RANKER", True, "Run the ranker service inside the crawl process (off when a separate ranker runs)."),
    Setting("RANKCRAWL_ALPHA", 0.85, "PageRank damping factor alpha of the in-process ranker."),
    Setting("RANKCRAWL_TOL", 1e-10, "L1 stopping tolerance of the in-process ranker."),
    Setting("RANKCRAWL_PARTITIONS", 1, "Host partitions of the in-process ranker's Gauss–Seidel solver."),
    Setting("RANKCRAWL_EDGE_BATCH", 64, "Pages per graph-store write batch of the edge pipeline."),
    Setting("RANKCRAWL_EDGE_BUFFER", 10_000, "Pages the edge pipeline buffers while Redis is down; beyond it, backpressure."),
    Setting("RANKCRAWL_FLUSH_TIMEOUT", 60.0, "Seconds the edge pipeline waits at close for buffered edges to reach Redis."),
    Setting("RANKCRAWL_DISTRIBUTED", False, "Share the frontier and dupefilter through Redis (scrapy-redis) across processes."),
    Setting("RANKCRAWL_IDLE_TIMEOUT", 5.0, "Distributed mode: seconds an idle process waits for shared work before closing."),
    # -- analysis execution and graph conventions (pipelines/page_analyzer.py) --
    Setting("RANKCRAWL_ANALYSIS_WORKERS", None, "Page-analysis worker processes; None = one per CPU core, 0 = analyse in a reactor thread."),
    Setting("RANKCRAWL_SUM_REPEATED_LINKS", False, "Repeated links from a page to one target add up their weights (default: one edge, counted once)."),
)

DEFAULTS: dict[str, Any] = {s.name: s.default for s in SETTINGS}

LINK_SCOPES = ("content", "non-template", "all")
LINK_WEIGHTINGS = ("uniform", "block", "lexical")


def check_choices(settings: Any) -> None:
    """ValueError (one line) when a choice setting has a value outside its choices."""
    for name, choices in (("RANKCRAWL_LINK_SCOPE", LINK_SCOPES), ("RANKCRAWL_LINK_WEIGHTING", LINK_WEIGHTINGS)):
        value = settings.get(name) or DEFAULTS[name]
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")


def markdown() -> str:
    """The settings table as Markdown (for the README)."""
    rows = [f"| `{s.name}` | `{s.default!r}` | {s.doc} |" for s in SETTINGS]
    return "\n".join(["| setting | default | meaning |", "|---|---|---|", *rows])
