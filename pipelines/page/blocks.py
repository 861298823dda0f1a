"""Atomic text blocks (Kohlschütter §4.2.1, §4.4.2): text portions separated by gaps of tags.

Every tag except ``<a>`` is a gap, so a block keeps its anchors and link density can be
computed. Text inside invisible elements (script, style, …) is not text. The walk is iterative
(``lxml.etree.iterwalk``), so arbitrarily deep trees never hit Python's recursion limit.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from rankcrawl.pipelines.page.deadline import CHECK_EVERY, Deadline
from rankcrawl.pipelines.page.document import W_MAX, TextBlock, laid_out
from rankcrawl.pipelines.page.elements import compiled_walk

INVISIBLE_TAGS = frozenset(
    "script style noscript option template svg iframe head title object embed math canvas datalist".split()
)
DIGITS = re.compile(r"\d+")
SPACED_NON_WORD = re.compile(r" (?:[^\w ]|_)++(?= |$)")
"""``document.NON_WORD_TOKEN`` for one-space-separated text behind one more space: a literal first
character lets the regex engine jump from space to space instead of trying every position."""


LINE = re.compile(rf"(?:\S.{{0,{W_MAX - 1}}}|\S+)(?= |$)")
"""One line of greedy word wrap at ``W_MAX`` characters (a longer token is a line of its own)."""


def word_count(text: str) -> int:
    """Words (tokens containing a letter or digit) of ``text`` whose tokens are separated by one space."""
    if not text:
        return 0
    return text.count(" ") + 1 - len(SPACED_NON_WORD.findall(" " + text))


def count_words(tokens: list[str]) -> int:
    """Whitespace tokens containing at least one letter or digit."""
    return word_count(" ".join(tokens))


def wrap_counts(tokens: list[str]) -> tuple[int, int]:
    """(lines, words on the last line) of the tokens greedily word-wrapped at ``W_MAX`` characters."""
    lines = LINE.findall(" ".join(tokens))
    return max(len(lines), 1), word_count(lines[-1]) if lines else 0


def attribute_label(ident: str | None, cls: str | None) -> str:
    """The ``#id.class`` part of a label (digit runs folded to ``N``)."""
    out = "#" + ident.strip() if ident else ""
    if cls:
        out += "." + ".".join(cls.split())
    return DIGITS.sub("N", out) if out else out


def new_block(pieces: list[str], linked: list[str], owner: Any, owner_path: tuple[str, ...], gap: set[str],
              anchors: list[Any], written: bool = False) -> TextBlock | None:
    """The block of the text ``pieces`` collected since the last gap (None when they hold no word);
    ``linked``: the pieces inside anchors, with a space for each run of text outside them; ``written``:
    the block is a ``<pre>``, whose text keeps its lines and indentation (``laid_out``); its counts come
    from the one-space-separated words as every block's do.
    Positional ``TextBlock`` arguments and inlined ``word_count``: this runs for every block."""
    text = " ".join("".join(pieces).split())
    n_words = text.count(" ") + 1 - len(SPACED_NON_WORD.findall(" " + text)) if text else 0
    if not n_words:
        return None
    lines, last = wrap_counts_text(text, n_words)
    return TextBlock(laid_out(pieces) if written else text, n_words,
                     word_count(" ".join("".join(linked).split())) if linked else 0,
                     lines, last, owner.tag, owner_path, interned(frozenset(gap)), tuple(anchors), owner)


GAPS: dict[frozenset[str], frozenset[str]] = {}
MAX_GAPS = 4096


def interned(gap: frozenset[str]) -> frozenset[str]:
    """One shared frozenset per distinct gap (``MAX_GAPS`` at most): a page repeats a few dozen, and
    every object a page keeps alive brings the garbage collector's next pass nearer."""
    known = GAPS.get(gap)
    if known is not None:
        return known
    if len(GAPS) < MAX_GAPS:
        GAPS[gap] = gap
    return gap


def atomic_blocks(root: Any, deadline: Deadline | None = None,
                  anchor_paths: dict[Any, tuple[str, ...]] | None = None) -> tuple[list[TextBlock], list[Any]]:
    """(atomic blocks in document order, ``<a href>`` elements that carry no block text).

    Every element's DOM path is built as the walk enters it (its parent's path plus its
    label), so no element is visited twice; ``anchor_paths``, if given, receives the path of
    every ``<a href>``. ``deadline``: checked every ``CHECK_EVERY`` elements (None: no budget).
    The walk runs compiled (``_blockwalk``, over libxml2's nodes) where that extension was built,
    else as ``python_atomic_blocks`` (whose blocks ``new_block`` builds; the compiled walk builds the same).
    """
    if root is None:
        return [], []
    walk = compiled_walk(root)
    if walk is not None:
        return walk.atomic_blocks(root, deadline, anchor_paths)
    return python_atomic_blocks(root, deadline, anchor_paths)


