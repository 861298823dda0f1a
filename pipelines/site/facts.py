"""``PageFacts``: the compact, picklable summary of one analysed page (SPEC §2.4–2.7).

Per-page analysis (parse, blocks, classifier) runs in a worker process (``workers/pool.py``); what it
sends back is this summary, everything the reactor and the site-level step need and nothing more:
the title, every link of the page once per occurrence (target, anchor, block, the per-page content
decision, whether its block is content, whether it links an alternate (language) version of the
page, which candidate main regions hold it, the pagelet owning it, whether it is in the page's index),
the candidate main regions' DOM-label keys (two names where an element has an id and classes) and
depths, each block's content flag, fingerprint key
and (capped) text — only where a target's first link sits, the text ``site.result.follow_of`` sends
along; each pagelet's shingle and link-list label key, the near-duplicate signature of
the main text, and — only for the weighting mode that uses them — block labels with sampled terms
(``block``) or positional term vectors (``lexical``).

Links to the page itself (``#fragment`` links included) are not part of it: they are never an
edge and never worth a request (SPEC §2.7); ``self_links`` counts them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankcrawl.pipelines.page.budget import analyze_within
from rankcrawl.pipelines.page.deadline import clock
from rankcrawl.pipelines.page.dom_features import INDEX, TOKEN_ROLES
from rankcrawl.pipelines.page.dom_features import tokens as role_tokens
from rankcrawl.pipelines.page.link_classifier import TEMPLATE_ROLES
from rankcrawl.pipelines.site.fingerprints import fingerprint_keys
from rankcrawl.pipelines.site.lexical import position_tfs
from rankcrawl.pipelines.site.neardup import signature
from rankcrawl.pipelines.site.pagelets import partition
from rankcrawl.pipelines.site.shingles import token_hashes, tokens
from rankcrawl.settings.urls import normalize_url

LINK_LIST = 0.5
"""A pagelet or block whose linked words are at least this share of its words is a link list."""
INDEX_ANCHORS = 5
INDEX_SHARE = 0.8
"""A link list of at least INDEX_ANCHORS anchors whose linked words are at least INDEX_SHARE of them
plus the words of the page's content blocks outside it is the page's index (``PageFacts.link_index``)."""
FOLLOW_CONTEXT = 500
"""Characters of a link's block text sent along (the crawler's topical priority reads them)."""
MAIN_SHARE = 0.9
"""A page's own main region is (the parent of) the deepest element holding this share of its content words."""
THIN_SHARE = 0.5
"""Content words below this share of the container's words make the page's content thin (``thin_content``)."""
ID_CLASSES = re.compile(r"(#[^./]+)(\.[^/]*)")
"""An element label's id and classes, where it has both. Either may name the page rather than the
region: Sphinx themes put the page's name in the main body's classes (``<div id="docs-body"
class="withsidebar intro">``), DocBook names each section by the page's own id (``<div class="sect1"
id="ROLE-ATTRIBUTES">``). A candidate region is therefore known by two names, its path with such
elements named by their ids alone (``region_keys``) and by their classes alone (``region_class_keys``),
and its host confirms it by whichever recurs (``site.decide.candidate_counts``)."""
WORDS = re.compile(r"\w+")
SHALLOW = (3, 4, 5)
"""Besides its chain, a page offers every element at these depths (html = 1) as a candidate main
region, so the host's usual region is found even where the page's classifier went astray."""
MAX_REGIONS = 48
BLOCK_TERMS = 16
"""Terms per block in ``block`` mode: the ones with the smallest hashes, a consistent sample."""
STAND_IN_TERMS = 50


@dataclass(frozen=True)
class FactOptions:
    """What to compute: site-level features at all, for which weighting mode, and fingerprints of
    every block (``text``: the site step then also cleans the main text) or of link blocks only."""

    site: bool = True
    weighting: str = "uniform"
    text: bool = False
    classifier: str | None = None
    max_bytes: int = 2_000_000
    timeout: float = 0.0


