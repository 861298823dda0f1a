"""Text → lxml tree, robust to broken HTML, binary junk and absurdly deep nesting."""

from __future__ import annotations

import re
from typing import Iterator

import lxml.html
from lxml import etree

from rankcrawl.pipelines.deadline import CHECK_EVERY, Deadline

MAX_DEPTH = 1000
"""Elements nested deeper than this are unwrapped (their text kept) before parsing."""

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
TAG_NAME = re.compile(r"(/?)([a-zA-Z][a-zA-Z0-9:-]*)")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _parser() -> lxml.html.HTMLParser:
    return lxml.html.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, no_network=True
    )


def tags(html: str) -> Iterator[tuple[int, int, bool, str, bool]]:
    """(start, end, closing, lower-case name, self-closing) of every tag ``<[/]name ... [/]>``, in order.

    Linear time: a tag runs from ``<`` and a name to the next ``>``; once no ``>`` is left, no later
    ``<`` can open a tag, so the scan stops (a pattern like ``<name[^>]*?>`` retried at every ``<``
    of a page without ``>`` is quadratic: 35 KB took 7 s).
    """
    find, match = html.find, TAG_NAME.match
    pos = 0
    while (start := find("<", pos)) >= 0:
        m = match(html, start + 1)
        if m is None:
            pos = start + 1
            continue
        end = find(">", m.end())
        if end < 0:
            return
        yield start, end + 1, bool(m.group(1)), m.group(2).lower(), end > m.end() and html[end - 1] == "/"
        pos = end + 1


def flatten_deep(html: str, max_depth: int = MAX_DEPTH, deadline: Deadline | None = None) -> str:
    """Drop the open/close tags of elements nested deeper than ``max_depth``; text stays."""
    stack: list[bool] = []
    out: list[str] = []
    pos = 0
    for n, (start, end, closing, name, selfclosing) in enumerate(tags(html)):
        if deadline is not None and n % CHECK_EVERY == 0:
            deadline.check("parse")
        if name in VOID_TAGS or selfclosing:
            continue
        if not closing:
            kept = len(stack) < max_depth
            stack.append(kept)
        else:
            kept = stack.pop() if stack else True
        if not kept:
            out += (html[pos:start], " ")
            pos = end
    out.append(html[pos:])
    return "".join(out)


def parse_html(text: str, deadline: Deadline | None = None) -> etree._Element | None:
    """The root ``<html>`` element of ``text`` (None for a page without any content)."""
    data = CONTROL.sub(" ", text).encode("utf-8", errors="replace")
    parser = _parser()
    root = etree.fromstring(data, parser)
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        parser = _parser()
        root = etree.fromstring(flatten_deep(text, deadline=deadline).encode("utf-8", errors="replace"), parser)
    return root
