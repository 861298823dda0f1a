"""Pagelets (Bar-Yossef §3.1) and their shingles."""

from lxml import etree, html

from rankcrawl.pipelines.site.pagelets import partition
from rankcrawl.pipelines.site.shingles import segment_shingles, sketch_segments, tokens


def nav(n: int = 5) -> str:
    return "<ul>" + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(n)) + "</ul>"


def page(body: str) -> etree._Element:
    return html.fromstring(f"<html><body>{body}</body></html>")


def test_elements_with_link_rich_children_are_split():
    root = page(f'<div id="top">{nav()}</div><div id="main"><p>Some text with <a href="/x">one</a> link.</p></div>')
    tags = [(p.element.tag, p.element.get("id")) for p in partition(root)]
    assert tags == [("ul", None), ("div", "main")]


def test_pagelet_owns_its_links_and_no_nesting():
    root = page(f'{nav(4)}<p>plain <a href="/a">a</a> <a href="/b">b</a></p>')
    pls = partition(root)
    assert [len(p.links) for p in pls] == [4, 2]
    for p in pls:
        for q in pls:
            assert p is q or p.element not in set(q.element.iterancestors())


def test_page_with_few_links_is_one_pagelet():
    root = page('<p>one <a href="/a">a</a></p><p>two <a href="/b">b</a></p>')
    assert [p.element.tag for p in partition(root)] == ["html"]


def test_k_is_respected():
    root = page(f"<div>{nav(2)}</div><div>{nav(2)}</div>")
    assert len(partition(root, k=3)) == 1
    assert len(partition(root, k=2)) == 2


def test_same_content_same_shingle_different_content_differs():
    a = partition(page(f"<div>{nav()}</div><div>{nav(3)}<p>alpha beta gamma</p></div>"))
    b = partition(page(f"<div>{nav()}</div><div>{nav(3)}<p>delta epsilon zeta</p></div>"))
    assert a[0].shingle == b[0].shingle
    assert a[-1].shingle != b[-1].shingle


def test_scripts_are_not_text():
    root = page(f"<div>{nav()}</div><div><script>var x = 1;</script><p>visible words</p></div>")
    assert partition(root)[-1].text == "visible words"


def test_ten_thousand_deep_nesting():
    root = etree.Element("html")
    el = etree.SubElement(root, "body")
    for _ in range(10_000):
        el = etree.SubElement(el, "div")
    for i in range(5):
        etree.SubElement(el, "a", href=f"/a{i}").text = f"link {i}"
    pls = partition(root)
    assert len(pls) == 1 and len(pls[0].links) == 5


def test_minhash_estimates_jaccard():
    a = tokens(" ".join(f"w{i}" for i in range(300)))
    b = a[:200] + tokens(" ".join(f"v{i}" for i in range(100)))
    sa, sb = (set(zip(t, t[1:], t[2:])) for t in (a, b))
    jac = len(sa & sb) / len(sa | sb)
    ma, mb = sketch_segments([" ".join(a), " ".join(b)], 256, 3)
    assert abs((ma == mb).mean() - jac) < 0.1
    assert segment_shingles([" ".join(a)], 1, 4)[0] == segment_shingles([" ".join(list(a))], 1, 4)[0]
