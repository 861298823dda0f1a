"""The frozen WCXB-dev test split: its committed ids, and (where the data is there) whole hosts only."""

from __future__ import annotations

import pytest

from bench.datasets import DATA, TEST_IDS, frozen_test_ids, load, split_of


def test_the_committed_ids_are_sorted_unique_and_test_pages() -> None:
    ids = TEST_IDS.read_text().split()
    assert ids == sorted(set(ids)) and len(ids) == 278
    assert all(split_of("wcxb-dev", i) == "test" for i in ids)
    assert split_of("l3s-gn1", ids[0]) != "test"
    assert frozen_test_ids() == frozenset(ids)


@pytest.mark.skipif(not (DATA / "wcxb-dev").is_dir(), reason="benchmark data not here")
def test_no_host_is_on_both_sides_and_the_draw_is_reproducible() -> None:
    from bench.splits.make_test_split import draw

    pages = load("wcxb-dev", "all")
    test = [p for p in pages if p.split == "test"]
    rest = load("wcxb-dev", "dev")
    assert len(test) + len(rest) == len(pages)
    assert not {p.host for p in test} & {p.host for p in rest}
    assert draw(pages) == sorted(p.page_id for p in test)
