# cython: language_level=3, boundscheck=False, wraparound=False
"""Linear scans of a page's bytes before parsing (optional extension): is it UTF-8 (``utf8_length``, for
``decoding.decode_html``), does it hold control characters (``has_control``), and can any tag have too
many attributes (``long_tag_possible``)?

``cap_attributes`` tokenises the whole page with a regular expression to find tags of over ``limit``
attributes, and almost no page has one. This check runs the same tag grammar (``parsing._TAG_NAME``,
``_NEXT_ATTRIBUTE``) from *every* ``<`` that can open a tag, in or out of text, comments and raw text,
so it sees every tag the tokeniser sees, and some it does not: False means the tokeniser finds no long
tag and ``parse_html`` skips it; True (also when the overlapping scans pass a work bound of eight
times the page) means "run the tokeniser".
"""

from libc.string cimport memchr


cdef inline bint _space(unsigned char c) noexcept nogil:
    return c == 32 or c == 10 or c == 9 or c == 13 or c == 12


cdef inline bint _letter(unsigned char c) noexcept nogil:
    return (65 <= c <= 90) or (97 <= c <= 122)


def long_tag_possible(const unsigned char[::1] data, Py_ssize_t limit) -> bool:
    """False only if no tag of the page (its UTF-8 bytes ``data``; as ``parsing.cap_attributes`` tokenises
    the page's text) has over ``limit`` attributes. Every special character of the grammar is ASCII, so
    bytes and text tokenise alike."""
    cdef Py_ssize_t n = data.shape[0]
    if n == 0:
        return False
    cdef const unsigned char* s = &data[0]
    cdef const unsigned char* hit
    cdef Py_ssize_t budget = 8 * n + 65536
    cdef Py_ssize_t i = 0, pos, q, count
    cdef unsigned char c, quote
    while i < n - 1:
        hit = <const unsigned char*>memchr(s + i, 60, n - 1 - i)  # the next "<" that is not the last byte
        if hit == NULL:
            return False
        i = hit - s
        pos = i + 1
        i += 1
        if s[pos] == 47 and pos + 1 < n:  # "</"
            pos += 1
        if not _letter(s[pos]):
            continue
        pos += 1
        while pos < n and not (_space(s[pos]) or s[pos] == 47 or s[pos] == 62):  # the rest of the tag name
            pos += 1
        count = 0
        while True:
            while pos < n and (_space(s[pos]) or s[pos] == 47):  # separators
                pos += 1
            if pos >= n or s[pos] == 62:  # ">" or the end: the tag is complete
                break
            count += 1
            if count > limit:
                return True
            pos += 1  # an attribute name's first character may be "="
            while pos < n and not (_space(s[pos]) or s[pos] == 47 or s[pos] == 62 or s[pos] == 61):
                pos += 1
            q = pos
            while q < n and _space(s[q]):
                q += 1
            if q < n and s[q] == 61:  # "=": a value, maybe empty
                q += 1
                while q < n and _space(s[q]):
                    q += 1
                if q < n and (s[q] == 34 or s[q] == 39):  # a quoted value runs to its closing quote, or to the end
                    quote = s[q]
                    hit = <const unsigned char*>memchr(s + q + 1, quote, n - q - 1)
                    q = n if hit == NULL else hit - s + 1
                else:
                    while q < n and not (_space(s[q]) or s[q] == 62):
                        q += 1
                pos = q
        budget -= pos - i
        if budget < 0:
            return True
    return False


def utf8_length(const unsigned char[::1] data, bint truncated) -> int:
    """How many bytes of ``data`` Python's strict UTF-8 decoder turns into text: all (-1 if it fails), or,
    if ``truncated``, all but a valid start of a sequence cut at the end (the incremental decoder's pending
    bytes). The well-formed sequences of Unicode's Table 3-7, as CPython's decoder checks them, without
    building the text."""
    cdef Py_ssize_t n = data.shape[0], i = 0, k, need
    cdef unsigned char c, lo, hi
    while i < n:
        c = data[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            need = 1
        elif c == 0xE0:
            need, lo = 2, 0xA0
        elif c == 0xED:
            need, hi = 2, 0x9F
        elif 0xE1 <= c <= 0xEF:
            need = 2
        elif c == 0xF0:
            need, lo = 3, 0x90
        elif c == 0xF4:
            need, hi = 3, 0x8F
        elif 0xF1 <= c <= 0xF3:
            need = 3
        else:
            return -1
        if c == 0xED and truncated and i + 2 >= n:
            hi = 0xBF  # CPython leaves a cut surrogate's two bytes pending rather than failing
        for k in range(1, need + 1):
            if i + k >= n:
                return i if truncated else -1
            if not ((lo <= data[i + k] <= hi) if k == 1 else (0x80 <= data[i + k] <= 0xBF)):
                return -1
        i += need + 1
    return n


def has_control(const unsigned char[::1] data) -> bool:
    """Whether ``data`` holds a byte of ``parsing.CONTROL_BYTES`` (C0 controls but tab, line feed and
    carriage return)."""
    cdef Py_ssize_t i, n = data.shape[0]
    cdef unsigned char c
    for i in range(n):
        c = data[i]
        if c < 0x20 and c != 0x09 and c != 0x0A and c != 0x0D:
            return True
    return False
