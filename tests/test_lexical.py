"""Zhang et al. CLP: positional TF-IDF vectors, cosine per position, f(n) = n/(n+1) on the title."""

import math

import pytest

from rankcrawl.pipelines.site.lexical import cosine, position_tfs, stand_in, tfidf, weighted, weighted_similarity


def similarity(p: dict[str, dict[str, int]], q: dict[str, dict[str, int]], df: dict[str, int], n_docs: int) -> float:
    """sim(P, Q), Eq. 4, of two pages' position term frequencies."""
    return weighted_similarity(weighted(p, df, n_docs), weighted(q, df, n_docs))


def test_positions():
    tfs = position_tfs("Telescope launch", "The telescope launched today. NASA says the mirror works. More text.")
    assert tfs["title"] == {"telescope": 1, "launch": 1}
    assert tfs["first"] == {"the": 1, "telescope": 1, "launched": 1, "today": 1}
    assert tfs["rest"]["the"] == 1 and "mirror" in tfs["rest"]


def test_tfidf_keeps_top_m_and_idf():
    tf = {f"t{i}": 1 for i in range(10)} | {"common": 5}
    vec = tfidf(tf, {"common": 100}, 100)
    assert len(vec) == 7
    assert "common" not in vec  # frequent but in every document: low TF-IDF
    assert vec["t0"] == pytest.approx(math.log(101))


def test_cosine():
    assert cosine({"a": 1.0}, {"a": 2.0}) == pytest.approx(1.0)
    assert cosine({"a": 1.0}, {"b": 1.0}) == 0.0
    assert cosine({}, {"a": 1.0}) == 0.0


def test_similarity_non_linear_title_and_linear_rest():
    p = {"title": {"telescope": 1}, "first": {"mirror": 1}, "rest": {"nasa": 1}}
    assert similarity(p, p, {}, 10) == pytest.approx(0.4 * 0.5 * 1 + 0.4 * 1 + 0.2 * 1)
    q = {"title": {"election": 1}, "first": {"vote": 1}, "rest": {"ballot": 1}}
    assert similarity(p, q, {}, 10) == 0.0


def test_stand_in_uses_anchor_and_block():
    q = stand_in("Telescope pictures", ["nasa", "mirror", "nasa"])
    assert q == {"title": {"telescope": 1, "pictures": 1}, "first": {}, "rest": {"nasa": 2, "mirror": 1}}
    p = {"title": {"telescope": 1}, "first": {}, "rest": {"nasa": 1}}
    assert similarity(p, q, {}, 10) > 0.0
