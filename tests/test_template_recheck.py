"""A block that recurs on the first section a crawl fetches is template while that section is most
of the host; once the host has grown past it, its pages get their links back (pagering recheck)."""

import numpy as np

from rankcrawl.pipelines.analyze import analyze
from rankcrawl.pipelines.pagefacts import PageFacts
from rankcrawl.pipelines.pagering import RecentPages, Remembered
from rankcrawl.pipelines.sitedecide import PageKeys
from rankcrawl.pipelines.sitelevel import SiteAnalyzer
from rankcrawl.settings.urls import split_url

HOST = "http://manual.test"


def word(i: int, j: int) -> str:
    """A letters-only word unique to (page i, position j)."""
    return "".join(chr(97 + (x % 26)) for x in (i, j, i * 7 + j, j * 3 + 5, i + 11))


def page(i: int, section: str, checklist: bool, host: str = HOST) -> tuple[str, str]:
    """A manual page: prose with a cross-reference; in the first section a "Bugfix checklist" box,
    the same words on every page, linking to the page's own bug list."""
    prose = " ".join(word(i, j) for j in range(60))
    box = (f'<div class="box"><h3>Bugfix checklist</h3><ul><li><a href="/bugs/{i}.html">Known issues</a></li>'
           "</ul></div>" if checklist else "")
    html = (f"<html><head><title>Page {i}</title></head><body><main><h1>{word(i, 99)}</h1>"
            f'<p>{prose}, see <a href="/{section}/{i + 1}.html">the next {word(i, 3)}</a>.</p>{box}</main></body></html>')
    return f"{host}/{section}/{i}.html", html


def test_links_of_a_block_that_stopped_recurring_come_back_while_the_pages_are_remembered(r):
    sa = SiteAnalyzer(r, prefix="rk:", remember=35)
    edges = {}
    pages = [page(i, "en", True) for i in range(10)] + [page(i, "fr", False) for i in range(10, 50)]
    for url, html in pages:
        edges[url] = {t for t, _ in sa.process_doc(analyze(html, url=url)).edges}
        edges.update({u: {t for t, _ in e} for u, e in sa.take_repush()})
    bugs = [f"{HOST}/bugs/{i}.html" in edges[f"{HOST}/en/{i}.html"] for i in range(10)]
    assert all(bugs), bugs  # on 10 of 50 pages: no template (share 0.4), the box's links count


def crawl(sa: SiteAnalyzer, pages: list[tuple[str, str]]) -> dict[str, set[str]]:
    """Each page's stored edge targets: its decision, then the re-pushes."""
    edges: dict[str, set[str]] = {}
    for url, html in pages:
        edges[url] = {t for t, _ in sa.process_doc(analyze(html, url=url)).edges}
        edges.update({u: {t for t, _ in e} for u, e in sa.take_repush()})
    return edges


def test_a_host_crawled_beside_a_busier_one_keeps_its_pages_until_its_own_evidence_moves_on(r):
    """Three pages of another host per page of this one after its first section: in a window of 80
    pages counted globally the section's first pages would be gone when the box stops recurring
    (beyond this host's 30th page, 90 pages into the crawl); counted in their own host's pages they
    are remembered."""
    other = "http://busy.test"
    pages = [page(i, "en", True) for i in range(10)]
    for i in range(10, 50):
        pages.append(page(i, "fr", False))
        pages.extend(page(3 * i + k, "doc", False, other) for k in range(3))
    sa = SiteAnalyzer(r, prefix="rh:", remember=80)
    edges = crawl(sa, pages)
    bugs = [f"{HOST}/bugs/{i}.html" in edges[f"{HOST}/en/{i}.html"] for i in range(10)]
    assert all(bugs), bugs
    assert len(sa.recent.pages) == 80
    assert sum(p.host == HOST for p in sa.recent.pages.values()) < 50  # both hosts give up pages


def remembered(url: str) -> Remembered:
    none = np.zeros(0, dtype=np.uint64)
    return Remembered(split_url(url)[0], PageFacts(url=url, title=""), PageKeys(none, none, none, none), [], [],
                      False, False)


def test_the_window_drops_the_page_its_own_host_moved_on_from_or_a_host_that_stopped_growing():
    ring = RecentPages(capacity=4)
    for url in ("http://a.test/1", "http://a.test/2", "http://b.test/1", "http://b.test/2"):
        ring.add(remembered(url), {})
    ring.add(remembered("http://a.test/3"), {})  # a.test/1: 2 pages of its host since; b.test/1: 1 + 1
    assert "http://a.test/1" not in ring and len(ring.pages) == 4
    assert ring.age("http://a.test/2") == 1 and ring.age("http://b.test/1") == 2
    ring.touch("http://a.test/2")  # re-decided: as if decided now, a.test not one page larger
    assert ring.age("http://a.test/2") == 0 and ring.age("http://b.test/1") == 2
    for i in range(3, 7):
        ring.add(remembered(f"http://b.test/{i}"), {})  # a.test stopped: its pages age with b.test's
    assert list(ring.pages) == [f"http://b.test/{i}" for i in range(3, 7)]
    assert ring.age("http://b.test/3") == 3