@dataclass
class PageFacts:
    """One page, as the site-level step and the crawler see it (lists aligned per link / block)."""

    url: str
    title: str
    truncated: bool = False
    outcome: str = "complete"
    seconds: float = field(default=0.0, compare=False)
    """CPU seconds of the thread that ran ``analyze_page`` on the page: what RANKCRAWL_ANALYSIS_TIMEOUT
    bounds (``deadline.clock``), summed in the stat rankcrawl/analysis/cpu_s."""
    self_links: int = 0
    block_text: list[str] = field(default_factory=list)
    block_content: list[bool] = field(default_factory=list)
    block_fp: list[int] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    link_block: list[int] = field(default_factory=list)
    link_content: list[bool] = field(default_factory=list)
    link_in_content: list[bool] = field(default_factory=list)
    link_alternate: list[bool] = field(default_factory=list)
    link_index: list[bool] = field(default_factory=list)
    link_regions: list[int] = field(default_factory=list)
    link_pagelet: list[int] = field(default_factory=list)
    pagelet_shingle: list[int] = field(default_factory=list)
    pagelet_list: list[int] = field(default_factory=list)
    neardup: list[int] = field(default_factory=list)
    region_keys: list[int] = field(default_factory=list)
    region_class_keys: list[int] = field(default_factory=list)
    """Per candidate region: the key of its second name (``ID_CLASSES``), 0 where it has one name only."""
    region_depth: list[int] = field(default_factory=list)
    region_own: int = 0
    region_wide: int = 0
    block_label: list[int] = field(default_factory=list)
    block_terms: list[list[int]] = field(default_factory=list)
    stand_in_terms: list[list[str]] = field(default_factory=list)
    lexical: dict[str, dict[str, int]] | None = None

    @property
    def content_blocks(self) -> int:
        return sum(self.block_content)


def label_key(label: str) -> int:
    """63-bit key of a DOM label."""
    return int.from_bytes(hashlib.blake2b(label.encode(), digest_size=8).digest(), "big") >> 1


def label_keys(labels: list[str]) -> np.ndarray:
    """``label_key`` of each label, in order, as a ``uint64`` array."""
    return np.array([label_key(t) for t in labels], dtype=np.uint64)


def region_chain(paths: list[tuple[str, ...]], words: list[int],
                 every_path: list[tuple[str, ...]] | None = None) -> tuple[list[tuple[str, ...]], int]:
    """Candidate main regions of a page and its own choice, from its content blocks' DOM paths
    and word counts (``every_path``: the paths of all its blocks, content or not; default ``paths``).

    The chain descends from ``<body>`` into the child holding most content words while it holds at
    least half of them; its elements below ``<body>`` are the candidates (shallow first). The page's
    own main region is the parent of the deepest element holding MAIN_SHARE of the content words and
    at least two blocks (of the deepest chain element when none does) — the parent, so that an
    index page whose only content is its heading still has its list in it, and of an element with
    two blocks, so that a heading wrapped twice (``<div class="paragraph"><p>``) does not make a
    wrapper the region — or that element itself when its parent is ``<body>``. Returns (chain,
    1-based index of the own region in it, 0 = none).
    """
    total = sum(words)
    every = paths if every_path is None else every_path
    chain: list[tuple[str, ...]] = []
    deepest = 0
    prefix: tuple[str, ...] = ()
    members = list(range(len(paths)))
    while total:
        depth = len(prefix)
        groups: dict[str, list[int]] = {}
        sums: dict[str, int] = {}
        for i in members:
            if len(paths[i]) > depth:
                label = paths[i][depth]
                groups.setdefault(label, []).append(i)
                sums[label] = sums.get(label, 0) + words[i]
        if not groups:
            break
        label = max(sums, key=sums.__getitem__)
        best, share = groups[label], sums[label] / total
        if share < 0.5:
            break
        prefix, members = (*prefix, label), best
        if len(prefix) >= 3:
            chain.append(prefix)
            if share >= MAIN_SHARE and sum(p[:len(prefix)] == prefix for p in every) >= 2:
                deepest = len(chain)
    deepest = deepest or len(chain)
    own = deepest - 1 if deepest >= 2 else deepest
    return chain, own


def region_names(regions: list[tuple[str, ...]]) -> tuple[list[int], list[int]]:
    """The keys of the candidate ``regions`` (DOM paths, sibling positions dropped) by their two names
    (``ID_CLASSES``): elements with an id and classes named by their ids, and by their classes (0
    where no element on the path has both, the second name being the first)."""
    by_id, by_class = [], []
    for region in regions:
        label = INDEX.sub("", "/".join(region))
        by_id.append(label_key("R:" + ID_CLASSES.sub(r"\1", label)))
        other = ID_CLASSES.sub(r"\2", label)
        by_class.append(label_key("R:" + other) if other != label else 0)
    return by_id, by_class


