"""The compiled label and href words (``_tokens``) find exactly what the regular expressions find."""

from __future__ import annotations

import os
import random

import pytest

from rankcrawl.pipelines.page import dom_features, link_features

if dom_features._tokens is None or link_features.LOWER_ASCII_WORDS is None:
    if os.environ.get("CI"):
        pytest.fail("the compiled words (_tokens) were not built (setup.py: Cython and a C compiler are needed)",
                    pytrace=False)
    pytest.skip("the compiled words are not built here", allow_module_level=True)

LABEL_PIECES = ["div", "nav", "[", "]", "[1]", "[12]", "[x]", "[\u0663]", "#", ".", "main", "Content", "postBody",
                "mainContent", "HTMLNav", "N", "-", "_", "side-bar", "share", "ß", "\u212a", "\n", " ", "9", "toc",
                "comments", "x", "A", "aB", "Ab"]
HREF_PIECES = ["/", "?", "#", "-", "_", ".", ":", "x", "a", "9", "log", "in", "sign", "up", "cookie", "s", "cart",
               "tag", "category", "page", "feed", "user", "member", "share", "x.com", "mailto:", "intent/tweet",
               "facebook", "help", "faq", "about", "http://", "www.", "\n", "%20", "é", "\u212a", "Login", "TAGS"]


def random_text(rng: random.Random, pieces: list[str], size: int) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(size)))


def test_label_facts_equal_the_regular_expressions() -> None:
    rng = random.Random(0)
    labels = [random_text(rng, LABEL_PIECES, 9) for _ in range(6000)]
    labels += [f"{random_text(rng, LABEL_PIECES[:2], 2)}[{rng.randrange(1, 40)}]{random_text(rng, LABEL_PIECES, 8)}"
               for _ in range(6000)]
    masks, frees = dom_features.label_facts(labels)
    assert masks == [dom_features.label_roles(label) for label in labels]
    assert frees == [dom_features.index_free(label) for label in labels]
    assert sum(m > 0 for m in masks) > 2000   # roles found on many labels


def test_href_words_equal_the_regular_expressions() -> None:
    rng = random.Random(1)
    found = [0, 0, 0]
    for _ in range(20000):
        href = random_text(rng, HREF_PIECES, 10).strip()
        link_features.href_words.cache_clear()
        compiled = link_features.href_words(href)
        expected = tuple(float(bool(p.search(href))) for p in link_features.HREF_WORDS)
        assert compiled == expected, repr(href)
        found = [f + int(c) for f, c in zip(found, compiled)]
    assert min(found) > 100   # each word class found on many hrefs


def test_number_paths_equals_pythons() -> None:
    """Label numbering of path batches (new labels appended in first-seen order, -1 past each path's end)."""
    from rankcrawl.pipelines.page import _tokens

    rng = random.Random(2)
    labels = [f"div[{i}]" for i in range(30)] + ["a[1].x", "ul[2]#n"]
    compiled_numbers: dict[str, int] = {}
    python_numbers: dict[str, int] = {}
    for _ in range(300):
        paths = [tuple(rng.choice(labels) for _ in range(rng.randrange(8))) for _ in range(rng.randrange(6))]
        codes, new = _tokens.number_paths(paths, compiled_numbers)
        expected_codes, expected_new = dom_features.number_paths(paths, python_numbers)
        assert codes.tolist() == expected_codes.tolist() and new == expected_new
        assert compiled_numbers == python_numbers
    assert len(compiled_numbers) == len(labels)
