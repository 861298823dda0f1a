"""A main region whose id names the page is still recognised by its host, by its classes.

DocBook's chunked HTML gives every page's top section the page's own id (``<div class="sect1"
id="ROLE-ATTRIBUTES">``), the converse of Sphinx themes, whose main body keeps its id while its
classes name the page (tests/test_main_region.py). Known by its id alone, such a region is never the
main region of two pages, so the host confirms none and each page falls back on its own choice: the
element holding nearly all its content words, which on a release-notes page (a short introduction,
then one long list of changes) leaves out the introduction and the cross-reference in it.
"""

from __future__ import annotations

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.facts import FactOptions, facts_of
from tests.test_link_dense_content import WORDS, sentence

HOST = "http://manual.test"


def frame(name: str, section: str) -> str:
    """A DocBook page: navigation header and footer around the page's section ``div.sect1#NAME``
    (digits in ids are folded in region keys: ``name`` is words)."""
    nav = (f"<table><tr><td><a href='/prev-{name}.html'>Prev</a></td><td><a href='/up.html'>Up</a></td>"
           f"<td><a href='/index.html'>Home</a></td><td><a href='/next-{name}.html'>Next</a></td></tr></table>")
    return (f"<html><head><title>{name}</title></head><body><div class='navheader'>{nav}</div>"
            f"<div class='sect1' id='{name.upper()}'><div class='titlepage'><h2 class='title'>{name.title()}</h2></div>"
            f"{section}</div><div class='navfooter'>{nav}</div></body></html>")


def prose_page(i: int) -> tuple[str, str]:
    """A chapter section: paragraphs, with a cross-reference, right inside its ``div.sect1``."""
    paras = "".join(f"<p>{sentence(i + k)} {sentence(i + k + 3)} See <a href='/ref-{i}-{k}.html'>reference {k}</a>.</p>"
                    for k in range(4))
    return f"{HOST}/topic-{i}.html", frame(WORDS[i], paras)


def release_page(i: int) -> tuple[str, str]:
    """Release notes: an introduction pointing to the major release's notes, then a long list of changes."""
    changes = ["".join(f"<li class='listitem'><p>{sentence(i + k)} {sentence(k)} <a href='http://commits.test/{i}/{k}'>§</a></p></li>"
                       for k in range(start, start + 6)) for start in (0, 6)]
    section = (f"<p>This release contains a few fixes. For the new features of the major release, see "
               f"<a href='/release-major.html'>the major release notes</a>.</p>"
               f"<div class='sect2' id='id-1.2.{i}'><h3>Changes</h3><div class='itemizedlist'>"
               + "".join(f"<ul class='itemizedlist'>{items}</ul>" for items in changes) + "</div></div>")
    return f"{HOST}/release-{i}.html", frame(f"release-{WORDS[i]}", section)


def per_page(blocks):
    """A per-page classifier that keeps the section's blocks but the release notes' introduction (as
    real classifiers misjudge a short paragraph above a long list)."""
    return ["sect" in "/".join(b.path) and not b.text.startswith("This release") for b in blocks]


def test_a_page_named_section_has_one_key_by_its_classes() -> None:
    a, b = (facts_of(analyze(html, url=url), FactOptions(site=True)) for url, html in (prose_page(1), prose_page(2)))
    depth = 3  # html/body/div.sect1#NAME
    i, j = a.region_depth.index(depth), b.region_depth.index(depth)
    assert a.region_keys[i] != b.region_keys[j]  # by its id: the page's name
    assert a.region_class_keys[i] == b.region_class_keys[j] != 0  # by its classes: the region's


def test_the_introduction_of_a_page_counts_when_its_host_confirms_the_page_named_section(r) -> None:
    sa = SiteAnalyzer(r, prefix="pn:")
    for i in range(8):
        url, html = prose_page(i)
        process_doc(sa, analyze(html, url=url, classifier=per_page))
    url, html = release_page(8)
    targets = {t for t, _ in process_doc(sa, analyze(html, url=url, classifier=per_page)).edges}
    assert f"{HOST}/release-major.html" in targets
    assert not targets & {f"{HOST}/up.html", f"{HOST}/index.html", f"{HOST}/prev-release-{WORDS[8]}.html"}
