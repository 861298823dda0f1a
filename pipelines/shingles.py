"""w-shingling and min-hash (Broder et al., as used by Bar-Yossef & Rajagopalan §3.2).

Tokens are lower-case ``\\w+`` runs. Each token is hashed to 64 bits once; a w-shingle's hash
combines its w token hashes (vectorised rolling combination), and min-hash applies n seeded
universal hash functions to every shingle hash and keeps each function's minimum.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import numpy as np

TOKEN = re.compile(r"\w+")
MIX = np.uint64(0x9E3779B97F4A7C15)
PRIME = np.uint64(0x100000001B3)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text``."""
    return TOKEN.findall(text.lower())


@lru_cache(maxsize=1 << 16)
def token_hash(token: str) -> int:
    """A stable 64-bit hash of one token."""
    return int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")


def shingle_hashes(toks: list[str], w: int) -> np.ndarray:
    """uint64 hashes of every contiguous w-token window (one window when fewer than w tokens)."""
    if not toks:
        return np.zeros(0, dtype=np.uint64)
    h = np.fromiter((token_hash(t) for t in toks), dtype=np.uint64, count=len(toks))
    w = min(w, len(h))
    n = len(h) - w + 1
    acc = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(w):
            acc = (acc * PRIME) ^ h[j : j + n]
    return np.unique(acc)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: spreads bits so the universal hashes behave like permutations."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


@lru_cache(maxsize=8)
def _coefficients(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, size=n, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    return a, b


def minhash(hashes: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """The n min-hash values (uint64) of a set of shingle hashes; all-max for an empty set."""
    if len(hashes) == 0:
        return np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
    a, b = _coefficients(n, seed)
    with np.errstate(over="ignore"):
        values = _mix(a[:, None] * hashes[None, :] + b[:, None])
    return values.min(axis=1)


def text_shingle(toks: list[str], w: int = 4, seed: int = 0) -> int:
    """One shingle value for a text (a single min-hash over its w-shingles), as the paper uses
    per pagelet: equal for identical texts, equal with probability = Jaccard for similar ones."""
    return int(minhash(shingle_hashes(toks, w), 1, seed)[0])
