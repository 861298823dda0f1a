"""Link weights for the three modes of SPEC §2.5: ``uniform``, ``block``, ``lexical``.

``block``: the link's block weight is Oliveira's bw4 (Eq. 5.6, mean ICF of the block's distinct
terms within its block class) divided by ln n_C, its largest possible value, so it lies in [0, 1]:
≈ 0 for template blocks (same terms on every page), ≈ 1 for text unique to the page. Classes with
fewer than β = 8 blocks carry no evidence yet and weigh 1 (the §5.5 fallback, taken as neutral).
The terms of a block are a consistent sample (``site.facts.sampled_terms``); n_C and n_{t,C} come
from the host's class sketch. ``lexical``: Zhang et al.'s CLP filter (``lexical.weighted_similarity`` >
alpha keeps a link, weight 1); a target not crawled yet stands in with its anchor and block, and
the link is re-weighed when the target arrives. Links whose weight is ≤ the mode's floor are
dropped (None).
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from collections.abc import Sequence

import numpy as np

from rankcrawl.pipelines.site.facts import PageFacts
from rankcrawl.pipelines.site.lexical import stand_in, vocabulary, weighted, weighted_similarity
from rankcrawl.pipelines.site.sketch import mix64, typed_keys

MODES = ("uniform", "block", "lexical")
SCOPES = ("content", "non-template", "all")
BLOCK_FLOOR = 0.05
BETA = 8
"""β: a block class with fewer blocks carries no evidence yet (Oliveira §5.5)."""
Vector = dict[str, dict[str, int]]


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


def class_keys(f: PageFacts) -> tuple[np.ndarray, list[int], dict[int, tuple[int, list[int]]]]:
    """Class-sketch keys of the page's link blocks: (distinct keys, amounts, block → (n_C key,
    n_{t,C} keys)). n_C counts blocks of the class, n_{t,C} blocks of the class holding t."""
    amounts: Counter[int] = Counter()
    per_block: dict[int, tuple[int, list[int]]] = {}
    for b in sorted({b for b in f.link_block if b >= 0}):
        label = int(typed_keys("cls", [f.block_label[b]])[0])
        terms = [int(v) for v in mix64(np.asarray(f.block_terms[b], dtype=np.uint64).reshape(-1) ^ np.uint64(label))]
        amounts[label] += 1
        amounts.update(terms)
        per_block[b] = (label, terms)
    keys = list(amounts)
    return np.array(keys, dtype=np.uint64), [amounts[k] for k in keys], per_block


def block_link_weights(f: PageFacts, counts: dict[int, int], per_block: dict[int, tuple[int, list[int]]],
                       warm: bool) -> list[float | None]:
    """Weight of every link of the page in ``block`` mode (None: at or below BLOCK_FLOOR)."""
    weights: list[float | None] = []
    for b in f.link_block:
        if not warm or b not in per_block:
            weights.append(1.0)
            continue
        label, terms = per_block[b]
        w = block_weight(counts.get(label, 0), [counts.get(t, 0) for t in terms])
        weights.append(w if w > BLOCK_FLOOR else None)
    return weights


class LexicalWeights:
    """CLP weighting over a process-local cache of crawled pages' vectors (bounded)."""

    def __init__(self, alpha: float = 0.0, capacity: int = 50_000) -> None:
        self.alpha, self.capacity = alpha, capacity
        self.vectors: OrderedDict[str, Vector] = OrderedDict()

    def targets(self, f: PageFacts, candidates: list[bool]) -> dict[int, tuple[Vector, bool]]:
        """Per candidate link: the target's vector (crawled) or its stand-in, and whether it stands in."""
        out: dict[int, tuple[Vector, bool]] = {}
        for j, (url, ok) in enumerate(zip(f.links, candidates)):
            if not ok:
                continue
            known = self.vectors.get(url)
            if known is not None:
                out[j] = (known, False)
            else:
                b = f.link_block[j]
                terms = f.stand_in_terms[b] if 0 <= b < len(f.stand_in_terms) else []
                out[j] = (stand_in(f.anchors[j], terms), True)
        return out

    @staticmethod
    def title_filtered(v: Vector, template_terms: set[str]) -> Vector:
        """``v`` without the title terms on ≥ share of the host's pages (its site name)."""
        return {**v, "title": {t: c for t, c in v["title"].items() if t not in template_terms}}

    def weights(self, p: Vector, targets: dict[int, tuple[Vector, bool]], n_links: int, df: dict[str, int],
                n_docs: int) -> list[float | None]:
        """1.0 for links whose similarity exceeds alpha, None otherwise (and for non-candidates)."""
        out: list[float | None] = [None] * n_links
        idf: dict[str, float] = {}
        pw = weighted(p, df, n_docs, idf)
        for j, (q, _) in targets.items():
            out[j] = self.kept(pw, weighted(q, df, n_docs, idf))
        return out

    def weights_to(self, pages: list[Vector], q: Vector, df: dict[str, int], n_docs: int) -> list[float | None]:
        """Per page of ``pages``: the weight of its link to the page whose vector is ``q``."""
        idf: dict[str, float] = {}
        qw = weighted(q, df, n_docs, idf)
        return [self.kept(weighted(p, df, n_docs, idf), qw) for p in pages]

    def kept(self, p: dict[str, dict[str, float]], q: dict[str, dict[str, float]]) -> float | None:
        """1.0 if the ``weighted`` vectors' similarity exceeds alpha, else None."""
        return 1.0 if weighted_similarity(p, q) > self.alpha else None

    def keep(self, url: str, v: Vector) -> None:
        self.vectors[url] = v
        self.vectors.move_to_end(url)
        while len(self.vectors) > self.capacity:
            self.vectors.popitem(last=False)

    @staticmethod
    def terms_of(*vectors: Vector) -> set[str]:
        return set().union(*(vocabulary(v) for v in vectors)) if vectors else set()
