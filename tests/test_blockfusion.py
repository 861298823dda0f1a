"""Block Fusion (Algorithm 4.1, Eq. 4.7/4.8) on constructed density sequences."""

from __future__ import annotations

import math

import pytest

from rankcrawl.pipelines.page.blockfusion import VARIANTS, block_fusion, fusion_groups, merge, slope_delta
from rankcrawl.pipelines.page.document import TextBlock


def block(rho: int, gap: str = "div", linked: int = 0) -> TextBlock:
    """A one-line block of ``rho`` words (so its density is ``rho``) after a gap of ``gap`` tags."""
    return TextBlock(text=" ".join(["w"] * rho), n_words=rho, n_linked_words=linked, n_lines=1,
                     last_line_words=rho, tag="p", path=("html[1]", "body[1]", f"p[{rho}]"),
                     gap_tags=frozenset(gap.split()))


def groups(densities: list[int], variant: str, gaps: list[str] | None = None) -> list[tuple[int, int]]:
    gaps = gaps or ["div"] * len(densities)
    v = VARIANTS[variant]
    assert v is not None
    return fusion_groups([block(r, g) for r, g in zip(densities, gaps)], v)


def test_slope_delta_eq_4_7() -> None:
    assert slope_delta(10, 6) == pytest.approx(0.4)
    assert slope_delta(6, 10) == slope_delta(10, 6)
    assert slope_delta(0, 0) == 0.0


def test_plain_fuses_runs_within_theta() -> None:
    # 10→7: 0.3 ≤ 0.38 fuse; fused rho = 17 (one line each: (17 − 7) / 1 = 10); 10 vs 2 stays apart.
    assert groups([10, 7, 2, 2], "plain") == [(0, 2), (2, 4)]
    # delta exactly at the threshold fuses; just above does not
    assert groups([50, 31], "plain") == [(0, 2)]          # 19/50 = 0.38
    assert groups([50, 30], "plain") == [(0, 1), (1, 2)]  # 20/50 = 0.40


def test_fused_density_keeps_the_atomic_wrapping() -> None:
    a = TextBlock(text="a", n_words=30, n_linked_words=0, n_lines=3, last_line_words=6, tag="p", path=())
    b = TextBlock(text="b", n_words=20, n_linked_words=5, n_lines=2, last_line_words=4, tag="p", path=(),
                  gap_tags=frozenset({"p"}))
    fused = merge([a, b])
    assert (fused.n_words, fused.n_lines, fused.last_line_words) == (50, 5, 4)
    assert fused.text_density == (50 - 4) / 4
    assert fused.link_density == 5 / 50 and fused.text == "a\n\nb" and fused.n_atomic == 2


def test_plain_iterates_until_nothing_fuses() -> None:
    # pass 1: 2,2 → (4-2)/1... single lines: fused rho of [2,2] = 4 - 2 = 2 lines 2 → (4-2)/(2-1) = 2
    assert groups([2, 2, 2, 9], "plain") == [(0, 3), (3, 4)]
    assert groups([5], "plain") == [(0, 1)]
    assert groups([], "plain") == []


def test_smoothed_fuses_a_dip_between_equal_neighbours() -> None:
    assert groups([1, 5, 1, 5, 1], "plain") == [(i, i + 1) for i in range(5)]
    sm = groups([5, 1, 5, 20], "smoothed")
    assert sm[0] == (0, 3)
    # neighbours equal but *lower* than the middle: no smoothing
    assert groups([1, 5, 1], "smoothed") == [(0, 1), (1, 2), (2, 3)]


def test_rulebased_force_and_avoid_gaps() -> None:
    # equal densities but an <h2> between them: never fused
    assert groups([10, 10], "rulebased", ["div", "h2"]) == [(0, 1), (1, 2)]
    # very different densities but only inline tags between them: always fused
    assert groups([1, 40], "rulebased", ["div", "b span"]) == [(0, 2)]
    # mixed gap (inline + div): density decides, theta 0.6
    assert groups([10, 5], "rulebased", ["div", "b div"]) == [(0, 2)]
    assert groups([10, 3], "rulebased", ["div", "b div"]) == [(0, 1), (1, 2)]


def test_justrules_splits_only_at_gap_enforcing_tags() -> None:
    assert VARIANTS["justrules"].theta_max == math.inf
    g = groups([1, 40, 2, 3, 50], "justrules", ["div", "p", "ul", "td", "img"])
    assert g == [(0, 2), (2, 4), (4, 5)]


def test_block_fusion_merges_text_anchors_and_paths() -> None:
    a, b, c = block(3, "div"), block(3, "b"), block(3, "br")
    a.anchors, c.anchors = ("x",), ("y",)
    (fused,) = block_fusion([a, b, c], "rulebased")
    assert fused.text == "w w w w w w\nw w w" and fused.anchors == ("x", "y")
    assert fused.path == ("html[1]", "body[1]", "p[3]")
    d = block(4, "div")
    assert block_fusion([a, d], "none") == [a, d]
    with pytest.raises(ValueError, match="unknown Block Fusion variant"):
        block_fusion([a], "bogus")


def test_linear_passes_on_a_long_page() -> None:
    blocks = [block(1 + (i % 7), "div") for i in range(20_000)]
    fused = block_fusion(blocks, "smoothed")
    assert sum(b.n_words for b in fused) == sum(b.n_words for b in blocks)


def test_compiled_passes_equal_the_python_passes() -> None:
    """``_blockfusion`` (where built) groups random pages exactly as ``python_fusion_groups`` does: every
    variant, multi-line blocks, equal densities (smoothing), gap-enforcing and gap-avoiding tags."""
    import os
    import random

    from rankcrawl.pipelines.page import blockfusion

    if blockfusion._blockfusion is None:
        if os.environ.get("CI"):
            pytest.fail("the compiled Block Fusion was not built (setup.py: Cython and a C compiler are needed)",
                        pytrace=False)
        pytest.skip("the compiled Block Fusion is not built here")
    gaps = ["div", "p", "br", "a span", "h2", "ul li", "b", "table tr td", "div br", "img"]
    fused = 0
    for seed in range(400):
        rng = random.Random(seed)
        blocks = []
        for _ in range(rng.randrange(1, 60)):
            lines = rng.choice([1, 1, 2, 3, 7])
            words = rng.choice([1, 2, 5, 10, 12, 30]) * lines
            last = rng.randint(1, max(1, words // lines))
            blocks.append(TextBlock(text="w", n_words=words, n_linked_words=0, n_lines=lines, last_line_words=last,
                                    tag="p", path=("html[1]",), gap_tags=frozenset(rng.choice(gaps).split())))
        for name, v in VARIANTS.items():
            if v is not None:
                found = fusion_groups(blocks, v)
                assert found == blockfusion.python_fusion_groups(blocks, v), (seed, name)
                fused += len(found) < len(blocks)
    assert fused > 1000
