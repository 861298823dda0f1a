"""Linear-time text statistics and tag flattening: same results as the old backtracking patterns on
ordinary and random text, and hostile runs (40k dots, unterminated tags) finish in one scan."""

from __future__ import annotations

import random
import re
import time

import pytest

from rankcrawl.pipelines.page.document import SENTENCE_END, text_stats
from rankcrawl.pipelines.page.parsing import VOID_TAGS, flatten_deep, parse_html

OLD_SENTENCE_END = re.compile(r"[.?!;]+[\"'»”’)\]]*(?=\s|$)")
OLD_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*?(/?)>")


def old_flatten_deep(html: str, max_depth: int) -> str:
    """The previous regex implementation (quadratic on unterminated tags): the reference on small inputs."""
    stack: list[bool] = []

    def tag(m: re.Match[str]) -> str:
        closing, name, selfclosing = m.group(1), m.group(2).lower(), m.group(3)
        if name in VOID_TAGS or selfclosing:
            return m.group(0)
        if not closing:
            kept = len(stack) < max_depth
            stack.append(kept)
            return m.group(0) if kept else " "
        if stack:
            return m.group(0) if stack.pop() else " "
        return m.group(0)

    return OLD_TAG.sub(tag, html)


def random_text(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))


def test_sentence_ends_match_the_old_pattern() -> None:
    rng = random.Random(7)
    samples = ["Hello world. How are you? Fine!", "A (quote.) and \"this.\" end", "Dr. Who; then... what?!",
               "no end", "", "»Ja.« Nein.» ok", "x.)] y", "trailing."]
    samples += [random_text(rng, ".?!;\"')]» x\n\t", 40) for _ in range(5000)]
    for text in samples:
        assert SENTENCE_END.findall(text) == OLD_SENTENCE_END.findall(text), text
        assert bool(SENTENCE_END.search(text[-4:] + " ")) == bool(OLD_SENTENCE_END.search(text[-4:] + " "))


def test_flatten_deep_matches_the_old_pattern() -> None:
    rng = random.Random(11)
    pieces = ["<div>", "</div>", "<b class='x'>", "</b>", "<br>", "<br/>", "<img src=a/>", "<a", ">", "<", "/",
              "</", "<p/>", "text", " ", "<x-y:z>", "</x-y:z>", "<1>", "< p>", "<DIV>", "</Div >"]
    samples = ["<div><div><div>x</div></div></div>", "<b>unclosed <i>tags", "a < b > c", "</p></p><p>"]
    samples += ["".join(rng.choice(pieces) for _ in range(rng.randrange(30))) for _ in range(5000)]
    for html in samples:
        for depth in (0, 1, 2, 1000):
            assert flatten_deep(html, depth) == old_flatten_deep(html, depth), (html, depth)


def test_text_stats_on_ordinary_text() -> None:
    assert text_stats("The cat sat. It was happy! Was it? Yes")[1] == 4
    assert text_stats("One sentence without an end")[1] == 1
    assert text_stats("\"Quoted.\" (Next one.) Last")[1] == 3


@pytest.mark.parametrize("text", [
    "." * 400_000 + "x",
    ("." * 1000 + ")" * 1000 + "x") * 200,
    ";" * 200_000 + "]" * 200_000 + "!",
])
def test_punctuation_runs_take_one_scan(text: str) -> None:
    start = time.process_time()
    text_stats(text)
    assert time.process_time() - start < 2.0  # the old pattern: 56 s for 40k dots (hours for these)


@pytest.mark.parametrize("html", ["<a " * 200_000, "<div" + "x" * 300_000, "<" + "a" * 300_000,
                                  "<div>" * 50_000 + "<b " * 50_000])
def test_unterminated_tags_take_one_scan(html: str) -> None:
    start = time.process_time()
    flatten_deep(html)
    parse_html(html)
    assert time.process_time() - start < 2.0  # the old pattern: 16 s for 30 KB of "<a "


def test_title_separators_match_the_old_pattern_in_linear_time() -> None:
    from rankcrawl.pipelines.page.classifiers import TITLE_SEPARATORS

    old = re.compile(r"\s+[-|–—:»·]+\s+")
    rng = random.Random(3)
    samples = ["News - Site", "A | B :: C", "x  -- y", "a -b - c", "»  · "]
    samples += [random_text(rng, " \t-|–:»·ab", 30) for _ in range(5000)]
    for title in samples:
        assert TITLE_SEPARATORS.split(title) == old.split(title), title
    start = time.process_time()
    TITLE_SEPARATORS.split(" " * 200_000 + "x")
    assert time.process_time() - start < 2.0  # the old pattern: 130 s for 100k spaces


