"""A region an article writes twice (a desktop and a mobile copy) reaches the text once (``repeats``);
items of one list that share a phrase, and pages of no article, forum, product or listing type, keep
every repeat."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.repeats import MIN_WORDS, NEAR_SHARE, copied_blocks, ngrams
from tests.test_article_precision import URL
from tests.test_link_dense_content import sentence, typed


def story(i: int) -> str:
    return f"<p>{sentence(i)} {sentence(i + 3)} {sentence(i + 6)}</p>"


def responsive_article() -> str:
    """An article (``og:type``) whose body the page writes twice, a topics list between the copies."""
    paras = "".join(story(k) for k in range(6))
    tags = "".join(f"<li><a href='/tag/{k}'>Tag {k}</a></li>" for k in range(8))
    return typed(f"<article><h1>Harbour bridge reopens</h1><div class='body-desktop'>{paras}</div>"
                 f"<ul class='topics'>{tags}</ul><div class='body-mobile'><section>{paras}</section></div></article>",
                 "Harbour bridge reopens", "article")


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


def product_with_description_twice() -> str:
    """A product (``og:type``) whose description the page writes again in its details tab, a line added."""
    paras = "".join(story(k) for k in range(4))
    extra = "<p>Enter a quantity to see bulk pricing on ten or more items of this colour.</p>"
    colours = "".join(f"<li><a href='/products/staple-tee?colour={k}'>Colour {k}</a></li>" for k in range(8))
    return typed(f"<div class='product-view'><h1>Staple tee</h1><p class='price'>$25.00</p><div class='summary'>{paras}</div>"
                 f"<ul class='colours'>{colours}</ul><div class='details-tab'><section>{extra}{paras}</section></div></div>",
                 "Staple tee", "product")


def test_a_description_written_again_with_a_line_added_reaches_the_text_once() -> None:
    doc = analyze(product_with_description_twice(), url="http://shop.test/products/staple-tee")
    assert doc.text.count(sentence(0)) == 1
    assert doc.text.count(sentence(1)) == 1


def words(stem: str, n: int) -> str:
    return " ".join(f"{stem}{k}" for k in range(n))


def test_near_copies_from_another_template_go_on_written_pages_only() -> None:
    text = words("desc", 24)
    blocks = [
        block(text, ("body[1]", "div[1].summary", "p[1]")),
        block(f"{words('bulk', 6)} {text}", ("body[1]", "div[2].tab", "p[1]")),        # 21 of 27 4-grams copied
        block(f"{words('desc', 12)} {words('care', 12)}", ("body[1]", "div[3].more", "p[1]")),   # 9 of 21
        block(f"{text} {words('size', 6)}", ("body[1]", "div[4].summary", "p[1]")),    # the first's template
    ]
    flags = np.ones(4, dtype=bool)
    assert copied_blocks(blocks, flags, [False] * 4, "product") == [1]
    assert copied_blocks(blocks, flags, [False] * 4, "documentation") == []
    assert len(ngrams(text)) >= NEAR_SHARE * len(ngrams(blocks[1].text))
