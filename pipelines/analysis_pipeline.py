"""Item pipeline: a fetched page → per-page analysis → site-level analysis → edges and links to follow.

Runs ``analyze`` (SPEC §2.1–2.3, capped at RANKCRAWL_MAX_PAGE_BYTES) and then the per-host
``SiteAnalyzer`` (§2.4–2.6) in a worker thread, so neither parsing nor the site analyzer's Redis
calls block the reactor. RANKCRAWL_LINK_SCOPE names the links that count — as graph edges and as
links to follow: ``content`` (content-region links), ``non-template`` (every link outside
template pagelets/segments), ``all``. The item gets ``edges`` (target → summed weight),
``follow`` ((url, anchor + block text, weight) of the counted links) and ``repush`` (earlier pages
of the host whose edges the site-level step recomputed, e.g. once a template was discovered).
Without site-level analysis, ``non-template`` falls back to every link. Non-HTML or binary
responses and HTTP errors are dropped with a stat, never a crash.

Stats: ``rankcrawl/pages/{analysed,truncated,near_duplicates,repushed}``,
``rankcrawl/blocks``, ``rankcrawl/blocks/{boilerplate,template}``, ``rankcrawl/boilerplate_share``,
``rankcrawl/links/{seen,kept}``, ``rankcrawl/links/dropped/{boilerplate,template,duplicate}``,
``rankcrawl/dropped/{non_html,http_error}``.
"""

from __future__ import annotations

import logging
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured

from rankcrawl.pipelines.page_analyzer import NotAnalysed, PageAnalyzer, record_stats
from rankcrawl.settings.defaults import DEFAULTS

logger = logging.getLogger(__name__)

class AnalysisPipeline:
    """Per-page and site-level analysis of every crawled page item."""

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        self.analyzer = PageAnalyzer.from_settings(crawler.settings)

    @classmethod
    def from_crawler(cls, crawler: Any) -> "AnalysisPipeline":
        if not crawler.settings.getbool("RANKCRAWL_ENABLED", DEFAULTS["RANKCRAWL_ENABLED"]):
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls(crawler)

    async def process_item(self, item: Any) -> Any:
        a = ItemAdapter(item)
        try:
            result = await self.analyzer.analyze(
                a["url"], a.get("body") or b"", status=int(a.get("status") or 200), encoding=a.get("encoding"),
                content_type=a.get("content_type") or "")
        except NotAnalysed as exc:
            self.stats.inc_value(f"rankcrawl/dropped/{exc.reason}")
            raise DropItem(str(exc)) from None
        a["title"] = result.title
        a["edges"] = result.edges
        a["follow"] = [(f.url, f.text, f.weight) for f in result.follow if f.counted]
        a["repush"] = result.repush
        record_stats(self.stats, result)
        return item

    async def close_spider(self) -> None:
        await self.analyzer.close(self.stats)
