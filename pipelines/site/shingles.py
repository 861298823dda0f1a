"""w-shingling and min-hash (Broder et al., as used by Bar-Yossef & Rajagopalan §3.2).

A text is lower-cased UTF-8 bytes and a token is a maximal run of ASCII letters, digits, ``_`` or
non-ASCII bytes (``\\w`` up to non-ASCII punctuation), hashed with FNV-1a (stable across processes
and restarts). A w-shingle's hash combines its w token hashes; min-hash applies n seeded universal
hash functions to every shingle hash and keeps each minimum. Duplicate shingles do not change a
minimum, so no set is built. ``sketch_segments`` does all of this for many segments of one page in
one call: compiled (``_minhash``) where that extension was built, else the numpy reference
(``python_sketch_segments``), with the same values.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from rankcrawl.pipelines.page.extensions import optional

_minhash = optional("rankcrawl.pipelines.site._minhash")  # None where not built: the numpy reference

TOKEN = re.compile(r"\w+")
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
PRIME = np.uint64(0x100000001B3)
MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
SEED = np.uint64(0x9E3779B97F4A7C15)
WORD = np.array([48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95 or c >= 128 for c in range(256)])
"""Whether each byte value belongs to a token."""
VECTOR_BYTES = 64
"""The reference hashes this many leading bytes of all tokens at once, the rest of a longer token byte by byte."""


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text``."""
    return TOKEN.findall(text.lower())


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: spreads bits so the universal hashes behave like permutations."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@lru_cache(maxsize=8)
def _coefficients(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, size=n, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    return a, b


def encode_segments(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Lower-cased UTF-8 bytes of the texts concatenated, and the segment offsets."""
    parts = [t.lower().encode("utf-8", "replace") for t in texts]
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    return np.frombuffer(b"".join(parts), dtype=np.uint8), offsets


def python_token_hashes(buf: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(uint64 hash of every token of ``buf``, int64 segment of each): tokens end at the segment
    offsets; the reference of the compiled tokeniser."""
    if not len(buf):
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    word = WORD[buf]
    boundary = np.zeros(len(buf) + 1, dtype=bool)
    boundary[offsets] = True
    joined = word[1:] & word[:-1] & ~boundary[1:-1]  # byte i + 1 continues the token of byte i
    starts = np.flatnonzero(word & ~np.concatenate([[False], joined]))
    lengths = np.flatnonzero(word & ~np.concatenate([joined, [False]])) + 1 - starts
    h = np.full(len(starts), FNV_OFFSET, dtype=np.uint64)
    for k in range(min(int(lengths.max(initial=0)), VECTOR_BYTES)):
        at = np.flatnonzero(lengths > k)
        h[at] = (h[at] ^ buf[starts[at] + k]) * FNV_PRIME
    mask = (1 << 64) - 1
    for i in np.flatnonzero(lengths > VECTOR_BYTES).tolist():
        acc = int(h[i])
        for c in buf[starts[i] + VECTOR_BYTES: starts[i] + lengths[i]].tolist():
            acc = ((acc ^ c) * 0x100000001B3) & mask
        h[i] = acc
    return _mix(h), np.searchsorted(offsets, starts, side="right") - 1


def python_sketch_segments(buf: np.ndarray, offsets: np.ndarray, w: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sketch_segments`` of encoded texts in numpy (the reference of the compiled loops)."""
    n_seg = len(offsets) - 1
    toks, seg = python_token_hashes(buf, offsets)
    counts = np.bincount(seg, minlength=n_seg)
    first = np.concatenate([[0], np.cumsum(counts)])[:-1]
    padded = np.concatenate([toks, np.zeros(w, dtype=np.uint64)])
    full = np.flatnonzero(np.arange(len(toks)) + w <= first[seg] + counts[seg])
    short = np.flatnonzero((counts > 0) & (counts < w))
    starts = np.concatenate([full, first[short]])
    sizes = np.concatenate([np.full(len(full), w), counts[short]])
    acc = np.zeros(len(starts), dtype=np.uint64)
    for t in range(w):
        at = np.flatnonzero(sizes > t)
        acc[at] = (acc[at] * PRIME) ^ padded[starts[at] + t]
    order = np.argsort(np.concatenate([seg[full], short]), kind="stable")
    acc = acc[order]
    filled = np.flatnonzero(counts > 0)
    out = np.full((n_seg, len(a)), MAX, dtype=np.uint64)
    if len(acc):
        runs = np.concatenate([[0], np.cumsum(np.where(counts >= w, counts - w + 1, counts > 0))])[filled]
        for j in range(len(a)):
            out[filled, j] = np.minimum.reduceat(_mix(a[j] * acc + b[j]), runs)
    return out


def python_combine(sketches: np.ndarray) -> np.ndarray:
    """``combine`` in numpy (the reference of the compiled loop)."""
    h = np.full(sketches.shape[0], SEED, dtype=np.uint64)
    for j in range(sketches.shape[1]):
        h = _mix(h ^ sketches[:, j])
    return (h >> np.uint64(1)).astype(np.int64)


def combine(sketches: np.ndarray) -> np.ndarray:
    """One 63-bit value (int64) per row of min-hashes."""
    rows = np.ascontiguousarray(sketches, dtype=np.uint64)
    return python_combine(rows) if _minhash is None else _minhash.combine(rows)


def sketch_segments(texts: list[str], n: int, w: int, seed: int = 0) -> np.ndarray:
    """uint64[len(texts), n]: the n min-hashes of each text's w-shingles (all-max for no token)."""
    if w < 1:
        raise ValueError("a shingle has at least one token")
    if not texts:
        return np.zeros((0, n), dtype=np.uint64)
    buf, offsets = encode_segments(texts)
    a, b = _coefficients(n, seed)
    if _minhash is None:
        return python_sketch_segments(buf, offsets, w, a, b)
    return _minhash.sketch_segments(buf, offsets, w, a, b)


def segment_shingles(texts: list[str], n: int = 4, w: int = 4, seed: int = 0) -> np.ndarray:
    """int64[len(texts)]: one 63-bit shingle per text from n min-hashes of its w-shingles.

    Two texts share it with probability ≈ Jaccardⁿ of their shingle sets (identical texts always).
    """
    return combine(sketch_segments(texts, n, w, seed))


def token_hashes(text: str) -> np.ndarray:
    """uint64 hash of every token of ``text``."""
    buf, offsets = encode_segments([text])
    return python_token_hashes(buf, offsets)[0] if _minhash is None else _minhash.token_hashes(buf)
