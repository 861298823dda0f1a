"""Content Lexical and Positional link filtering, CLP (Zhang et al., §4.3–4.4).

A page is three positional term vectors — title, first sentence (Ds1), the rest — each the
M = 7 terms with the highest TF-IDF = f(w)·log(N/|D(w)|) (Eq. 1), N and D(w) counted over the
crawl so far. Per position the cosine (Eq. 2); the page similarity is the non-linear model
sim(P, Q) = Σ_i λ_i f_i(sim_i)·sim_i (Eq. 4) with f1(n) = n/(n+1) on the title and the other
positions linear (f ≡ 1), as the experiments do, and λ = 4:4:2 (Title:Ds1:rest, Section 4.3)
normalised to sum 1. A link is kept when sim > alpha (α = 0 in the experiments).
Terms are lower-case alphabetic tokens of ≥ 3 letters (the paper keeps POS-tagged nouns/verbs).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping

POSITIONS = ("title", "first", "rest")
LAMBDA = {"title": 0.4, "first": 0.4, "rest": 0.2}
M = 7
KEEP_TF = 30
TERM = re.compile(r"[^\W\d_]{3,}")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def terms(text: str) -> list[str]:
    """Lower-case alphabetic terms of ≥ 3 letters."""
    return TERM.findall(text.lower())


def position_tfs(title: str, text: str) -> dict[str, dict[str, int]]:
    """Term frequencies per position (the KEEP_TF most frequent of each, enough for top-M)."""
    parts = SENTENCE_END.split(text.strip(), maxsplit=1)
    first, rest = parts[0], parts[1] if len(parts) > 1 else ""
    return {p: dict(Counter(terms(t)).most_common(KEEP_TF)) for p, t in zip(POSITIONS, (title, first, rest))}


def stand_in(anchor: str, block_terms: list[str]) -> dict[str, dict[str, int]]:
    """Vectors for a page not crawled yet: its anchor text as title, its link's block as the rest."""
    return {"title": dict(Counter(terms(anchor))), "first": {}, "rest": dict(Counter(block_terms))}


def tfidf(tf: Mapping[str, int], df: Mapping[str, int], n_docs: int,
          idf: dict[str, float] | None = None) -> dict[str, float]:
    """The top-M TF-IDF vector (Eq. 1) of one position; unseen terms count as DF 1. ``idf`` caches
    log((N + 1)/|D(w)|) per term across the calls of one ``df``."""
    n = max(n_docs, 1)
    cache: dict[str, float] = {} if idf is None else idf
    scored = {}
    for t, f in tf.items():
        w = cache.get(t)
        if w is None:
            w = cache[t] = math.log((n + 1) / df.get(t, 1))
        scored[t] = f * w
    return dict(sorted(scored.items(), key=lambda kv: -kv[1])[:M])


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Eq. 2."""
    dot = sum(v * b.get(t, 0.0) for t, v in a.items())
    na, nb = math.sqrt(sum(v * v for v in a.values())), math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def weighted(v: Mapping[str, Mapping[str, int]], df: Mapping[str, int], n_docs: int,
             idf: dict[str, float] | None = None) -> dict[str, dict[str, float]]:
    """The page's top-M TF-IDF vector per position (compute once, compare with many pages)."""
    return {pos: tfidf(v.get(pos, {}), df, n_docs, idf) for pos in POSITIONS}


def weighted_similarity(p: Mapping[str, Mapping[str, float]], q: Mapping[str, Mapping[str, float]]) -> float:
    """sim(P, Q), Eq. 4, of two ``weighted`` vectors."""
    total = 0.0
    for pos in POSITIONS:
        s = cosine(p[pos], q[pos])
        f = s / (s + 1) if pos == "title" else 1.0
        total += LAMBDA[pos] * f * s
    return total


def vocabulary(tfs: Mapping[str, Mapping[str, int]]) -> set[str]:
    """Terms of a page that count towards document frequencies."""
    return {t for pos in tfs.values() for t in pos}
