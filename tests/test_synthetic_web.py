"""The synthetic web of bench/synthetic_web.py has the structure its docstring promises."""

from __future__ import annotations

from collections import Counter, deque

import numpy as np
import pytest

from bench.frontier_sim import SimWeb
from bench.synthetic_web import BRANCHING, properties, synthetic_web


@pytest.fixture(scope="module")
def web() -> SimWeb:
    return synthetic_web(5000, seed=3)


def test_same_seed_same_web(web: SimWeb) -> None:
    again = synthetic_web(5000, seed=3)
    other = synthetic_web(5000, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(web.follow, again.follow))
    assert np.array_equal(web.importance, again.importance) and web.seeds == again.seeds
    assert not all(len(a) == len(b) and np.array_equal(a, b) for a, b in zip(web.content, other.content))


def test_followed_links_include_content_links(web: SimWeb) -> None:
    assert web.n == len(web.content) == len(web.host) == len(web.importance) == 5000
    assert all(set(c.tolist()) <= set(f.tolist()) for f, c in zip(web.follow, web.content))
    assert sum(len(f) for f in web.follow) > sum(len(c) for c in web.content)
    assert all(page not in web.follow[page] for page in range(web.n))


def test_every_page_links_to_its_hubs(web: SimWeb) -> None:
    first: dict[str, int] = {}
    for page, host in enumerate(web.host):
        first.setdefault(host, page)
    sizes = Counter(web.host)
    for page, host in enumerate(web.host):
        hubs = set(range(first[host], first[host] + min(sizes[host], BRANCHING + 1))) - {page}
        assert hubs <= set(web.follow[page].tolist())


def test_importance_is_a_distribution_concentrated_on_few_pages(web: SimWeb) -> None:
    assert web.importance.sum() == pytest.approx(1.0)
    assert (web.importance > 0).all()
    props = properties(web)
    assert props.hosts > 10
    assert props.top1_mass > 0.05
    assert props.in_degree_max > 10 * props.in_degree_p50
    assert 0.7 < props.intra_host_share < 1.0


def test_whole_web_reachable_from_the_seeds(web: SimWeb) -> None:
    seen = set(web.seeds)
    todo = deque(web.seeds)
    while todo:
        for t in web.follow[todo.popleft()].tolist():
            if t not in seen:
                seen.add(t)
                todo.append(t)
    assert len(seen) == web.n


def test_bad_size_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one page"):
        synthetic_web(0)
