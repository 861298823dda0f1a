"""Local and global template detection (Bar-Yossef §3.2, Figures 4 and 5)."""

from lxml import html

from bench.templates import components, global_templates, local_templates
from rankcrawl.pipelines.site.pagelets import partition

NAV = "<ul>" + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(6)) + "</ul>"


def host_pages(prefix: str, n: int, linked: bool) -> dict[str, str]:
    pages = {}
    for i in range(n):
        nxt = f'<a href="{prefix}{(i + 1) % n}">next</a>' if linked else ""
        body = f"<p>Story {prefix}{i}: unique words {i * 7} about topic {i} and more {i * 13}. {nxt}</p>"
        pages[f"{prefix}{i}"] = f"<html><body><div>{NAV}</div><div><h1>T{i}</h1>{body}</div></body></html>"
    return pages


def analyse(pages: dict[str, str]):
    pagelets, links = {}, []
    for url, source in pages.items():
        pls = partition(html.fromstring(source))
        pagelets[url] = [p.shingle for p in pls]
        links += [(url, a.get("href")) for p in pls for a in p.links]
    return pagelets, links


def test_local_finds_navigation_and_keeps_content():
    pagelets, _ = analyse(host_pages("a", 6, linked=True))
    found = local_templates(pagelets)
    assert len(found) == 1
    (owners,) = found.values()
    assert owners == {f"a{i}" for i in range(6)}


def test_global_rejects_mirrors_that_never_link():
    one = host_pages("a", 1, linked=False)
    two = {"b0": one["a0"].replace("Story a0", "Story b0")}
    pagelets, links = analyse({**one, **two})
    assert local_templates(pagelets)  # the local algorithm would call the shared nav a template
    assert global_templates(pagelets, links) == {}


def test_global_accepts_linked_host_and_splits_mirrors():
    pages = {**host_pages("a", 4, linked=True), **host_pages("b", 3, linked=True)}
    pagelets, links = analyse(pages)
    result = global_templates(pagelets, links)
    assert len(result) == 1
    (comps,) = result.values()
    assert sorted(map(sorted, comps)) == [["a0", "a1", "a2", "a3"], ["b0", "b1", "b2"]]


def test_components_ignore_edges_leaving_the_group():
    comps = components({"x", "y", "z"}, [("x", "q"), ("q", "y"), ("y", "z")])
    assert sorted(map(sorted, comps)) == [["x"], ["y", "z"]]
