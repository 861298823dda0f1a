"""Pagelets (Bar-Yossef & Rajagopalan 2002, §3.1, Definition 2 and Figure 3).

An HTML element is a pagelet if none of its children contains at least k hyperlinks (k = 3)
and none of its ancestors is a pagelet. Figure 3's queue walk, without Python recursion, so
arbitrarily deep trees are fine. Each pagelet gets one shingle of its content (its text tokens
plus its links' href values) and owns the ``<a href>`` elements inside it. The shingle combines
SKETCH = 4 min-hashes, so two pagelets share it with probability Jaccard⁴: a pagelet that
merely contains a template list (a home page's teasers next to the same titles) no longer
collides with the list itself, as a single min-hash does with probability |list| / |pagelet|.

Each pagelet also carries its DOM label (Oliveira's block class, without sibling numbers so
that a list keeps its label when the page around it grows) and its link density, so that a
site-level step can tell a recurring link list (navigation, "related" boxes: template even when
the listed links change from page to page) from a recurring prose region (the article body).
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from dataclasses import dataclass, field

from lxml import etree

from rankcrawl.pipelines.shingles import minhash, shingle_hashes, tokens

K = 3
SKETCH = 4
DIGITS = re.compile(r"\d+")
SKIP = {"script", "style", "noscript", "template", "svg", "head", "title", "meta", "link"}


@dataclass
class Pagelet:
    """One pagelet: its element, its shingle s(p), its text and the links it owns."""

    element: etree._Element
    shingle: int
    text: str
    links: list[etree._Element] = field(default_factory=list)
    label: str = ""
    link_density: float = 0.0


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


def dom_label(el: etree._Element) -> str:
    """``tag.class#id`` of the element and its ancestors, root first, digit runs folded to N."""
    parts = []
    node: etree._Element | None = el
    while node is not None:
        token = str(node.tag) + "".join(f".{c}" for c in (node.get("class") or "").split())
        if node.get("id"):
            token += "#" + node.get("id", "").strip()
        parts.append(DIGITS.sub("N", token))
        node = node.getparent()
    return "/".join(reversed(parts))


def pagelet_shingle(toks: list[str], w: int = 4) -> int:
    """s(p): one 63-bit value from SKETCH min-hashes of the pagelet's w-token shingles."""
    sketch = minhash(shingle_hashes(toks, w), SKETCH)
    return int.from_bytes(hashlib.blake2b(sketch.tobytes(), digest_size=8).digest(), "big") >> 1


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
            n_words = len(text.split())
            linked = sum(len(element_text(a).split()) for a in links)
            density = min(1.0, linked / n_words) if n_words else (1.0 if links else 0.0)
            pagelets.append(Pagelet(el, pagelet_shingle(toks, w), text, links, dom_label(el), density))
    return pagelets
