"""The site-level decision for one page, from its ``PageFacts`` and its host's evidence (SPEC §2.4–2.7).

Keys: a page contributes the shingle (``sh``) of every pagelet that owns a link, the fingerprint
(``fp``) of every block with a link (all blocks when ``text`` is asked for: the block flags then
also clean the main text), the DOM label (``ll``) of every link-owning pagelet that is a link list
and, for every link of such a pagelet, the pair (the list's DOM label, the link's target) (``lt``).
A key is template once the host is warm (n ≥ min_pages) and the key is on at least
max(2, share·n) of its pages (Bar-Yossef's recurring pagelets, Kohlschütter's frequent
fingerprints, Oliveira's recurring link-list class).

Links: a link in a template pagelet or a template block never counts (scopes
``content``/``non-template``), nor a link of a recurring link-list class outside the host's main
region (a "related" box in the sidebar), nor, inside it, a link that recurs in its class when most
of its list's links do: a "See also" list or a table of contents sits in the same place on every
page of a host while its links differ from page to page (content, the one entry it repeats on
every page too — the unit of a template is the list, Bar-Yossef's pagelet); a menu's links recur
(template, one entry that differs — the current page — aside).

On a warm host the site evidence also decides for the links inside the page's main region: every
link there that is no template of its host — a table of contents, an index, a listing, an entry of a
described list (DocBook's ``<dt><a>ABORT</a></dt><dd>…</dd>``) — is content whatever the per-page
classifier (which sees one page and finds link-dense blocks boilerplate-like) made of its block (it
misjudges short pages' paragraphs, signatures and definition lists). On a warm host the per-link model's
verdict gives way to the host's evidence too: every non-template link of a block the per-page
classifier kept counts (the model drops inline and listed links of content
blocks that the host's evidence shows are no template). The main region is the host's: of the
page's candidate regions (``site.facts.region_chain`` and its shallow elements) the deepest that is
the main region of ≥ REGION_SHARE of the host's pages (``rg`` keys; by either name of a region
whose element has an id and classes, ``site.facts.ID_CLASSES``), so that a page whose
classifier counted a sidebar heading as content does not pull its sidebar into the region; the
page's own choice otherwise. The region also bounds what counts: a link whose block lies in another
candidate region only (a navigation box the per-page classifier kept) does not count, unless it is in
the page's index; blocks outside every candidate (text owned by ``<body>`` itself) keep the per-page
verdict. Also on a warm host: a page's index (``PageFacts.link_index``: a link list
outweighing the page's content) counts unless it is a template, and the link lists of one DOM label
(``ll`` class) that are mostly content count whole (``list_votes``). A near-duplicate's links are counted once (SPEC §2.6): it keeps only
its links to targets its canonical page does not link to (a copy whose links lead into its own copy
of the site keeps them, a mirror of the same links keeps none), and none when the canonical
page's links are not known here (this process keeps the link targets of its last
``site.recent_pages.TARGETS_KEPT`` pages as hashes).

Graph conventions (§2.7): links to the page itself never reach here (``PageFacts``); repeated links
to one target make one edge, weighing the largest of their weights, or their sum with
``sum_repeated``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rankcrawl.pipelines.site.facts import PageFacts, label_key, label_keys
from rankcrawl.pipelines.site.sketch import typed_keys

REGION_SHARE = 0.3
MENU_SHARE = 0.5
"""Share of a link list's links that recur in its class from which the list is a menu (template)."""

MAX_KEYS = 1024
"""Keys counted per page at most (document order); later ones are judged by the page alone."""


def recurrence_floor(n: float, share: float) -> float:
    """Pages of a host with ``n`` pages a key must be on to recur: max(2, share·n) — the one
    "recurs on a share of the host's pages" rule (templates, site-name terms, main regions)."""
    return max(2.0, share * n)


