"""Page analysis as a chain of named steps (in the style of boilerpipe's filters) and its presets.

A ``Step`` is a named function that reads and extends one ``PageState``; a preset is the tuple
of steps ``analyze`` runs for a classifier name. Every preset starts with ``BASE``:

| step        | does                                                             | fills                           |
|-------------|------------------------------------------------------------------|---------------------------------|
| decode      | cut at ``max_bytes``, bytes → text (``decoding.decode_html``)     | text, utf8, encoding, truncated |
| parse       | text → lxml tree and its search (``parsing.parse_page``)         | root, search                    |
| blocks      | atomic text blocks and anchors' DOM paths (``blocks``); a page   | atomic, orphans, context        |
|             | empty without its script reads its ``<noscript>`` (``noscript``)  |                                 |
| regions     | page type (``page_type``); subtrees whose blocks will be dropped: | page_type, drop_roots           |
|             | hidden (``hidden``), share bars (``share_bars``), comment sections |                                 |
|             | after the article but on forums and products (``comments``),      |                                 |
|             | link-dense teaser boxes after it (``teasers``), cookie-consent    |                                 |
|             | banners and dialogs (``consent``), an article's author bio,       |                                 |
|             | sign-up box, dialogs and disclosures (``insets``)                 |                                 |
| fusion      | Block Fusion (``blockfusion``, variant ``fusion``) of each run of | blocks (empties atomic), dropped |
|             | atomic blocks inside / outside ``drop_roots`` (``dropping``)      |                                 |
| positions   | share of the page's words before each block                      | blocks[i].position              |
| title       | the ``<title>`` text                                             | title                           |

then the classification steps of ``PRESETS``, and ``drop``:

| preset                   | after BASE                                                                                             |
|--------------------------|--------------------------------------------------------------------------------------------------------|
| ``trained`` (default)    | block_model, link_model, prose_links, link_blocks, repeats, article_end, trailing, drop                |
| ``trained-lists``        | block_model, link_model, prose_links, content_lists, link_blocks, repeats, article_end, trailing, drop |
| ``trained-blocks``       | block_model (links follow blocks), drop                                                                |
| ``densitometric``, ``numwords``, ``cleaneval``, ``minwords`` | rules:<name> (Kohlschütter §4.4.3), drop                   |

``prose_links`` keeps the inline links of confident prose blocks (P(content) ≥ 0.8 or the
page's only content block, link density ≤ 0.25) whatever the link model says (it misjudges some small pages unlike its training
pages). ``link_blocks`` makes content of the link-dense blocks whose anchors the link model mostly keeps
on a listing's or article's page of little prose (``link_blocks``: a listing's item titles). ``repeats``
takes out of an article's, forum's, product's or listing's text a content block that copies or nearly
copies an earlier one from another template (``repeats``: responsive copies, post previews, quoted
posts), its anchors keeping their decision. ``article_end`` takes out of an article's content (text and links)
what comes after its body's named container (``article_end``: related posts, author cards, sign-up boxes).
``trailing`` takes the same pages' last content block out of the text where it is a lone ``<h2>``–``<h6>``
heading of no series (``trailing``: the title of a box left out).
``content_lists`` keeps every anchor of a link list that is the content region's main content
(``link_classifier.content_lists``: tables of contents, indexes, product grids); it is not in the default
because on WCXB-dev held-out it lowered listing pages' link F1 (several of their gold annotations list no
link at all), see docs/BENCHMARKS.md.
``"<preset>+largest"`` / ``"+main"`` append the Largest / Main Content filter; a callable
classifier ``f(blocks) -> bool[n]`` replaces the classification steps (``drop`` follows it too).
``drop``: the blocks inside ``drop_roots`` leave the text and their anchors the content links
(``dropping``); the classifiers before it see every block.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankcrawl.pipelines.page.after_article import section_candidates
from rankcrawl.pipelines.page.article_end import after_body
from rankcrawl.pipelines.page.blockfusion import DEFAULT_FUSION, block_fusion
from rankcrawl.pipelines.page.blocks import atomic_blocks
from rankcrawl.pipelines.page.classifiers import FILTERS, RULES, Classifier
from rankcrawl.pipelines.page.comments import comment_sections
from rankcrawl.pipelines.page.consent import consent_boxes
from rankcrawl.pipelines.page.deadline import Deadline
from rankcrawl.pipelines.page.decoding import decode_html
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import PageContext
from rankcrawl.pipelines.page.dropping import drop, fuse_apart, unlink
from rankcrawl.pipelines.page.elements import PageSearch
from rankcrawl.pipelines.page.hidden import hidden_regions
from rankcrawl.pipelines.page.insets import inset_boxes
from rankcrawl.pipelines.page.link_blocks import content_link_blocks
from rankcrawl.pipelines.page.link_classifier import content_anchors, content_lists
from rankcrawl.pipelines.page.link_features import AnchorRows
from rankcrawl.pipelines.page.noscript import fallbacks, unwrap
from rankcrawl.pipelines.page.page_type import page_type
from rankcrawl.pipelines.page.parsing import parse_page
from rankcrawl.pipelines.page.repeats import copied_blocks
from rankcrawl.pipelines.page.share_bars import share_bars
from rankcrawl.pipelines.page.teasers import teaser_sections
from rankcrawl.pipelines.page.trailing import trailing_heading
from rankcrawl.pipelines.page.trained_classifier import block_model, decide, features_and_page


@dataclass
class PageState:
    """One page while it is analysed; each step reads some fields and fills others."""

    html: bytes | str
    url: str | None = None
    encoding: str | None = None
    max_bytes: int = 5_000_000
    fusion: str = DEFAULT_FUSION
    deadline: Deadline | None = None
    text: str | None = ""
    utf8: bytes | None = None
    used_encoding: str = "utf-8"
    truncated: bool = False
    root: Any = None
    search: PageSearch | None = None
    atomic: list[TextBlock] = field(default_factory=list)
    orphans: list[Any] = field(default_factory=list)
    blocks: list[TextBlock] = field(default_factory=list)
    context: PageContext = field(default_factory=PageContext)
    page_type: str = "other"
    drop_roots: list[Any] = field(default_factory=list)
    dropped: list[bool] = field(default_factory=list)
    title: str = ""
    proba: np.ndarray | None = None
    page_features: np.ndarray | None = None
    flags: np.ndarray | None = None
    link_content: dict[Any, bool] | None = None
    anchor_rows: AnchorRows | None = None


@dataclass(frozen=True)
class Step:
    """A named analysis step: ``run(state)`` extends ``state`` in place."""

    name: str
    run: Callable[[PageState], None]

    def __call__(self, state: PageState) -> None:
        self.run(state)


def _decode(s: PageState) -> None:
    html = s.html
    s.truncated = len(html) > s.max_bytes
    if s.truncated:
        html = html[: s.max_bytes]
    if isinstance(html, bytes):
        s.text, s.used_encoding, s.utf8 = decode_html(html, s.encoding, truncated=s.truncated, lazy=True)
    else:
        s.text = html


def _parse(s: PageState) -> None:
    s.root, s.search = parse_page(s.text, s.deadline, s.utf8)


def _blocks(s: PageState) -> None:
    s.context = PageContext(s.root, s.url, search=s.search)
    s.atomic, s.orphans = atomic_blocks(s.root, s.deadline, s.context.anchor_paths)
    if found := fallbacks(s.root, s.atomic):
        unwrap(found)
        s.context = PageContext(s.root, s.url, search=s.search)
        s.atomic, s.orphans = atomic_blocks(s.root, s.deadline, s.context.anchor_paths)


def _regions(s: PageState) -> None:
    if s.root is None or not s.atomic:
        return
    stated, class_words = s.context.declarations
    s.page_type = page_type(stated, s.url, class_words)
    sections = section_candidates(s.root)
    s.drop_roots = [*hidden_regions(s.root, s.atomic), *share_bars(s.root),
                    *comment_sections(sections, s.atomic, s.page_type), *teaser_sections(sections, s.atomic, s.page_type),
                    *consent_boxes(sections), *inset_boxes(s.root, s.atomic, s.page_type)]


def _fusion(s: PageState) -> None:
    s.blocks, s.dropped = fuse_apart(s.atomic, s.drop_roots, lambda run: block_fusion(run, s.fusion, s.deadline))
    s.atomic = []


def _positions(s: PageState) -> None:
    total = sum(b.n_words for b in s.blocks) or 1
    seen = 0
    for b in s.blocks:
        b.position = seen / total
        seen += b.n_words


def _title(s: PageState) -> None:
    if s.search is None:  # no tree
        return
    titles = s.search.titles
    if len(titles) == 1:    # the common page: //title[1]//text() is that title's text, found without XPath's node sets
        text = "".join(titles[0].itertext())
    else:
        text = "".join(s.root.xpath(TITLE_TEXT, smart_strings=False))
    s.title = " ".join(text.split())


def _block_model(s: PageState) -> None:
    if s.blocks:
        x, s.page_features = features_and_page(s.blocks, s.context)
        s.proba = block_model().proba(x)
    else:
        s.proba = np.zeros(0)
    s.flags = decide(s.proba)


def _link_model(s: PageState) -> None:
    if s.blocks and s.proba is not None:
        s.link_content, s.anchor_rows = content_anchors(s.blocks, s.proba, s.context, s.page_features,
                                                        block_model().threshold_proba)


def _prose_links(s: PageState) -> None:
    if s.link_content and s.proba is not None and s.flags is not None:
        only = int(s.flags.sum()) == 1
        for i, b in enumerate(s.blocks):
            confident = s.proba[i] >= PROSE_PROBA or (only and s.flags[i])
            if confident and b.link_density <= PROSE_LINK_DENSITY:
                for el in b.anchors:
                    s.link_content[el] = True


def _content_lists(s: PageState) -> None:
    if s.link_content and s.anchor_rows is not None:
        for el, keep in zip(list(s.link_content), content_lists(s.anchor_rows)):
            if keep:
                s.link_content[el] = True


def _link_blocks(s: PageState) -> None:
    if s.link_content and s.flags is not None and s.anchor_rows is not None:
        content_link_blocks(s.blocks, s.flags, s.link_content, s.anchor_rows, s.dropped, s.page_type)


def _repeats(s: PageState) -> None:
    if s.flags is not None and len(s.flags):
        s.flags[copied_blocks(s.blocks, s.flags, s.dropped, s.page_type)] = False


def _article_end(s: PageState) -> None:
    if s.flags is not None and len(s.flags):
        after = after_body(s.root, s.blocks, s.flags, s.dropped, s.page_type)
        s.flags[after] = False
        if s.link_content:
            for i in after:
                unlink(s.blocks[i], s.link_content)


def _trailing(s: PageState) -> None:
    if s.flags is not None and len(s.flags):
        if (last := trailing_heading(s.blocks, s.flags, s.dropped, s.page_type)) is not None:
            s.flags[last] = False


def _drop(s: PageState) -> None:
    if s.flags is not None and any(s.dropped):
        drop(s.blocks, s.flags, s.link_content, s.dropped)


def rules(name: str) -> Step:
    """The rule-based classifier ``name`` of ``classifiers.RULES`` as a step."""
    rule = RULES[name]

    def run(s: PageState) -> None:
        s.flags = np.asarray(rule(s.blocks), dtype=bool) if s.blocks else np.zeros(0, dtype=bool)

    return Step(f"rules:{name}", run)


def custom(classifier: Classifier) -> Step:
    """A caller's ``f(blocks) -> bool[n]`` as the classification step."""
    def run(s: PageState) -> None:
        s.flags = np.asarray(classifier(s.blocks), dtype=bool) if s.blocks else np.zeros(0, dtype=bool)

    return Step("custom", run)


