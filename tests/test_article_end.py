"""Content after an article's named body container leaves its text and its links (``article_end``);
the headline and byline before it, pages without such a container and other pages keep theirs."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from tests.test_link_dense_content import sentence, typed

URL = "http://news.test/2024/05/harbour-bridge-reopens.html"
PROMO = ("Our harbour desk follows every closure, opening and delay on the water, and the weekly digest "
         "collects the stories our readers shared most this month")


def more_reading() -> str:
    """A box after the story: a prose pitch and three teasers of other stories."""
    teasers = "".join(f"<p><a href='/2024/04/story-{k}.html'>{sentence(k + 20, 8)}</a> {sentence(k + 30, 12)}</p>"
                      for k in range(3))
    return f"<div class='more-reading'><h2>Keep reading</h2><p>{PROMO}.</p>{teasers}</div>"


def page(container: str = "entry-content", declared: str = "article") -> str:
    paras = "".join(f"<p>{sentence(k)} {sentence(k + 3)} {sentence(k + 6)}</p>" for k in range(6))
    body = (f"<article><h1>Harbour bridge reopens</h1><p class='byline'>By Jane Doe, May 4, 2024</p>"
            f"<div class='{container}'>{paras}</div>{more_reading()}</article>")
    return typed(body, "Harbour bridge reopens", declared)


def test_what_follows_an_articles_body_leaves_its_text_and_links() -> None:
    doc = analyze(page(), url=URL)
    assert "Harbour bridge reopens" in doc.text and sentence(0) in doc.text and sentence(11) in doc.text
    assert PROMO not in doc.text
    assert not any("/2024/04/story-" in link.url for link in doc.links)


def test_without_a_named_body_or_on_another_page_the_box_stays() -> None:
    """The box is content by the block model's decision; only the container's name and the page's type move it."""
    for html in (page(container="text"), page(declared="website")):
        doc = analyze(html, url="http://news.test/harbour-bridge-reopens.html")
        assert PROMO in doc.text
        assert any("/2024/04/story-" in link.url for link in doc.links)
