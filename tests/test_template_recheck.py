"""A block that recurs on the first section a crawl fetches is template while that section is most
of the host; once the host has grown past it, its pages get their links back (site.recent_pages recheck)."""

import numpy as np

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.decide import PageKeys
from rankcrawl.pipelines.site.facts import PageFacts
from rankcrawl.pipelines.site.recent_pages import HOSTS_KEPT, RecentPages, Remembered
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
        edges[url] = {t for t, _ in process_doc(sa, analyze(html, url=url)).edges}
        edges.update({u: {t for t, _ in e} for u, e in sa.take_repush()})
    bugs = [f"{HOST}/bugs/{i}.html" in edges[f"{HOST}/en/{i}.html"] for i in range(10)]
    assert all(bugs), bugs  # on 10 of 50 pages: no template (share 0.4), the box's links count


def crawl(sa: SiteAnalyzer, pages: list[tuple[str, str]]) -> dict[str, set[str]]:
    """Each page's stored edge targets: its decision, then the re-pushes."""
    edges: dict[str, set[str]] = {}
    for url, html in pages:
        edges[url] = {t for t, _ in process_doc(sa, analyze(html, url=url)).edges}
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
    kept = [p.host for p in sa.recent.pages.values()]
    assert kept.count(HOST) == 50 and kept.count(other) == 80  # each host its own last 80 pages


def test_a_hosts_final_edges_do_not_depend_on_how_the_crawl_interleaves_it_with_other_hosts(r):
    """The same pages of one host, crawled alone, or interleaved with a busier host (three of its pages
    per page of this one), or with the checklist section last: the same final edges. With a window
    shared by the hosts the busy host's pages pushed the checklist section out before its box
    stopped recurring (beyond this host's ~26th page), and those pages kept the box's links dropped."""
    other = "http://busy.test"
    own = [page(i, "en", True) for i in range(10)] + [page(i, "fr", False) for i in range(10, 60)]
    interleaved = own[:10]
    for k, p in enumerate(own[10:]):
        interleaved.append(p)
        interleaved.extend(page(3 * k + j, "doc", False, other) for j in range(3))
    finals = []
    for n, order in enumerate((own, interleaved, own[10:] + own[:10])):
        sa = SiteAnalyzer(r, prefix=f"ro{n}:", remember=40)
        edges = crawl(sa, order)
        finals.append({u: e for u, e in edges.items() if u.startswith(HOST)})
    assert finals[0] == finals[1] == finals[2]
    assert all(f"{HOST}/bugs/{i}.html" in finals[1][f"{HOST}/en/{i}.html"] for i in range(10))


def remembered(url: str) -> Remembered:
    none = np.zeros(0, dtype=np.uint64)
    return Remembered(split_url(url)[0], PageFacts(url=url, title=""), PageKeys(none, none, none, none), [], [],
                      False, False)


def test_the_window_drops_the_page_its_own_host_moved_on_from_or_a_host_that_stopped_growing():
    ring = RecentPages(capacity=4)
    for i in range(1, 4):
        ring.add(remembered(f"http://a.test/{i}"), {})
        ring.add(remembered(f"http://b.test/{i}"), {})
    ring.add(remembered("http://a.test/4"), {})
    assert ring.age("http://a.test/1") == 3 and ring.age("http://b.test/1") == 3 and len(ring.pages) == 7
    ring.add(remembered("http://b.test/4"), {})  # a.test/1: 3 pages of its host since, 1 of b.test's since a.test's last
    assert "http://a.test/1" not in ring and ring.age("http://b.test/1") == 3
    ring.touch("http://a.test/2")  # re-decided: as if decided now, a.test not one page larger
    assert ring.age("http://a.test/2") == 0 and ring.age("http://a.test/3") == 1
    for i in range(5, 9):
        ring.add(remembered(f"http://b.test/{i}"), {})  # a.test stopped: its pages age with b.test's
    assert list(ring.pages) == [f"http://b.test/{i}" for i in range(5, 9)]
    assert ring.age("http://b.test/5") == 3


def test_the_window_keeps_each_host_its_own_pages_up_to_a_bound_in_all():
    """Six hosts growing at once, 30 pages each: each keeps its last pages, HOSTS_KEPT hosts' worth in all."""
    ring = RecentPages(capacity=20)
    for i in range(30):
        for h in range(6):
            ring.add(remembered(f"http://h{h}.test/{i}"), {})
    assert len(ring.pages) == HOSTS_KEPT * 20
    assert all(f"http://h{h}.test/29" in ring for h in range(6))


def test_the_window_holds_a_bounded_number_of_keys_and_links_whatever_its_pages_carry(monkeypatch) -> None:
    """Link-heavy pages arriving late cut the window by what they hold, not by their count."""
    from rankcrawl.pipelines.site import recent_pages

    monkeypatch.setattr(recent_pages, "HELD_KEPT", 1000)
    ring = RecentPages(capacity=100)
    for i in range(50):  # light pages: 10 links each, 500 held
        page = remembered(f"http://a.test/light{i}")
        page.facts.links = [f"http://a.test/t{i}/{j}" for j in range(10)]
        ring.add(page, {})
    assert len(ring.pages) == 50 and ring.held == 500
    for i in range(20):  # heavy pages: 200 links each
        page = remembered(f"http://a.test/heavy{i}")
        page.facts.links = [f"http://a.test/h{i}/{j}" for j in range(200)]
        ring.add(page, {})
        assert ring.held <= 1000 and ring.held == sum(p.held for p in ring.pages.values())
    assert list(ring.pages) == [f"http://a.test/heavy{i}" for i in range(15, 20)]


def test_pages_whose_region_is_due_again_are_found_also_after_the_host_shrank():
    ring = RecentPages(capacity=10)
    for i, at in enumerate([4.0, 8.0, 3.0, 20.0], start=1):  # the third settled after a decay halved the host
        page = remembered(f"http://a.test/{i}")
        page.region_at = at
        ring.add(page, {})
    ring.host_n["http://a.test"] = 6.0
    due, _ = ring.unsettled("http://a.test", np.zeros(0, dtype=np.uint64))
    assert due == ["http://a.test/1", "http://a.test/3"]
    ring.settle("http://a.test/3", None)
    ring.settle("http://a.test/1", None)
    ring.host_n["http://a.test"] = 11.0
    assert ring.unsettled("http://a.test", np.zeros(0, dtype=np.uint64))[0] == ["http://a.test/2"]
