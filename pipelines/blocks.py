"""Atomic text blocks (Kohlschütter §4.2.1, §4.4.2): text portions separated by gaps of tags.

Every tag except ``<a>`` is a gap, so a block keeps its anchors and link density can be
computed. Text inside invisible elements (script, style, …) is not text. The walk is iterative
(``lxml.etree.iterwalk``), so arbitrarily deep trees never hit Python's recursion limit.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from rankcrawl.pipelines.document import W_MAX, TextBlock

INVISIBLE_TAGS = frozenset(
    "script style noscript option template svg iframe head title object embed math canvas datalist".split()
)
WORD_CHAR = re.compile(r"[^\W_]")
SENTENCE_END = re.compile(r"[.?!;]+[\"'»”’)\]]*(?=\s|$)")
DIGITS = re.compile(r"\d+")


def count_words(tokens: list[str]) -> int:
    """Whitespace tokens containing at least one letter or digit."""
    search = WORD_CHAR.search
    return sum(1 for t in tokens if search(t))


def wrap_counts(tokens: list[str], w_max: int = W_MAX) -> tuple[int, int]:
    """(lines, words on the last line) of the tokens greedily word-wrapped at ``w_max`` characters."""
    search = WORD_CHAR.search
    lines, width, last = 1, -1, 0
    for t in tokens:
        n = len(t)
        if width >= 0 and width + 1 + n > w_max:
            lines, width, last = lines + 1, n, 0
        else:
            width += 1 + n
        if search(t):
            last += 1
    return lines, last


def make_block(pieces: list[str], linked: list[str], tag: str, path: tuple[str, ...],
               gap: frozenset[str], anchors: list[Any]) -> TextBlock | None:
    """A block from its raw text pieces (None when it has no word)."""
    tokens = "".join(pieces).split()
    search = WORD_CHAR.search
    words = [t for t in tokens if search(t)]
    if not words:
        return None
    text = " ".join(tokens)
    lines, last = wrap_counts(tokens) if len(text) > W_MAX else (1, len(words))
    n_sent = len(SENTENCE_END.findall(text))
    if not SENTENCE_END.search(tokens[-1]):
        n_sent += 1
    return TextBlock(
        text=text,
        n_words=len(words),
        n_linked_words=count_words("".join(linked).split()) if linked else 0,
        n_lines=lines,
        last_line_words=last,
        word_chars=sum(map(len, words)),
        n_sentences=n_sent,
        n_capitalised=sum(1 for w in words if w[0].isupper()),
        n_full_stops=text.count("."),
        n_bars=text.count("|"),
        tag=tag,
        path=path,
        gap_tags=gap,
        anchors=anchors,
    )


def label(el: Any, index: int) -> str:
    """DOM-path label of an element: ``tag[i]#id.class`` with digit runs folded to ``N``."""
    parts = [f"{el.tag}[{index}]"]
    ident = el.get("id")
    if ident:
        parts.append("#" + DIGITS.sub("N", ident.strip()))
    cls = el.get("class")
    if cls:
        parts.append("." + ".".join(DIGITS.sub("N", c) for c in cls.split()))
    return "".join(parts)


class _Builder:
    """Accumulates text pieces and gap tags while walking the tree."""

    def __init__(self) -> None:
        self.blocks: list[TextBlock] = []
        self.orphans: list[Any] = []
        self.pieces: list[str] = []
        self.linked: list[str] = []
        self.anchors: list[Any] = []
        self.pending: list[Any] = []
        self.gap: set[str] = set()
        self.tag = ""
        self.path: tuple[str, ...] = ()

    def text(self, s: str, in_link: bool, tag: str, path: tuple[str, ...]) -> None:
        if not self.pieces:
            if s.isspace():
                return
            self.tag, self.path = tag, path
        self.pieces.append(s)
        if in_link:
            self.linked.append(s)
        if self.pending:
            self.anchors.extend(self.pending)
            self.pending.clear()

    def flush(self, tag: str | None) -> None:
        if self.pieces:
            block = make_block(self.pieces, self.linked, self.tag, self.path, frozenset(self.gap), self.anchors)
            if block is not None:
                self.blocks.append(block)
                self.gap = set()
            else:
                self.orphans.extend(self.anchors)
            self.pieces, self.linked, self.anchors = [], [], []
        if tag is not None:
            self.gap.add(tag)


def atomic_blocks(root: Any) -> tuple[list[TextBlock], list[Any]]:
    """(atomic blocks in document order, ``<a href>`` elements that carry no block text)."""
    b = _Builder()
    if root is None:
        return [], []
    in_link = 0
    stack: list[tuple[str, tuple[str, ...], dict[str, int]]] = [("", (), {})]
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):
            tag = ""
        if event == "start":
            counts = stack[-1][2]
            index = counts[tag] = counts.get(tag, 0) + 1
            path = (*stack[-1][1], label(el, index))
            stack.append((tag, path, {}))
            if tag in INVISIBLE_TAGS or not tag:
                walker.skip_subtree()
                b.flush(tag or None)
                continue
            if tag == "a":
                in_link += 1
                if el.get("href") is not None:
                    b.pending.append(el)
            else:
                b.flush(tag)
            if el.text:
                b.text(el.text, in_link > 0, tag, path)
        else:
            stack.pop()
            if tag == "a":
                in_link -= 1
                if b.pending and b.pending[-1] is el:
                    b.orphans.append(b.pending.pop())
            elif tag and tag not in INVISIBLE_TAGS:
                b.flush(tag)
            if el.tail:
                parent_tag, parent_path, _ = stack[-1]
                b.text(el.tail, in_link > 0, parent_tag, parent_path)
    b.flush(None)
    b.orphans.extend(b.pending)
    return b.blocks, b.orphans
