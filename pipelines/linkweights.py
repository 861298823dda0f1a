"""Link weights for the three modes of SPEC §2.5: ``uniform``, ``block``, ``lexical``.

``block``: the link's block weight is Oliveira's bw4 (Eq. 5.6, mean ICF of the block's
distinct terms within its block class) divided by ln n_C, its largest possible value, so it
lies in [0, 1]: ≈ 0 for template blocks (same terms on every page), ≈ 1 for text unique to the
page. Classes with fewer than β = 8 blocks carry no evidence yet and weigh 1 (the §5.5 fallback,
taken as neutral). ``lexical``: Zhang et al.'s CLP filter (``lexical.similarity`` > alpha keeps a link, weight 1).
Links whose weight is ≤ the mode's floor are dropped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rankcrawl.pipelines.blockclasses import BETA

MODES = ("uniform", "block", "lexical")
SCOPES = ("content", "non-template", "all")
BLOCK_FLOOR = 0.05


def block_weight(n_class: int, n_term_class: Sequence[int]) -> float:
    """bw4 / ln n_C for one block, 1.0 without enough evidence (n_C < β or no terms)."""
    if n_class < BETA or not n_term_class:
        return 1.0
    icf = [math.log(n_class / max(1, min(n, n_class))) for n in n_term_class]
    return sum(icf) / len(icf) / math.log(n_class)


def check(mode: str, scope: str) -> None:
    """Raise ValueError with one clear line for an unknown mode or scope."""
    if mode not in MODES:
        raise ValueError(f"unknown link weighting {mode!r}; choose one of {', '.join(MODES)}")
    if scope not in SCOPES:
        raise ValueError(f"unknown link scope {scope!r}; choose one of {', '.join(SCOPES)}")
