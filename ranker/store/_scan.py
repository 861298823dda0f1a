"""Compiled kernels of the bulk import: split edge lines, parse plain weights, recognise URLs
already in normal form, and intern byte strings (exact: a hash hit is confirmed byte by byte).

Everything works on the UTF-8 bytes of a chunk of lines; what a kernel cannot decide exactly
(an unusual line, weight or URL) is flagged for the Python path, which decides it as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NL, TAB, CR, HASH, SLASH, DOT, DASH, COLON = 10, 9, 13, 35, 47, 46, 45, 58
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
POW10 = np.array([10.0**k for k in range(23)])  # exact doubles
MAX_DIGITS = 15  # a mantissa below 10**15 < 2**53 is an exact double: one division rounds correctly


@njit(cache=True, nogil=True)
def split_lines(buf: np.ndarray) -> tuple[np.ndarray, int]:
    """Field bounds of every line of ``buf`` (which ends with a line break): int64[lines, 6]
    (start, end of up to three tab-separated fields) and the field count shared by every line —
    0 when the lines differ in it, hold anything but 2 or 3 fields, a carriage return, or a source
    field that is empty, blank or starts with '#' (the per-line path decides those)."""
    n = 0
    for c in buf:
        if c == NL:
            n += 1
    out = np.zeros((n, 6), dtype=np.int64)
    k = -1
    p = 0
    for line in range(n):
        f = 0
        out[line, 0] = p
        while buf[p] != NL:
            c = buf[p]
            if c == TAB:
                if f == 2:
                    return out, 0
                out[line, 2 * f + 1] = p
                f += 1
                out[line, 2 * f] = p + 1
            elif c == CR:
                return out, 0
            p += 1
        out[line, 2 * f + 1] = p
        p += 1
        if f == 0 or (k >= 0 and f + 1 != k):
            return out, 0
        k = f + 1
        s, e = out[line, 0], out[line, 1]
        if s == e or buf[s] == HASH:
            return out, 0
        blank = True
        for q in range(s, e):
            c = buf[q]
            if not (c == 32 or 9 <= c <= 13 or 28 <= c <= 31 or c >= 128):
                blank = False
                break
        if blank:
            return out, 0
    return out, max(k, 0)


@njit(cache=True, nogil=True)
def parse_weights(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 of plain decimal fields (digits, at most one '.', at most MAX_DIGITS digits), equal
    to Python's float(); the other fields are flagged for it (second array True)."""
    w = np.zeros(len(starts))
    other = np.zeros(len(starts), dtype=np.bool_)
    for i in range(len(starts)):
        mant, digits, frac, dot, ok = 0, 0, 0, False, ends[i] > starts[i]
        for q in range(starts[i], ends[i]):
            c = buf[q]
            if 48 <= c <= 57:
                if digits or c != 48:
                    digits += 1
                mant = mant * 10 + (c - 48) if digits <= MAX_DIGITS else mant
                if dot:
                    frac += 1
            elif c == DOT and not dot:
                dot = True
            else:
                ok = False
                break
        if ok and (digits > MAX_DIGITS or frac > 22 or ends[i] - starts[i] == 1 and dot):
            ok = False
        if ok:
            w[i] = mant / POW10[frac]
        else:
            other[i] = True
    return w, other


@njit(cache=True, nogil=True)
def normal_host_end(buf: np.ndarray, s: int, e: int) -> int:
    """Where the path starts if ``buf[s:e]`` is an http(s) URL already in normal form — a host of
    lower-case labels (LDH, 1–63 characters, no '--': nothing IDNA could change), no port, no
    query, a path of unreserved characters without dot segments; -1 otherwise."""
    if e - s >= 7 and buf[s] == 104 and buf[s + 1] == 116 and buf[s + 2] == 116 and buf[s + 3] == 112:
        p = s + 4
        if buf[p] == 115:
            p += 1
        if p + 3 > e or buf[p] != COLON or buf[p + 1] != SLASH or buf[p + 2] != SLASH:
            return -1
        p += 3
    else:
        return -1
    label, prev = 0, 0
    while p < e and buf[p] != SLASH:
        c = buf[p]
        if c == DOT:
            if label == 0 or prev == DASH:
                return -1
            label = 0
        elif 97 <= c <= 122 or 48 <= c <= 57:
            label += 1
        elif c == DASH:
            if label == 0 or prev == DASH:
                return -1
            label += 1
        else:
            return -1
        if label > 63:
            return -1
        prev = c
        p += 1
    if p == e or label == 0 or prev == DASH:
        return -1
    for q in range(p, e):
        c = buf[q]
        if not (97 <= c <= 122 or 65 <= c <= 90 or 48 <= c <= 57 or c == SLASH or c == DASH or c == 95 or c == 126
                or c == DOT):
            return -1
        if c == DOT and buf[q - 1] == SLASH:
            return -1
    return p


