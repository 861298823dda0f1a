"""``analyze``: one page's HTML → ``Document`` (decode, parse, blocks, Block Fusion, classify, links)."""

from __future__ import annotations

from rankcrawl.pipelines.blockfusion import DEFAULT_FUSION, block_fusion
from rankcrawl.pipelines.blocks import atomic_blocks
from rankcrawl.pipelines.classifiers import DEFAULT_CLASSIFIER, Classifier, classify
from rankcrawl.pipelines.deadline import Deadline
from rankcrawl.pipelines.decoding import decode_html
from rankcrawl.pipelines.document import Document, TextBlock
from rankcrawl.pipelines.link_classifier import content_anchors
from rankcrawl.pipelines.links import link_maker
from rankcrawl.pipelines.parsing import parse_html
from rankcrawl.pipelines.trained_classifier import decide, trained_proba

DEFAULT_MAX_PAGE_BYTES = 5_000_000
"""Pages larger than this are cut (bytes; characters for ``str`` input) and flagged ``truncated``."""


def page_title(root: object) -> str:
    """The ``<title>`` text, whitespace collapsed."""
    if root is None:
        return ""
    titles = root.xpath("//title[1]//text()")  # type: ignore[attr-defined]
    return " ".join("".join(titles).split())


def _no_deadline(step: str) -> None:
    """No time budget."""


def set_positions(blocks: list[TextBlock]) -> None:
    """Each block's position: the share of the page's words before it."""
    total = sum(b.n_words for b in blocks) or 1
    seen = 0
    for b in blocks:
        b.position = seen / total
        seen += b.n_words


def analyze(
    html: bytes | str,
    url: str | None = None,
    encoding: str | None = None,
    *,
    classifier: str | Classifier | None = None,
    fusion: str = DEFAULT_FUSION,
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    deadline: Deadline | None = None,
) -> Document:
    """Analyse one page. ``classifier``: a name (``"numwords"``, ``"numwords+largest"`` …) or callable.

    With ``"trained-links"`` each anchor also gets the per-link content decision
    (``link_classifier``), which ``doc.links`` follows instead of the block's flag. The default,
    ``"trained"``, keeps the block flags: on held-out WCXB-dev the link model gave the same micro
    link F1, a lower macro F1 and 25 % less speed (docs/BENCHMARKS.md, extraction).
    ``deadline``: checked between steps (``deadline.AnalysisTimeout`` when passed; see ``budget.analyze_within``).
    """
    check = deadline.check if deadline is not None else _no_deadline
    truncated = len(html) > max_bytes
    if truncated:
        html = html[:max_bytes]
    used = "utf-8"
    if isinstance(html, bytes):
        html, used = decode_html(html, encoding, truncated=truncated)
    check("decode")
    root = parse_html(html, deadline)
    check("parse")
    atomic, orphans = atomic_blocks(root, deadline)
    check("blocks")
    blocks = block_fusion(atomic, fusion)
    check("fusion")
    set_positions(blocks)
    title = page_title(root)
    link_content = None
    name = classifier or DEFAULT_CLASSIFIER
    if name in ("trained", "trained-links"):
        proba = trained_proba(blocks)
        flags = decide(proba)
        if name == "trained-links":
            link_content = content_anchors(blocks, proba, url)
    else:
        flags = classify(blocks, classifier, title)
    check("classify")
    for b, is_content in zip(blocks, flags):
        b.is_content = bool(is_content)
    return Document(url=url, title=title, blocks=blocks, root=root, encoding=used, truncated=truncated,
                    orphan_anchors=orphans, make_links=link_maker(root, url), link_content=link_content,
                    content_basis=[b.is_content for b in blocks] if link_content is not None else None)
