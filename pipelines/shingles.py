"""w-shingling and min-hash (Broder et al., as used by Bar-Yossef & Rajagopalan §3.2), compiled.

Tokens are lower-case word runs. In the compiled path a text is UTF-8 bytes and a token is a
maximal run of ASCII letters, digits, ``_`` or non-ASCII bytes (``\\w`` up to non-ASCII
punctuation), hashed with FNV-1a (stable across processes and restarts). A w-shingle's hash
combines its w token hashes; min-hash applies n seeded universal hash functions to every
shingle hash and keeps each minimum. Duplicate shingles do not change a minimum, so no set is
built. ``sketch_segments`` does all of this for many segments of one page in one numba call.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from numba import njit

TOKEN = re.compile(r"\w+")
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
PRIME = np.uint64(0x100000001B3)
MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text``."""
    return TOKEN.findall(text.lower())


@njit(cache=True, inline="always")
def _mix(x: np.uint64) -> np.uint64:
    """splitmix64 finaliser: spreads bits so the universal hashes behave like permutations."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _is_word(c: np.uint8) -> bool:
    return bool((c >= 48 and c <= 57) or (c >= 65 and c <= 90) or (c >= 97 and c <= 122) or c == 95 or c >= 128)


@njit(cache=True)
def _token_hashes(buf: np.ndarray, start: int, end: int, out: np.ndarray) -> int:
    """FNV-1a hash of every token of ``buf[start:end]`` into ``out``; the number of tokens."""
    n = 0
    h = FNV_OFFSET
    inside = False
    for i in range(start, end):
        c = buf[i]
        if _is_word(c):
            if not inside:
                h = FNV_OFFSET
                inside = True
            h = (h ^ np.uint64(c)) * FNV_PRIME
        elif inside:
            out[n] = _mix(h)
            n += 1
            inside = False
    if inside:
        out[n] = _mix(h)
        n += 1
    return n


@njit(cache=True)
def _sketch(toks: np.ndarray, n_tok: int, w: int, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Min-hashes (len(a)) of the w-shingles of ``toks[:n_tok]`` (one window when fewer tokens)."""
    k = a.shape[0]
    for j in range(k):
        out[j] = MAX
    if n_tok == 0:
        return
    ww = min(w, n_tok)
    for s in range(n_tok - ww + 1):
        acc = np.uint64(0)
        for t in range(ww):
            acc = (acc * PRIME) ^ toks[s + t]
        for j in range(k):
            v = _mix(a[j] * acc + b[j])
            if v < out[j]:
                out[j] = v


@njit(cache=True)
def _sketch_segments(buf: np.ndarray, offsets: np.ndarray, w: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n_seg = offsets.shape[0] - 1
    out = np.empty((n_seg, a.shape[0]), dtype=np.uint64)
    toks = np.empty(max(1, buf.shape[0] // 2 + 1), dtype=np.uint64)
    for i in range(n_seg):
        n_tok = _token_hashes(buf, offsets[i], offsets[i + 1], toks)
        _sketch(toks, n_tok, w, a, b, out[i])
    return out


@njit(cache=True)
def combine(sketches: np.ndarray) -> np.ndarray:
    """One 63-bit value per row of min-hashes."""
    out = np.empty(sketches.shape[0], dtype=np.int64)
    for i in range(sketches.shape[0]):
        h = np.uint64(0x9E3779B97F4A7C15)
        for j in range(sketches.shape[1]):
            h = _mix(h ^ sketches[i, j])
        out[i] = np.int64(h >> np.uint64(1))
    return out


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


def sketch_segments(texts: list[str], n: int, w: int, seed: int = 0) -> np.ndarray:
    """uint64[len(texts), n]: the n min-hashes of each text's w-shingles (all-max for no token)."""
    if not texts:
        return np.zeros((0, n), dtype=np.uint64)
    buf, offsets = encode_segments(texts)
    a, b = _coefficients(n, seed)
    return _sketch_segments(buf, offsets, w, a, b)


def segment_shingles(texts: list[str], n: int = 4, w: int = 4, seed: int = 0) -> np.ndarray:
    """int64[len(texts)]: one 63-bit shingle per text from n min-hashes of its w-shingles.

    Two texts share it with probability ≈ Jaccardⁿ of their shingle sets (identical texts always).
    """
    return combine(sketch_segments(texts, n, w, seed))


@njit(cache=True)
def _window_hashes(toks: np.ndarray, w: int) -> np.ndarray:
    ww = min(w, toks.shape[0])
    out = np.empty(toks.shape[0] - ww + 1, dtype=np.uint64)
    for s in range(out.shape[0]):
        acc = np.uint64(0)
        for t in range(ww):
            acc = (acc * PRIME) ^ toks[s + t]
        out[s] = acc
    return out


def token_hashes(text: str) -> np.ndarray:
    """uint64 hash of every token of ``text`` (the compiled tokeniser)."""
    buf, _ = encode_segments([text])
    out = np.empty(max(1, len(buf) // 2 + 1), dtype=np.uint64)
    return out[: _token_hashes(buf, 0, len(buf), out)].copy()


def shingle_hashes(toks: list[str], w: int) -> np.ndarray:
    """uint64 hashes of every contiguous w-token window (one window when fewer than w tokens)."""
    h = token_hashes(" ".join(toks))
    return _window_hashes(h, w) if len(h) else np.zeros(0, dtype=np.uint64)


@njit(cache=True)
def _minhash(hashes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.full(a.shape[0], MAX, dtype=np.uint64)
    for s in range(hashes.shape[0]):
        for j in range(a.shape[0]):
            v = _mix(a[j] * hashes[s] + b[j])
            if v < out[j]:
                out[j] = v
    return out


def minhash(hashes: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """The n min-hash values (uint64) of a set of shingle hashes; all-max for an empty set."""
    a, b = _coefficients(n, seed)
    return _minhash(np.ascontiguousarray(hashes, dtype=np.uint64), a, b)


def text_shingle(toks: list[str], w: int = 4, seed: int = 0) -> int:
    """One shingle value for a text (a single min-hash over its w-shingles), as the paper uses
    per pagelet: equal for identical texts, equal with probability = Jaccard for similar ones."""
    return int(minhash(shingle_hashes(toks, w), 1, seed)[0])
