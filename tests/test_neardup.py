"""Near-duplicates on the whole main text: 24 min-hashes of 6-token shingles in 4 bands of 6."""

import random

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.neardup import MIN_TOKENS, signature

WORDS = [f"word{i}" for i in range(2000)]


def near_duplicates(a: list[int], b: list[int]) -> bool:
    """Whether two signatures share a band."""
    return bool(a) and bool(b) and any(x == y for x, y in zip(a, b))


def text(seed: int, n: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def test_same_text_with_small_changes_is_a_near_duplicate():
    song = text(1)
    assert near_duplicates(signature(song), signature(song + " chorus again"))
    assert near_duplicates(signature(song), signature(song.replace("word1 ", "word2 ", 1)))
    assert not near_duplicates(signature(song), signature(text(2)))


def test_pages_sharing_one_long_section_are_distinct():
    """Two reference pages with a common options list as long as their own text (Jaccard ≈ 1/3)."""
    shared = text(7, 400)
    pairs = [(shared + " " + text(100 + s, 400), text(200 + s, 400) + " " + shared) for s in range(40)]
    assert sum(near_duplicates(signature(a), signature(b)) for a, b in pairs) == 0


def test_same_text_under_another_title_is_distinct():
    """Release notes of two versions, API pages of two one-method interfaces: the generator's wording
    is most of the text, the title names the page."""
    notes = text(4)
    assert near_duplicates(signature(notes, "Django 1.4.3 release notes"), signature(notes, "Django  1.4.3 Release Notes"))
    assert not near_duplicates(signature(notes, "Django 1.4.3 release notes"), signature(notes, "Django 1.4.4 release notes"))


def test_short_texts_give_no_signature():
    assert signature("log in to your account") == []
    assert signature(text(3, MIN_TOKENS - 1)) == []
    assert len(signature(text(3, MIN_TOKENS))) == 4


def reference_page(name: str, own: str, shared: str) -> str:
    return (f"<html><head><title>{name}</title></head><body><nav><a href='/'>Home</a></nav><main>"
            f"<h1>{name}</h1><p>{own}</p><h2>Common options</h2><p>{shared}</p>"
            f"<p>See <a href='/ref/{name}-details'>the details of {name}</a>.</p></main></body></html>")


def test_site_step_keeps_both_pages_that_share_a_long_section(r):
    sa = SiteAnalyzer(r, prefix="t:")
    shared = text(9, 500)
    a = process_doc(sa, analyze(reference_page("alpha", text(10, 300), shared), url="http://docs.test/ref/alpha"))
    b = process_doc(sa, analyze(reference_page("beta", text(11, 300), shared), url="http://docs.test/ref/beta"))
    assert not a.duplicate and not b.duplicate and a.edges and b.edges


def test_mirror_is_a_duplicate_and_the_canonical_page_stays_canonical(r):
    sa = SiteAnalyzer(r, prefix="t:")
    html = reference_page("gamma", text(12, 300), text(13, 200)).replace("href='/", "href='http://docs.test/")
    assert not process_doc(sa, analyze(html, url="http://docs.test/ref/gamma")).duplicate
    mirror = process_doc(sa, analyze(html.replace("Home", "Mirror home"), url="http://mirror.test/gamma"))
    assert mirror.duplicate and mirror.edges == []
    assert not process_doc(sa, analyze(html, url="http://docs.test/ref/gamma")).duplicate
