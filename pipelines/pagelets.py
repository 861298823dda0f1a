"""Pagelets (Bar-Yossef & Rajagopalan 2002, §3.1, Definition 2 and Figure 3).

An HTML element is a pagelet if none of its children contains at least k hyperlinks (k = 3)
and none of its ancestors is a pagelet. Figure 3's queue walk, without Python recursion, so
arbitrarily deep trees are fine. Each pagelet gets one shingle of its content (its text tokens
plus its links' href values) and owns the ``<a href>`` elements inside it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from lxml import etree

from rankcrawl.pipelines.shingles import text_shingle, tokens

K = 3
SKIP = {"script", "style", "noscript", "template", "svg", "head", "title", "meta", "link"}


@dataclass
class Pagelet:
    """One pagelet: its element, its shingle s(p), its text and the links it owns."""

    element: etree._Element
    shingle: int
    text: str
    links: list[etree._Element] = field(default_factory=list)


def link_counts(root: etree._Element) -> dict[etree._Element, int]:
    """Number of ``<a href>`` elements in every element's subtree (itself included)."""
    order = list(root.iter(etree.Element))
    counts = dict.fromkeys(order, 0)
    for el in reversed(order):
        if el.tag == "a" and el.get("href"):
            counts[el] += 1
        parent = el.getparent()
        if parent is not None and parent in counts:
            counts[parent] += counts[el]
    return counts


def element_text(el: etree._Element) -> str:
    """Visible text of an element's subtree (script, style and similar skipped), iteratively."""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(el, False)]
    while stack:
        node, done = stack.pop()
        if done:
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        stack.append((node, True))
        if not isinstance(node.tag, str) or node.tag in SKIP:
            continue
        if node.text:
            parts.append(node.text)
        stack.extend((child, False) for child in reversed(node))
    return " ".join(" ".join(parts).split())


def partition(root: etree._Element, k: int = K, w: int = 4) -> list[Pagelet]:
    """The pagelets of a page in document order (Figure 3 with a FIFO queue)."""
    counts = link_counts(root)
    queue: deque[etree._Element] = deque([root])
    found: list[etree._Element] = []
    while queue:
        v = queue.popleft()
        children = [c for c in v if isinstance(c.tag, str)]
        if any(counts.get(c, 0) >= k for c in children):
            queue.extend(children)
        else:
            found.append(v)
    position = {el: i for i, el in enumerate(root.iter(etree.Element))}
    found.sort(key=lambda el: position.get(el, 0))
    pagelets = []
    for el in found:
        if isinstance(el.tag, str) and el.tag in SKIP:
            continue
        links = [a for a in el.iter("a") if a.get("href")]
        text = element_text(el)
        toks = tokens(text) + [a.get("href", "") for a in links]
        if toks:
            pagelets.append(Pagelet(el, text_shingle(toks, w), text, links))
    return pagelets
