"""Oliveira block classes and weights: the digest's worked examples (T1, T8–T11)."""

import math

import pytest
from lxml import html

from bench.blockclasses import (
    ClassStats,
    average_icf,
    labels,
    page_weights,
    site_statistics,
    spread,
)

T8 = [
    ["home politics", "telescope launch", "telescope launch nasa telescope"],
    ["home politics", "election results", "election politics vote"],
    ["home politics", "telescope images", "images telescope"],
    ["home politics", "storm warning", "storm rain"],
]


def site():
    return [[(lab, text.split()) for lab, text in zip(("menu", "title", "body"), p)] for p in T8]


def approx(x):
    return pytest.approx(x, abs=1e-6)


def test_t1_labels():
    root = html.fromstring(
        '<html><body bgcolor="white"><div class="content1">Text A</div><img src="image.gif">'
        '<div class="content2"><h1>Text B</h1><p>Text C</p></div></body></html>'
    )
    lab = labels(root, readable=True)
    divs = root.findall(".//div")
    assert lab[divs[0]] == "1/div/class/body/html"
    assert lab[divs[1]] == "2/div/class/body/html"
    assert lab[root.find(".//img")] == "img/body/html"
    assert lab[root.find(".//h1")] == "h1/2/div/class/body/html"
    hashed = labels(root)
    assert len(set(hashed.values())) == len(hashed)


def test_t8_icf_and_spread():
    stats = site_statistics(site())
    assert stats["menu"].icf("home") == 0.0
    assert stats["title"].icf("telescope") == approx(math.log(2))
    assert stats["title"].icf("launch") == approx(math.log(4))
    assert stats["body"].icf("nasa") == approx(math.log(4))
    sp = spread([set(t.split()) for t in T8[0]])
    assert (sp["home"], sp["politics"], sp["telescope"], sp["launch"], sp["nasa"]) == (1, 1, 2, 2, 1)


def test_t8_block_and_class_weights_of_p1():
    stats = site_statistics(site())
    menu, title, body = page_weights(site()[0], stats)
    assert (menu.bw4, menu.bw5, menu.bw6, menu.bw7, menu.bw8, menu.bw9) == (0, 1, 0, 0, approx(1.125), 0)
    assert title.bw4 == approx(1.039721) and title.bw5 == approx(2) and title.bw6 == approx(2.079442)
    assert title.bw7 == approx(1.287273) and title.bw8 == approx(1.75) and title.bw9 == approx(2.252728)
    assert body.bw4 == approx(1.155245) and body.bw5 == approx(1.666667) and body.bw6 == approx(1.848392)
    assert body.bw7 == approx(1.309278) and body.bw8 == approx(1.708333) and body.bw9 == approx(2.236683)


def test_t9_bw6_form():
    stats = site_statistics(site())
    assert page_weights(site()[0], stats)[2].bw6 == approx(1.848392)
    assert page_weights(site()[0], stats, bw6_form="product")[2].bw6 == approx(1.925408)


def test_t10_zero_properties():
    stats = site_statistics(site())
    for page in site():
        menu = page_weights(page, stats)[0]
        assert menu.bw4 == menu.bw6 == menu.bw7 == menu.bw9 == 0
        assert all(w.bw5 >= 1 and w.bw8 >= 1 for w in page_weights(page, stats))
    same = site_statistics([[("c", ["a", "b"])], [("c", ["b", "a"])]])
    assert page_weights([("c", ["a", "b"])], same)[0].bw7 == 0


def test_t11_small_class_fallback():
    stats = site_statistics(site())
    fb = average_icf(stats)
    assert fb == approx(1.155245)
    weights = page_weights(site()[0], stats, fallback_icf=fb)
    assert all(w.bw4 == approx(fb) and w.bw7 == approx(fb) for w in weights)
    big = ClassStats(n_blocks=8, term_blocks={"x": 8})
    assert big.icf("x", fallback=fb) == 0.0
