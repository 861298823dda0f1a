"""Atomic text blocks (Kohlschütter §4.2.1, §4.4.2): text portions separated by gaps of tags.

Every tag except ``<a>`` is a gap, so a block keeps its anchors and link density can be
computed. Text inside invisible elements (script, style, …) is not text. The walk is iterative
(``lxml.etree.iterwalk``), so arbitrarily deep trees never hit Python's recursion limit.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from rankcrawl.pipelines.deadline import CHECK_EVERY, Deadline
from rankcrawl.pipelines.document import W_MAX, WORD_CHAR, TextBlock

INVISIBLE_TAGS = frozenset(
    "script style noscript option template svg iframe head title object embed math canvas datalist".split()
)
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
    return TextBlock(
        text=text,
        n_words=len(words),
        n_linked_words=count_words("".join(linked).split()) if linked else 0,
        n_lines=lines,
        last_line_words=last,
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

    def flush(self) -> None:
        block = make_block(self.pieces, self.linked, self.tag, self.path, frozenset(self.gap), self.anchors)
        if block is not None:
            self.blocks.append(block)
            self.gap = set()
        else:
            self.orphans.extend(self.anchors)
        self.pieces, self.linked, self.anchors = [], [], []


class _Frame:
    """One open element on the walk's stack; its DOM path is computed only when a block needs it."""

    __slots__ = ("el", "tag", "index", "counts", "parent", "_path")

    def __init__(self, el: Any, tag: str, index: int, parent: _Frame | None) -> None:
        self.el, self.tag, self.index, self.parent = el, tag, index, parent
        self.counts: dict[str, int] = {}
        self._path: tuple[str, ...] | None = None

    @property
    def path(self) -> tuple[str, ...]:
        if self._path is None:
            chain = []
            frame: _Frame | None = self
            while frame is not None and frame._path is None:
                chain.append(frame)
                frame = frame.parent
            path = frame._path if frame is not None else ()
            for f in reversed(chain):
                path = f._path = (*path, label(f.el, f.index)) if f.el is not None else ()
        return self._path


def atomic_blocks(root: Any, deadline: Deadline | None = None) -> tuple[list[TextBlock], list[Any]]:
    """(atomic blocks in document order, ``<a href>`` elements that carry no block text).

    ``deadline``: checked every ``CHECK_EVERY`` elements (None: no budget).
    """
    b = _Builder()
    if root is None:
        return [], []
    in_link = 0
    top = _Frame(None, "", 0, None)
    stack = [top]
    walker = etree.iterwalk(root, events=("start", "end"))
    invisible = INVISIBLE_TAGS
    seen = 0
    for event, el in walker:
        seen += 1
        if deadline is not None and seen % CHECK_EVERY == 0:
            deadline.check("blocks")
        tag = el.tag
        if not isinstance(tag, str):
            tag = ""
        if event == "start":
            parent = stack[-1]
            counts = parent.counts
            index = counts[tag] = counts.get(tag, 0) + 1
            frame = _Frame(el, tag, index, parent)
            stack.append(frame)
            if tag == "a":
                in_link += 1
                if el.get("href") is not None:
                    b.pending.append(el)
            else:
                if b.pieces:
                    b.flush()
                if tag:
                    b.gap.add(tag)
                if tag in invisible or not tag:
                    walker.skip_subtree()
                    continue
            text = el.text
        else:
            frame = stack.pop()
            if tag == "a":
                in_link -= 1
                if b.pending and b.pending[-1] is el:
                    b.orphans.append(b.pending.pop())
            elif tag and tag not in invisible:
                if b.pieces:
                    b.flush()
                b.gap.add(tag)
            text = el.tail
            frame = stack[-1]
        if text:
            if not b.pieces:
                if text.isspace():
                    continue
                b.tag, b.path = frame.tag, frame.path
            b.pieces.append(text)
            if in_link:
                b.linked.append(text)
            elif b.linked and b.linked[-1] != " ":
                b.linked.append(" ")
            if b.pending:
                b.anchors.extend(b.pending)
                b.pending.clear()
    if b.pieces:
        b.flush()
    b.orphans.extend(b.pending)
    return b.blocks, b.orphans
