"""The host's main region bounds a page's counted links, and it is recognised by its id even where
the theme adds the page's name to its classes (Sphinx: ``<div id="docs-body" class="withsidebar intro">``)."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.site.decide import decide, page_keys
from rankcrawl.pipelines.site.facts import FactOptions, PageFacts, facts_of, region_chain
from tests.test_link_dense_content import WORDS, sentence

HOST = "http://docs.test"


def page(name: str, main_id: str = "docs-body") -> str:
    side = "".join(f"<li><a href='/guide/{k}.html'>{WORDS[k % 18].title()} guide</a></li>" for k in range(8))
    paras = "".join(f"<p>{sentence(k)} {sentence(k + 5)} See <a href='/{name}/{k}.html'>part {k}</a>.</p>" for k in range(4))
    return (f"<html><head><title>{name}</title></head><body><div id='container'><div id='sidebar'><ul>{side}</ul></div>"
            f"<div id='{main_id}' class='withsidebar {name}'><h1>{name.title()}</h1>{paras}</div></div></body></html>")


def region_key_of_main(html: str, url: str) -> int:
    """The region key of the main body (html/body/div#container/div#…: depth 4)."""
    f = facts_of(analyze(html, url=url), FactOptions(site=True))
    return f.region_keys[f.region_depth.index(4)]


def test_a_region_is_known_by_its_id_whatever_classes_name_the_page() -> None:
    intro = region_key_of_main(page("intro"), f"{HOST}/intro.html")
    assert intro == region_key_of_main(page("tutorial"), f"{HOST}/tutorial.html")
    assert intro != region_key_of_main(page("intro", main_id="other-body"), f"{HOST}/intro.html")


def facts(in_index: bool) -> PageFacts:
    """A source-code page: two region candidates (1 = the container, 2 = the main body); its main body
    holds one link, a small navigation block outside it two links the per-page classifier kept, and
    a block owned by ``<body>`` (in no candidate) one more."""
    links = [f"{HOST}/contents.html", f"{HOST}/genindex.html", f"{HOST}/module.html", f"{HOST}/docs.html"]
    return PageFacts(
        url=f"{HOST}/_modules/m.html", title="m", block_text=["Contents | Index", "code", "[docs]"],
        block_content=[True, True, True], block_fp=[11, 12, 13], links=links, anchors=["a"] * 4,
        link_block=[0, 0, 1, 2], link_content=[True] * 4, link_in_content=[True] * 4,
        link_regions=[0b01, 0b01, 0b11, 0], region_keys=[1, 2],
        region_depth=[3, 4], region_own=2, link_pagelet=[0, 0, 1, 2], pagelet_shingle=[21, 22, 23],
        pagelet_list=[31, 0, 0], link_index=[in_index, in_index, False, False])


def test_links_outside_the_hosts_main_region_do_not_count_unless_an_index() -> None:
    f = facts(in_index=False)
    keys = page_keys(f)
    cold = decide(f, keys, lambda k: False, warm=False, duplicate=False, weights=[1.0] * 4, region=2)
    assert {t for t, _ in cold.edges} == set(f.links)  # cold host: the page's own classifier decides
    warm = decide(f, keys, lambda k: False, warm=True, duplicate=False, weights=[1.0] * 4, region=2)
    assert {t for t, _ in warm.edges} == {f"{HOST}/module.html", f"{HOST}/docs.html"}
    whole = decide(f, keys, lambda k: False, warm=True, duplicate=False, weights=[1.0] * 4, region=1)
    assert {t for t, _ in whole.edges} == set(f.links)
    g = facts(in_index=True)
    index = decide(g, page_keys(g), lambda k: False, warm=True, duplicate=False, weights=[1.0] * 4, region=2)
    assert {t for t, _ in index.edges} == set(g.links)


def test_a_twice_wrapped_paragraph_beside_a_list_has_the_list_in_its_region() -> None:
    """An index page whose only prose is one paragraph (AsciiDoc: ``div.paragraph > p``) beside its
    link list: the page's own region is the section holding both, not the paragraph's wrapper; a
    page whose content fills a wrapped body keeps the body's parent, not the element with the sidebar."""
    body = ("html", "body", "div#content", "div#preamble", "div.sectionbody")
    para = (*body, "div.paragraph", "p")
    items = [(*body, "div.ulist", "ul", f"li[{k}]", "p") for k in range(5)]
    chain, own = region_chain([para], [14], [para, *items])
    assert chain[own - 1] == body[:4] and all(item[:4] == chain[own - 1] for item in items)
    alone, own_alone = region_chain([para], [14])  # without the other blocks: the paragraph's wrapper
    assert alone[own_alone - 1] == para[:-1]
    wrap = ("html", "body", "div.document", "div.documentwrapper", "div.bodywrapper", "div.body")
    prose = [(*wrap, f"p[{k}]") for k in range(6)]
    side = [("html", "body", "div.document", "div.sphinxsidebar", "ul", f"li[{k}]") for k in range(4)]
    chain, own = region_chain(prose, [40] * 6, prose + side)
    assert chain[own - 1] == wrap[:-1]


def test_a_page_decided_again_is_weighed_again_when_its_weights_change() -> None:
    f = facts(in_index=False)
    keys = page_keys(f)  # the one ``PageKeys`` a remembered page keeps for all its decisions
    weights: list[float | None] = [1.0] * 4
    first = decide(f, keys, lambda k: False, warm=False, duplicate=False, weights=weights, region=2)
    weights[2] = 0.25  # re-weighed in place (``SiteAnalyzer._reweigh``)
    again = decide(f, keys, lambda k: False, warm=False, duplicate=False, weights=weights, region=2)
    assert first.link_weights == [1.0] * 4 and again.link_weights == [1.0, 1.0, 0.25, 1.0]
    assert dict(again.edges)[f"{HOST}/module.html"] == 0.25
    warm = decide(f, keys, lambda k: False, warm=True, duplicate=False, weights=weights, region=2)
    assert warm.link_weights == [0.0, 0.0, 0.25, 1.0]  # other links counted: weighed again
