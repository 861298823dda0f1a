"""The compiled block walk and element searches (``_blockwalk``) give exactly what the Python walk and lxml give, on generated pages."""

from __future__ import annotations

import os
import random

import pytest

from rankcrawl.pipelines.page import blocks, elements
from rankcrawl.pipelines.page.deadline import AnalysisTimeout, Deadline
from rankcrawl.pipelines.page.parsing import parse_html

if elements._blockwalk is None:
    if os.environ.get("CI"):
        pytest.fail("the compiled block walk was not built (setup.py: Cython and a C compiler are needed)", pytrace=False)
    pytest.skip("the compiled block walk is not built here", allow_module_level=True)

TAGS = ["div", "p", "span", "a", "li", "ul", "td", "h2", "b", "br", "script", "style", "svg:rect", "table", "tr",
        "noscript", "em", "section", "nav", "pre", "code"]
TEXTS = ["", " ", "\n  ", "word", "two words", "Ünïcödé text", "&amp; &lt;tag&gt;", "a.b.c | x", "\u00a0", "12 34",
         "<![CDATA[cdata]]>", "&#x1F600; emoji", "- * -", "snake_case __ _ a_b ½ ٣ ²", "tab\tand\u2003em\u3000space",
         " ".join(["wrapped", "words", "of", "varied", "length,", "extraordinarily", "long", "enough"] * 4),
         "x" * 79 + " " + "y" * 81 + " z " + "w" * 80]

IDS = ["main", " x1 ", "post-42", "", "7", "a12b3", "\u0663\u0664x9", "x\u00b2"]  # Arabic-Indic digits fold, a superscript not
CLASSES = ["nav menu", "  ", "card item3", "Content", "col-12 mt-3 9", "w\uff11\uff12"]


def random_page(rng: random.Random, depth: int = 0) -> str:
    """A random fragment: nested elements with ids, classes, hrefs (some empty or value-less), text and tails."""
    out = [rng.choice(TEXTS)]
    for _ in range(rng.randint(0, 4 if depth < 5 else 0)):
        tag = rng.choice(TAGS)
        attrs = ""
        if rng.random() < 0.4:
            attrs += f' id="{rng.choice(IDS)}"'
        if rng.random() < 0.4:
            attrs += f' class="{rng.choice(CLASSES)}"'
        if tag == "a" and rng.random() < 0.8:
            attrs += rng.choice([' href="/x"', " href", ' href=""', ' href="http://e.com/?a=1&amp;b=2"'])
        if rng.random() < 0.1:
            attrs += " hidden"
        out.append(f"<{tag}{attrs}>{random_page(rng, depth + 1)}</{tag}>{rng.choice(TEXTS)}")
        if rng.random() < 0.1:
            out.append("<!-- comment --><?pi x?>")
    return "".join(out)


def summary(result: tuple[list, list], anchor_paths: dict) -> tuple:
    found, orphans = result
    return ([(b.text, b.n_words, b.n_linked_words, b.n_lines, b.last_line_words, b.tag, b.path, b.gap_tags,
              [id(a) for a in b.anchors], id(b.element)) for b in found],
            [id(a) for a in orphans], {id(k): v for k, v in anchor_paths.items()})


def test_compiled_walk_equals_python_walk() -> None:
    for seed in range(300):
        rng = random.Random(seed)
        html = f"<html><head><title>T</title></head><body>{random_page(rng)}</body></html>{rng.choice(TEXTS)}"
        root = parse_html(html)
        keep = list(root.iter())  # one proxy per element for both walks, so identities compare
        py_paths: dict = {}
        c_paths: dict = {}
        expected = summary(blocks.python_atomic_blocks(root, None, py_paths), py_paths)
        assert summary(blocks.atomic_blocks(root, None, c_paths), c_paths) == expected, f"seed {seed}: {html!r}"
        assert keep


