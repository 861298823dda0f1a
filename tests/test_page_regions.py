"""The page's own main region on a warm host: where the host confirms no region (every page names
its region by its own id, as DocBook does), the non-template links of the page's region count even
when the per-page classifier rejected their blocks; one region key twice on a page (sibling
positions dropped, digits folded: ``div#column1`` the menu, ``div#column2`` the text) resolves to
the candidate on the path to the page's content."""

from __future__ import annotations

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer, holds
from rankcrawl.pipelines.site.decide import main_region
from rankcrawl.pipelines.site.facts import PageFacts
from tests.test_host_region_links import word

HOST = "http://book.test"
NAV = " ".join(f'<a href="/{s}.html">{s.title()}</a>' for s in ("prev", "up", "home", "next"))


def docbook(i: int, body: str) -> str:
    return (f"<html><head><title>Section {i}</title></head><body><div class='navheader'>{NAV}</div>"
            f"<div id='S{word(i, 1).upper()}' class='sect1'>{body}</div>"
            f"<div class='navfooter'>{NAV}</div></body></html>")


def prose(i: int) -> str:
    text = " ".join(word(i, j) for j in range(50))
    return docbook(i, f"<h2>Section {word(i, 2)}</h2><p>{text}. See <a href='/s/{i}.html'>section {i}</a>.</p>")


def described_toc(n: int = 30) -> str:
    """A reference part: one sentence, then its commands, each a link with a description."""
    entries = "".join(f"<dt><a href='/ref/{k}.html'>{word(k, 4).upper()}</a></dt>"
                      f"<dd>— {' '.join(word(k, j) for j in range(5, 11))}</dd>" for k in range(n))
    return docbook(99, f"<h1>Reference</h1><p>This part holds the commands.</p><div class='toc'><dl>{entries}</dl></div>")


def paragraphs_only(blocks):
    """A per-page classifier that keeps paragraphs and headings, nothing of a definition list."""
    return ["/dl" not in "/".join(b.path) and "navheader" not in "/".join(b.path)
            and "navfooter" not in "/".join(b.path) for b in blocks]


def test_a_described_link_list_in_the_pages_own_region_counts_on_a_warm_host(r):
    sa = SiteAnalyzer(r, prefix="db:")
    for i in range(6):
        process_doc(sa, analyze(prose(i), url=f"{HOST}/s{i}.html", classifier=paragraphs_only))
    d = process_doc(sa, analyze(described_toc(), url=f"{HOST}/reference.html", classifier=paragraphs_only))
    targets = {t for t, _ in d.edges}
    assert {f"{HOST}/ref/{k}.html" for k in range(30)} <= targets
    assert not targets & {f"{HOST}/{s}.html" for s in ("prev", "up", "home", "next")}


def chapter(n: int = 8) -> str:
    """A chapter: its table of contents (nested lists of links) beside the one table of the chapter."""
    toc = "".join(f"<dt><a href='/c/{k}.html'>{k}. {word(k, 4)} {word(k, 5)}</a></dt><dd><dl>"
                  + "".join(f"<dt><a href='/c/{k}-{m}.html'>{k}.{m}. {word(k, m + 6)}</a></dt>" for m in range(5))
                  + "</dl></dd>" for k in range(n))
    rows = "".join(f"<tr><td>{word(k, 20)}</td><td>{' '.join(word(k, j) for j in range(21, 27))}</td></tr>"
                   for k in range(6))
    return docbook(98, f"<h2>Chapter {word(98, 2)}</h2><div class='toc'><dl class='toc'>{toc}</dl></div>"
                       f"<div class='table'><table><tbody>{rows}</tbody></table></div>")


def test_a_table_of_contents_beside_the_one_table_the_classifier_kept_counts_on_a_warm_host(r):
    """The chapter's content words are its table's (the classifier dropped the contents' link lists):
    too thin to narrow its region to the table, so the contents' links count."""
    sa = SiteAnalyzer(r, prefix="ch:")
    for i in range(6):
        process_doc(sa, analyze(prose(i), url=f"{HOST}/s{i}.html", classifier=paragraphs_only))
    d = process_doc(sa, analyze(chapter(), url=f"{HOST}/chapter.html", classifier=paragraphs_only))
    targets = {t for t, _ in d.edges}
    toc = {f"{HOST}/c/{k}.html" for k in range(8)} | {f"{HOST}/c/{k}-{m}.html" for k in range(8) for m in range(5)}
    assert toc <= targets
    assert not targets & {f"{HOST}/{s}.html" for s in ("prev", "up", "home", "next")}


CONTAINER, SECTION = 101, 202  # region keys: the manual's main element, a sitemap's section in it


def sitemap_facts(lang: int) -> PageFacts:
    """A manual's sitemap in one language, as the site step sees it: its own region is its first
    section (the classifier kept nothing of its lists), which holds the first of its two link lists."""
    first = [f"{HOST}/l{lang}/a{m}.html" for m in range(6)]
    second = [f"{HOST}/l{lang}/b{m}.html" for m in range(6)]
    return PageFacts(url=f"{HOST}/l{lang}/sitemap.html", title=f"Sitemap {lang}", links=first + second,
                     link_block=[-1] * 12, link_content=[False] * 12, link_regions=[0b11] * 6 + [0b01] * 6,
                     region_keys=[CONTAINER, SECTION], region_depth=[3, 4], region_own=2, region_wide=1)