def widened(chain: list[tuple[str, ...]], own: int, thin: bool, pagelets: list[Any],
            anchor_paths: dict[Any, tuple[str, ...]]) -> int:
    """The page's own region (1-based in ``chain``) widened, on a page whose content is ``thin``
    (``thin_content``), up the chain until it holds every link list (a pagelet of at least
    INDEX_ANCHORS anchors and link density LINK_LIST, no template role) of the container, the chain's
    first element: a DocBook chapter's table of contents beside the one table its classifier kept."""
    if not thin or own < 2:
        return own
    top = chain[0]
    k = own
    for p in pagelets:
        if len(p.links) < INDEX_ANCHORS or p.link_density < LINK_LIST:
            continue
        paths = [anchor_paths[a] for a in p.links if a in anchor_paths]
        if not paths or any(q[:len(top)] != top for q in paths) or template_role(p.element):
            continue
        while k > 1 and any(q[:len(chain[k - 1])] != chain[k - 1] for q in paths):
            k -= 1
    return k


def thin_content(chain: list[tuple[str, ...]], content_words: int, paths: list[tuple[str, ...]],
                 words: list[int]) -> bool:
    """Whether the page's content blocks (``content_words`` in all) hold less than THIN_SHARE of the
    words of all its blocks (``paths``, ``words``) inside the chain's first element, its container:
    the classifier then dropped most of the container, e.g. its link lists."""
    if not chain:
        return False
    top = chain[0]
    return content_words < THIN_SHARE * sum(w for p, w in zip(paths, words) if p[:len(top)] == top)


def region_masks(links: list[Any], blocks: list[Any], regions: list[tuple[str, ...]],
                 anchor_paths: dict[Any, tuple[str, ...]]) -> list[int]:
    """Per link: the bit set of the candidate ``regions`` holding it — its block's, or, in a block fused
    from several elements (whose path is their common ancestor's: a last paragraph fused with the
    footer lies in ``<body>``), its own element's."""
    bits: dict[int, dict[tuple[str, ...], int]] = {}   # depth -> region -> its bit (regions are distinct)
    for i, p in enumerate(regions):
        bits.setdefault(len(p), {})[p] = 1 << i
    by_depth = list(bits.items())

    def mask(path: tuple[str, ...]) -> int:
        return sum(at.get(path[:depth], 0) for depth, at in by_depth)

    by_block: dict[int, int] = {}
    out = []
    for link in links:
        b = link.block
        if b >= 0 and blocks[b].n_atomic > 1 and link.element in anchor_paths:
            out.append(mask(anchor_paths[link.element]))
            continue
        if b not in by_block:
            by_block[b] = mask(blocks[b].path if b >= 0 else ())
        out.append(by_block[b])
    return out


def template_role(el: Any) -> bool:
    """Whether ``el`` or an ancestor names a template role (``link_classifier.TEMPLATE_ROLES``) by tag, id or class."""
    for e in (el, *el.iterancestors()):
        if not isinstance(e.tag, str):
            continue
        mask = TOKEN_ROLES.get(e.tag, 0)
        for token in role_tokens(f"{e.get('id') or ''} {e.get('class') or ''}"):
            mask |= TOKEN_ROLES.get(token, 0)
        if mask & TEMPLATE_ROLES:
            return True
    return False


def index_lists(pagelets: list[Any], blocks: list[Any]) -> list[bool]:
    """Per pagelet: a link list (link density ≥ LINK_LIST) of at least INDEX_ANCHORS anchors whose
    linked words are at least INDEX_SHARE of them plus the words of the content blocks outside it —
    the page is that list (an index, a directory) whatever the per-page classifier made of its
    link-dense blocks — unless its element or an ancestor names a template role (nav, aside, …)."""
    content = [b for b in blocks if b.is_content]
    total = sum(b.n_words for b in content)
    words_at: dict[Any, int] = {}
    for b in content:
        if b.element is not None:
            words_at[b.element] = words_at.get(b.element, 0) + b.n_words
    out = []
    for p in pagelets:
        if len(p.links) < INDEX_ANCHORS or p.link_density < LINK_LIST or template_role(p.element):
            out.append(False)
            continue
        linked = sum(len(WORDS.findall(" ".join(a.itertext()))) for a in p.links)
        inside = sum(words_at.get(e, 0) for e in p.element.iter())   # content words in p's subtree
        out.append(linked >= INDEX_SHARE * (linked + total - inside))
    return out


