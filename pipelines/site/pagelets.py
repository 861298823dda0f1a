"""Pagelets (Bar-Yossef & Rajagopalan 2002, §3.1, Definition 2 and Figure 3).

An HTML element is a pagelet if none of its children contains at least k hyperlinks (k = 3)
and none of its ancestors is a pagelet. Figure 3's walk, without Python recursion, so
arbitrarily deep trees are fine. Each pagelet gets one shingle of its content (its text tokens
plus its links' href values) and owns the ``<a href>`` elements inside it. The shingle combines
SKETCH = 4 min-hashes, so two pagelets share it with probability Jaccard⁴: a pagelet that
merely contains a template list (a home page's teasers next to the same titles) no longer
collides with the list itself, as a single min-hash does with probability |list| / |pagelet|.
All of a page's shingles come from one compiled call (``shingles.segment_shingles``).

Each pagelet also carries its DOM label (Oliveira's block class, without sibling numbers so
that a list keeps its label when the page around it grows, and without state classes such as
``current`` that mark the page's own entry in a navigation tree) and its link density, so that a
site-level step can tell a recurring link list (navigation, "related" boxes: template even when
the listed links change from page to page) from a recurring prose region (the article body).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree

from rankcrawl.pipelines.page.blockstats import link_density
from rankcrawl.pipelines.page.elements import compiled_walk
from rankcrawl.pipelines.site.shingles import segment_shingles

K = 3
SKETCH = 4
DIGITS = re.compile(r"\d+")
WORDS = re.compile(r"\w+")
STATE_CLASSES = frozenset({"current", "active", "selected"})
"""Classes that mark the state of a navigation item (the page being shown), not its structure."""
SKIP = ("script", "style", "noscript", "template", "svg", "head", "title", "meta", "link")


@dataclass
class Pagelet:
    """One pagelet: its element, its shingle s(p), its text and the links it owns.

    ``label`` (its DOM label) is computed on first use; pagelets of one page share a label cache.
    """

    element: etree._Element
    shingle: int
    text: str
    links: list[etree._Element] = field(default_factory=list)
    link_density: float = 0.0
    labels: dict[etree._Element, str] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return dom_label(self.element, self.labels)


def _token(node: etree._Element) -> str:
    token = str(node.tag) + "".join(f".{c}" for c in (node.get("class") or "").split() if c not in STATE_CLASSES)
    if node.get("id"):
        token += "#" + node.get("id", "").strip()
    return DIGITS.sub("N", token)


def dom_label(el: etree._Element, cache: dict[etree._Element, str] | None = None) -> str:
    """``tag.class#id`` of the element and its ancestors, root first, digit runs folded to N.

    ``cache`` (element → label) shares the ancestors' labels between calls on one page.
    """
    cache = {} if cache is None else cache
    chain = []
    node: etree._Element | None = el
    while node is not None and node not in cache:
        chain.append(node)
        node = node.getparent()
    label = cache[node] if node is not None else ""
    for n in reversed(chain):
        label = cache[n] = f"{label}/{_token(n)}" if label else _token(n)
    return label


def element_text(el: etree._Element) -> str:
    """Text of an element's subtree, whitespace collapsed (invisible elements already stripped)."""
    return " ".join(etree.tostring(el, method="text", encoding=str, with_tail=False).split())


def word_runs(elements: list[etree._Element]) -> list[int]:
    """``WORDS`` in the ``element_text`` of each of ``elements``; counted in one compiled pass
    (``_blockwalk.word_runs``) where the extension serves the tree."""
    walk = compiled_walk(elements[0]) if elements else None
    if walk is None:
        return [len(WORDS.findall(element_text(e))) for e in elements]
    runs = walk.word_runs(elements)
    return [r if r >= 0 else len(WORDS.findall(element_text(e))) for r, e in zip(runs, elements)]


def linked_words(anchors: list[etree._Element]) -> int:
    """``WORDS`` in the ``element_text`` of each of ``anchors``, summed."""
    return sum(word_runs(anchors))


def strip_invisible(root: etree._Element) -> None:
    """Remove script, style and similar subtrees (their tails stay): they are not text."""
    etree.strip_elements(root, *SKIP, with_tail=False)


def link_counts(root: etree._Element) -> Counter[etree._Element]:
    """Number of ``<a href>`` elements in the subtree of every element that has one (itself included)."""
    counts: Counter[etree._Element] = Counter()
    for a in root.iter("a"):
        if a.get("href"):
            counts[a] += 1
            counts.update(a.iterancestors())   # counted in C, not one Python step per ancestor
    return counts


def pagelet_elements(root: etree._Element, k: int = K) -> list[etree._Element]:
    """Figure 3's walk (depth first, so the pagelets come in document order): elements none of
    whose children holds ≥ k links, none of whose ancestors is one."""
    counts = link_counts(root)
    stack: list[etree._Element] = [root]
    found: list[etree._Element] = []
    while stack:
        v = stack.pop()
        children = [c for c in v if isinstance(c.tag, str)]
        if counts.get(v, 0) >= k and any(counts.get(c, 0) >= k for c in children):
            stack.extend(reversed(children))
        else:
            found.append(v)
    return found


def partition(root: etree._Element, k: int = K, w: int = 4, linked_only: bool = False) -> list[Pagelet]:
    """The pagelets of a page in document order (only those owning a link with ``linked_only``).
    Strips invisible elements from ``root`` first. The walk runs compiled (``_blockwalk.pagelet_parts``)
    where that extension serves the tree."""
    strip_invisible(root)
    walk = compiled_walk(root)
    if walk is not None:
        found, links, hrefs = walk.pagelet_parts(root, k, linked_only)
    else:
        found = pagelet_elements(root, k)
        links = [[a for a in el.iter("a") if a.get("href")] for el in found]
        hrefs = [" ".join(a.get("href", "") for a in anchors) for anchors in links]
    texts = [element_text(el) if anchors or not linked_only else "" for el, anchors in zip(found, links)]
    contents = [f"{t} {h}" for t, h in zip(texts, hrefs)]
    shingles = segment_shingles(contents, SKETCH, w)
    kept = [i for i, (content, anchors) in enumerate(zip(contents, links))
            if content.strip() and (anchors or not linked_only)]
    pagelets = []
    labels: dict[etree._Element, str] = {}
    for i, n_words in zip(kept, word_runs([found[i] for i in kept])):
        el, text, anchors = found[i], texts[i], links[i]
        linked = linked_words(anchors)
        density = min(1.0, link_density(linked, n_words)) if n_words else float(bool(anchors))
        pagelets.append(Pagelet(el, int(shingles[i]), text, anchors, density, labels))
    return pagelets