@pytest.mark.parametrize("walk", [blocks.atomic_blocks, blocks.python_atomic_blocks])
def test_blocks_share_one_gap_set_per_distinct_gap(walk) -> None:
    root = parse_html("<div>" + "<p>one <b>x</b></p><p>two</p>" * 20 + "</div>")
    found, _ = walk(root, None, {})
    gaps = {b.gap_tags for b in found}
    assert len(found) == 60 and len(gaps) < 5 and len({id(b.gap_tags) for b in found}) == len(gaps)


def test_compiled_walk_of_a_subtree_and_its_tail() -> None:
    root = parse_html("<div><p>inside <a href='/a'>link</a></p> tail words <a href='/b'></a></div>")
    p = root.find(".//p")
    keep = list(root.iter())
    assert summary(blocks.atomic_blocks(p, None, {}), {}) == summary(blocks.python_atomic_blocks(p, None, {}), {})
    assert keep


def test_compiled_walk_checks_its_deadline() -> None:
    root = parse_html("<div>" + "<p>x</p>" * 5000 + "</div>")
    with pytest.raises(AnalysisTimeout, match="blocks"):
        blocks.atomic_blocks(root, Deadline(-1.0), {})


def search_page_html(rng: random.Random) -> str:
    """A random page with what the searches look for: titles (one in an SVG), bases, meta and script
    elements, itemtype attributes, anchors with and without hrefs of random lengths, hrefs on others."""
    head = "".join(rng.choice(["<title>T</title>", "<base href='/b/'>", "<base>", "<meta property='og:type' content='article'>",
                               "<meta name=x>", "<script type='application/ld+json'>{\"@type\": \"Recipe\"}</script>",
                               "<link href='/style.css'>", "<script>x = 1 < 2</script>"]) for _ in range(rng.randrange(6)))
    body = []
    for _ in range(rng.randrange(40)):
        href = rng.choice(["", " href", " href=''", " href='/x'", f" href='/{'ü' * rng.choice([5, 20, 21, 40])}'",
                           f" href='/{'k' * rng.choice([10, 26, 27, 30])}'", " href='/a&amp;b'"])
        body.append(rng.choice([f"<a{href}>a</a>", f"<area{href}>", f"<div itemtype='{rng.choice(['', 'https://schema.org/Product'])}'>d</div>",
                                "<svg><title>icon</title></svg>", "<p itemscope itemtype>p</p>", "<script>y</script>",
                                "<meta content=z>", f"<span{href}>s</span>", "<!-- <title>no</title> -->"]))
    return f"<html><head>{head}</head><body>{''.join(body)}</body></html>"