def python_atomic_blocks(root: Any, deadline: Deadline | None = None,
                         anchor_paths: dict[Any, tuple[str, ...]] | None = None) -> tuple[list[TextBlock], list[Any]]:
    """``atomic_blocks`` walked by ``lxml.etree.iterwalk`` (no compiled extension needed)."""
    if root is None:
        return [], []
    blocks: list[TextBlock] = []
    orphans: list[Any] = []
    pieces: list[str] = []
    linked: list[str] = []
    anchors: list[Any] = []
    pending: list[Any] = []
    gap: set[str] = set()
    owner: Any = None
    owner_path: tuple[str, ...] = ()
    in_pre = 0  # open <pre> elements: inside one, tags are no gaps and the text keeps its layout

    def flush(written: bool = False) -> None:
        nonlocal pieces, linked, anchors, gap
        block = new_block(pieces, linked, owner, owner_path, gap, anchors, written)
        if block is not None:
            blocks.append(block)
            gap = set()
        else:
            orphans.extend(anchors)
        pieces, linked, anchors = [], [], []

    attribute_labels: dict[tuple[str | None, str | None], str] = {}
    paths: list[tuple[str, ...]] = [()]      # DOM path of every open element (and of the root's parent)
    counts: list[dict[str, int]] = [{}]      # tags seen among each open element's children
    in_link = 0
    visited = 0
    invisible = INVISIBLE_TAGS
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if tag.__class__ is not str:
            tag = ""
        if event == "start":
            if deadline is not None:
                visited += 1
                if visited % CHECK_EVERY == 0:
                    deadline.check("blocks")
            seen = counts[-1]
            index = seen[tag] = seen.get(tag, 0) + 1
            if tag == "a":
                in_link += 1
                if el.get("href") is not None:
                    pending.append(el)
            else:
                if pieces and not in_pre:
                    flush()
                if tag in invisible or not tag:
                    if tag and not in_pre:
                        gap.add(tag)
                    walker.skip_subtree()
                    paths.append(())
                    counts.append(seen)
                    continue
                if not in_pre:
                    gap.add(tag)
            key = (el.get("id"), el.get("class"))
            attrs = attribute_labels.get(key)
            if attrs is None:
                attrs = attribute_labels[key] = attribute_label(*key)
            path = paths[-1] + (f"{tag}[{index}]{attrs}",)
            paths.append(path)
            if pending and pending[-1] is el and anchor_paths is not None:
                anchor_paths[el] = path
            counts.append({})
            if tag == "pre":
                in_pre += 1
                if in_pre == 1:
                    owner, owner_path = el, path
            text = el.text
            if not text:
                continue
            if not pieces:
                if text.isspace():
                    continue
                if not in_pre:
                    owner, owner_path = el, path
        else:
            paths.pop()
            counts.pop()
            if tag == "a":
                in_link -= 1
                if pending and pending[-1] is el:
                    orphans.append(pending.pop())
            elif tag == "pre" and in_pre > 1:
                in_pre -= 1
            elif tag and tag not in invisible and not in_pre or tag == "pre":
                if pieces:
                    flush(in_pre > 0)
                in_pre = 0
                gap.add(tag)
            text = el.tail
            if not text:
                continue
            if not pieces:
                if text.isspace():
                    continue
                if not in_pre:
                    owner, owner_path = el.getparent(), paths[-1]
                if owner is None:
                    continue
        pieces.append(text)
        if in_link:
            linked.append(text)
        elif linked and linked[-1] != " ":
            linked.append(" ")
        if pending:
            anchors.extend(pending)
            pending.clear()
    if pieces:
        flush()
    orphans.extend(pending)
    return blocks, orphans


def wrap_counts_text(text: str, n_words: int) -> tuple[int, int]:
    """(lines, words on the last line) of one-space-separated ``text`` with ``n_words`` words."""
    if len(text) <= W_MAX:
        return 1, n_words
    lines = LINE.findall(text)
    return len(lines), word_count(lines[-1])
