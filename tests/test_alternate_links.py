"""Links to an alternate version of the page (``rel="alternate"``, ``hreflang``: a language
switcher) are never content links, per page and after the site-level step, even inside the
content region where the host's evidence keeps every non-template link."""

from __future__ import annotations

from bench.site_documents import process_doc
from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.links import is_alternate
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from tests.test_link_dense_content import chrome, sentence

HOST = "http://docs.test"
LANGS = ("de", "fr", "ja")


def page(name: str, langs: tuple[str, ...] = LANGS, marked: bool = True) -> str:
    """A prose page whose content region opens with a language switcher (the languages vary per page)."""
    attrs = (lambda code: f' hreflang="{code}" rel="alternate"') if marked else (lambda code: "")
    switch = " | ".join(f'<a href="../{code}/{name}.html"{attrs(code)}>{code}</a>' for code in langs)
    prose = "".join(f"<p>{sentence(i + len(name))} See <a href='{name}-{i}.html'>part {i} of {name}</a> "
                    f"for {sentence(i + 3, 8)}</p>" for i in range(4))
    return chrome(f"<h1>{name.title()}</h1><p>Available languages: {switch}</p>{prose}", name.title())


def test_is_alternate_reads_rel_and_hreflang():
    root = analyze('<p><a href="/x" hreflang="de">de</a> <a href="/y" rel="Alternate nofollow">y</a> '
                   '<a href="/z" rel="nofollow">z</a> <a href="/w" hreflang=" ">w</a></p>').root
    assert [is_alternate(a) for a in root.iter("a")] == [True, True, False, False]


def test_language_switcher_links_are_no_content_links_per_page():
    doc = analyze(page("install"), url=f"{HOST}/en/install.html")
    urls = {link.url for link in doc.links}
    assert f"{HOST}/en/install-1.html" in urls
    assert not urls & {f"{HOST}/{code}/install.html" for code in LANGS}
    alternates = [link for link in doc.all_links if link.alternate]
    assert len(alternates) == len(LANGS) and not any(doc.is_content_link(link) for link in alternates)


def test_language_switcher_links_are_no_edges_on_a_warm_host(r):
    sa = SiteAnalyzer(r, prefix="t:")
    names = ("install", "config", "upgrade", "logging", "proxy", "cache")
    for i, name in enumerate(names):
        langs = LANGS[: 1 + i % len(LANGS)]  # the switcher's links and text differ from page to page
        d = process_doc(sa, analyze(page(name, langs), url=f"{HOST}/en/{name}.html"))
        targets = {t for t, _ in d.edges}
        assert f"{HOST}/en/{name}-2.html" in targets
        assert not targets & {f"{HOST}/{code}/{name}.html" for code in LANGS}
