# cython: language_level=3, boundscheck=False, wraparound=False
"""w-shingle min-hashes compiled (optional extension): ``shingles.python_token_hashes``, ``python_sketch_segments``
and ``python_combine`` in C loops over the page's bytes, with the same 64-bit arithmetic, so the same values."""

import numpy as np

from libc.stdint cimport int64_t, uint64_t

cdef uint64_t FNV_OFFSET = 0xCBF29CE484222325
cdef uint64_t FNV_PRIME = 0x100000001B3
cdef uint64_t PRIME = 0x100000001B3
cdef uint64_t MAX = 0xFFFFFFFFFFFFFFFF
cdef uint64_t SEED = 0x9E3779B97F4A7C15
cdef uint64_t MIX_1 = 0xBF58476D1CE4E5B9
cdef uint64_t MIX_2 = 0x94D049BB133111EB


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    """splitmix64 finaliser."""
    x = (x ^ (x >> 30)) * MIX_1
    x = (x ^ (x >> 27)) * MIX_2
    return x ^ (x >> 31)


cdef inline bint _is_word(unsigned char c) noexcept nogil:
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95 or c >= 128


cdef Py_ssize_t _token_hashes(const unsigned char* buf, Py_ssize_t start, Py_ssize_t end, uint64_t* out) noexcept nogil:
    """The mixed FNV-1a hash of every token of ``buf[start:end]`` into ``out``; the number of tokens."""
    cdef Py_ssize_t i, n = 0
    cdef uint64_t h = FNV_OFFSET
    cdef bint inside = False
    cdef unsigned char c
    for i in range(start, end):
        c = buf[i]
        if _is_word(c):
            if not inside:
                h = FNV_OFFSET
                inside = True
            h = (h ^ c) * FNV_PRIME
        elif inside:
            out[n] = _mix(h)
            n += 1
            inside = False
    if inside:
        out[n] = _mix(h)
        n += 1
    return n


def token_hashes(const unsigned char[::1] buf):
    """uint64 hash of every token of ``buf``."""
    out = np.empty(buf.shape[0] // 2 + 1, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t n = _token_hashes(&buf[0] if buf.shape[0] else NULL, 0, buf.shape[0], &o[0])
    return out[:n].copy()


def sketch_segments(const unsigned char[::1] buf, const int64_t[::1] offsets, Py_ssize_t w,
                    const uint64_t[::1] a, const uint64_t[::1] b):
    """uint64[segments, len(a)]: per segment ``buf[offsets[i]:offsets[i + 1]]``, the minimum of
    ``mix(a[j]·s + b[j])`` over its w-token shingle hashes s (one window when fewer tokens; all-max for none)."""
    cdef Py_ssize_t n_seg = offsets.shape[0] - 1, k = a.shape[0], i, j, s, t, n_tok, ww
    sketches = np.empty((n_seg, k), dtype=np.uint64)
    toks_a = np.empty(buf.shape[0] // 2 + 1, dtype=np.uint64)
    shingles_a = np.empty(buf.shape[0] // 2 + 1, dtype=np.uint64)
    cdef uint64_t[:, ::1] out = sketches
    cdef uint64_t[::1] toks_v = toks_a, shingles_v = shingles_a
    cdef uint64_t* toks = &toks_v[0]
    cdef uint64_t* shingles = &shingles_v[0]
    cdef const unsigned char* text = &buf[0] if buf.shape[0] else NULL
    cdef const uint64_t* ca = &a[0] if k else NULL
    cdef const uint64_t* cb = &b[0] if k else NULL
    cdef uint64_t* row
    cdef uint64_t acc, v, low
    cdef Py_ssize_t n_sh
    with nogil:
        for i in range(n_seg):
            row = &out[i, 0] if k else NULL
            for j in range(k):
                row[j] = MAX
            n_tok = _token_hashes(text, offsets[i], offsets[i + 1], toks)
            if n_tok == 0:
                continue
            ww = w if w < n_tok else n_tok
            n_sh = n_tok - ww + 1
            for s in range(n_sh):
                acc = 0
                for t in range(ww):
                    acc = (acc * PRIME) ^ toks[s + t]
                shingles[s] = acc
            for j in range(k):
                low = MAX
                for s in range(n_sh):
                    v = _mix(ca[j] * shingles[s] + cb[j])
                    low = v if v < low else low
                row[j] = low
    return sketches


def combine(const uint64_t[:, ::1] sketches):
    """int64[rows]: one 63-bit value per row of min-hashes."""
    cdef Py_ssize_t i, j
    cdef uint64_t h
    combined = np.empty(sketches.shape[0], dtype=np.int64)
    cdef int64_t[::1] out = combined
    with nogil:
        for i in range(sketches.shape[0]):
            h = SEED
            for j in range(sketches.shape[1]):
                h = _mix(h ^ sketches[i, j])
            out[i] = <int64_t>(h >> 1)
    return combined