def test_compiled_search_equals_lxmls(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankcrawl.pipelines.page.elements import search_page

    def search(root: object) -> tuple:
        found = search_page(root, 24, 7)
        return tuple(v if field == "itemtypes" else [id(e) for e in v] for field, v in found._asdict().items())

    found = [0, 0]
    for seed in range(300):
        root = parse_html(search_page_html(random.Random(seed)))
        keep = list(root.iter())  # one proxy per element for both, so identities compare
        compiled = search(root)
        with monkeypatch.context() as m:
            m.setattr(elements, "_blockwalk", None)
            assert search(root) == compiled, seed
        found[0] += len(compiled[4]) > 0
        found[1] += len(compiled[3]) > 0
        assert keep
    assert min(found) > 100  # hrefs cut and itemtypes found on many pages


def test_compiled_anchor_facts_equal_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """hrefs, anchor words and list counts: the compiled pass against ``link_features``' Python, on trees
    with comments, processing instructions and CDATA (which the compiled pass leaves to Python) and
    namespaced parents, parsed with and without the analysis's comment removal."""
    from lxml import etree

    from rankcrawl.pipelines.page import link_features

    def facts(anchors: list) -> tuple:
        hrefs, *arrays = link_features.anchor_facts(anchors)
        return hrefs, [a.tolist() for a in arrays]

    left = 0
    for seed in range(300):
        rng = random.Random(seed)
        html = f"<html><body>{random_page(rng)}<ul><li><a href='/l'>{rng.choice(TEXTS)}</a></li></ul></body></html>"
        for root in (parse_html(html), etree.fromstring(html, etree.HTMLParser())):
            anchors = [el for el in root.iter("a") if el.get("href") is not None]
            compiled = facts(anchors)
            with monkeypatch.context() as m:
                m.setattr(elements, "_blockwalk", None)
                assert facts(anchors) == compiled, f"seed {seed}: {html!r}"
            left += any(el.xpath(".//comment() | .//processing-instruction()") for el in anchors)
    assert left > 10  # the Python fallback was exercised


def marked_divs(rng: random.Random, most: int, marks) -> str:
    """1 to ``most`` ``<div>``s, each with the attributes ``marks(rng)`` gives, around a random fragment."""
    return "".join(f"<div{marks(rng)}>{random_page(rng, 4)}</div>" for _ in range(rng.randint(1, most)))


def section_marks(rng: random.Random) -> str:
    attrs = f' class="{rng.choice(SECTION_NAMES)}"' if rng.random() < 0.6 else ""
    attrs += f' id="{rng.choice(SECTION_NAMES)}"' if rng.random() < 0.3 else ""
    return attrs + rng.choice(["", "", ' role="comment"', ' role="Comment"', " role"])


def hiding_marks(rng: random.Random) -> str:
    attrs = f' style="{rng.choice(STYLES)}"' if rng.random() < 0.5 else ""
    return attrs + rng.choice(["", "", " hidden", ' aria-hidden="false"', " aria-hidden"])


STYLES = ["display:none", "DISPLAY: NONE", "visibility:Hidden", "color:red", "a&amp;none", "", "x:nonE"]
SECTION_NAMES = ["comments", "Related-Posts", "x", "COOKIE banner", "tagcloud", "\u0130 comment", "b" * 300 + "tags",
                 "re&#108;ated", "", "nav", "popular\u00e9", "disqusion"]


def test_compiled_section_sieve_equals_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """``after_article.section_candidates``: the compiled sieve against lxml's XPath and Python, on pages
    with upper case, non-ASCII, overlong and entity-split names, roles, and elements before and after a
    second ``<body>``."""
    from rankcrawl.pipelines.page.after_article import section_candidates

    found = 0
    for seed in range(300):
        rng = random.Random(seed)
        html = (f"<html><head><title class='comments'>T</title></head><body>{marked_divs(rng, 12, section_marks)}"
                "</body></html>")
        if seed % 3 == 0:
            html = html.replace("<div", "<body><div class='related'>r</div></body><div", 1)
        root = parse_html(html)
        keep = list(root.iter())
        compiled = [id(el) for el in section_candidates(root)]
        with monkeypatch.context() as m:
            m.setattr(elements, "_blockwalk", None)
            assert [id(el) for el in section_candidates(root)] == compiled, f"seed {seed}: {html!r}"
        found += len(compiled) > 0
        assert keep
    assert found > 150


def test_compiled_hidden_candidates_equal_xpaths(monkeypatch: pytest.MonkeyPatch) -> None:
    """``hidden.candidates``: the compiled walk against ``hidden.CANDIDATES`` (XPath), on pages with hidden
    and aria-hidden attributes, styles in every case and split by entities, and elements after ``</html>``."""
    from rankcrawl.pipelines.page.hidden import CANDIDATES, candidates

    found = 0
    for seed in range(300):
        rng = random.Random(seed)
        html = f"<!-- c --><html><body>{marked_divs(rng, 10, hiding_marks)}</body></html><p style='display:none'>x</p>"
        root = parse_html(html)
        compiled = candidates(root)  # holds its proxies, so XPath's are the same objects
        assert compiled == CANDIDATES(root), f"seed {seed}: {html!r}"
        found += len(compiled) > 0
    assert found > 150


def test_compiled_anchor_word_runs_equal_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pagelets.linked_words``: the compiled count of ``\\w+`` runs against the regex over each anchor's
    serialised text, on anchors holding nested elements, tails, Unicode digits and letters, entities,
    comments and processing instructions (left to Python)."""
    from rankcrawl.pipelines.site.pagelets import linked_words

    for seed in range(300):
        rng = random.Random(seed)
        html = "<html><body>" + "".join(
            f"<a href='/{i}'>{rng.choice(TEXTS)}{random_page(rng, 4)}</a>{rng.choice(TEXTS)}" for i in range(6)) + "</body></html>"
        root = parse_html(html)
        anchors = list(root.iter("a"))
        compiled = [linked_words([a]) for a in anchors] + [linked_words(anchors)]
        with monkeypatch.context() as m:
            m.setattr(elements, "_blockwalk", None)
            assert [linked_words([a]) for a in anchors] + [linked_words(anchors)] == compiled, f"seed {seed}: {html!r}"


def test_compiled_anchor_texts_equal_itertext(monkeypatch: pytest.MonkeyPatch) -> None:
    """The links' texts: the compiled join of each anchor's text nodes against ``itertext``, on trees
    parsed with and without comment removal (comments and processing instructions inside anchors)."""
    from lxml import etree

    from rankcrawl.pipelines.page.links import LinkResolver

    for seed in range(300):
        rng = random.Random(seed)
        html = "<html><body>" + "".join(
            f"<a href='/{i}'>{rng.choice(TEXTS)}{random_page(rng, 4)}</a>{rng.choice(TEXTS)}" for i in range(6)) + "</body></html>"
        for root in (parse_html(html), etree.fromstring(html, etree.HTMLParser())):
            anchors = list(root.iter("a"))
            compiled = [link.text for link in LinkResolver("http://e.test/").links(anchors, 0)]
            with monkeypatch.context() as m:
                m.setattr(elements, "_blockwalk", None)
                assert [link.text for link in LinkResolver("http://e.test/").links(anchors, 0)] == compiled, seed


HREFS = [' href="/p"', " href", ' href=""', ' href="/q"', ' href="/r"']


def link_lists(rng: random.Random, depth: int = 0) -> str:
    """Nested boxes of link lists (some hrefs empty or value-less, some anchors nested), with random fragments."""
    out = []
    for _ in range(rng.randint(1, 4 if depth < 3 else 1)):
        items = "".join(f"<li><a{rng.choice(HREFS)}>{rng.choice(TEXTS)}</a>{random_page(rng, 4)}</li>"
                        for _ in range(rng.randint(0, 6)))
        inner = link_lists(rng, depth + 1) if rng.random() < 0.5 else random_page(rng, 3)
        out.append(f"<div class='box'><ul>{items}</ul>{inner}<!-- c --></div>{rng.choice(TEXTS)}")
    return "".join(out)


def test_compiled_pagelets_equal_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pagelets.partition``: the compiled walk (``pagelet_parts``, ``word_runs``) gives the Python walk's
    pagelets, shingles, anchors and link densities, for k = 1, 2, 3, with and without ``linked_only``."""
    from rankcrawl.pipelines.site.pagelets import partition

    def pagelets(html: str, k: int, linked_only: bool) -> list[tuple]:
        root = parse_html(html)
        return [(p.element.tag, p.label, p.shingle, p.text, [a.get("href") for a in p.links], p.link_density)
                for p in partition(root, k, linked_only=linked_only)]

    found = 0
    for seed in range(200):
        rng = random.Random(seed)
        html = f"<html><body>{link_lists(rng)}{random_page(rng)}</body></html>"
        for k in (1, 2, 3):
            for linked_only in (False, True):
                compiled = pagelets(html, k, linked_only)
                with monkeypatch.context() as m:
                    m.setattr(elements, "_blockwalk", None)
                    assert pagelets(html, k, linked_only) == compiled, f"seed {seed}, k {k}: {html!r}"
                found += len(compiled) > 1
    assert found > 600
