# cython: language_level=3, boundscheck=False, wraparound=False
"""Words in short strings, compiled (optional extension): the numbers, role masks and index-free forms of
DOM-path labels (``dom_features.PathCodes``, ``label_roles``, ``index_free``) and the account, social and
taxonomy words of hrefs (``link_features.href_words``). The same results as the regular expressions, without a call of the regular
expression engine per label or href (a page has hundreds of each, and only the rare unusual one is left
to the Python functions: -1 or None)."""

import numpy as np

from libc.stdint cimport int64_t
from libc.string cimport memcmp

include "_unicode.pxi"  # CPython's str internals and character tables, shared with the other compiled steps


def label_facts(list labels, dict token_roles):
    """(role masks, index-free labels) of ``tag[i]#id.class`` labels: ``dom_features.label_roles`` and
    ``index_free`` of each, or (-1, None) for a label that is not ASCII, holds a line break, or does not
    read ``tag[digits]…`` (the regular expressions decide those)."""
    cdef Py_ssize_t k, i, j, n, open_at
    cdef str label, token
    cdef const unsigned char* s
    cdef unsigned char c
    cdef long mask
    cdef list masks = [], frees = []
    for label in labels:
        n = len(label)
        if not label.isascii() or "\n" in label:
            masks.append(-1)
            frees.append(None)
            continue
        s = <const unsigned char*>PyUnicode_DATA(label)
        open_at = label.find("[")
        j = open_at + 1
        while open_at >= 0 and j < n and 48 <= s[j] <= 57:
            j += 1
        if open_at < 0 or j == open_at + 1 or j >= n or s[j] != 93:  # not tag[digits]…
            masks.append(-1)
            frees.append(None)
            continue
        mask = token_roles.get(label[:open_at], 0)
        i = j + 1
        while i < n:  # the tokens of the #id.class part: [A-Z]+[a-z]* or [a-z]+, lower-cased
            c = s[i]
            if 65 <= c <= 90 or 97 <= c <= 122:
                j = i
                while j < n and 65 <= s[j] <= 90:
                    j += 1
                while j < n and 97 <= s[j] <= 122:
                    j += 1
                token = label[i:j].lower()
                mask |= token_roles.get(token, 0)
                i = j
            else:
                i += 1
        masks.append(mask)
        frees.append(_index_free(label, s, n))
    return masks, frees


cdef str _index_free(str label, const unsigned char* s, Py_ssize_t n):
    """``label`` less each ``[digits]``."""
    cdef Py_ssize_t i = 0, j, start = 0
    cdef list parts = None
    while i < n:
        if s[i] == 91:
            j = i + 1
            while j < n and 48 <= s[j] <= 57:
                j += 1
            if j > i + 1 and j < n and s[j] == 93:
                if parts is None:
                    parts = []
                parts.append(label[start:i])
                i = start = j + 1
                continue
        i += 1
    if parts is None:
        return label
    parts.append(label[start:])
    return "".join(parts)


DEF MAX_WORDS = 64


cdef class Words:
    """A fixed list of lower-case ASCII words (at most ``MAX_WORDS``), as C strings."""

    cdef list kept
    cdef const unsigned char* words[MAX_WORDS]
    cdef Py_ssize_t sizes[MAX_WORDS]
    cdef Py_ssize_t count
    cdef bint first[256]

    def __init__(self, words):
        self.kept = [word.encode("ascii") for word in words]
        if len(self.kept) > MAX_WORDS:
            raise ValueError(f"at most {MAX_WORDS} words")
        self.count = len(self.kept)
        cdef Py_ssize_t i
        cdef bytes w
        for i in range(256):
            self.first[i] = False
        for i in range(self.count):
            w = self.kept[i]
            self.words[i] = <const unsigned char*>w
            self.sizes[i] = len(w)
            self.first[self.words[i][0]] = True

    cdef inline bint at(self, const unsigned char* s, Py_ssize_t n, Py_ssize_t p, int follow) noexcept:
        """A word starts at ``p`` of ``s[:n]`` and is followed by: (``follow`` 0) anything, (1) no word
        character (``re``'s ``\\b``), (2) ``/``, ``?`` or the end (``(/|$|\\?)``)."""
        cdef Py_ssize_t i, m, e
        if p >= n or not self.first[s[p]]:
            return False
        for i in range(self.count):
            m = self.sizes[i]
            if self.words[i][0] != s[p] or p + m > n or memcmp(s + p, self.words[i], m) != 0:
                continue
            e = p + m
            if follow == 0:
                return True
            if follow == 1 and (e == n or not _word_char(s[e])):
                return True
            if follow == 2 and (e == n or s[e] == 47 or s[e] == 63 or (e == n - 1 and s[e] == 10)):
                return True
        return False


cdef inline bint _word_char(unsigned char c) noexcept:
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95


def href_words(Words account, Words social, Words taxonomy, str lower):
    """(account, social, taxonomy) of a lower-cased ASCII ``href``: an ``account`` word between word
    boundaries, a ``social`` word anywhere, a ``taxonomy`` word after ``/`` and before ``/``, ``?`` or the end."""
    cdef const unsigned char* s = <const unsigned char*>PyUnicode_DATA(lower)
    cdef Py_ssize_t p, n = len(lower)
    cdef bint a = False, so = False, t = False
    for p in range(n):
        if not a and _word_char(s[p]) and (p == 0 or not _word_char(s[p - 1])) and account.at(s, n, p, 1):
            a = True
        if not so and social.at(s, n, p, 0):
            so = True
        if not t and s[p] == 47 and taxonomy.at(s, n, p + 1, 2):
            t = True
    return float(a), float(so), float(t)


def number_paths(list paths, dict numbers):
    """(int64[len(paths), max(longest, 1)] of the paths' label numbers, -1 past each path's end; the labels
    numbered now, in order): ``dom_features.PathCodes``' coding, each label not in ``numbers`` given the
    next number there."""
    cdef Py_ssize_t i, j, width = 1, n = len(paths)
    cdef object path
    cdef list new = []
    for path in paths:
        if len(path) > width:
            width = len(path)
    codes = np.full((n, width), -1, dtype=np.int64)
    cdef int64_t[:, ::1] c = codes
    cdef object number
    for i in range(n):
        path = paths[i]
        for j in range(len(path)):
            label = path[j]
            number = numbers.get(label)
            if number is None:
                number = numbers[label] = len(numbers)
                new.append(label)
            c[i, j] = number
    return codes, new
