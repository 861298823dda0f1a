"""Item pipeline for pages a spider yields as items: analyse them and store their edges.

With the add-on, every HTML response is already analysed by the follow middleware
(``rankcrawl.crawler.follow``); this pipeline serves spiders that yield their pages as
``PageItem``s or dicts with ``url`` and ``body`` (and optionally ``status``, ``encoding``,
``content_type``, ``depth``, ``fetched_at``). Such an item is analysed by the crawl's one
``PageAnalyzer`` (SPEC §2.1–2.6), whose worker stores its page in the graph; the item gets ``title``,
``edges``, ``follow`` ((url, anchor + block text, weight) of the counted links) and ``repush``.
Items without a body, and items of pages the middleware already stored, pass unchanged. Non-HTML pages and HTTP errors are dropped with a stat.

Stats: those of ``page_analyzer.record_stats``, ``rankcrawl/dropped/{non_html,http_error,analysis_timeout}``,
``rankcrawl/pages/analysis_prefix`` (pages over RANKCRAWL_ANALYSIS_TIMEOUT, analysed on their prefix).
"""

from __future__ import annotations

import time
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured

from rankcrawl.pipelines.page_analyzer import NotAnalysed, PageAnalyzer, record_stats
from rankcrawl.settings.config import RankcrawlConfig


class AnalysisPipeline:
    """Analyse page items that carry a body; their workers store their edges."""

    def __init__(self, crawler: Any) -> None:
        self.stats = crawler.stats
        self.analyzer = PageAnalyzer.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Any) -> AnalysisPipeline:
        if not RankcrawlConfig.of(crawler).enabled:
            raise NotConfigured("RANKCRAWL_ENABLED is False")
        return cls(crawler)

    async def process_item(self, item: Any) -> Any:
        a = ItemAdapter(item)
        url, body = a.get("url"), a.get("body")
        if not isinstance(url, str) or not isinstance(body, bytes) or self.analyzer.stored(url):
            return item
        status = int(a.get("status") or 200)
        meta = {"status": status, "depth": a.get("depth"), "fetched_at": a.get("fetched_at") or time.time()}
        try:
            result = await self.analyzer.analyze(url, body, status=status, encoding=a.get("encoding"),
                                                 content_type=a.get("content_type") or "", meta=meta)
        except NotAnalysed as exc:
            self.stats.inc_value(f"rankcrawl/dropped/{exc.reason}")
            raise DropItem(str(exc)) from None
        record_stats(self.stats, result)
        for name, value in (("title", result.title), ("edges", result.edges), ("repush", result.repush),
                            ("follow", [(f.url, f.text, f.weight) for f in result.follow if f.counted])):
            if name in a.field_names() or isinstance(item, dict):
                a[name] = value
        return item

    async def close_spider(self) -> None:
        await self.analyzer.close(self.stats)
