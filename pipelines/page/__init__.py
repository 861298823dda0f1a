"""Page analysis: one page's bytes → its ``Document`` (decode → parse → blocks → fusion → classification →
links), pure: no Scrapy, no Redis, no state kept between pages.

``analyze`` is the entry point; ``budget.analyze_within`` runs it under a time budget (the crawl and
``rankcrawl extract`` call that one). The chain of steps is ``steps.PRESETS``; every module here imports
only this package and ``rankcrawl.settings``."""

from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES, analyze
from rankcrawl.pipelines.page.document import Document, Link, TextBlock

__all__ = ["DEFAULT_MAX_PAGE_BYTES", "Document", "Link", "TextBlock", "analyze"]
