"""A block that recurs on the first section a crawl fetches is template while that section is most
of the host; once the host has grown past it, its pages get their links back (pagering recheck)."""

from rankcrawl.pipelines.analyze import analyze
from rankcrawl.pipelines.sitelevel import SiteAnalyzer

HOST = "http://manual.test"


def word(i: int, j: int) -> str:
    """A letters-only word unique to (page i, position j)."""
    return "".join(chr(97 + (x % 26)) for x in (i, j, i * 7 + j, j * 3 + 5, i + 11))


def page(i: int, section: str, checklist: bool) -> tuple[str, str]:
    """A manual page: prose with a cross-reference; in the first section a "Bugfix checklist" box,
    the same words on every page, linking to the page's own bug list."""
    prose = " ".join(word(i, j) for j in range(60))
    box = (f'<div class="box"><h3>Bugfix checklist</h3><ul><li><a href="/bugs/{i}.html">Known issues</a></li>'
           "</ul></div>" if checklist else "")
    html = (f"<html><head><title>Page {i}</title></head><body><main><h1>{word(i, 99)}</h1>"
            f'<p>{prose}, see <a href="/{section}/{i + 1}.html">the next {word(i, 3)}</a>.</p>{box}</main></body></html>')
    return f"{HOST}/{section}/{i}.html", html


def test_links_of_a_block_that_stopped_recurring_come_back_while_the_pages_are_remembered(r):
    sa = SiteAnalyzer(r, prefix="rk:", remember=35)
    edges = {}
    pages = [page(i, "en", True) for i in range(10)] + [page(i, "fr", False) for i in range(10, 50)]
    for url, html in pages:
        edges[url] = {t for t, _ in sa.process_doc(analyze(html, url=url)).edges}
        edges.update({u: {t for t, _ in e} for u, e in sa.take_repush()})
    bugs = [f"{HOST}/bugs/{i}.html" in edges[f"{HOST}/en/{i}.html"] for i in range(10)]
    assert all(bugs), bugs  # on 10 of 50 pages: no template (share 0.4), the box's links count
