"""Text → lxml tree, robust to broken HTML, binary junk and absurdly deep nesting."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

MAX_DEPTH = 1000
"""Elements nested deeper than this are unwrapped (their text kept) before parsing."""

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*?(/?)>")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _parser() -> lxml.html.HTMLParser:
    return lxml.html.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, no_network=True
    )


def flatten_deep(html: str, max_depth: int = MAX_DEPTH) -> str:
    """Drop the open/close tags of elements nested deeper than ``max_depth``; text stays."""
    stack: list[bool] = []

    def tag(m: re.Match[str]) -> str:
        closing, name, selfclosing = m.group(1), m.group(2).lower(), m.group(3)
        if name in VOID_TAGS or selfclosing:
            return m.group(0)
        if not closing:
            kept = len(stack) < max_depth
            stack.append(kept)
            return m.group(0) if kept else " "
        if stack:
            return m.group(0) if stack.pop() else " "
        return m.group(0)

    return TAG.sub(tag, html)


def parse_html(text: str) -> etree._Element | None:
    """The root ``<html>`` element of ``text`` (None for a page without any content)."""
    data = CONTROL.sub(" ", text).encode("utf-8", errors="replace")
    parser = _parser()
    root = etree.fromstring(data, parser)
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        parser = _parser()
        root = etree.fromstring(flatten_deep(text).encode("utf-8", errors="replace"), parser)
    return root
