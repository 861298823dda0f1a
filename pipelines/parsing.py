"""Text → lxml tree, robust to broken HTML, binary junk and absurdly deep nesting."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from rankcrawl.pipelines.deadline import CHECK_EVERY, Deadline

MAX_DEPTH = 1000
"""Elements nested deeper than this are unwrapped (their text kept) before parsing."""

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*+)([^>]*+)>")
MAX_ATTRIBUTES = 256
"""Attributes kept per start tag: libxml2 checks every new attribute against all earlier ones, so
one tag with 20,000 attributes took 2.4 s to parse, 100,000 over a minute (no real page comes near)."""
_UNIT = r"""(?>[^\s"'<>=]++|\s++|=|"[^"]*+"|'[^']*+')"""
TAG_UNIT = re.compile(_UNIT)
"""A piece of a start tag: a name or unquoted value, whitespace, ``=``, or a quoted value."""
SHORT_TAGS = re.compile(rf"(?>[^<]++|<(?![a-zA-Z])|<[a-zA-Z]{_UNIT}{{0,{4 * MAX_ATTRIBUTES}}}+(?!{_UNIT}))*+")
"""Text and tags of at most 4 · MAX_ATTRIBUTES pieces, in one pass: every group is atomic and quoted
values are consumed whole, so the scan is linear and stops only where a longer start tag begins."""
LONG_TAG = re.compile(rf"<[a-zA-Z]{_UNIT}*+>?")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _parser() -> lxml.html.HTMLParser:
    return lxml.html.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, no_network=True
    )


def _first_attributes(tag: str, limit: int) -> str:
    """A start tag cut after its first ``limit`` attributes."""
    kept, names, after_equals = ["<"], -1, False  # the first name is the tag's
    for unit in TAG_UNIT.findall(tag, 1):
        if unit == "=" or unit.isspace():
            after_equals = after_equals or unit == "="
        elif after_equals or unit[0] in "\"'":
            after_equals = False
        else:
            names += 1
            if names > limit:
                break
        kept.append(unit)
    return "".join(kept).rstrip() + ">"


def _end(m: re.Match[str] | None) -> int:
    """End of a match of a pattern that always matches (``*+`` patterns match the empty string)."""
    assert m is not None
    return m.end()


def cap_attributes(html: str, limit: int = MAX_ATTRIBUTES) -> str:
    """``html`` with every start tag of over 4 · ``limit`` pieces cut to its first ``limit`` attributes."""
    out: list[str] = []
    pos, end = 0, len(html)
    while (stop := _end(SHORT_TAGS.match(html, pos))) < end:
        tag = LONG_TAG.match(html, stop)
        assert tag is not None  # SHORT_TAGS stops only at "<" and a letter, where LONG_TAG matches
        out += (html[pos:stop], _first_attributes(tag.group(), limit))
        pos = tag.end()
    return "".join([*out, html[pos:]]) if out else html


def flatten_deep(html: str, max_depth: int = MAX_DEPTH, deadline: Deadline | None = None) -> str:
    """Drop the open/close tags of elements nested deeper than ``max_depth``; text stays.

    A tag runs from ``<`` and a name to the next ``>``. Linear time: no tag can open after the last
    ``>``, so the pattern only runs up to it (the old lazy ``<name[^>]*?>`` was retried at every
    ``<`` of a page without ``>``: 30 KB of ``<a `` took 16 s).
    """
    stack: list[bool] = []
    seen = 0

    def tag(m: re.Match[str]) -> str:
        nonlocal seen
        seen += 1
        if deadline is not None and seen % CHECK_EVERY == 0:
            deadline.check("parse")
        closing, name, body = m.group(1), m.group(2).lower(), m.group(3)
        if name in VOID_TAGS or body.endswith("/"):
            return m.group(0)
        if not closing:
            kept = len(stack) < max_depth
            stack.append(kept)
        else:
            kept = stack.pop() if stack else True
        return m.group(0) if kept else " "

    end = html.rfind(">") + 1
    return TAG.sub(tag, html[:end]) + html[end:]


def parse_html(text: str, deadline: Deadline | None = None) -> etree._Element | None:
    """The root ``<html>`` element of ``text`` (None for a page without any content)."""
    text = cap_attributes(text)
    data = CONTROL.sub(" ", text).encode("utf-8", errors="replace")
    parser = _parser()
    root = etree.fromstring(data, parser)
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        parser = _parser()
        root = etree.fromstring(flatten_deep(text, deadline=deadline).encode("utf-8", errors="replace"), parser)
    return root
