"""The compiled text statistics (``_textstats``) count exactly what the regular expressions count."""

from __future__ import annotations

import os
import random

import pytest

from rankcrawl.pipelines.page import document

if document.text_stats is document.python_text_stats:
    if os.environ.get("CI"):
        pytest.fail("the compiled text statistics were not built (setup.py: Cython and a C compiler are needed)",
                    pytrace=False)
    pytest.skip("the compiled text statistics are not built here", allow_module_level=True)

ALPHABET = ["a", "Z", "é", "Ǆ", "ǅ", "ß", "Σ", "ж", "3", "٣", "½", "_", "-", "|", ".", "?", "!", ";", "\"", "'", "»", "”",
            "’", ")", "]", "(", "«", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u2003", "\u3000", "\x1c", "\x85", "…",
            "。", "😀", "&", "*", "http://x.y/z", "Word", "e.g.", "U.S.A.", "...", "?!", ".)", ".')"]


@pytest.mark.parametrize("seed", range(4))
def test_compiled_counts_equal_the_regular_expressions(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(4000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(30)))
        assert document.text_stats(text) == document.python_text_stats(text), repr(text)


def test_a_block_reads_the_compiled_counts() -> None:
    text = "The cat sat. It was happy! Was it? Yes"
    block = document.TextBlock(text, 9, 0, 1, 9, "p", ("html[1]", "body[1]", "p[1]"), frozenset(), (), None)
    assert block.text_stats == document.python_text_stats(text) and block.text_stats[1:] == (4, 4, 1, 0)
