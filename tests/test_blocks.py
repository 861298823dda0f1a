"""Atomic text blocks: gaps, words, link density, text density rho (Eq. 4.6), DOM paths, bad input."""

from __future__ import annotations

from rankcrawl.pipelines.page.blocks import atomic_blocks, count_words, wrap_counts
from rankcrawl.pipelines.page.parsing import parse_html


def blocks_of(html: str):
    return atomic_blocks(parse_html(html))[0]


def test_words_need_a_letter_or_digit() -> None:
    assert count_words("Hello , world -- 42 | é …".split()) == 4


def test_rho_single_line_is_its_word_count() -> None:
    (b,) = blocks_of("<p>Contact us | Home</p>")
    assert b.n_lines == 1 and b.n_words == 3 and b.text_density == 3.0


def test_rho_excludes_the_last_line() -> None:
    # 10 words of 9 characters: 8 fit per 80-char line (8*9 + 7 = 79), so lines hold 8 + 2 words.
    text = " ".join(["abcdefghi"] * 10)
    assert wrap_counts(text.split()) == (2, 2)
    (b,) = blocks_of(f"<p>{text}</p>")
    assert b.text_density == 8.0  # (10 - 2) / (2 - 1)
    # 20 such words: lines of 8, 8, 4 → rho = (20 - 4) / 2
    (b,) = blocks_of(f"<p>{' '.join(['abcdefghi'] * 20)}</p>")
    assert (b.n_lines, b.last_line_words, b.text_density) == (3, 4, 8.0)


def test_rho_counts_only_words_in_lines_but_wrap_uses_every_token() -> None:
    tokens = ["word"] * 15 + ["----"] * 2 + ["word"] * 3  # 20 tokens of 4 chars: 16 per line
    lines, last = wrap_counts(tokens)
    assert (lines, last) == (2, 3)  # line 1: 15 words + "----"; line 2: "----" + 3 words
    (b,) = blocks_of(f"<div>{' '.join(tokens)}</div>")
    assert b.n_words == 18 and b.text_density == 15.0


def test_every_tag_but_a_is_a_gap() -> None:
    bs = blocks_of("<div>one two<br>three <b>four</b> five <a href='/x'>six</a> seven</div>")
    assert [b.text for b in bs] == ["one two", "three", "four", "five six seven"]
    assert bs[1].gap_tags == {"br"} and bs[2].gap_tags == {"b"}


def test_link_density_with_nested_inline_tags() -> None:
    bs = blocks_of('<p>Read <a href="/s">the <b>full</b> story</a> now please</p>')
    assert [(b.text, b.n_words, b.n_linked_words) for b in bs] == [
        ("Read the", 2, 1), ("full", 1, 1), ("story now please", 3, 1)]
    assert bs[0].link_density == 0.5
    (nav,) = blocks_of('<div><a href="/a">Home</a> | <a href="/b">News today</a></div>')
    assert nav.n_words == 3 and nav.link_density == 1.0 and len(nav.anchors) == 2


def test_invisible_text_is_not_text() -> None:
    html = """<html><head><title>T</title><style>p {color: red}</style></head><body>
    <script>var hidden = 1;</script><noscript>enable js</noscript><p>visible one</p>
    <select><option>choice</option></select><template><p>tpl</p></template>
    <svg><text>svg text</text></svg><iframe>frame</iframe>tail text</body></html>"""
    assert [b.text for b in blocks_of(html)] == ["visible one", "tail text"]


def test_script_is_a_gap_and_its_tail_is_text() -> None:
    bs = blocks_of("<p>before<script>x()</script>after</p>")
    assert [b.text for b in bs] == ["before", "after"] and "script" in bs[1].gap_tags


def test_dom_path_has_sibling_indices_classes_and_folded_digits() -> None:
    html = '<body><div id="post-123" class="entry big"><p>one</p><p>two</p></div></body>'
    bs = blocks_of(html)
    assert bs[1].dom_path == "html[1]/body[1]/div[1]#post-N.entry.big/p[2]"
    other = blocks_of(html.replace("post-123", "post-98765").replace("one", "uno"))
    assert [b.dom_path for b in other] == [b.dom_path for b in bs]


def test_enclosing_tag_and_textless_anchor() -> None:
    bs, orphans = atomic_blocks(parse_html('<h2>Title here</h2><a href="/img"><img src="x.png"></a><li>item</li>'))
    assert [b.tag for b in bs] == ["h2", "li"]
    assert [a.get("href") for a in orphans] == ["/img"]


def test_empty_and_binary_input() -> None:
    assert atomic_blocks(parse_html("")) == ([], [])
    assert atomic_blocks(parse_html("   \n ")) == ([], [])
    garbage = bytes(range(256)).decode("latin-1") * 20
    bs, _ = atomic_blocks(parse_html(garbage))
    assert all(b.n_words > 0 for b in bs)


def test_ten_thousand_deep_nesting_keeps_all_text() -> None:
    html = "<body><p>before</p>" + "<div>" * 10_000 + "deep text" + "</div>" * 10_000 + "<p>after</p></body>"
    assert [b.text for b in blocks_of(html)] == ["before", "deep text", "after"]
    spans = "<body>" + "<span><a href='/x'>" * 10_000 + "link" + "</a></span>" * 10_000 + "</body>"
    assert [b.text for b in blocks_of(spans)] == ["link"]


def test_broken_html_is_repaired() -> None:
    bs = blocks_of("<div><p>unclosed para<p>second <b>bold</div> trailing <td>cell")
    assert [b.text for b in bs] == ["unclosed para", "second", "bold", "trailing", "cell"]


def test_control_characters_parse_as_spaces() -> None:
    from lxml import etree

    for html in ("<p>a\x01b\x0cc</p><a href='/x\x1f'>y</a>", "<p>ünï\x00cødé\x08</p>"):
        expected = html.translate({c: " " for c in [*range(9), 11, 12, *range(14, 32)]})
        assert etree.tostring(parse_html(html)) == etree.tostring(parse_html(expected))
    assert parse_html("<p>plain \t\n text</p>").findtext(".//p") == "plain \t\n text"   # tab, newline kept


def test_a_pre_is_one_block_that_keeps_its_layout_and_anchors() -> None:
    html = ("<p>Before the listing.</p><pre>\n<span class='k'>import</span> <a href='/os'>os</a>\n"
            "<span class='k'>for</span> <span class='n'>x</span> <span class='ow'>in</span> <span>()</span>:\n"
            "    <b>pass</b>\n</pre><p>After it.</p>")
    before, listing, after = blocks_of(html)
    assert listing.tag == "pre" and listing.path[-1] == "pre[1]"
    assert listing.text == "import os\nfor x in ():\n    pass"
    assert (listing.n_words, listing.n_linked_words) == (6, 1)  # "():" is no word
    assert [a.get("href") for a in listing.anchors] == ["/os"]
    assert "pre" in listing.gap_tags and "pre" in after.gap_tags and before.text == "Before the listing."
