"""Per-link content decision: href/list features, Document.links precedence, the shipped model."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.document import Document, Link, TextBlock
from rankcrawl.pipelines.page.dom_features import ROLE_NAMES, PageContext
from rankcrawl.pipelines.page.link_classifier import link_model, list_smoothed, with_main_list
from rankcrawl.pipelines.page.link_features import LINK_FEATURES, AnchorRows, href_features, href_words, link_features
from rankcrawl.pipelines.page.steps import PRESETS, PageState, run_steps

SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank today."


def page(body_link: str = "") -> str:
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(8))
    paras = "".join(f"<p>{SENTENCE * 3} {body_link if i == 1 else ''}</p>" for i in range(4))
    return (f"<html><head><title>Fox</title></head><body><ul class='menu'>{nav}</ul>"
            f"<div class='article'><h1>Fox jumps again</h1>{paras}</div>"
            f"<div class='footer'><a href='#top'>Top</a> <a href='https://social.example/share'>Share</a>"
            f"</div></body></html>")


def column(name: str) -> int:
    return LINK_FEATURES.index(name)


def test_href_features() -> None:
    assert href_features("#top", "news.example", "/a") == (1.0, 0.0, 0.0, 0.0, 1.0)
    assert href_features("https://WWW.News.example/x/y?q=1", "news.example", "/a") == (0.0, 0.0, 2.0, 1.0, 0.0)
    assert href_features("//other.example/p/", "news.example", "/a") == (0.0, 1.0, 1.0, 0.0, 0.0)
    assert href_features("/a/", "news.example", "/a") == (0.0, 0.0, 1.0, 0.0, 1.0)
    assert href_features("http://[bad", "news.example", "/a") == (0.0, 0.0, 0.0, 0.0, 0.0)


def test_href_words() -> None:
    assert href_words("/account/login?next=/") == (1.0, 0.0, 0.0)
    assert href_words("https://twitter.com/intent/tweet?u=x") == (0.0, 1.0, 0.0)
    assert href_words("/tag/python/") == (0.0, 0.0, 1.0)
    assert href_words("/2024/05/mill-rebuilt") == (0.0, 0.0, 0.0)


def analysed(html: str, url: str | None) -> PageState:
    return run_steps(PRESETS["trained-blocks"], PageState(html, url))


def test_href_words_fast_path_matches_the_case_insensitive_patterns() -> None:
    import random

    from rankcrawl.pipelines.page.link_features import HREF_WORDS

    rng = random.Random(7)
    words = ["LogIn", "sign-UP", "Cart", "about", "TAGS", "Category", "FaceBook", "x.COM", "MAILTO:", "Share",
             "feed", "page", "\u212aelvin", "\u017fhare", "caf\u00e9", "news", "2024", "p", "-", "_"]
    seps = ["/", "?", "=", "&", ".", "-", "", "#", " "]
    for _ in range(3000):
        href = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(1, 6)))
        expected = tuple(float(bool(p.search(href))) for p in HREF_WORDS)
        assert href_words.__wrapped__(href) == expected, href


def test_link_features_rows_follow_block_anchors() -> None:
    state = analysed(page('see <a href="/story/2">the next story</a>.'), "http://news.example/a")
    x = link_features(state.blocks, state.proba, state.context, state.page_features)
    anchors = [el for b in state.blocks for el in b.anchors]
    assert x.shape == (len(anchors), len(LINK_FEATURES)) and np.isfinite(x).all()
    hrefs = [el.get("href") for el in anchors]
    menu, story, top, share = (hrefs.index(h) for h in ("/section/0", "/story/2", "#top", "https://social.example/share"))
    assert x[menu, column("list_siblings")] == pytest.approx(np.log1p(8))
    assert x[story, column("list_siblings")] == pytest.approx(np.log1p(4))   # four <p> in the article
    assert x[top, column("href_fragment")] == 1.0 and x[share, column("href_other_host")] == 1.0
    assert x[story, column("anchor_log_words")] == pytest.approx(np.log1p(3))
    assert x[story, column("p_block")] > x[menu, column("p_block")]
    assert x[menu, column("anchor_role_nav")] == 1.0 and x[story, column("anchor_role_nav")] == 0.0
    assert x[menu, column("list_log_size")] == pytest.approx(np.log1p(8))
    assert x[story, column("in_region")] == 1.0 and x[menu, column("in_region")] == 0.0


def test_no_anchor_no_rows() -> None:
    state = analysed("<p>" + SENTENCE + "</p>", None)
    assert link_features(state.blocks, state.proba, PageContext()).shape == (0, len(LINK_FEATURES))


def test_shipped_model_keeps_body_links_and_drops_navigation() -> None:
    assert link_model().features == LINK_FEATURES
    doc = analyze(page('see <a href="/story/2">the next story</a>.'), "http://news.example/a")
    assert doc.link_content is not None
    urls = [link.url for link in doc.links]
    assert "http://news.example/story/2" in urls
    assert not any("/section/" in u for u in urls)


def test_nearly_unanimous_lists_are_decided_as_a_whole() -> None:
    group = np.repeat([0, 1, 2, 3], [5, 5, 5, 3])
    keep = np.array([1, 1, 1, 0, 0,  1, 0, 0, 0, 0,  0, 0, 0, 0, 0,  1, 0, 0], dtype=bool)
    smoothed = list_smoothed(keep, group)
    assert smoothed[:5].all()                                # 3 of 5 kept: the whole list
    assert smoothed[5:10].tolist() == keep[5:10].tolist()    # 1 of 5: undecided, per anchor
    assert not smoothed[10:15].any()
    assert smoothed[15:].tolist() == keep[15:].tolist()      # too short to count as a list
    group, keep = np.repeat([0], 10), np.array([1] + [0] * 9, dtype=bool)
    assert not list_smoothed(keep, group).any()              # 1 of 10: a stray pick in a menu goes


def made_rows(group: list[int], words: list[float], roles: list[int], in_region: list[bool],
              region_words: float) -> AnchorRows:
    """Anchor rows made by hand: only the list structure ``with_main_list`` reads, no features."""
    n = len(group)
    return AnchorRows(np.zeros((n, len(LINK_FEATURES))), np.array(group), np.array(roles, dtype=np.int64),
                      np.array(words, dtype=float), np.array(in_region, dtype=float), 5, region_words)


def test_a_page_the_model_keeps_nothing_of_keeps_its_main_region_list() -> None:
    nav = 1 << ROLE_NAMES.index("nav")
    group = [0] * 6 + [1] * 8 + [2] * 5 + [3] * 6            # a menu, the listing, a smaller list, one outside
    roles = [nav] * 6 + [0] * 19
    words = [9.0] * 6 + [4.0] * 8 + [2.0] * 5 + [8.0] * 6
    in_region = [True] * 19 + [False] * 6
    nothing = np.zeros(25, dtype=bool)
    rows = made_rows(group, words, roles, in_region, region_words=100.0)
    assert with_main_list(nothing, rows).tolist() == [g == 1 for g in group]
    some = nothing.copy()
    some[15] = True                                          # the model kept a link: its decision stands
    assert with_main_list(some, rows).tolist() == some.tolist()
    long_region = made_rows(group, words, roles, in_region, region_words=1000.0)
    assert not with_main_list(nothing, long_region).any()    # the list is a small part of a long text
    menu_only = made_rows(group[:6], words[:6], roles[:6], in_region[:6], region_words=100.0)
    assert not with_main_list(nothing[:6], menu_only).any()  # no list in the region outside a template role


def test_other_classifiers_keep_block_decisions() -> None:
    doc = analyze(page('see <a href="/story/2">the next story</a>.'), "http://news.example/a", classifier="numwords")
    assert doc.link_content is None and all(link.is_content is None for link in doc.all_links)
    assert all(doc.blocks[link.block].is_content for link in doc.links)


def block(text: str, anchors: list) -> TextBlock:
    return TextBlock(text=text, n_words=len(text.split()), n_linked_words=0, n_lines=1, last_line_words=1,
                     tag="p", path=("p[1]",), anchors=tuple(anchors))


def document(flags: list[bool], decisions: list[bool]) -> Document:
    anchors = [object() for _ in flags]
    blocks = [block(f"block {i}", [a]) for i, a in enumerate(anchors)]
    for b, f in zip(blocks, flags):
        b.is_content = f

    def make(elements: list, i: int) -> list[Link]:
        return [Link(url=f"http://h.example/{i}", text="", block=i, element=el) for el in elements]

    return Document(url=None, title="", blocks=blocks, make_links=make,
                    link_content=dict(zip(anchors, decisions)), content_basis=list(flags))


def test_link_decision_wins_until_its_block_is_changed() -> None:
    doc = document([False, True], [True, False])     # link-only content block; boilerplate link in content
    assert [link.url for link in doc.links] == ["http://h.example/0"]
    doc.blocks[1].is_content = False                  # matches the link decision: nothing changes
    assert [link.url for link in doc.links] == ["http://h.example/0"]
    doc = document([True, True], [True, False])
    doc.blocks[0].is_content = False                  # a later step (site level) drops block 0: its link goes
    assert doc.links == []
    doc.blocks[1].is_content = True                   # as analysed: the link decision stands
    assert doc.links == []


def test_host_folds_keep_a_site_in_one_fold() -> None:
    from bench.train_link_classifier import host_folds

    hosts = ["b.example", "a.example", "b.example", "c.example", "a.example", "d.example"]
    folds = host_folds(hosts, 3)
    assert folds.tolist() == [1, 0, 1, 2, 0, 0]
    assert {h: f for h, f in zip(hosts, folds)} == {"a.example": 0, "b.example": 1, "c.example": 2, "d.example": 0}


def test_ceiling_keeps_the_links_of_the_blocks_the_gold_text_covers(tmp_path: Path) -> None:
    from bench.datasets import Page
    from bench.link_ceiling import content_block_links

    prose = ("The harbour town rebuilt its stone pier after the storm, and the fishing boats returned within a "
             "season to land their catch at the old market hall. ")
    html = (f"<html><body><nav><a href='/home'>Home</a> <a href='/about'>About us</a></nav>"
            f"<article><p>{prose * 3}Read <a href='/pier'>the history of the pier</a> too.</p></article>"
            "<footer><a href='/privacy'>Privacy</a></footer></body></html>")
    path = tmp_path / "page.html.gz"
    path.write_bytes(gzip.compress(html.encode()))
    gold_text = f"{prose * 3}Read the history of the pier too."
    page = Page("wcxb-dev", "0001", "https://h.example/a", path, gold_text, frozenset({"https://h.example/pier"}))
    urls, rows = content_block_links(page)
    assert urls == {"https://h.example/pier"}
    assert rows is not None and rows.gold == {"https://h.example/pier"}
    assert sorted(rows.urls) == sorted(f"https://h.example/{p}" for p in ("home", "about", "pier", "privacy"))
    assert rows.y.tolist() == [u == "https://h.example/pier" for u in rows.urls]