def facts_of(doc: Any, options: FactOptions = FactOptions()) -> PageFacts:
    """The summary of an analysed ``Document`` (``doc.url`` set)."""
    page = normalize_url(doc.url) if doc.url else None
    blocks = doc.blocks
    facts = PageFacts(url=page or doc.url or "", title=doc.title or "", truncated=bool(doc.truncated))
    facts.block_content = [bool(b.is_content) for b in blocks]
    links = [link for link in doc.all_links if link.url != page]
    cited = set(dict(reversed([(link.url, link.block) for link in links])).values())  # each target's first link's block
    facts.block_text = [b.text[:FOLLOW_CONTEXT] if i in cited else "" for i, b in enumerate(blocks)]
    facts.self_links = len(doc.all_links) - len(links)
    facts.links = [link.url for link in links]
    facts.anchors = [link.text for link in links]
    facts.link_block = [link.block for link in links]
    facts.link_content = [bool(doc.is_content_link(link)) for link in links]
    facts.link_in_content = [0 <= link.block < len(blocks) and bool(blocks[link.block].is_content) for link in links]
    facts.link_alternate = [link.alternate for link in links]
    if not options.site:
        return facts
    content = [b for b in blocks if b.is_content]
    paths, words = [b.path for b in blocks], [b.n_words for b in blocks]
    content_words = [b.n_words for b in content]
    chain, facts.region_own = region_chain([b.path for b in content], content_words, paths)
    regions = list(dict.fromkeys([*chain, *(b.path[:d] for d in SHALLOW for b in blocks if len(b.path) >= d)]))
    regions = regions[:MAX_REGIONS]
    facts.region_keys, facts.region_class_keys = region_names(regions)
    facts.region_depth = [len(p) for p in regions]
    pagelets = partition(doc.root, linked_only=True) if doc.root is not None else []
    owner = {a: i for i, p in enumerate(pagelets) for a in p.links}
    facts.pagelet_shingle = [p.shingle for p in pagelets]
    facts.pagelet_list = [label_key("L:" + p.label) if p.links and p.link_density >= LINK_LIST else 0
                          for p in pagelets]
    facts.link_pagelet = [owner.get(link.element, -1) for link in links]
    thin = thin_content(chain, sum(content_words), paths, words)
    facts.region_wide = widened(chain, facts.region_own, thin, pagelets, doc.anchor_paths)
    index = index_lists(pagelets, blocks)
    facts.link_index = [p >= 0 and index[p] for p in facts.link_pagelet]
    facts.link_regions = region_masks(links, blocks, regions, doc.anchor_paths)
    linked = set(facts.link_block) if not options.text else set(range(len(blocks)))
    keyed = [i for i in range(len(blocks)) if i in linked]
    facts.block_fp = [0] * len(blocks)
    for i, key in zip(keyed, fingerprint_keys([blocks[i].text for i in keyed])):
        facts.block_fp[i] = key
    facts.neardup = signature(doc.text, doc.title or "")
    if options.weighting == "block":
        facts.block_label = [label_key("/".join(b.path)) for b in blocks]
        facts.block_terms = [sampled_terms(b.text) for b in blocks]
    elif options.weighting == "lexical":
        facts.lexical = position_tfs(doc.title or "", doc.text)
        facts.stand_in_terms = [list(dict.fromkeys(tokens(b.text)))[:STAND_IN_TERMS] for b in blocks]
    return facts


def sampled_terms(text: str) -> list[int]:
    """Up to BLOCK_TERMS distinct term hashes of a block, the smallest ones (a consistent sample)."""
    h = np.unique(token_hashes(text))
    return [int(v >> np.uint64(1)) for v in h[:BLOCK_TERMS]]


def analyze_page(url: str, body: bytes, encoding: str | None, options: FactOptions) -> PageFacts:
    """Parse, classify and summarise one fetched page within ``options.timeout`` seconds (the
    function worker processes run); ``outcome`` says whether the page, its prefix or nothing
    (``"skipped"``, no facts) fitted the budget (``budget.analyze_within``)."""
    start = clock()  # the budget's clock: this thread's CPU time
    opts: dict[str, Any] = {"classifier": options.classifier} if options.classifier else {}
    budgeted = analyze_within(body, url=url, encoding=encoding, timeout=options.timeout, max_bytes=options.max_bytes,
                              started=start, **opts)
    if budgeted.doc is None:
        return PageFacts(url=normalize_url(url) or url, title="", outcome="skipped", seconds=clock() - start)
    facts = facts_of(budgeted.doc, options)
    facts.outcome = budgeted.outcome
    facts.seconds = clock() - start
    return facts