def test_attribute_cap_leaves_ordinary_markup_alone() -> None:
    from rankcrawl.pipelines.page.parsing import cap_attributes

    rng = random.Random(5)
    pieces = ["<div class='a b'>", "</div>", "<a href=\"/x?a=1&b=2\" title='t >'>", "x", " ", "<", ">", "\"", "'",
              "<img src=data:xx alt=\"<b>\">", "<p style=a:b;c:d>", "=", "<br/>", "<!-- c -->"]
    for _ in range(3000):
        html = "".join(rng.choice(pieces) for _ in range(rng.randrange(40)))
        assert cap_attributes(html) == html


@pytest.mark.parametrize("attributes", ["a{i}=v", "a{i}", 'a{i}="<b c=d>"', "a{i}='>' "])
def test_tags_with_thousands_of_attributes_are_cut_not_parsed_quadratically(attributes: str) -> None:
    from rankcrawl.pipelines.page.parsing import MAX_ATTRIBUTES

    attrs = " ".join(attributes.format(i=i) for i in range(100_000))
    html = f"<html><body><p>before</p><div id=k {attrs}>inside</div><a href='/after'>after</a></body></html>"
    start = time.process_time()
    root = parse_html(html)
    assert time.process_time() - start < 5.0  # libxml2 alone: over a minute for 100,000 attributes
    (div,) = root.xpath("//div")
    assert div.get("id") == "k" and len(div.attrib) == MAX_ATTRIBUTES
    assert root.xpath("//a/@href") == ["/after"] and "inside" in "".join(div.itertext())


def unbalanced_quote_page(n: int = 600) -> str:
    """A page whose language menu has a stray quote (``");">``, as on real pages) and whose script
    compares with ``<``, followed by many ordinary tags with quoted attributes and the article."""
    items = "".join(f'<li class="item-{i}"><a href="/p/{i}" title="page {i}">Page {i}</a></li>' for i in range(n))
    return ("<html><head><script>for(i=0;i<els.length;i++){if(x==\"a\"){y=\"b\"}}</script></head><body>"
            '<select><option lang-value="ko-kr");">한국어</option></select>'
            f'<ul class="nav">{items}</ul><article><p class="lead">The article text after the menu.</p></article>'
            "</body></html>")


def test_an_unbalanced_quote_keeps_the_rest_of_the_page() -> None:
    from rankcrawl.pipelines.page.parsing import cap_attributes

    html = unbalanced_quote_page()
    assert cap_attributes(html) == html
    root = parse_html(html)
    assert root.xpath("//p[@class='lead']/text()") == ["The article text after the menu."]
    assert len(root.xpath("//ul/li/a/@href")) == 600


def test_attribute_cap_agrees_with_libxml2_on_where_tags_are() -> None:
    """Random markup cut at 2 attributes a tag: libxml2 then sees no element with more than 2, and the
    same text as without the cut (so no text, script or comment was taken for a tag or the reverse)."""
    from rankcrawl.pipelines.page.parsing import cap_attributes

    pieces = ["<div", "<p", "</div", "<b", " ", "\n", "\t", ">", "<", "=", '"', "'", "a", "b=c", "x='1'", 'y="2"',
              "/", "/>", "<!--", "-->", "--!>", "<!-->", "<!doctype html>", "<?pi?>", "</ ", "<script>", "<script",
              "</script>", "<SCRIPT ", "</scripts>", "-", "--->", "<title>", "<title/>", "</title>", "<textarea>",
              "</Textarea ", "<style>", "</style>", "text", "<!", "<A", "q=", "'>'", '">"', "<br/>", "<plaintext ",
              "<xmp>", "</xmp>", "<TITLE a=1 b=2 c=3 />"]

    def parsed(html: str) -> tuple[str, int]:
        root = parse_html(html)
        elements = [e for e in root.iter() if isinstance(e.tag, str)]
        return "".join(root.itertext()), max(len(e.attrib) for e in elements)

    rng = random.Random(13)
    for _ in range(3000):
        html = "<html><body>" + "".join(rng.choice(pieces) for _ in range(rng.randrange(60)))
        text, _ = parsed(html)
        capped_text, most = parsed(cap_attributes(html, 2))
        assert (capped_text, most <= 2) == (text, True), html
