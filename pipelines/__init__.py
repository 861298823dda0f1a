"""rankcrawl.pipelines: page analysis (blocks, Block Fusion, boilerplate classification, links)."""

from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES, analyze
from rankcrawl.pipelines.page.document import Document, Link, TextBlock

__all__ = ["DEFAULT_MAX_PAGE_BYTES", "Document", "Link", "TextBlock", "analyze"]
