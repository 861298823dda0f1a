"""Cookie-consent banners and dialogs leave the text and the content links (``consent``); a manual's
section about cookies stays."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.after_article import section_candidates
from rankcrawl.pipelines.page.consent import consent_boxes
from rankcrawl.pipelines.page.parsing import parse_page
from tests.test_article_precision import URL, article
from tests.test_link_dense_content import chrome, sentence

NOTICE = ("When you visit any website, it may store or retrieve information on your browser, mostly in the form "
          "of cookies, used to make the site work as you expect it to and to give you a more personal experience")


def dialog() -> str:
    groups = "".join(f"<div class='ot-cat-item'><h4>Targeting cookies {i}</h4><p>{NOTICE}, group {i}.</p>"
                     f"<button class='ot-toggle'>Allow</button></div>" for i in range(4))
    return (f"<div id='onetrust-consent-sdk'><div class='ot-pc-content'><h2>Privacy Preference Center</h2>"
            f"<p>{NOTICE}. <a href='/cookie-policy'>More information</a></p>{groups}"
            f"<button id='accept-all'>Accept all</button></div></div>")


def test_a_consent_dialog_leaves_the_text_and_the_links() -> None:
    doc = analyze(chrome(article(dialog()), "Harbour bridge reopens"), url=URL)
    assert sentence(0) in doc.text
    assert "Privacy Preference Center" not in doc.text and "mostly in the form" not in doc.text
    assert not any(link.url.endswith("/cookie-policy") for link in doc.links)


def manual(prefix: str) -> str:
    sections = "".join(f"<div class='section' id='{prefix}-{name}'><h2>SESSION_COOKIE_{name.upper()}</h2>"
                       f"<p>{sentence(i)} {sentence(i + 2)} The session cookie {name} setting.</p>"
                       f"<button class='copy'>Copy</button></div>"
                       for i, name in enumerate(("age", "domain", "name", "path")))
    return chrome(f"<h1>Settings</h1>{sections}", "Settings")


def test_a_manual_section_about_cookies_is_no_consent_box() -> None:
    """Ids made from headings (``session-cookie-age``) and a lone ``cookie`` anchor name no consent box;
    a banner named ``cookie-banner`` with its button is one."""
    root, _ = parse_page(manual("session-cookie").replace("<h1>", "<h1><a id='cookie' name='cookie'></a>"))
    assert consent_boxes(section_candidates(root)) == []
    banner = "<div class='cookie-banner'><p>We use cookies.</p><button>OK</button></div>"
    root, _ = parse_page(manual("setting").replace("</main>", f"</main>{banner}"))
    assert [el.get("class") for el in consent_boxes(section_candidates(root))] == ["cookie-banner"]
