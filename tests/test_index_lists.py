"""Site step on a warm host: a page's index (a link list outweighing the page's content, under no
template role) counts even outside the page's main region, and the link lists of one DOM-label class
that are mostly content count whole (``site.decide.list_votes``)."""

from __future__ import annotations

import numpy as np

from bench.site_documents import process_doc
from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.decide import link_classes, list_votes
from rankcrawl.pipelines.site.facts import facts_of
from tests.test_link_dense_content import WORDS, sentence

HOST = "http://manual.test"


def frame(body: str, title: str) -> str:
    nav = " | ".join(f'<a href="/{w}.html">{w.title()}</a>' for w in WORDS[:6])
    return (f"<html><head><title>{title}</title></head><body><div id='top'><p class='menu'>{nav}</p></div>"
            f"{body}<div id='footer'><p>Copyright the authors. {nav}</p></div></body></html>")


def prose(i: int) -> str:
    paras = "".join(f"<p>{sentence(i + k)} {sentence(i + k + 5)} See <a href='/guide/{i}-{k}.html'>part {k}</a>.</p>"
                    for k in range(4))
    return frame(f"<div id='page-content'><h1>Guide {i}</h1>{paras}</div>", f"Guide {i}")


def directory(n: int = 60, role: str = "") -> str:
    """A short preamble, then (as its sibling, outside it) a list of every directive."""
    items = "".join(f'<li><a href="/ref/{WORDS[i % 18]}{i}.html">{WORDS[i % 18].title()}{i}</a></li>' for i in range(n))
    cls = f" class='{role}'" if role else ""
    return frame(f"<div id='preamble'><h1>Directive index</h1><p>{sentence(3)}</p></div>"
                 f"<div id='directive-list'{cls}><ul>{items}</ul></div>", "Directive index")


def warm(r) -> SiteAnalyzer:
    sa = SiteAnalyzer(r, prefix="t:")
    for i in range(5):
        process_doc(sa, analyze(prose(i), url=f"{HOST}/guide/{i}.html"))
    return sa


def test_the_index_list_beside_a_short_preamble_counts(r):
    facts = facts_of(analyze(directory(), url=f"{HOST}/directives.html"))
    listed = [j for j, t in enumerate(facts.links) if "/ref/" in t]
    assert len(listed) == 60 and all(facts.link_index[j] for j in listed)
    assert not any(facts.link_index[j] for j, t in enumerate(facts.links) if "/ref/" not in t)
    d = process_doc(warm(r), analyze(directory(), url=f"{HOST}/directives.html"))
    targets = {t for t, _ in d.edges}
    assert {f"{HOST}/ref/{WORDS[i % 18]}{i}.html" for i in range(60)} <= targets
    assert not targets & {f"{HOST}/{w}.html" for w in WORDS[:6]}  # the menu stays template


def test_a_list_under_a_template_role_or_beside_long_content_is_no_index(r):
    facts = facts_of(analyze(directory(role="navigation"), url=f"{HOST}/directives.html"))
    assert not any(facts.link_index)
    long_page = directory(n=8).replace(f"<p>{sentence(3)}</p>", "".join(f"<p>{sentence(k)}</p>" for k in range(12)))
    facts = facts_of(analyze(long_page, url=f"{HOST}/short-list.html"))
    assert not any(facts.link_index)


def test_list_votes_decide_a_link_list_class_as_a_whole():
    content = np.array([True, True, False, False, True, False])
    in_template = np.array([False, False, False, False, False, True])
    pagelet = np.array([0, 1, 2, 3, -1, 4])
    ll = np.array([7, 7, 7, 9, 11], dtype=np.uint64)  # class 7: 2 of 3 content; 9: none; 11: template
    out = list_votes(content, in_template, link_classes(pagelet, ll))
    assert out.tolist() == [True, True, True, False, True, False]
    assert list_votes(content, in_template, link_classes(pagelet, np.zeros(0, dtype=np.uint64))).tolist() == content.tolist()


MODULES = [f"{WORDS[i % 18]}{i}" for i in range(20)]


def node_page(body: str, title: str) -> str:
    """Node.js's layout: the module menu in one column, the text in another (one region name for both,
    as ``#column1``/``#column2`` fold to ``#columnN``)."""
    menu = "".join(f'<li><a href="/api/{m}.html">{m.title()} module</a></li>' for m in MODULES)
    return (f"<html><head><title>{title}</title></head><body><div id='content'>"
            f"<div id='column2' class='interior'><ul>{menu}</ul></div>"
            f"<div id='column1' class='interior'><div id='apicontent'>{body}</div></div></div></body></html>")


def test_a_table_of_contents_repeating_the_host_menu_in_the_main_region_counts(r):
    sa = SiteAnalyzer(r, prefix="n:")
    for i, m in enumerate(MODULES[:6]):
        body = "".join(f"<p>{sentence(i + k)} {sentence(i + k + 3)} See <a href='/api/{MODULES[(i + k) % 20]}.html'>"
                       f"this</a>.</p>" for k in range(4))
        d = process_doc(sa, analyze(node_page(f"<h1>{m}</h1>{body}", m), url=f"{HOST}/api/{m}.html"))
    assert not {t for t, _ in d.edges} & {f"{HOST}/api/{m}.html" for m in MODULES[10:]}  # the menu is template
    toc = "".join(f'<li><a href="/api/{m}.html">{m.title()} module</a></li>' for m in MODULES)
    d = process_doc(sa, analyze(node_page(f"<h1>About these documents</h1><ul>{toc}</ul>", "Index"),
                               url=f"{HOST}/api/index.html"))
    assert {f"{HOST}/api/{m}.html" for m in MODULES} <= {t for t, _ in d.edges}
