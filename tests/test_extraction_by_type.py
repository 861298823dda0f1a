"""bench.extraction: word P/R per WCXB page type, in the table and at the end of the test-split log line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import extraction
from bench.datasets import Page
from bench.extraction import Run, type_words
from bench.extraction_peers import Extraction


def pages_and_run() -> tuple[list[Page], Run]:
    gold = {"a1": ("article", "one two three four"), "a2": ("article", "five six seven eight"),
            "p1": ("product", "red mug blue mug")}
    ours = {"a1": "one two three four nine ten", "a2": "five six", "p1": "red mug blue mug"}
    pages = [Page("wcxb-dev", pid, f"http://example.test/{pid}", Path("unused"), text, page_type=kind)
             for pid, (kind, text) in gold.items()]
    run = Run("rankcrawl (trained)", {pid: Extraction(text, []) for pid, text in ours.items()})
    return pages, run


def test_precision_and_recall_are_averaged_per_type() -> None:
    pages, run = pages_and_run()
    per_type = type_words(run, pages)
    assert list(per_type) == ["article", "product"]
    assert per_type["article"].p == pytest.approx((4 / 6 + 1.0) / 2)
    assert per_type["article"].r == pytest.approx((1.0 + 0.5) / 2)
    assert (per_type["product"].p, per_type["product"].r, per_type["product"].f1) == (1.0, 1.0, 1.0)


def test_the_log_line_appends_p_r_by_type_after_the_old_fields() -> None:
    pages, run = pages_and_run()
    fields = extraction.test_log_line([run], pages, None).split(" | ")
    assert fields[3].startswith("word F1 ") and fields[4].startswith("by type article ")
    assert fields[-1] == "P/R by type article 0.833/0.750, product 1.000/1.000"
