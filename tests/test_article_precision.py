"""Article precision on generated pages: comment threads after an article, forum threads, share bars
repeated between paragraphs and hidden elements (``hidden``, ``comments``, ``share_bars``, ``dropping``)."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.site.facts import facts_of
from tests.test_link_dense_content import chrome, sentence

URL = "http://news.test/2024/05/harbour-bridge-reopens.html"
REPLY = ("Thanks for writing this up, I walked across it on the first morning and the view over the "
         "water was better than I remembered from years ago")


def comment(i: int) -> str:
    """One reader comment: a byline with a date, a link to the commenter's site, a prose reply."""
    return (f"<li class='comment' id='comment-{i}'><div class='comment-author'><a href='http://reader{i}.test/'>"
            f"Reader {i}</a> on May {i + 1}, 2024 at 12:4{i} pm said:</div>"
            f"<div class='comment-content'><p>{REPLY}, number {i}.</p></div>"
            f"<a class='comment-reply-link' href='?replytocom={i}'>Reply</a></li>")


def article(extra: str = "", between: str = "") -> str:
    paras = between.join(f"<p>{sentence(k)} {sentence(k + 3)} {sentence(k + 6)}</p>" for k in range(6))
    return f"<article><h1>Harbour bridge reopens</h1>{paras}</article>{extra}"


def thread(n: int = 6) -> str:
    return (f"<section id='comments' class='comments-area'><h2>{n} Responses</h2>"
            f"<ol class='comment-list'>{''.join(comment(i) for i in range(n))}</ol></section>")


def test_a_comment_thread_after_an_article_leaves_the_text_and_the_edges() -> None:
    doc = analyze(chrome(article(thread()), "Harbour bridge reopens"), url=URL)
    assert sentence(0) in doc.text
    assert "said:" not in doc.text and "Thanks for writing this up" not in doc.text
    links = {link.url for link in doc.links}
    assert not any(url.startswith("http://reader") for url in links)
    facts = facts_of(doc)
    commenters = [i for i, url in enumerate(facts.links) if url.startswith("http://reader")]
    assert commenters and not any(facts.link_content[i] for i in commenters)


def test_a_forum_thread_keeps_its_posts() -> None:
    """The opening post is prose before the replies, as an article before its comments; the page is
    a forum by its URL, so the replies stay."""
    opening = "".join(f"<p>{sentence(k)} {sentence(k + 2)}</p>" for k in range(8))
    posts = "".join(f"<li class='comment post'><div class='comment-author'>Member {i} said:</div>"
                    f"<div class='comment-content'><p>{sentence(i)} {REPLY}, post {i}.</p></div></li>" for i in range(6))
    body = f"<h1>Bridge closures this summer</h1><div class='opening'>{opening}</div><ol class='comment-list'>{posts}</ol>"
    body += "<form class='reply'><textarea name='reply'></textarea><button>Post reply</button></form>"
    forum = analyze(chrome(body, "Bridge closures this summer"), url="http://talk.test/forum/thread/381-bridge-closures")
    assert all(f"post {i}." in forum.text for i in range(6))
    blog = analyze(chrome(body, "Bridge closures this summer"), url="http://news.test/2024/05/bridge-closures.html")
    assert not any(f"post {i}." in blog.text for i in range(6))


SHARE = ("<div class='share-tools'><a href='https://www.facebook.com/sharer/sharer.php?u=x'>Facebook</a>"
         "<a href='https://twitter.com/intent/tweet?url=x'>Twitter</a>"
         "<a href='https://api.whatsapp.com/send?text=x'>Whatsapp</a>"
         "<a href='https://pinterest.com/pin/create/button/?url=x'>Pinterest</a></div>")


def test_a_share_bar_repeated_between_paragraphs_is_dropped() -> None:
    doc = analyze(chrome(article(between=SHARE), "Harbour bridge reopens"), url=URL)
    assert sentence(5) in doc.text
    for word in ("Facebook", "Twitter", "Whatsapp", "Pinterest"):
        assert word not in doc.text
    assert not any("sharer" in link.url or "intent" in link.url or "whatsapp" in link.url for link in doc.links)


HIDDEN = ("<div style='display: none'><p>Hidden headline copy, keyword river, keyword bridge, 2024-05-03T10:00:00Z "
          "and more metadata that nobody sees on the page at all, <a href='/tag/bridge'>bridge</a>.</p></div>"
          "<div hidden><p>A hidden attribute paragraph about a moonlit quay that no reader is shown.</p></div>"
          "<p aria-hidden='true'>An aria hidden paragraph about a silent lighthouse that screen readers skip.</p>"
          "<p style='color:red;visibility:hidden'>A paragraph kept invisible about a sleeping boatyard.</p>")


def test_hidden_elements_never_reach_the_text() -> None:
    doc = analyze(chrome(article(HIDDEN), "Harbour bridge reopens"), url=URL)
    assert sentence(0) in doc.text
    for phrase in ("Hidden headline copy", "moonlit quay", "silent lighthouse", "sleeping boatyard"):
        assert phrase not in doc.text
    assert not any(link.url.endswith("/tag/bridge") for link in doc.links)
    assert any(link.url.endswith("/tag/bridge") for link in doc.all_links)


def test_an_accordion_panel_and_a_page_behind_a_loading_mask_stay() -> None:
    panel = (f"<div class='accordion'><button>Opening hours</button><div class='accordion__content' "
             f"style='display:none'><p>{sentence(9)} {sentence(10)}</p></div></div>")
    masked = f"<div style='visibility:hidden;min-height:100vh'>{article(panel)}</div>"
    doc = analyze(chrome(masked, "Harbour bridge reopens"), url=URL)
    assert sentence(0) in doc.text and sentence(9) in doc.text