@dataclass
class PageKeys:
    """The typed sketch keys of one page, aligned with its pagelets (``sh``, ``ll``), blocks (``fp``)
    and links (``lt``) (0 = no key)."""

    sh: np.ndarray
    ll: np.ndarray
    fp: np.ndarray
    lt: np.ndarray
    index: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False, compare=False)
    """Cached: the ``distinct`` keys and, per key of sh|ll|fp|lt, its position among them (-1: none)."""
    classes: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    """Cached: ``link_classes`` of the page's links."""
    links: LinkArrays | None = field(default=None, init=False, repr=False, compare=False)
    """Cached: ``LinkArrays`` of the page (a remembered page is decided again and again)."""
    weighed: tuple[tuple[bytes, tuple[float | None, ...], bool], list[float], list[tuple[str, float]]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """Cached: the last (counted links, weights, sum_repeated) ``decide`` weighed, its link weights and edges
    (re-deciding a page mostly counts the links it counted before)."""

    def arrays(self, f: PageFacts) -> LinkArrays:
        """``LinkArrays.of(f)`` (``f``: the page these are the keys of), computed once."""
        if self.links is None:
            self.links = LinkArrays.of(f)
        return self.links

    def link_classes(self, pagelet: np.ndarray) -> np.ndarray:
        """``link_classes(pagelet, ll)`` for the page's links (``pagelet``: theirs), computed once."""
        if self.classes is None:
            self.classes = link_classes(pagelet, self.ll)
        return self.classes

    def distinct(self) -> np.ndarray:
        """The distinct keys to count, at most MAX_KEYS: pagelets', blocks', then links' (document order)."""
        return self.indexed()[0]

    def indexed(self) -> tuple[np.ndarray, np.ndarray]:
        """``distinct`` and, per key of sh, ll, fp and lt concatenated, its position in it (-1: 0 or over MAX_KEYS)."""
        if self.index is None:
            allk = np.concatenate([self.sh, self.ll, self.fp, self.lt]).tolist()
            distinct = list(dict.fromkeys(k for k in allk if k))[:MAX_KEYS]
            at = {k: i for i, k in enumerate(distinct)}
            self.index = (np.array(distinct, dtype=np.uint64),
                          np.fromiter((at.get(k, -1) for k in allk), dtype=np.int64, count=len(allk)))
        return self.index

    def statuses(self, is_template: Callable[[int], bool | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per key of ``sh``, ``ll``, ``fp`` and ``lt``: is it one of the ``distinct`` keys that ``is_template``
        says is template (None: no)."""
        distinct, at = self.indexed()
        status = np.zeros(len(distinct) + 1, dtype=bool)
        status[:-1] = [bool(is_template(k)) for k in distinct.tolist()]
        flags = status[at]
        a = len(self.sh)
        b = a + len(self.ll)
        c = b + len(self.fp)
        return flags[:a], flags[a:b], flags[b:c], flags[c:]


@dataclass
class LinkArrays:
    """The per-link facts ``decide`` reads, as arrays: pagelet (-1: none) and that index clipped to
    0, block (-1: none), region masks (None: not known), and the index, content, kept-block and
    alternate flags."""

    n: int
    pagelet: np.ndarray
    has_pagelet: np.ndarray
    pagelet0: np.ndarray
    block: np.ndarray
    masks: np.ndarray | None
    index: np.ndarray
    content: np.ndarray
    in_content: np.ndarray
    alternate: np.ndarray | None

    @classmethod
    def of(cls, f: PageFacts) -> LinkArrays:
        n = len(f.links)
        pagelet = np.asarray(f.link_pagelet if f.link_pagelet else [-1] * n, dtype=np.int64)
        return cls(n, pagelet, pagelet >= 0, np.maximum(pagelet, 0), np.asarray(f.link_block, dtype=np.int64),
                   np.asarray(f.link_regions, dtype=np.int64) if f.link_regions else None,
                   np.asarray(f.link_index, dtype=bool) if f.link_index else np.zeros(n, dtype=bool),
                   np.asarray(f.link_content, dtype=bool).reshape(n),
                   np.asarray(f.link_in_content or [False] * n, dtype=bool),
                   np.asarray(f.link_alternate, dtype=bool) if f.link_alternate else None)


def list_link_keys(f: PageFacts) -> np.ndarray:
    """Per link: the key of (its link-list pagelet's DOM label, its target); 0 outside link lists."""
    out = [0] * len(f.links)
    for j, (p, target) in enumerate(zip(f.link_pagelet, f.links)):
        label = f.pagelet_list[p] if 0 <= p < len(f.pagelet_list) else 0
        if label:
            out[j] = label ^ label_key(target)
    return np.where(np.asarray(out, dtype=np.uint64) != 0, typed_keys("lt", out), 0).astype(np.uint64)


def page_keys(f: PageFacts, text: bool = False) -> PageKeys:
    """Typed keys of the page's link-owning pagelets, link (or all) blocks and listed links."""
    owning = np.zeros(len(f.pagelet_shingle), dtype=bool)
    with_links = np.zeros(len(f.block_fp), dtype=bool)
    for p, b in zip(f.link_pagelet, f.link_block):
        if p >= 0:
            owning[p] = True
        if b >= 0:
            with_links[b] = True
    sh = np.where(owning, typed_keys("sh", f.pagelet_shingle), 0).astype(np.uint64)
    ll = np.where(owning & (np.asarray(f.pagelet_list, dtype=np.uint64) != 0),
                  typed_keys("ll", f.pagelet_list), 0).astype(np.uint64)
    fps = np.asarray(f.block_fp, dtype=np.uint64)
    fp = np.where((with_links | text) & (fps != 0), typed_keys("fp", f.block_fp), 0).astype(np.uint64)
    return PageKeys(sh, ll, fp, list_link_keys(f))


@dataclass
class Decision:
    """The decision for one page: ``link_weights`` aligned with ``PageFacts.links`` (0 = no edge),
    ``template_links``/``template_blocks`` indices, ``edges`` one per target; ``fallback``: made
    without the host's state (Redis away), to be revisited."""

    url: str
    warm: bool
    edges: list[tuple[str, float]]
    link_weights: list[float] = field(default_factory=list)
    template_links: list[int] = field(default_factory=list)
    template_blocks: list[int] = field(default_factory=list)
    duplicate: bool = False
    fallback: bool = False


def candidates(f: PageFacts, scope: str) -> list[bool]:
    """Links that may count under ``scope`` for some host evidence (the ones worth a weight)."""
    if scope != "content":
        return [True] * len(f.links)
    alternate = f.link_alternate or [False] * len(f.links)
    return [(c or b or m > 0) and not a for c, m, b, a in
            zip(f.link_content, f.link_regions or [0] * len(f.links), f.link_in_content or [False] * len(f.links),
                alternate)]


def candidate_keys(f: PageFacts) -> np.ndarray:
    """The typed ``rg`` keys of every name of the page's candidate regions (``site.facts.ID_CLASSES``):
    ``region_keys``, then the ``region_class_keys`` that are a second name."""
    return typed_keys("rg", [*f.region_keys, *(k for k in f.region_class_keys if k)])


def vote_keys(f: PageFacts) -> np.ndarray:
    """The typed ``rg`` keys of the names of the page's own region: its vote for the host's main region."""
    if not f.region_own:
        return typed_keys("rg", [])
    i = f.region_own - 1
    second = f.region_class_keys[i] if i < len(f.region_class_keys) else 0
    return typed_keys("rg", [f.region_keys[i], *([second] if second else [])])


def candidate_counts(f: PageFacts, counts: np.ndarray | list[int]) -> list[int]:
    """Per candidate region: the larger count of its names, from ``counts`` aligned with ``candidate_keys(f)``."""
    n = len(f.region_depth)
    out = [int(c) for c in counts[:n]]
    second = [i for i, k in enumerate(f.region_class_keys) if k]
    for i, c in zip(second, counts[n:]):
        out[i] = max(out[i], int(c))
    return out


def main_region(f: PageFacts, counts: list[int], floor: float, warm: bool) -> tuple[int, bool]:
    """The page's main region (1-based index into ``f.region_keys``, 0 = none) and whether it is the
    host's: the deepest candidate that is the main region of at least ``floor`` of the host's pages
    (``counts``: ``candidate_counts``) on a warm host (True), else the page's own (False). Between
    candidates of one depth and count — one key twice on the page: region keys drop sibling positions and fold digits, so
    Node.js's ``div#column1`` (the menu) and ``div#column2`` (the text) are one key — the first wins:
    the page's chain (``site.facts.region_chain``, the path to its content) comes first. The page's own
    is ``PageFacts.region_wide`` (``site.facts.widened``); its vote for the host's region stays ``region_own``."""
    confirmed = [(f.region_depth[i], c, -i) for i, c in enumerate(counts) if warm and c >= floor]
    return (1 - max(confirmed)[2], True) if confirmed else (f.region_wide or f.region_own, False)


def edge_list(targets: list[str], weights: list[float], sum_repeated: bool = False,
              among: list[int] | None = None) -> list[tuple[str, float]]:
    """One edge per target with a positive weight, in first-seen order: the largest weight of its
    links, or their sum with ``sum_repeated``; ``among``: the indices of the only links that may
    weigh more than 0 (ascending)."""
    edges: dict[str, float] = {}
    pairs = zip(targets, weights) if among is None else ((targets[j], weights[j]) for j in among)
    for t, w in pairs:
        if w > 0:
            edges[t] = edges.get(t, 0.0) + w if sum_repeated else max(edges.get(t, 0.0), w)
    return list(edges.items())


def menu_links(recurring: np.ndarray, listed: np.ndarray, pagelet: np.ndarray) -> np.ndarray:
    """Per link: it is listed (``lt`` key) in a link list (pagelet) at least MENU_SHARE of whose
    listed links ``recurring`` in its class: a menu, not a page's own list with a recurring entry."""
    out = np.zeros(len(pagelet), dtype=bool)
    mine = listed & (pagelet >= 0)
    if not mine.any():
        return out
    owner = pagelet[mine]
    listed_in = np.bincount(owner)
    out[np.flatnonzero(mine)] = np.bincount(owner, recurring[mine], len(listed_in))[owner] >= MENU_SHARE * listed_in[owner]
    return out


def link_classes(pagelet: np.ndarray, ll: np.ndarray) -> np.ndarray:
    """Per link (its ``pagelet``, -1 for none): its link-list class (pagelets sharing one DOM label,
    ``ll``) as a small int, -1 outside a link list."""
    if not ll.size:
        return np.full(len(pagelet), -1, dtype=np.int64)
    cls = np.where(pagelet >= 0, ll[np.clip(pagelet, 0, len(ll) - 1)], 0).astype(np.uint64)
    keys, inverse = np.unique(cls, return_inverse=True)
    return inverse.astype(np.int64) - int(keys.size > 0 and keys[0] == 0)   # 0 sorts first: no class → -1


def list_votes(content: np.ndarray, in_template: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``content`` with every link of a link-list class (``link_classes``) that is no template and
    whose links are mostly content: the lists of one index get one decision."""
    mine = (classes >= 0) & ~in_template
    if not mine.any():
        return content
    c = classes[mine]
    share = np.bincount(c, content[mine]) / np.maximum(np.bincount(c), 1)
    out = content.copy()
    out[np.flatnonzero(mine)[share[c] >= 0.5]] = True
    return out


def weighed(targets: list[str], keys: PageKeys, counted: np.ndarray, weights: list[float | None],
            sum_repeated: bool) -> tuple[list[float], list[tuple[str, float]]]:
    """(per link: its weight if ``counted``, else 0; ``edge_list`` of them), kept in ``keys.weighed``
    for the next decision of the same page."""
    memo = (counted.tobytes(), tuple(weights), sum_repeated)
    if keys.weighed is not None and keys.weighed[0] == memo:
        return keys.weighed[1], keys.weighed[2]
    link_weights = [0.0] * len(counted)
    kept = np.flatnonzero(counted).tolist()
    for j in kept:
        w = weights[j]
        if w is not None:
            link_weights[j] = float(w)
    edges = edge_list(targets, link_weights, sum_repeated, kept)
    keys.weighed = (memo, link_weights, edges)
    return link_weights, edges


def decide(f: PageFacts, keys: PageKeys, is_template: Callable[[int], bool | None], warm: bool, duplicate: bool,
           weights: list[float | None], scope: str = "content", sum_repeated: bool = False,
           region: int = 0, canonical_links: np.ndarray | None = None) -> Decision:
    """Apply the host evidence (``is_template`` of a typed key, None meaning no; only consulted when ``warm``);
    ``region``: the main region (``main_region``), all of whose non-template links count on a warm host.
    The page's index (``PageFacts.link_index``) inside that region is template only as a menu there
    (its ``lt`` keys recur), not because its texts recur elsewhere: Node.js's index.html lists in its
    text column the modules the menu beside it lists on every page, with the same anchor texts;
    ``canonical_links``: the sorted 63-bit hashes (``site.facts.label_key``) of the link targets of a
    near-duplicate's canonical page (None = not known)."""
    a = keys.arrays(f)
    n = a.n
    if warm:
        t_pagelets, t_classes, t_blocks, recurring = keys.statuses(is_template)
    else:
        t_pagelets, t_classes, t_blocks, recurring = (np.zeros(len(k), dtype=bool)
                                                      for k in (keys.sh, keys.ll, keys.fp, keys.lt))
    pagelet, block, masks, index = a.pagelet, a.block, a.masks if region > 0 else None, a.index
    in_template = np.zeros(n, dtype=bool)
    in_region = (masks >> (region - 1)) & 1 == 1 if masks is not None else None
    if len(t_pagelets):
        in_template |= a.has_pagelet & t_pagelets[a.pagelet0]
    if len(t_classes):
        in_class = a.has_pagelet & t_classes[np.minimum(a.pagelet0, len(t_classes) - 1)]
        if in_region is not None:
            in_class &= ~in_region
        in_template |= in_class
    menu = recurring & menu_links(recurring, keys.lt != 0, pagelet) if len(keys.lt) == n else np.zeros(n, dtype=bool)
    in_template |= menu
    if len(t_blocks):
        in_template |= (block >= 0) & (block < len(t_blocks)) & t_blocks[np.minimum(np.maximum(block, 0), len(t_blocks) - 1)]
    if in_region is not None:
        own_index = index & in_region
        in_template = np.where(own_index, menu, in_template)
    content = a.content
    if warm and n:
        kept = a.in_content | in_region if in_region is not None else a.in_content
        content = list_votes(content | kept | index, in_template, keys.link_classes(pagelet))
        if in_region is not None:
            content &= in_region | (masks == 0) | index
    if scope == "all":
        counted = np.ones(n, dtype=bool)
    else:
        counted = ~in_template & (content if scope == "content" else True)
        if scope == "content" and a.alternate is not None:
            counted &= ~a.alternate
    if duplicate:
        if canonical_links is None:
            counted[:] = False
        else:
            mine = label_keys(f.links)
            counted &= ~np.isin(mine, canonical_links)
    link_weights, edges = weighed(f.links, keys, counted, weights, sum_repeated)
    return Decision(f.url, warm, edges, link_weights,
                    np.flatnonzero(in_template).tolist(), np.flatnonzero(t_blocks).tolist(), duplicate)
