"""A lone section heading that ends a product's, article's, forum's or listing's text leaves it
(``trailing``); a headline, a series of item titles, a heading fused with text, and other pages keep theirs."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.trailing import trailing_heading
from tests.test_link_dense_content import sentence, typed

HEADING = "Browse by Category"


def product_page(declared: str = "product") -> str:
    """A product (``og:type``) whose description is followed by a footer box: a heading over category links."""
    desc = "".join(f"<p>{sentence(k)} {sentence(k + 2)}</p>" for k in range(3))
    links = ", ".join(f"<a href='/c/{k}'>Category {k}</a>" for k in range(8))
    body = (f"<h1>Walnut serving board</h1><p class='price'>$49.00</p>{desc}"
            f"<div class='seo-keywords'><dl><dt><h5>{HEADING}</h5></dt><dd>{links}</dd></dl></div>")
    return typed(body, "Walnut serving board", declared)


def test_a_product_loses_the_heading_of_a_box_left_out() -> None:
    doc = analyze(product_page(), url="http://shop.test/walnut-tray.html")
    assert HEADING not in doc.text
    assert "Walnut serving board" in doc.text and sentence(0) in doc.text


def test_a_page_of_no_declared_type_keeps_it() -> None:
    doc = analyze(product_page("website"), url="http://shop.test/walnut-tray.html")
    assert doc.text.rstrip().endswith(HEADING)


def block(text: str, path: tuple[str, ...], n_atomic: int = 1) -> TextBlock:
    return TextBlock(text=text, n_words=len(text.split()), n_linked_words=0, n_lines=1, last_line_words=0,
                     tag=path[-1].split("[")[0].split(".")[0], path=path, n_atomic=n_atomic)


BODY = block(sentence(1), ("body[1]", "main[1]", "p[1]"))


def test_only_a_lone_section_heading_of_no_series_goes() -> None:
    def last(heading: TextBlock, *before: TextBlock, kind: str = "product") -> int | None:
        blocks = [BODY, *before, heading]
        return trailing_heading(blocks, np.ones(len(blocks), dtype=bool), [False] * len(blocks), kind)

    footer = block(HEADING, ("body[1]", "footer[1]", "h5[1]"))
    assert last(footer) == 1
    assert last(footer, kind="documentation") is None and last(footer, kind="other") is None
    assert last(block("Walnut serving board", ("body[1]", "main[1]", "h1[1]"))) is None
    assert last(block(f"{HEADING} {sentence(2)}", ("body[1]", "main[1]", "h5[1]"), n_atomic=2)) is None
    items = [block(f"Item {k}", ("body[1]", "main[1]", f"div[{k}].card", "h3[1]")) for k in (1, 2)]
    assert last(items[1], items[0]) is None


def test_blocks_left_out_or_dropped_do_not_end_the_text() -> None:
    heading = block(HEADING, ("body[1]", "footer[1]", "h5[1]"))
    blocks = [BODY, heading, block("Copyright", ("body[1]", "footer[1]", "p[1]"))]
    assert trailing_heading(blocks, np.array([True, True, False]), [False] * 3, "article") == 1
    assert trailing_heading(blocks, np.ones(3, dtype=bool), [False, False, True], "article") == 1
    assert trailing_heading(blocks, np.ones(3, dtype=bool), [False] * 3, "article") is None
    assert trailing_heading(blocks, np.zeros(3, dtype=bool), [False] * 3, "article") is None
