"""Min-hash values are stable (stored in Redis across versions), and the compiled ``_minhash`` gives
exactly the numpy reference's values."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from rankcrawl.pipelines.site import shingles

PIECES = ["a", "B", "z9", "_", " ", "  ", "\n", ".", ",", "-", "'", "é", "ß", "東京", "Ω", "😀", "\u00a0", "\u200b",
          "home", "about", "contact", "the", "quick", "brown", "fox"]


def random_texts(rng: random.Random) -> list[str]:
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(120))) for _ in range(rng.choice([1, 3, 40]))]
    if rng.random() < 0.3:
        texts.append(rng.choice("x_é") * rng.choice([63, 64, 65, 300]))  # tokens around and past VECTOR_BYTES
    return texts


def test_values_are_those_stored_by_earlier_versions() -> None:
    texts = ["Hello, world: the quick brown fox jumps over the lazy dog", "Straße 東京 naïve_word x", "", "..."]
    assert shingles.segment_shingles(texts).tolist() == [8413679574115560369, 1180656833786584236,
                                                         6762872608299033379, 6762872608299033379]
    assert shingles.sketch_segments(texts[:1], 3, 6, 6)[0].tolist() == [1381444170552059578, 8364376907568209174,
                                                                        3630425236701306136]
    assert shingles.token_hashes("Straße 東京").tolist() == [4119458969853387194, 16791824994200326197]


def test_reference_keeps_tokens_inside_their_segments() -> None:
    buf, offsets = shingles.encode_segments(["ab", "", "cd ef", "g"])
    hashes, segment = shingles.python_token_hashes(buf, offsets)
    assert segment.tolist() == [0, 2, 2, 3]
    assert hashes.tolist() == [shingles.token_hashes(t)[0] for t in ("ab", "cd", "ef", "g")]
    assert shingles.python_sketch_segments(buf, offsets, 4, *shingles._coefficients(2, 0))[1].tolist() == [2**64 - 1] * 2
    with pytest.raises(ValueError, match="at least one token"):
        shingles.sketch_segments(["a"], 4, 0)


def test_compiled_equals_the_numpy_reference() -> None:
    ext = shingles._minhash
    if ext is None:
        if os.environ.get("CI"):
            pytest.fail("the compiled min-hash (_minhash) was not built (setup.py: Cython and a C compiler are needed)",
                        pytrace=False)
        pytest.skip("the compiled min-hash is not built here")
    rng = random.Random(7)
    for case in range(300):
        texts = random_texts(rng)
        buf, offsets = shingles.encode_segments(texts)
        n, w = rng.choice([(1, 1), (4, 4), (24, 6), (5, 2), (3, 9)])
        a, b = shingles._coefficients(n, case % 5)
        sketch = ext.sketch_segments(buf, offsets, w, a, b)
        assert np.array_equal(sketch, shingles.python_sketch_segments(buf, offsets, w, a, b)), texts
        assert np.array_equal(ext.combine(sketch), shingles.python_combine(sketch))
        tb, to = shingles.encode_segments(texts[:1])
        assert np.array_equal(ext.token_hashes(tb), shingles.python_token_hashes(tb, to)[0]), texts[0]
