# cython: language_level=3, boundscheck=False, wraparound=False
"""``document.text_stats`` in one pass over a block's text (optional extension).

The same counts as the regular expressions of ``document`` (``NON_WORD_TOKEN``, ``SENTENCE_END``) and
``str.split``/``str.isupper``: white space, letters and digits by CPython's own tables
(``Py_UNICODE_ISSPACE``, ``Py_UNICODE_ISALNUM``, ``Py_UNICODE_ISUPPER``, which ``re`` and ``str`` use),
a sentence end where a run of ``. ? ! ;`` starts, runs on through closing quotes and brackets, and meets
white space or the end.
"""

include "_unicode.pxi"  # CPython's str internals and character tables, shared with the other compiled steps


cdef inline bint _terminal(Py_UCS4 c) noexcept nogil:
    return c == 46 or c == 63 or c == 33 or c == 59  # . ? ! ;


cdef inline bint _closing(Py_UCS4 c) noexcept nogil:
    return c == 34 or c == 39 or c == 0xBB or c == 0x201D or c == 0x2019 or c == 41 or c == 93  # " ' » ” ’ ) ]


cdef Py_ssize_t _sentence_ends(str text, bint first_only):
    """Matches of ``document.SENTENCE_END`` in ``text`` (with ``first_only``: 1 at the first, else 0)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, j, n = len(text), ends = 0
    for i in range(n):
        if not _terminal(PyUnicode_READ(kind, data, i)) or (i > 0 and _terminal(PyUnicode_READ(kind, data, i - 1))):
            continue
        j = i + 1
        while j < n and _terminal(PyUnicode_READ(kind, data, j)):
            j += 1
        while j < n and _closing(PyUnicode_READ(kind, data, j)):
            j += 1
        if j == n or Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, j)):
            ends += 1
            if first_only:
                return 1
    return ends


def text_stats(str text) -> tuple[int, int, int, int, int]:
    """(word characters, sentences, capitalised words, full stops, '|' characters) of ``text``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i = 0, start, n = len(text), word_chars = 0, words = 0, capitals = 0, stops = 0, bars = 0
    cdef bint alnum
    cdef Py_UCS4 c
    while i < n:
        c = PyUnicode_READ(kind, data, i)
        if Py_UNICODE_ISSPACE(c):
            i += 1
            continue
        start = i
        alnum = False
        capitals += Py_UNICODE_ISUPPER(c)
        while i < n:
            c = PyUnicode_READ(kind, data, i)
            if Py_UNICODE_ISSPACE(c):
                break
            if not alnum and Py_UNICODE_ISALNUM(c):
                alnum = True
            if c == 46:
                stops += 1
            elif c == 124:
                bars += 1
            i += 1
        if alnum:
            words += 1
            word_chars += i - start
    sentences = _sentence_ends(text, False)
    if words and not _sentence_ends(text.rstrip()[-4:] + " ", True):
        sentences += 1
    return word_chars, sentences, capitals, stops, bars
