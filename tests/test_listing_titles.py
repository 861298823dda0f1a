"""A listing keeps the titles of the items it links (``link_blocks``); an article's related links, and
the lists of a page of no declared type, stay out of its text."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.after_article import ARTICLE_WORDS
from rankcrawl.pipelines.page.link_blocks import content_link_blocks, prose_words
from rankcrawl.pipelines.page.steps import PageState, preset, run_steps
from tests.test_article_precision import URL, article
from tests.test_link_dense_content import chrome, sentence

LISTING_URL = "http://food.test/recipes/dinner/"
DECLARED = "</title><script type='application/ld+json'>{\"@type\": \"CollectionPage\"}</script>"


def card(i: int) -> str:
    return (f"<div class='card'><a class='card-link' href='/recipes/{i}/dish-{i}'>"
            f"<span class='card-title'>{sentence(i, 6)[:-1]} number {i}</span></a></div>")


def listing(n: int = 16, declared: bool = True) -> str:
    """A recipe index: a headline, one line of prose, a grid of linked card titles (a ``CollectionPage``)."""
    html = chrome(f"<h1>Dinner recipes</h1><p>Popular dinner recipes for every night of the week.</p>"
                  f"<div class='card-list'>{''.join(card(i) for i in range(n))}</div>", "Dinner recipes")
    return html.replace("</title>", DECLARED, 1) if declared else html


def state_before_link_blocks(html: str, url: str) -> PageState:
    steps = preset(None)
    names = [step.name for step in steps]
    return run_steps(steps[: names.index("link_blocks")], PageState(html, url=url))


def test_a_listing_keeps_the_titles_of_its_items() -> None:
    s = state_before_link_blocks(listing(), LISTING_URL)
    assert s.page_type == "listing"
    doc = analyze(listing(), url=LISTING_URL)
    links = {link.url for link in doc.links}
    kept = [i for i in range(16) if f"http://food.test/recipes/{i}/dish-{i}" in links]
    assert len(kept) >= 12
    assert all(f"number {i}" in doc.text for i in kept)


def grid_left_out(s: PageState) -> list[int]:
    """The card list's blocks, set to not content as the block model might judge them; its links kept."""
    assert s.flags is not None and s.link_content is not None and s.anchor_rows is not None
    grid = [i for i, b in enumerate(s.blocks) if "number 3" in b.text]
    assert grid and all(s.link_content[a] for a in s.blocks[grid[0]].anchors)
    s.flags[grid] = False
    return grid


def test_link_dense_blocks_of_kept_links_become_content_on_a_listing_without_prose() -> None:
    s = state_before_link_blocks(listing(), LISTING_URL)
    grid = grid_left_out(s)
    assert s.flags is not None and s.link_content is not None and s.anchor_rows is not None
    flags = s.flags.copy()
    assert content_link_blocks(s.blocks, s.flags, s.link_content, s.anchor_rows, s.dropped, s.page_type) >= 1
    assert s.flags[grid].all() and np.all(s.flags >= flags)


def test_a_page_of_no_declared_type_keeps_the_block_models_verdict() -> None:
    s = state_before_link_blocks(listing(declared=False), LISTING_URL)
    assert s.page_type not in ("listing", "article")
    grid_left_out(s)
    assert s.flags is not None and s.link_content is not None and s.anchor_rows is not None
    assert content_link_blocks(s.blocks, s.flags, s.link_content, s.anchor_rows, s.dropped, s.page_type) == 0
    assert content_link_blocks(s.blocks, s.flags, s.link_content, s.anchor_rows, s.dropped, "documentation") == 0


def test_beside_an_article_the_same_list_stays_out() -> None:
    prose = "".join(f"<p>{sentence(k)} {sentence(k + 3)} {sentence(k + 6)}</p>" for k in range(4))
    html = listing().replace("<h1>Dinner recipes</h1>", f"<article><h1>Dinner recipes</h1>{prose}</article><h2>More</h2>")
    s = state_before_link_blocks(html, LISTING_URL)
    grid_left_out(s)
    assert s.flags is not None and s.link_content is not None and s.anchor_rows is not None
    assert prose_words(s.blocks, s.flags, s.dropped) >= ARTICLE_WORDS
    assert content_link_blocks(s.blocks, s.flags, s.link_content, s.anchor_rows, s.dropped, "article") == 0


def test_related_links_after_an_article_stay_out_of_its_text() -> None:
    related = ("<div class='more'><h3>More stories</h3><ul>"
               + "".join(f"<li><a href='/2024/05/story-{i}.html'>{sentence(i, 7)}</a></li>" for i in range(8))
               + "</ul></div>")
    doc = analyze(chrome(article(related), "Harbour bridge reopens"), url=URL)
    assert sentence(0) in doc.text
    assert not any(sentence(i, 7) in doc.text for i in range(8))