def content_filter(name: str) -> Step:
    """The post-filter ``name`` of ``classifiers.FILTERS`` (largest, main) as a step."""
    filt = FILTERS[name]

    def run(s: PageState) -> None:
        if s.blocks and s.flags is not None:
            s.flags = filt(s.blocks, s.flags, s.title)

    return Step(f"filter:{name}", run)


TITLE_TEXT = "//title[1]//text()"
BASE: tuple[Step, ...] = (Step("decode", _decode), Step("parse", _parse), Step("blocks", _blocks),
                          Step("regions", _regions), Step("fusion", _fusion), Step("positions", _positions), Step("title", _title))
BLOCK_MODEL = Step("block_model", _block_model)
LINK_MODEL = Step("link_model", _link_model)
PROSE_LINKS = Step("prose_links", _prose_links)
CONTENT_LISTS = Step("content_lists", _content_lists)
LINK_BLOCKS = Step("link_blocks", _link_blocks)
REPEATS = Step("repeats", _repeats)
ARTICLE_END = Step("article_end", _article_end)
TRAILING = Step("trailing", _trailing)
DROP = Step("drop", _drop)
PROSE_PROBA = 0.8
PROSE_LINK_DENSITY = 0.25
"""prose_links: the anchors of a block with P(content) ≥ PROSE_PROBA (or the page's only content
block) and link density ≤ this are content."""
PRESETS: dict[str, tuple[Step, ...]] = {
    "trained": BASE + (BLOCK_MODEL, LINK_MODEL, PROSE_LINKS, LINK_BLOCKS, REPEATS, ARTICLE_END, TRAILING, DROP),
    "trained-lists": BASE + (BLOCK_MODEL, LINK_MODEL, PROSE_LINKS, CONTENT_LISTS, LINK_BLOCKS, REPEATS, ARTICLE_END, TRAILING, DROP),
    "trained-blocks": BASE + (BLOCK_MODEL, DROP),
    **{name: BASE + (rules(name), DROP) for name in RULES},
}
DEFAULT_PRESET = "trained"


def preset(spec: str | Classifier | None) -> tuple[Step, ...]:
    """The steps for a classifier spec: a preset name, ``"name+filter"``, or a callable."""
    if callable(spec):
        return BASE + (custom(spec), DROP)
    name, _, filt = (spec or DEFAULT_PRESET).partition("+")
    if name not in PRESETS:
        raise ValueError(f"unknown classifier {name!r} (one of {', '.join(PRESETS)})")
    if filt and filt not in FILTERS:
        raise ValueError(f"unknown filter {filt!r} (one of {', '.join(FILTERS)})")
    return PRESETS[name] + ((content_filter(filt),) if filt else ())


def run_steps(steps: tuple[Step, ...], state: PageState) -> PageState:
    """Run ``steps`` in order on ``state`` (its deadline checked after each); returns it."""
    for step in steps:
        step(state)
        if state.deadline is not None:
            state.deadline.check(step.name)
    return state
