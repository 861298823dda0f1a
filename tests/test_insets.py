"""An article page's author bio, newsletter sign-up box and dialogs leave its text (``insets``); a short
byline, the story and other pages' boxes stay."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.insets import inset_boxes
from rankcrawl.pipelines.page.parsing import parse_page
from tests.test_link_dense_content import sentence, typed

BIO = ("Jane Doe has covered city transport and public works for the paper since she moved to the coast "
       "from the capital, and she writes a weekly column about the harbour.")
SIGNUP = "Get the morning briefing in your inbox every weekday, with the stories our editors picked for you."
DIALOG = "Republish this story for free under our licence, keeping the byline and a link back to this page."


def page(declared: str = "article") -> str:
    paras = "".join(f"<p>{sentence(k)} {sentence(k + 3)} {sentence(k + 6)}</p>" for k in range(6))
    body = (f"<article><h1>Harbour bridge reopens</h1><p class='byline'>By Jane Doe</p>{paras[:len(paras) // 2]}"
            f"<div class='newsletterSignup'><p>{SIGNUP}</p><input type='email'><button>Sign up</button></div>"
            f"{paras[len(paras) // 2:]}<div class='author-bio'><img src='/jane.jpg' alt=''><p>{BIO}</p></div></article>"
            f"<div id='republish' role='dialog'><h2>Republish this article</h2><p>{DIALOG}</p></div>")
    return typed(body, "Harbour bridge reopens", declared)


def test_an_articles_bio_signup_box_and_dialog_leave_its_text() -> None:
    doc = analyze(page(), url="http://news.test/2024/05/harbour-bridge-reopens.html")
    assert sentence(0) in doc.text and sentence(8) in doc.text and "By Jane Doe" in doc.text
    assert BIO not in doc.text and SIGNUP not in doc.text and DIALOG not in doc.text


def test_other_pages_keep_them() -> None:
    doc = analyze(page("website"), url="http://news.test/harbour-bridge-reopens.html")
    assert BIO in doc.text


def boxes(html: str, kind: str = "article") -> set[str]:
    root, _ = parse_page(html)
    blocks = [TextBlock(text=" ".join(el.itertext()), n_words=len(" ".join(el.itertext()).split()), n_linked_words=0, n_lines=1,
                        last_line_words=0, tag=el.tag, path=("body[1]", f"{el.tag}[1]"), element=el)
              for el in root.iter("p", "h1", "h2", "li")]
    return {el.get("class") or el.get("id") for el in inset_boxes(root, blocks, kind)}


def test_a_box_that_holds_the_story_or_most_of_the_page_stays() -> None:
    assert boxes(page()) == {"newsletterSignup", "author-bio", "republish"}
    assert boxes(page().replace("<article>", "<article class='author-post'>")) == {"newsletterSignup", "author-bio", "republish"}
    assert "lightbox-wrap" not in boxes(page().replace("<p class='byline'>", "<div class='lightbox-wrap'><p class='byline'>")
                                            .replace("<div class='author-bio'>", "</div><div class='author-bio'>"))
    assert boxes(page(), "other") == set()
