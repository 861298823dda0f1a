"""analyze(): end to end on generated pages — text, content links, <base>, bad input, caps."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines import DEFAULT_MAX_PAGE_BYTES, Document, analyze
from rankcrawl.pipelines.page.features import BLOCK_FEATURES, FEATURE_NAMES, feature_matrix

SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank today."


def article(body_links: str = "", base: str = "") -> str:
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(8))
    paras = "".join(f"<p>{SENTENCE * 3} {body_links if i == 1 else ''}</p>" for i in range(4))
    return (f"<html><head><title>Fox news | Site</title>{base}</head><body><ul>{nav}</ul>"
            f"<div class='article'><h1>Fox jumps again</h1>{paras}</div>"
            f"<div class='footer'><a href='/about'>About</a> | <a href='/legal'>Legal</a></div></body></html>")


def test_main_text_and_content_links() -> None:
    links = 'See <a href="related.html#top">the related report</a> and <a href="https://Other.org:443/x">more</a>.'
    doc = analyze(article(links), "http://news.example/a/b.html")
    assert isinstance(doc, Document) and doc.title == "Fox news | Site"
    assert SENTENCE in doc.text and "Section 3" not in doc.text and "Legal" not in doc.text
    assert "\n\n" in doc.text
    assert [(link.url, link.text) for link in doc.links] == [
        ("http://news.example/a/related.html", "the related report"), ("https://other.org/x", "more")]
    assert all(link.weight == 1.0 and doc.blocks[link.block].is_content for link in doc.links)
    urls = {link.url for link in doc.all_links}
    assert "http://news.example/section/3" in urls and "http://news.example/legal" in urls
    assert doc.links[0].element.tag == "a"


def test_base_href_and_invalid_hrefs() -> None:
    hrefs = ('<a href="rel/page">good one</a> <a href="http://[bad">bad ipv6</a> <a href="javascript:void(0)">js</a> '
             '<a href="mailto:x@y.z">mail</a> <a href="">empty</a> <a href="//cdn.example/p">proto</a> '
             '<a href="ftp://f.example/">ftp</a> <a href="http://exa mple.com/">space</a>')
    doc = analyze(article(hrefs, '<base href="https://base.example/dir/">'), "http://news.example/a/b.html",
                  classifier="minwords")
    ours = [link.url for link in doc.links if not link.url.startswith("https://base.example/section/")]
    assert ours == ["https://base.example/dir/rel/page", "https://cdn.example/p"]


def test_relative_links_without_any_url_are_skipped() -> None:
    doc = analyze(article('<a href="/x">relative</a> <a href="http://abs.example/">abs</a>'), classifier="minwords")
    assert [link.url for link in doc.links] == ["http://abs.example/"]


def test_links_follow_is_content_and_weights() -> None:
    doc = analyze(article('<a href="/in">inside link</a>'), "http://h.example/")
    nav = next(i for i, b in enumerate(doc.blocks) if "Section" in b.text)
    assert not any(link.url.endswith("/section/0") for link in doc.links)
    doc.blocks[nav].is_content = True
    assert any(link.url.endswith("/section/0") for link in doc.links)
    for link in doc.links:
        link.weight = 0.25
    assert {link.weight for link in doc.links} == {0.25}
    for b in doc.blocks:
        b.is_content = False
    assert doc.links == [] and doc.text == "" and len(doc.all_links) >= 11


def test_image_links_are_in_all_links_only() -> None:
    doc = analyze('<p><a href="http://i.example/big"><img src="x.png"></a></p>' + article())
    img = [link for link in doc.all_links if link.url == "http://i.example/big"]
    assert len(img) == 1 and img[0].block == -1 and img[0] not in doc.links


def test_to_json_fields() -> None:
    doc = analyze(article('<a href="/z">zed</a>'), "http://h.example/p")
    out = doc.to_json("x.html")
    assert set(out) == {"path", "url", "title", "text", "links"}
    assert out["links"] == [{"url": "http://h.example/z", "text": "zed", "weight": 1.0}]


def test_bad_input_never_raises() -> None:
    for html in (b"", "", "<<<>>>", b"<html><body></body></html>"):
        doc = analyze(html, "http://h.example/")
        assert doc.text == "" and doc.links == [] and doc.blocks == []
    junk = analyze(bytes(range(256)) * 100, "http://h.example/")
    assert junk.links == [] and "\x00" not in junk.text
    deep = "<div>" * 10_000 + SENTENCE * 5 + "</div>" * 10_000
    assert SENTENCE in analyze(deep, classifier="minwords").text


def test_huge_page_is_truncated_and_flagged() -> None:
    big = ("<html><body>" + "<p>" + SENTENCE * 20 + "</p>" * 1) * 5000
    doc = analyze(big.encode(), max_bytes=100_000)
    assert doc.truncated and doc.blocks and SENTENCE in doc.text
    assert not analyze(article()).truncated and DEFAULT_MAX_PAGE_BYTES >= 1_000_000


def test_fusion_variants_and_positions() -> None:
    atomic = analyze(article(), fusion="none")
    fused = analyze(article())
    assert len(fused.blocks) < len(atomic.blocks)
    assert sum(b.n_words for b in fused.blocks) == sum(b.n_words for b in atomic.blocks)
    pos = [b.position for b in fused.blocks]
    assert pos[0] == 0.0 and pos == sorted(pos) and pos[-1] < 1.0


def test_feature_matrix_layout() -> None:
    doc = analyze(article(), fusion="none")
    x = feature_matrix(doc.blocks)
    k = len(BLOCK_FEATURES)
    assert x.shape == (len(doc.blocks), 3 * k) and len(FEATURE_NAMES) == 3 * k
    assert np.array_equal(x[1:, :k], x[:-1, k:2 * k]) and np.array_equal(x[:-1, 2 * k:], x[1:, k:2 * k])
    assert not x[0, :k].any() and not x[-1, 2 * k:].any()
    col = {n: i for i, n in enumerate(FEATURE_NAMES)}
    b = doc.blocks[3]
    assert x[3, col["curr_n_words"]] == b.n_words and x[3, col["curr_text_density"]] == b.text_density
    assert x[3, col["curr_link_density"]] == b.link_density
    assert feature_matrix([]).shape == (0, 3 * k)
