"""The page-type decision (``page_type``): stated declarations first, then ``<body>`` class words, then the
URL; a FAQ's questions are no forum."""

from __future__ import annotations

import json

from rankcrawl.pipelines.page.dom_features import declarations
from rankcrawl.pipelines.page.page_type import page_type
from rankcrawl.pipelines.page.parsing import parse_page


def page(*types: str, body_class: str = "") -> str:
    ld = json.dumps({"@context": "https://schema.org", "@graph": [{"@type": t, "name": "x"} for t in types]})
    return (f"<html><head><script type='application/ld+json'>{ld}</script></head>"
            f"<body class='{body_class}'><p>Text</p></body></html>")


def kind(html: str, url: str = "http://site.test/page") -> str:
    root, search = parse_page(html)
    stated, class_words = declarations(root, search)
    return page_type(stated, url, class_words)


def test_a_faq_on_an_article_or_a_product_is_no_forum() -> None:
    assert kind(page("Article", "FAQPage", "Question", "Answer")) == "article"
    assert kind(page("Product", "Offer", "FAQPage", "Question", "Answer")) == "product"
    assert kind(page("WebPage", "FAQPage", "Question", "Answer")) == "other"


def test_a_question_thread_and_a_discussion_are_forums() -> None:
    assert kind(page("QAPage", "Question", "Answer")) == "forum"
    assert kind(page("Question", "Answer")) == "forum"
    assert kind(page("DiscussionForumPosting")) == "forum"
    assert kind(page("WebPage"), url="http://site.test/forum/thread/381") == "forum"


def test_a_documentation_host_outweighs_the_words_of_its_paths() -> None:
    """``docs.djangoproject.com/en/3.2/topics/…``: the host says documentation, the path word ``topics`` a forum."""
    assert kind(page("WebPage"), url="https://docs.example.org/en/3.2/topics/db/queries.html") == "documentation"
    assert kind(page("WebPage"), url="https://doc.example.org/book/products.html") == "documentation"
    assert kind(page("WebPage"), url="https://www.example.org/en/3.2/topics/db/queries.html") == "forum"
    assert kind(page("Article"), url="https://docs.example.org/topics/release-notes.html") == "article"


def og(kind_: str, body_class: str) -> str:
    return (f"<html><head><meta property='og:type' content='{kind_}'></head>"
            f"<body class='{body_class}'><p>Text</p></body></html>")


def test_a_stated_article_outranks_a_themes_class_words() -> None:
    """A WordPress post on a site with a shop (``woocommerce-no-js``), a Squarespace post (``tweak-product-…``)."""
    assert kind(og("article", "single single-post postid-12 woocommerce-no-js")) == "article"
    assert kind(og("article", "tweak-product-quick-view-button-style-floating")) == "article"
    assert kind(og("article", "single single-product postid-12 woocommerce")) == "product"
    assert kind(og("website", "tweak-product-quick-view-button-style-floating")) == "product"


def test_a_post_filed_under_a_blog_or_the_news_is_an_article() -> None:
    plain = og("website", "")
    assert kind(plain, "http://site.test/blog/how-to-paint-a-room") == "article"
    assert kind(plain, "http://site.test/en/news/2025/12/harbour-bridge-reopens") == "article"
    assert kind(plain, "http://site.test/blog/") == "other"
    assert kind(plain, "http://site.test/blog/page/2") == "other"
    assert kind(plain, "http://site.test/blog/category/news") == "other"
    assert kind(plain, "http://site.test/list/all-latest-news.html") == "other"
    assert kind(plain, "http://site.test/forum/blog/thread-12") == "forum"
