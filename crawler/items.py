"""The item a spider may yield for a page it wants analysed by ``AnalysisPipeline``.

Not needed with the follow middleware (it analyses every response). The spider fills the fetch
fields; the pipeline fills ``title``, ``edges`` (the page's graph edges and their weights),
``follow`` (``(url, text, weight)`` of the counted links, ``text`` being anchor + block text)
and ``repush`` (earlier pages whose edges the site-level step recomputed). The pipeline reads
items through ``itemadapter``, so plain dicts with the same field names work too.
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
