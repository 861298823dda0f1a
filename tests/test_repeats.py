"""A region an article writes twice (a desktop and a mobile copy) reaches the text once (``repeats``);
items of one list that share a phrase, and pages of no article, forum, product or listing type, keep
every repeat."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.repeats import MIN_WORDS, copied_blocks
from tests.test_article_precision import URL
from tests.test_link_dense_content import chrome, sentence


def story(i: int) -> str:
    return f"<p>{sentence(i)} {sentence(i + 3)} {sentence(i + 6)}</p>"


def responsive_article() -> str:
    """An article (``og:type``) whose body the page writes twice, a topics list between the copies."""
    paras = "".join(story(k) for k in range(6))
    tags = "".join(f"<li><a href='/tag/{k}'>Tag {k}</a></li>" for k in range(8))
    html = chrome(
        f"<article><h1>Harbour bridge reopens</h1><div class='body-desktop'>{paras}</div>"
        f"<ul class='topics'>{tags}</ul><div class='body-mobile'><section>{paras}</section></div></article>",
        "Harbour bridge reopens",
    )
    return html.replace("</title>", "</title><meta property='og:type' content='article'>", 1)


def test_a_region_written_twice_reaches_the_text_once() -> None:
    doc = analyze(responsive_article(), url=URL)
    assert doc.text.count(sentence(0)) == 1
    assert doc.text.count(sentence(1)) == 1


def block(text: str, path: tuple[str, ...]) -> TextBlock:
    return TextBlock(text=text, n_words=len(text.split()), n_linked_words=0, n_lines=1, last_line_words=0, tag=path[-1].split("[")[0], path=path)


FEATURE = "Phone consultation with one of our professional resume experts before we start writing"


def test_items_of_one_list_keep_a_shared_phrase() -> None:
    """Three pricing plans list the same feature: one template (``div.plan/li``), three items."""
    blocks = [block(FEATURE, ("body[1]", f"div[{k}].plan", "ul[1]", "li[1]")) for k in (1, 2, 3)]
    assert copied_blocks(blocks, np.ones(3, dtype=bool), [False] * 3, "other") == []


def test_copies_from_another_template_go_on_an_article_only() -> None:
    text = sentence(1)
    blocks = [
        block(text, ("body[1]", "div[1].desktop", "p[1]")),
        block("Short label", ("body[1]", "span[1]")),
        block(text, ("body[1]", "div[2].mobile", "p[1]")),
        block("Short label", ("body[1]", "b[1]")),
    ]
    flags = np.ones(4, dtype=bool)
    assert copied_blocks(blocks, flags, [False] * 4, "article") == [2]
    assert copied_blocks(blocks, flags, [False] * 4, "documentation") == []
    assert copied_blocks(blocks, flags, [False] * 4, "other") == []
    assert copied_blocks(blocks, np.array([False, True, True, True]), [False] * 4, "article") == []
    assert len("Short label".split()) < MIN_WORDS
