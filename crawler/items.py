"""The item a crawled page travels through the pipelines as.

The spider fills the fetch fields; ``AnalysisPipeline`` fills ``edges`` (content links and their
weights, pushed to the graph) and ``follow`` (``(url, text, weight)`` of the links the spider may
schedule, ``text`` being anchor + block text for topicality) and ``repush`` (earlier pages whose
edges the site-level step recomputed). The pipelines access items through
``itemadapter``, so a user's own spider may yield plain dicts with the same field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PageItem:
    url: str
    body: bytes
    status: int
    encoding: str | None = None
    content_type: str = ""
    depth: int = 0
    fetched_at: float = 0.0
    title: str = ""
    edges: list[tuple[str, float]] = field(default_factory=list)
    follow: list[tuple[str, str, float]] = field(default_factory=list)
    repush: list[tuple[str, list[tuple[str, float]]]] = field(default_factory=list)
