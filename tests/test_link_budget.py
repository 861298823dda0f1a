"""The per-page budget covers the link features: pages of tens of thousands of links finish
within 1.5x the analysis budget (CPU time of the analysing thread), and the linear path of
``anchor_facts`` gives the compiled path's values."""

from __future__ import annotations

import numpy as np
import pytest
from lxml import html

from rankcrawl.pipelines.page import link_features
from rankcrawl.pipelines.page.budget import analyze_within
from rankcrawl.pipelines.page.deadline import clock


def links_page(n: int) -> bytes:
    items = "".join(f"<li><a href='/p{i}?q={i % 7}'>item {i} word</a></li>" for i in range(n))
    return (f"<html><head><title>t</title></head><body><p>{'lorem ipsum ' * 200}</p><ul>{items}</ul>"
            f"<p>{'dolor sit ' * 100}</p></body></html>").encode()


def test_anchor_facts_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    root = html.fromstring("<html><body><div><ul>" + "".join(f"<li><a href='/p{i}'>item <b>{i}</b> x</a></li>"
                                                             for i in range(300))
                           + "</ul><p>t <a href='/q'>q</a><!-- c --></p><p><a>no href <i>x</i></a></p>"
                           "<table><tr><td><a href='/t'>t</a></td></tr></table></div></body></html>")
    anchors = root.xpath("//a")
    compiled = link_features.anchor_facts(anchors)
    monkeypatch.setattr(link_features, "COMPILED_ANCHORS", 0)
    linear = link_features.anchor_facts(anchors)
    assert compiled[0] == linear[0]
    for a, b in zip(compiled[1:], linear[1:]):
        assert np.array_equal(a, b)
    assert linear[3][0] == 300 and linear[2][0] == 300  # the <ul>'s children, its <li>s


@pytest.mark.parametrize("n", [50_000, 200_000])
def test_a_page_of_many_links_finishes_within_its_budget(n: int) -> None:
    budget = 2.0
    page = links_page(n)
    analyze_within(b"<html><body><p>warm up</p><a href='/x'>x</a></body></html>", "http://a.org/", timeout=budget)
    start = clock()
    result = analyze_within(page, "http://a.org/", timeout=budget)
    spent = clock() - start
    assert spent <= 1.5 * budget, (result.outcome, spent)
    assert result.outcome in ("complete", "prefix")
