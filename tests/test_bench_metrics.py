"""The extraction metrics (data README §3) and the gold loaders on tiny hand-made cases."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench.datasets import annotated_text, load, markdown_links, split_of
from bench.metrics import LinkCounts, SnippetCounts, normalize_link, word_prf
from tests.conftest import shared_path


def test_word_f1_multiset_overlap() -> None:
    s = word_prf("the cat the cat", "The cat sat")
    # pred bag {the:2, cat:2}, gold {the, cat, sat}: overlap 2
    assert s.p == pytest.approx(2 / 4)
    assert s.r == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_word_f1_unicode_tokens_and_punctuation() -> None:
    assert word_prf("Über-größe, café!", "über größe CAFÉ").f1 == pytest.approx(1.0)


def test_word_f1_empty_cases() -> None:
    assert word_prf("", "").f1 == 1.0
    assert word_prf("   ", "gold words").f1 == 0.0
    assert word_prf("words", "").f1 == 0.0
    assert word_prf("a b", "c d").f1 == 0.0


def test_snippets_counts_and_scores() -> None:
    c = SnippetCounts()
    c.add("Hello   big\nworld. Footer", ["big world", "missing"], ["Footer", "Login"])
    assert (c.tp, c.fn, c.fp, c.tn) == (1, 1, 1, 1)
    prf = c.prf()
    assert prf.p == 0.5 and prf.r == 0.5 and prf.f1 == pytest.approx(2 / 4)
    assert c.accuracy() == 0.5


def test_link_normalisation() -> None:
    assert normalize_link("HTTPS://Example.ORG/a/b/?q=1#frag") == "https://example.org/a/b?q=1"
    assert normalize_link("http://x.org/") == normalize_link("http://X.org")
    assert normalize_link("http://x.org/A") != normalize_link("http://x.org/a")


def test_links_micro_and_macro() -> None:
    c = LinkCounts()
    c.add(["http://a.org/1", "http://a.org/2#x"], ["http://a.org/2", "http://a.org/3/"])  # tp1 fp1 fn1
    c.add(["http://a.org/9"], [])  # empty gold: counts its FP, not in macro
    c.add([], ["http://b.org/1", "http://b.org/2"])  # fn2
    micro = c.micro()
    assert (c.tp, c.fp, c.fn) == (1, 2, 3)
    assert micro.p == pytest.approx(1 / 3) and micro.r == pytest.approx(1 / 4)
    assert micro.f1 == pytest.approx(2 / (2 + 2 + 3))
    macro = c.macro()
    assert len(c.pages) == 2
    assert macro.r == pytest.approx((0.5 + 0.0) / 2)
    assert macro.f1 == pytest.approx((0.5 + 0.0) / 2)


def test_markdown_links_gold_derivation() -> None:
    md = (
        "See [docs](/docs/intro) and [wiki](https://en.wikipedia.org/wiki/Film_(2011_film)).\n"
        "![logo](/logo.png) [![thumb](/t.jpg)](https://x.org/full) <https://auto.org/a>\n"
        "[mail](mailto:a@b.org) [t](https://x.org/p \"title\") [rel](../up)"
    )
    got = markdown_links(md, "https://site.org/a/b/page")
    assert sorted(got) == sorted([
        "https://site.org/docs/intro",
        "https://en.wikipedia.org/wiki/Film_(2011_film)",
        "https://x.org/full",
        "https://auto.org/a",
        "https://x.org/p",
        "https://site.org/a/up",
    ])


def test_annotated_text_innermost_span_wins() -> None:
    page = (
        b"<html><body><div><span class='x-nc-sel0'>Menu <span class='x-nc-sel2'>Body text"
        b"<script>var x;</script></span> tail0</span></div>"
        b"<p><span class='x-nc-sel1'>Headline <span class='x-nc-sel4'>related</span> more</span></p>"
        b"<p><span class='x-nc-sel3'>caption</span></p></body></html>"
    )
    text = annotated_text(page, frozenset({"x-nc-sel1", "x-nc-sel2", "x-nc-sel3"}))
    assert text.split("\n") == ["Body text", "Headline more", "caption"]


def test_split_is_deterministic_and_near_70_30() -> None:
    ids = [f"{i:04d}" for i in range(2000)]
    splits = [split_of("wcxb-dev", i) for i in ids]
    assert splits == [split_of("wcxb-dev", i) for i in ids]
    kept = [s for s in splits if s != "test"]  # the frozen test split is drawn first, by host
    assert 0.66 < kept.count("train") / len(kept) < 0.74


def test_loaders_on_a_generated_tree(tmp_path: Path) -> None:
    wcxb = tmp_path / "wcxb-dev"
    (wcxb / "html").mkdir(parents=True)
    (wcxb / "ground-truth").mkdir()
    (wcxb / "html" / "0001.html.gz").write_bytes(gzip.compress(b"<p>Hi</p>"))
    gt = {"url": "https://h.org/x", "_internal": {"page_type": {"primary": "article"}},
          "ground_truth": {"main_content": "Hi", "main_content_markdown": "[a](/b)", "with": ["Hi"], "without": []}}
    (wcxb / "ground-truth" / "0001.json").write_text(json.dumps(gt))
    (page,) = load("wcxb-dev", data=tmp_path)
    assert (page.host, page.gold_text, page.gold_links, page.page_type) == ("h.org", "Hi", {"https://h.org/b"}, "article")
    assert page.html_text() == "<p>Hi</p>"
    with pytest.raises(ValueError):
        load("nope", data=tmp_path)


def test_real_data_gold_links_occur_in_html() -> None:
    shared_path("data", "wcxb-dev")
    from urllib.parse import urljoin

    from lxml import html

    hits = total = 0
    for page in load("wcxb-dev", limit=60):
        hrefs = {urljoin(page.url, h) for h in html.fromstring(page.html_bytes()).xpath("//a/@href")}
        hits += len((page.gold_links or set()) & hrefs)
        total += len(page.gold_links or ())
    assert total > 100 and hits / total > 0.97
