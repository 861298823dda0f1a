"""Text → lxml tree, robust to broken HTML, binary junk, absurdly deep nesting and endless hrefs."""

from __future__ import annotations

import contextlib
import functools
import re
from typing import NamedTuple

from lxml import etree

from rankcrawl.pipelines.page.deadline import CHECK_EVERY, Deadline
from rankcrawl.pipelines.page.elements import PageSearch, search_page
from rankcrawl.pipelines.page.extensions import optional

_tagscan = optional("rankcrawl.pipelines.page._tagscan")  # None where not built: every page gets the full scan

MAX_DEPTH = 1000
"""Elements nested deeper than this are unwrapped (their text kept) before parsing."""

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*+)([^>]*+)>")
SCAN_TOKENS = 4096
"""Tokens the attribute scan reads between two deadline checks (about 5 ms of tags)."""
PARSE_CHUNK = 65536
"""Bytes fed to the parser between two deadline checks (about 0.1 s of the densest tags)."""
MAX_ATTRIBUTES = 256
"""Attributes kept per tag: libxml2 checks every new attribute against all earlier ones, so one
tag with 20,000 attributes took 2.4 s to parse, 100,000 over a minute (no real page comes near)."""


# The tag grammar of the HTML tokenizer (WHATWG HTML §13.2.5, which libxml2 ≥ 2.14 follows): a
# quoted value opens only right after "=" and runs to its closing quote across "<" and ">"; a stray
# quote elsewhere is part of an attribute name; script, style, … hold raw text up to their end tag.
_WS = r"[\t\n\f\r ]"
_ATTRIBUTE = (rf"""(?>[^\t\n\f\r />][^\t\n\f\r />=]*+"""
              rf"""(?:{_WS}*+={_WS}*+(?:"[^"]*+"?|'[^']*+'?|[^\t\n\f\r >]++)?)?)""")
_NEXT_ATTRIBUTE = rf"[\t\n\f\r /]*+{_ATTRIBUTE}"
_TAG_NAME = r"</?[a-zA-Z][^\t\n\f\r />]*+"
RAW_TEXT = ("script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title", "plaintext")
"""Elements whose content is text up to their end tag (``plaintext``: up to the end of the page),
unless their start tag is self-closing (``<script/>``: libxml2 does not switch to raw text then)."""


def _raw_content(name: str) -> str:
    """Raw text up to ``</name``; in a script, ``<!--`` opens an escaped section where a nested
    ``<script>`` opens a double-escaped one, whose ``</script>`` does not end the script (§13.2.5.4-.27)."""
    end = rf"/(?i:{name})[\t\n\f\r />]"
    if name == "plaintext":
        return r"[\s\S]*+"
    if name != "script":
        return rf"(?:[^<]++|<(?!{end}))*+"
    start = r"(?i:script)[\t\n\f\r />]"
    double = rf"(?:[^<-]++|-(?!->)|<(?!{end}))*+"
    escaped = (rf"(?>-*+>|(?:[^<-]++|-(?!->)|<(?!{end}|{start})|<(?={start}){double}<(?={end}))*+"
               rf"(?:<(?={start}){double})?(?:-->)?)")
    return rf"(?:[^<]++|<(?!{end}|!--)|<!--{escaped})*+"


class _Scanner(NamedTuple):
    short_tags: re.Pattern[str]
    """Up to ``SCAN_TOKENS`` tokens of the page, stopping before a tag of over ``limit`` attributes:
    every token is atomic and consumes at least one character, so the scan is linear, and a scan
    resumed where one stopped reads the same tokens."""
    long_tag: re.Pattern[str]
    first_attributes: re.Pattern[str]


@functools.cache
def _scanner(limit: int) -> _Scanner:
    attributes = rf"(?:{_NEXT_ATTRIBUTE}){{0,{limit}}}+"
    short = rf"{attributes}[\t\n\f\r /]*+(?:>|\Z)"
    opening = rf"{attributes}(?:[\t\n\f\r /]*[\t\n\f\r ])?(?:>|\Z)"  # not self-closing ("/>")
    token = "|".join([
        r"[^<]++",
        r"<!--(?:-?>|(?>[^-]++|-(?!-!?>))*+(?:--!?>)?)",  # comment, "<!-->" and "<!--->" included
        r"<[!?][^>]*+>?",  # doctype, CDATA, processing instruction: bogus comments
        r"</(?![a-zA-Z])[^>]*+>?",
        *(rf"<(?i:{name})(?![^\t\n\f\r />]){opening}{_raw_content(name)}" for name in RAW_TEXT),
        rf"{_TAG_NAME}{short}",
        r"<(?![a-zA-Z!?/])",
    ])
    return _Scanner(re.compile(rf"(?>{token}){{0,{SCAN_TOKENS}}}+"),
                    re.compile(rf"({_TAG_NAME})(?:{_NEXT_ATTRIBUTE})*+([\t\n\f\r /]*+)(>?)"),
                    re.compile(rf"{_TAG_NAME}(?:{_NEXT_ATTRIBUTE}){{{limit}}}"))


