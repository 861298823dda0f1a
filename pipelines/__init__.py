"""rankcrawl.pipelines: the analysis of a fetched page, in sub-packages that follow its data.

``page`` (a page's bytes → its ``Document``; pure) → ``site`` (the page's facts, its host's evidence in Redis,
the site-level decision) → ``edges`` (the graph store's writers); ``workers`` runs all three for a page in
the worker process that owns its host. ``analyze`` (here) is the entry point for one page's ``Document``;
``page_analyzer.PageAnalyzer`` the crawl's entry point for a fetched page's edges and links to follow."""

from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES, analyze
from rankcrawl.pipelines.page.document import Document, Link, TextBlock

__all__ = ["DEFAULT_MAX_PAGE_BYTES", "Document", "Link", "TextBlock", "analyze"]