def page_facts(i: int) -> PageFacts:
    return PageFacts(url=f"{HOST}/p/{i}.html", title=f"Page {i}", links=[f"{HOST}/p/{i + 1}.html"], link_block=[0],
                     block_fp=[0], link_content=[True], link_regions=[0b1], region_keys=[CONTAINER], region_depth=[3],
                     region_own=1, region_wide=1)


def test_a_region_its_first_pages_confirmed_is_chosen_again_as_the_host_grows(r):
    """Sitemaps in four languages are a manual's first pages: their section is the host's region while
    the host has four pages; once it has grown, that section is no region of its host, and the sitemaps
    are re-decided in the host's region, with both of their lists."""
    sa = SiteAnalyzer(r, prefix="sm:")
    for lang in range(4):
        sa.process(sitemap_facts(lang))
    assert {t for t, _ in sa.recent.get(f"{HOST}/l3/sitemap.html").edges} == set(sitemap_facts(3).links[:6])
    for i in range(20):
        sa.process(page_facts(i))
    sa.take_repush()
    for lang in range(4):
        f = sitemap_facts(lang)
        assert {t for t, _ in sa.recent.get(f.url).edges} == set(f.links)


def test_a_warm_page_moves_only_to_a_region_holding_its_links() -> None:
    masks = [0b011, 0b011, 0b001, 0b100]  # candidate 1 holds 2's links; 3 holds another link only
    assert holds(masks, 1, 2) and not holds(masks, 2, 1) and not holds(masks, 3, 2)
    assert holds(masks, 2, 0) and not holds(masks, 0, 2) and holds(masks, 3, 3)


def columns(i: int) -> str:
    menu = "".join(f"<li><a href='/api/{s}.html'>{s}</a></li>" for s in ("fs", "net", "http", "os", "path", "url"))
    text = " ".join(word(i, j) for j in range(60))
    return (f"<html><head><title>Module {i}</title></head><body><div id='content'>"
            f"<div id='column1'><ul>{menu}</ul></div>"
            f"<div id='column2'><div id='apicontent'><h1>Module {word(i, 3)}</h1><p>{text}. It extends "
            f"<a href='/api/m{i + 1}.html'>module {i + 1}</a> and <a href='/api/m{i + 2}.html'>module {i + 2}</a>.</p>"
            f"</div></div></div></body></html>")


def test_one_region_key_twice_on_a_page_resolves_to_the_candidate_holding_the_content(r):
    sa = SiteAnalyzer(r, prefix="nd:")
    for i in range(6):
        d = process_doc(sa, analyze(columns(i), url=f"{HOST}/api/m{i}.html"))
    targets = {t for t, _ in d.edges}
    assert targets == {f"{HOST}/api/m6.html", f"{HOST}/api/m7.html"}


def test_main_region_ties_go_to_the_first_candidate() -> None:
    f = PageFacts(url=f"{HOST}/p", title="", region_keys=[7, 7, 8], region_depth=[3, 3, 4], region_own=3)
    assert main_region(f, [5, 5, 1], floor=2, warm=True) == (1, True)
    assert main_region(f, [1, 5, 1], floor=2, warm=True) == (2, True)
    assert main_region(f, [5, 5, 1], floor=2, warm=False) == (3, False)


def other(i: int) -> str:
    text = " ".join(word(i, j) for j in range(50))
    return (f"<html><head><title>Other {i}</title></head><body><div id='other'><h1>Other {word(i, 2)}</h1>"
            f"<p>{text}.</p><p>{text}.</p></div></body></html>")


def normal(i: int) -> str:
    text = " ".join(word(i, j) for j in range(50))
    return (f"<html><head><title>Page {i}</title></head><body><div id='main'><h1>Page {word(i, 2)}</h1>"
            f"<p>{text}. See <a href='/p/{i}.html'>part {i}</a>.</p><p>{text}.</p></div></body></html>")


def sitemap() -> str:
    """Prose two levels down in the main element, beside it the lists the classifier rejects."""
    text = " ".join(word(90, j) for j in range(50))
    lists = "".join(f"<ul>{''.join(f'<li><a href=/map/{g}-{k}.html>{word(g, k)}</a></li>' for k in range(6))}</ul>"
                    for g in range(3))
    return (f"<html><head><title>Map</title></head><body><div id='main'><div class='a'><div class='b'>"
            f"<h1>Site map</h1><p>{text}.</p><p>{text}.</p></div></div>{lists}</div></body></html>")


def no_lists(blocks):
    return ["/ul" not in "/".join(b.path) for b in blocks]


def test_a_page_decided_on_its_own_region_moves_to_the_hosts_once_the_host_confirms_it(r):
    """A sitemap among a host's first pages, decided before any region of its host was confirmed, has
    its region asked again as the host grows, and its lists in the host's main region then count."""
    sa = SiteAnalyzer(r, prefix="st:")
    for i in range(3):
        process_doc(sa, analyze(other(i), url=f"{HOST}/o{i}.html", classifier=no_lists))
    first = process_doc(sa, analyze(sitemap(), url=f"{HOST}/map.html", classifier=no_lists))
    listed = {f"{HOST}/map/{g}-{k}.html" for g in range(3) for k in range(6)}
    assert not listed & {t for t, _ in first.edges}  # its own region (div.a) holds none of them
    for i in range(12):
        process_doc(sa, analyze(normal(i), url=f"{HOST}/n{i}.html", classifier=no_lists))
    redone = dict(sa.take_repush())
    assert listed <= {t for t, _ in redone[f"{HOST}/map.html"]}