RAW_CONTENT = {name: re.compile(_raw_content(name)) for name in RAW_TEXT}
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
CONTROL_BYTES = bytes(range(0x09)) + b"\x0b\x0c" + bytes(range(0x0e, 0x20))
"""``CONTROL``'s characters as UTF-8 bytes (each is one byte, never part of a longer sequence)."""


def _parser() -> etree.HTMLParser:
    """libxml2's HTML parser with lxml's plain elements: ``lxml.html``'s element classes cost a
    Python class lookup for every element the walks touch and nothing here uses their methods;
    no table of ``id`` attributes either (nothing looks elements up by id)."""
    return etree.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, no_network=True, collect_ids=False
    )


def _end(m: re.Match[str] | None) -> int:
    """End of a match of a pattern that always matches (``*+`` patterns match the empty string)."""
    assert m is not None
    return m.end()


def cap_attributes(html: str, limit: int = MAX_ATTRIBUTES, deadline: Deadline | None = None) -> str:
    """``html`` with every tag of over ``limit`` attributes cut to its first ``limit``; ``deadline`` is
    checked every ``SCAN_TOKENS`` tokens."""
    scan = _scanner(limit)
    out: list[str] = []
    pos = at = 0  # copied up to pos, scanned up to at
    end = len(html)
    while (stop := _end(scan.short_tags.match(html, at))) < end:
        if stop > at:  # SCAN_TOKENS tokens read, no long tag yet
            if deadline is not None:
                deadline.check("parse")
            at = stop
            continue
        tag = scan.long_tag.match(html, stop)
        kept = scan.first_attributes.match(html, stop)
        assert tag is not None and kept is not None  # SHORT_TAGS stops only at such a tag
        self_closing = tag.group(3) == ">" and tag.group(2).endswith("/")
        out += (html[pos:stop], kept.group(), " />" if self_closing else ">")
        pos = tag.end()
        name = tag.group(1)[1:].lower()
        if name in RAW_CONTENT and not self_closing:
            pos = _end(RAW_CONTENT[name].match(html, pos))
            out.append(html[tag.end():pos])
        at = pos
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


def _parsed(data: bytes, deadline: Deadline | None) -> tuple[etree._Element | None, bool]:
    """(root, nesting too deep) of ``data``; with a ``deadline``, fed to the parser in ``PARSE_CHUNK``
    pieces and checked before each (libxml2's push parser builds the same tree as one ``fromstring``)."""
    parser = _parser()
    if deadline is None or len(data) <= PARSE_CHUNK:
        root, log = etree.fromstring(data, parser), parser.error_log
    else:
        try:
            for i in range(0, len(data), PARSE_CHUNK):
                deadline.check("parse")
                parser.feed(data[i:i + PARSE_CHUNK])
        except BaseException:
            with contextlib.suppress(etree.Error):  # nothing fed yet: "no element found"
                parser.close()  # an abandoned push parse keeps its partial tree alive (libxml2 never frees it)
            raise
        root, log = parser.close(), parser.feed_error_log
    return root, any(e.type_name == "ERR_RESOURCE_LIMIT" for e in log)


def parse_page(text: str | None, deadline: Deadline | None = None,
               utf8: bytes | None = None) -> tuple[etree._Element | None, PageSearch | None]:
    """(the root ``<html>`` element of ``text``, its ``elements.search_page``), or (None, None) for a page
    without any content; ``utf8``: ``text``'s UTF-8 encoding where the caller has it
    (``decoding.Decoded.utf8``; ``text`` may then be None, and is decoded only if it must be rewritten).
    The hrefs the search names as overlong are removed."""
    if utf8 is not None:
        data = utf8
    elif text is not None:
        data = text.encode("utf-8", errors="replace")
    else:
        raise ValueError("parse_page needs the text or its UTF-8 bytes")
    if _tagscan is not None:
        controls = _tagscan.has_control(data)
    else:
        controls = len(data.translate(None, CONTROL_BYTES)) != len(data)   # a C loop; CONTROL.search is 7x slower
    if controls or _tagscan is None or _tagscan.long_tag_possible(data, MAX_ATTRIBUTES):
        text = data.decode("utf-8") if text is None else text
        capped = cap_attributes(CONTROL.sub(" ", text) if controls else text, deadline=deadline)
        if controls or capped is not text:
            data = capped.encode("utf-8", errors="replace")
        text = capped
    # else: the compiled pre-check rules out any tag to cut: no tokenising scan (ten times its cost)
    root, too_deep = _parsed(data, deadline)
    if too_deep:
        text = data.decode("utf-8") if text is None else text
        root, _ = _parsed(flatten_deep(text, deadline=deadline).encode("utf-8", errors="replace"), deadline)
    if root is None:
        return None, None
    found = search_page(root)
    for el in found.overlong:
        del el.attrib["href"]
    return root, found


def parse_html(text: str | None, deadline: Deadline | None = None, utf8: bytes | None = None) -> etree._Element | None:
    """The root ``<html>`` element of ``text`` (``parse_page``'s, without the search)."""
    return parse_page(text, deadline, utf8)[0]
