"""``analyze``: one page's HTML → ``Document``, by running the preset steps of ``steps.PRESETS``."""

from __future__ import annotations

from rankcrawl.pipelines.page.blockfusion import DEFAULT_FUSION, VARIANTS
from rankcrawl.pipelines.page.classifiers import Classifier
from rankcrawl.pipelines.page.deadline import Deadline
from rankcrawl.pipelines.page.document import Document
from rankcrawl.pipelines.page.links import link_maker
from rankcrawl.pipelines.page.steps import PageState, preset, run_steps
from rankcrawl.settings.defaults import DEFAULTS

DEFAULT_MAX_PAGE_BYTES: int = DEFAULTS["RANKCRAWL_MAX_PAGE_BYTES"]
"""Pages larger than this are cut (bytes; characters for ``str`` input) and flagged ``truncated``:
the crawl's default (RANKCRAWL_MAX_PAGE_BYTES), which ``rankcrawl extract`` applies as well."""


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
    """Analyse one page. ``classifier``: a preset name (``"trained"``, ``"numwords+largest"`` …,
    ``steps.PRESETS``) or a callable ``f(blocks) -> bool[n]``; ``fusion``: a Block Fusion variant.

    With the default ``"trained"`` each anchor also gets the per-link content decision
    (``link_classifier``), which ``doc.links`` follows instead of its block's flag.
    ``deadline``: checked within parse and blocks and after every step (``deadline.AnalysisTimeout``
    when passed; see ``budget.analyze_within``).
    """
    if fusion not in VARIANTS:
        raise ValueError(f"unknown Block Fusion variant {fusion!r} (one of {', '.join(VARIANTS)})")
    state = run_steps(preset(classifier), PageState(html, url, encoding, max_bytes, fusion, deadline))
    blocks = state.blocks
    bases = state.search.bases if state.search is not None else None
    for b, is_content in zip(blocks, state.flags if state.flags is not None else ()):
        b.is_content = bool(is_content)
    return Document(url=url, title=state.title, blocks=blocks, root=state.root, encoding=state.used_encoding,
                    truncated=state.truncated, orphan_anchors=state.orphans, make_links=link_maker(state.root, url, bases),
                    link_content=state.link_content,
                    content_basis=[b.is_content for b in blocks] if state.link_content is not None else None,
                    anchor_paths=state.context.anchor_paths)
