"""Algorithms 4.2 and 4.3 branch by branch, the CleanEval rule, minimum words, and the filters."""

from __future__ import annotations

import numpy as np
import pytest

from rankcrawl.pipelines.page.classifiers import (
    CLASSIFIERS,
    FILTERS,
    Classifier,
    cleaneval,
    densitometric,
    get_classifier,
    largest_content,
    main_content,
    min_words,
    numwords,
)
from rankcrawl.pipelines.page.document import TextBlock


def blk(words: int = 20, ld: float = 0.0, rho: float | None = None, text: str | None = None) -> TextBlock:
    """A block with ``words`` words, link density ``ld`` and text density ``rho`` (default: words)."""
    linked = round(ld * words)
    assert abs(linked / max(words, 1) - ld) < 1e-9, "ld must be a multiple of 1/words"
    lines, last = 1, words
    if rho is not None and rho != words:
        lines = 3  # rho = (words − last) / 2
        last = words - round(2 * rho)
        assert 0 <= last <= words
    b = TextBlock(text=text or " ".join(["w"] * words), n_words=words, n_linked_words=linked, n_lines=lines,
                  last_line_words=last, tag="p", path=())
    assert b.text_density == (rho if rho is not None else words)
    return b


def middle(fn, prev: TextBlock | None, curr: TextBlock, nxt: TextBlock | None) -> bool:
    blocks = [b for b in (prev, curr, nxt) if b is not None]
    return bool(fn(blocks)[0 if prev is None else 1])


# Algorithm 4.3 (NumWords) ------------------------------------------------------------------

@pytest.mark.parametrize("prev, curr, nxt, content", [
    # currLinkDensity > 0.333333 → boilerplate (1/3 itself is just above the printed threshold)
    (blk(10), blk(30, ld=1 / 3), blk(30), False),
    (blk(10), blk(30, ld=0.3), blk(30), True),
    # prevLinkDensity ≤ 0.555556: curr ≤ 16, next ≤ 15, prev ≤ 4 → boilerplate; prev > 4 → content
    (blk(4), blk(16), blk(15), False),
    (blk(5), blk(16), blk(15), True),
    (blk(4), blk(16), blk(16), True),     # next > 15 → content
    (blk(4), blk(17), blk(0 + 1), True),  # curr > 16 → content
    (blk(9, ld=5 / 9), blk(16), blk(15), True),  # 0.5556 ≤ 0.555556: still the left subtree
    # prevLinkDensity > 0.555556: curr ≤ 40 and next ≤ 17 → boilerplate; next > 17 → content
    (blk(25, ld=0.56), blk(40), blk(17), False),
    (blk(25, ld=0.56), blk(40), blk(18), True),
    (blk(25, ld=0.56), blk(41), blk(1), True),  # curr > 40 → content
    (None, blk(16), blk(15), False),  # no previous block: prev words 0 ≤ 4
])
def test_numwords_branches(prev, curr, nxt, content) -> None:
    assert middle(numwords, prev, curr, nxt) is content


# Algorithm 4.2 (Densitometric) -------------------------------------------------------------

@pytest.mark.parametrize("prev, curr, nxt, content", [
    (blk(20), blk(20, ld=0.35), blk(20), False),  # currLinkDensity > 0.333333
    # prevLD ≤ 0.555556, currTD ≤ 9, nextTD ≤ 10: prevTD ≤ 4 → boilerplate, > 4 → content
    (blk(20, rho=4), blk(20, rho=9), blk(20, rho=10), False),
    (blk(20, rho=4.5), blk(20, rho=9), blk(20, rho=10), True),
    (blk(20, rho=4), blk(20, rho=9), blk(21, rho=10.5), True),  # nextTD > 10
    # currTD > 9: nextTD = 0 → boilerplate (last block), nextTD > 0 → content
    (blk(20, rho=4), blk(20, rho=9.5), None, False),
    (blk(20, rho=4), blk(20, rho=9.5), blk(1), True),
    # prevLD > 0.555556: nextTD ≤ 11 → boilerplate, > 11 → content
    (blk(25, ld=0.56), blk(30), blk(22, rho=11), False),
    (blk(25, ld=0.56), blk(30), blk(23, rho=11.5), True),
    (blk(9, ld=5 / 9), blk(20, rho=9), blk(20, rho=10), True),  # prevLD at the threshold, prevTD 9 > 4
])
def test_densitometric_branches(prev, curr, nxt, content) -> None:
    assert middle(densitometric, prev, curr, nxt) is content


def test_cleaneval_rule_and_min_words() -> None:
    blocks = [blk(20, rho=7), blk(20, rho=6.5), blk(20, ld=0.35, rho=7), blk(20, ld=0.4, rho=8)]
    assert cleaneval(blocks).tolist() == [True, False, True, False]
    assert min_words([blk(9), blk(10), blk(11)]).tolist() == [False, True, True]


def test_largest_content_keeps_one_block() -> None:
    blocks = [blk(50), blk(80), blk(120)]
    out = largest_content(blocks, np.array([True, True, False]))
    assert out.tolist() == [False, True, False]
    assert not largest_content(blocks, np.zeros(3, dtype=bool)).any()


def test_main_content_cuts_before_the_title_and_after_comments() -> None:
    blocks = [blk(100, text="Teaser " * 100), blk(5, text="Storm hits the coast today"),
              blk(60, text="Body " * 60), blk(2, text="User comments:"), blk(90, text="I think " * 45)]
    is_content = np.array([True, False, True, False, True])
    out = main_content(blocks, is_content, "Storm hits the coast today | Daily Planet")
    assert out.tolist() == [False, True, True, False, False]
    assert largest_content(blocks, is_content).tolist() == [True, False, False, False, False]


def classify(blocks: list[TextBlock], spec: str | Classifier, title: str = "") -> np.ndarray:
    """bool[n] is-content for ``blocks`` by a classifier spec (``"name[+filter]"``) or callable."""
    if not blocks:
        return np.zeros(0, dtype=bool)
    if callable(spec):
        return np.asarray(spec(blocks), dtype=bool)
    name, _, filt = spec.partition("+")
    result = np.asarray(get_classifier(name)(blocks), dtype=bool)
    if filt:
        if filt not in FILTERS:
            raise ValueError(f"unknown filter {filt!r} (one of {', '.join(FILTERS)})")
        result = FILTERS[filt](blocks, result, title)
    return result


def test_registry_and_specs() -> None:
    assert {"numwords", "densitometric", "cleaneval", "minwords"} <= set(CLASSIFIERS)
    blocks = [blk(5), blk(30), blk(50)]
    assert classify(blocks, "numwords+largest").tolist() == [False, False, True]
    assert classify(blocks, lambda bs: [True] * len(bs)).tolist() == [True, True, True]
    assert classify([], "numwords").shape == (0,)
    with pytest.raises(ValueError, match="unknown classifier"):
        classify(blocks, "nope")
    with pytest.raises(ValueError, match="unknown filter"):
        classify(blocks, "numwords+nope")
