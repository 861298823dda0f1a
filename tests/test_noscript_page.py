"""A page that shows nothing until its script runs is read from its ``<noscript>`` fallback
(``noscript``); a page with text of its own keeps ignoring its ``<noscript>`` notes."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.noscript import fallbacks
from rankcrawl.pipelines.page.parsing import parse_page
from tests.test_link_dense_content import chrome, sentence

URL = "http://talk.test/t/bridge-closures-this-summer/381"


def posts(n: int = 5) -> str:
    return "".join(f"<div class='crawler-post' id='post_{i}'><span class='creator'><a href='/u/member{i}'>member{i}</a>"
                   f"</span><div class='post'><p>{sentence(i)} {sentence(i + 4)}</p>"
                   f"<p>See <a href='http://maps.test/closure-{i}'>the closure map</a> for detours.</p></div></div>"
                   for i in range(n))


def application(fallback: str) -> str:
    """A single-page application: a splash and a script; the server-rendered thread only in ``<noscript>``."""
    return ("<html><head><title>Bridge closures this summer</title></head><body>"
            "<section id='splash'><div class='dots'></div><script>start()</script></section>"
            f"<noscript><header><a href='/'>Talk</a></header><div id='main-outlet' role='main'>"
            f"<h1>Bridge closures this summer</h1>{fallback}</div></noscript></body></html>")


def test_an_empty_application_page_is_read_from_its_noscript_fallback() -> None:
    doc = analyze(application(posts()), url=URL)
    assert all(sentence(i) in doc.text for i in range(5))
    assert {f"http://maps.test/closure-{i}" for i in range(5)} <= {link.url for link in doc.links}


def test_a_page_with_its_own_text_ignores_its_noscript() -> None:
    body = "".join(f"<p>{sentence(k)} {sentence(k + 3)}</p>" for k in range(6))
    note = "<noscript><p>" + " ".join(["Please enable JavaScript to read the comments on this page."] * 8) + "</p></noscript>"
    doc = analyze(chrome(body + note, "Harbour bridge reopens"), url="http://news.test/2024/05/bridge.html")
    assert sentence(0) in doc.text
    assert "enable JavaScript" not in doc.text


def test_a_short_noscript_note_on_an_empty_page_is_not_a_fallback() -> None:
    root, _ = parse_page(application("<p>Please enable JavaScript.</p>"))
    assert fallbacks(root, []) == []