@njit(cache=True, nogil=True)
def host_ends(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``normal_host_end`` of every field."""
    out = np.empty(len(starts), dtype=np.int64)
    for i in range(len(starts)):
        out[i] = normal_host_end(buf, starts[i], ends[i])
    return out


@njit(cache=True, nogil=True)
def _hash(buf: np.ndarray, s: int, e: int) -> np.uint64:
    h = FNV_OFFSET
    for q in range(s, e):
        h = (h ^ np.uint64(buf[q])) * FNV_PRIME
    return h


@njit(cache=True, nogil=True)
def _place(table: np.ndarray, h: np.uint64, v: int) -> None:
    mask = table.shape[0] - 1
    j = np.int64(h & np.uint64(mask))
    while table[j, 1] >= 0:
        j = (j + 1) & mask
    table[j, 0], table[j, 1] = np.int64(h), v


@njit(cache=True, nogil=True)
def rehash(table: np.ndarray, hashes: np.ndarray, n: int) -> None:
    """Place entries 0..n-1 (their ``hashes``) into the empty table (rows: hash, entry; entry -1 = free)."""
    for v in range(n):
        _place(table, hashes[v], v)


@njit(cache=True, nogil=True)
def _equal(a: np.ndarray, i: int, b: np.ndarray, j: int, m: int) -> bool:
    for q in range(m):
        if a[i + q] != b[j + q]:
            return False
    return True


@njit(cache=True, nogil=True)
def intern(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, table: np.ndarray, hashes: np.ndarray,
           arena: np.ndarray, offsets: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Entry numbers of the byte strings ``buf[starts[i]:ends[i]]``: known strings keep theirs, new
    ones get n, n+1, … (bytes appended to ``arena`` at ``offsets``). A string equal to the one
    before it (a source repeated on consecutive lines) is not looked up again. The caller leaves
    room: the table at most half full afterwards, the arena and offsets long enough."""
    out = np.empty(len(starts), dtype=np.int64)
    mask = table.shape[0] - 1
    for i in range(len(starts)):
        s, e = starts[i], ends[i]
        if i and e - s == ends[i - 1] - starts[i - 1] and _equal(buf, s, buf, starts[i - 1], e - s):
            out[i] = out[i - 1]
            continue
        h = _hash(buf, s, e)
        j = np.int64(h & np.uint64(mask))
        while True:
            v = table[j, 1]
            if v < 0:
                table[j, 0], table[j, 1], hashes[n] = np.int64(h), n, h
                a = offsets[n]
                arena[a : a + e - s] = buf[s:e]
                offsets[n + 1] = a + e - s
                out[i] = n
                n += 1
                break
            if table[j, 0] == np.int64(h) and offsets[v + 1] - offsets[v] == e - s and _equal(arena, offsets[v], buf, s, e - s):
                out[i] = v
                break
            j = (j + 1) & mask
    return out, n


@njit(cache=True, nogil=True)
def gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The slices buf[starts[i]:ends[i]] back to back."""
    total = 0
    for i in range(len(starts)):
        total += ends[i] - starts[i]
    out = np.empty(total, dtype=np.uint8)
    p = 0
    for i in range(len(starts)):
        m = ends[i] - starts[i]
        out[p : p + m] = buf[starts[i] : ends[i]]
        p += m
    return out


@njit(cache=True, nogil=True)
def merge_links(src: np.ndarray, dst: np.ndarray, weight: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Links between pages 0..m-1 grouped by source: self-links dropped, links to one target
    merged (weights summed), targets ascending. Returns (ptr int64[m+1], dst, weight float64):
    source u's links are ptr[u]..ptr[u+1]-1 (sources with only a self-link keep an empty range)."""
    count = np.zeros(m + 1, dtype=np.int64)
    for k in range(src.shape[0]):
        count[src[k] + 1] += 1
    for u in range(m):
        count[u + 1] += count[u]
    fill = count[:-1].copy()
    order = np.empty(src.shape[0], dtype=np.int64)
    for k in range(src.shape[0]):
        order[fill[src[k]]] = k
        fill[src[k]] += 1
    ptr = np.zeros(m + 1, dtype=np.int64)
    out_dst = np.empty(src.shape[0], dtype=np.int64)
    out_w = np.empty(src.shape[0])
    n = 0
    for u in range(m):
        lo, hi = count[u], count[u + 1]
        if hi - lo > 32:
            part = order[lo:hi]
            order[lo:hi] = part[np.argsort(dst[part], kind="mergesort")]
        else:
            for a in range(lo + 1, hi):  # insertion sort by target, stable (groups are small)
                x = order[a]
                b = a - 1
                while b >= lo and dst[order[b]] > dst[x]:
                    order[b + 1] = order[b]
                    b -= 1
                order[b + 1] = x
        first = n
        for j in range(lo, hi):
            k = order[j]
            t = dst[k]
            if t == u:
                continue
            if n > first and out_dst[n - 1] == t:
                out_w[n - 1] += weight[k]
            else:
                out_dst[n] = t
                out_w[n] = weight[k]
                n += 1
        ptr[u + 1] = n
    return ptr, out_dst[:n], out_w[:n]
