# cython: language_level=3
"""``blocks.atomic_blocks``'s walk over libxml2's nodes through lxml's C API (optional extension), and the
whole-tree element searches of ``elements`` (by tag, by attribute, overlong hrefs), the section and
hidden-element sieves, and the anchors' texts and word counts in the same way.

The same traversal as ``blocks.python_atomic_blocks`` (``lxml.etree.iterwalk`` with start and end
events): the same elements in the same order (elements, comments, processing instructions and
entity references, as lxml counts them), an element's text and tail as lxml's ``.text`` and
``.tail`` collect them, ``get()``'s attribute values, and the same blocks as ``blocks.new_block``
builds (``_new_block`` counts words, wrapped lines and linked words in one pass over the text). It
differs only in cost: no Python proxy is made for an element unless it owns a block's text or is an
``<a href>``, and tag names are decoded once per page.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t
from libc.string cimport strcmp, strlen, strstr
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Document, _Element, elementFactory, import_lxml__etree

import numpy as np

from rankcrawl.pipelines.page.document import W_MAX, TextBlock, laid_out

import_lxml__etree()


include "_unicode.pxi"  # CPython's str internals and character tables, shared with the other compiled steps


cdef frozenset INVISIBLE = frozenset(
    "script style noscript option template svg iframe head title object embed math canvas datalist".split()
)
cdef int CHECK_EVERY = 1024
cdef dict GAPS = {}
cdef Py_ssize_t MAX_GAPS = 4096
cdef Py_ssize_t WRAP = W_MAX


cdef inline bint _is_element(tree.xmlNode* n) noexcept:
    return (n.type == tree.XML_ELEMENT_NODE or n.type == tree.XML_COMMENT_NODE
            or n.type == tree.XML_ENTITY_REF_NODE or n.type == tree.XML_PI_NODE)


cdef inline tree.xmlNode* _next_element(tree.xmlNode* n) noexcept:
    while n is not NULL and not _is_element(n):
        n = n.next
    return n


cdef inline tree.xmlNode* _text_node(tree.xmlNode* n) noexcept:
    """``n`` if it is a text node (XInclude markers skipped), else NULL: lxml's ``_textNodeOrSkip``."""
    while n is not NULL:
        if n.type == tree.XML_TEXT_NODE or n.type == tree.XML_CDATA_SECTION_NODE:
            return n
        if n.type == tree.XML_XINCLUDE_START or n.type == tree.XML_XINCLUDE_END:
            n = n.next
        else:
            return NULL
    return NULL


cdef inline str _utf8(const char* s):
    return PyUnicode_DecodeUTF8(s, strlen(s), NULL)


cdef inline bint _ascii_space(const unsigned char* s) noexcept:
    """Only ASCII white space (each of which ``str.isspace`` counts) up to the NUL."""
    while s[0] != 0:
        if not (s[0] == 32 or 9 <= s[0] <= 13):
            return False
        s += 1
    return True


cdef str _text(tree.xmlNode* n, bint drop_space):
    """The text of the run of text nodes starting at ``n`` (lxml's ``_collectText``); None when there is
    none, it is empty, or (``drop_space``) it is ASCII white space alone."""
    cdef tree.xmlNode* cur = _text_node(n)
    cdef tree.xmlNode* only = NULL
    cdef int count = 0
    cdef bint space = True
    while cur is not NULL:
        if cur.content is not NULL and cur.content[0] != 0:
            only = cur
            count += 1
            if drop_space and space:
                space = _ascii_space(<const unsigned char*>cur.content)
        cur = _text_node(cur.next)
    if count == 0 or (drop_space and space):
        return None
    if count == 1:
        return _utf8(<const char*>only.content)
    parts = []
    cur = _text_node(n)
    while cur is not NULL:
        if cur.content is not NULL and cur.content[0] != 0:
            parts.append(_utf8(<const char*>cur.content))
        cur = _text_node(cur.next)
    return "".join(parts)


cdef tree.xmlAttr* _attr(tree.xmlNode* n, const char* name) noexcept:
    """``n``'s attribute ``name`` (without namespace), NULL when absent."""
    cdef tree.xmlAttr* a = n.properties
    while a is not NULL and not (a.ns is NULL and strcmp(<const char*>a.name, name) == 0):
        a = a.next
    return a


cdef const char* _one_text(tree.xmlAttr* a) noexcept:
    """The UTF-8 value of ``a``: "" when it has none, NULL when it is an unusual one of several nodes
    (lxml assembles those)."""
    if a.children is NULL:
        return b""
    if a.children.next is NULL and a.children.type == tree.XML_TEXT_NODE and a.children.content is not NULL:
        return <const char*>a.children.content
    return NULL


cdef object _attribute(_Document doc, tree.xmlNode* n, const char* name):
    """``n.get(name)`` for a name without namespace: the value, "" for a value-less attribute, None when
    absent (an unusual value, of several nodes, is left to lxml)."""
    cdef tree.xmlAttr* a = _attr(n, name)
    if a is NULL:
        return None
    cdef const char* value = _one_text(a)
    return _utf8(value) if value is not NULL else elementFactory(doc, n).get(name.decode("ascii"))


cdef _Element _proxy(_Document doc, tree.xmlNode* n):
    return elementFactory(doc, n)


cdef inline _Element _parent_proxy(_Document doc, tree.xmlNode* n):
    """lxml's ``getparent()``: None at the top of the tree."""
    cdef tree.xmlNode* p = n.parent
    if p is NULL or not _is_element(p):
        return None
    return elementFactory(doc, p)


cdef str _attribute_label(object ident, object cls):
    """``blocks.attribute_label``: ``#id.class``, each run of decimal digits (``re``'s ``\\d``) folded to ``N``."""
    cdef str out = "#" + ident.strip() if ident else ""
    if cls:
        out += "." + ".".join(cls.split())
    cdef int kind = PyUnicode_KIND(out)
    cdef void* data = PyUnicode_DATA(out)
    cdef Py_ssize_t i, start = 0, n = len(out)
    cdef list parts = None
    cdef bint digit, in_run = False
    for i in range(n):
        digit = Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, i))
        if digit and not in_run:
            if parts is None:
                parts = []
            parts.append(out[start:i])
            parts.append("N")
        elif in_run and not digit:
            start = i
        in_run = digit
    if parts is None:
        return out
    if not in_run:
        parts.append(out[start:])
    return "".join(parts)


cdef Py_ssize_t _count_words(str text):
    """``blocks.word_count`` of ``text``'s white-space tokens: those holding a letter or digit (``str.isalnum``)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, n = len(text), words = 0
    cdef bint inside = False, alnum = False
    cdef Py_UCS4 c
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if Py_UNICODE_ISSPACE(c):
            words += alnum
            inside = alnum = False
        else:
            inside = True
            if not alnum and Py_UNICODE_ISALNUM(c):
                alnum = True
    return words + (inside and alnum)


cdef object _new_block(list pieces, list linked, object owner, tuple owner_path, set gap, list anchors,
                       bint written):
    """``blocks.new_block``: the words, the greedy ``W_MAX`` word wrap (lines, words on the last) and the
    linked words counted in one pass over the one-space-separated text (``written``: a ``<pre>``'s
    text kept as ``blocks.laid_out``)."""
    cdef str text = " ".join("".join(pieces).split())
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i = 0, j, n = len(text), words = 0, lines = 0, line_len = 0, line_words = 0
    cdef bint alnum
    cdef Py_UCS4 c
    while i < n:
        j = i
        alnum = False
        while j < n:
            c = PyUnicode_READ(kind, data, j)
            if c == 32:
                break
            if not alnum and Py_UNICODE_ISALNUM(c):
                alnum = True
            j += 1
        if lines == 0 or line_len + 1 + (j - i) > WRAP:  # the token opens a line (a longer one is a line alone)
            lines += 1
            line_len, line_words = j - i, 0
        else:
            line_len += 1 + (j - i)
        if alnum:
            words += 1
            line_words += 1
        i = j + 1
    if not words:
        return None
    return TextBlock(laid_out(pieces) if written else text, words, _count_words("".join(linked)) if linked else 0,
                     lines, line_words, owner.tag, owner_path, _interned(frozenset(gap)), tuple(anchors) if anchors else (), owner)


cdef frozenset _interned(frozenset gap):
    """``blocks.interned``: one shared frozenset per distinct gap (a page repeats a few dozen)."""
    cdef object known = GAPS.get(gap)
    if known is not None:
        return <frozenset>known
    if len(GAPS) < MAX_GAPS:
        GAPS[gap] = gap
    return gap


cdef class _Blocks:
    """The blocks found so far and the text collected since the last gap."""

    cdef list blocks, orphans, pieces, linked, anchors, pending
    cdef set gap
    cdef object owner
    cdef tuple owner_path
    cdef int in_link, in_pre

    def __init__(self):
        self.blocks, self.orphans, self.pieces, self.linked, self.anchors, self.pending = [], [], [], [], [], []
        self.gap = set()
        self.owner, self.owner_path, self.in_link, self.in_pre = None, (), 0, 0

    cdef void flush(self, bint written=False):
        """Close the text collected so far into a block (its anchors are orphans when it holds no word)."""
        block = _new_block(self.pieces, self.linked, self.owner, self.owner_path, self.gap, self.anchors, written)
        if block is not None:
            self.blocks.append(block)
            self.gap = set()
        else:
            self.orphans.extend(self.anchors)
        self.pieces.clear()
        self.linked.clear()
        self.anchors.clear()

    cdef void add(self, str text):
        """Collect ``text`` (inside an anchor: also as linked text) and attach the anchors opened before it."""
        self.pieces.append(text)
        if self.in_link:
            self.linked.append(text)
        elif self.linked and self.linked[-1] != " ":
            self.linked.append(" ")
        if self.pending:
            self.anchors.extend(self.pending)
            self.pending.clear()


def atomic_blocks(_Element root, deadline, dict anchor_paths):
    """``blocks.atomic_blocks(root, deadline, anchor_paths)``: (blocks, orphan anchors)."""
    cdef _Document doc = root._doc
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* c = top
    cdef tree.xmlNode* child
    cdef tree.xmlNode* nxt
    cdef long visited = 0
    cdef bint check = deadline is not None
    cdef bint descend
    cdef _Element el, parent
    cdef _Blocks b = _Blocks()
    cdef list paths = [()], counts = [None]
    cdef dict seen, names = {}, labels = {}
    cdef tuple path
    cdef str tag, text, attrs
    while True:
        # ---- start event of c
        if check:
            visited += 1
            if visited % CHECK_EVERY == 0:
                deadline.check("blocks")
        if c.type == tree.XML_ELEMENT_NODE and c.ns is NULL:
            tag = names.get(<size_t>c.name)
            if tag is None:
                tag = names[<size_t>c.name] = _utf8(<const char*>c.name)
        elif c.type == tree.XML_ELEMENT_NODE:
            tag = _proxy(doc, c).tag
        else:
            tag = ""
        seen = counts[-1]
        if seen is None:  # the parent's first child: its tag counts start (a leaf never needs any)
            seen = counts[-1] = {}
        index = seen[tag] = seen.get(tag, 0) + 1
        descend = True
        el = None
        if tag == "a":
            b.in_link += 1
            if c.properties is not NULL and _attribute(doc, c, b"href") is not None:
                el = _proxy(doc, c)
                b.pending.append(el)
        else:
            if b.pieces and not b.in_pre:
                b.flush()
            if not tag or tag in INVISIBLE:
                if tag and not b.in_pre:
                    b.gap.add(tag)
                descend = False
                paths.append(())
                counts.append(seen)
            elif not b.in_pre:
                b.gap.add(tag)
        if descend:
            if c.properties is NULL:
                attrs = ""
            else:
                ident, cls = _attribute(doc, c, b"id"), _attribute(doc, c, b"class")
                key = (ident, cls)
                attrs = labels.get(key)
                if attrs is None:
                    attrs = labels[key] = _attribute_label(ident, cls)
            path = <tuple>paths[-1] + (f"{tag}[{index}]{attrs}",)
            paths.append(path)
            if el is not None and anchor_paths is not None:
                anchor_paths[el] = path
            counts.append(None)
            if tag == "pre":
                b.in_pre += 1
                if b.in_pre == 1:
                    b.owner, b.owner_path = _proxy(doc, c), path
            text = _text(c.children, not b.pieces) if c.type == tree.XML_ELEMENT_NODE else None
            if text is not None and not (not b.pieces and text.isspace()):
                if not b.pieces and not b.in_pre:
                    b.owner, b.owner_path = (el if el is not None else _proxy(doc, c)), path
                b.add(text)
            child = _next_element(c.children) if c.type == tree.XML_ELEMENT_NODE else NULL
            if child is not NULL:
                c = child
                continue
        # ---- end events: of c, then of each ancestor whose last child c was
        while True:
            paths.pop()
            counts.pop()
            if c.type == tree.XML_ELEMENT_NODE and c.ns is NULL:
                tag = names[<size_t>c.name]
            elif c.type == tree.XML_ELEMENT_NODE:
                tag = _proxy(doc, c).tag
            else:
                tag = ""
            if tag == "a":
                b.in_link -= 1
                if b.pending and (<_Element>b.pending[-1])._c_node is c:
                    b.orphans.append(b.pending.pop())
            elif tag == "pre" and b.in_pre > 1:
                b.in_pre -= 1
            elif tag and tag not in INVISIBLE and not b.in_pre or tag == "pre":
                if b.pieces:
                    b.flush(b.in_pre > 0)
                b.in_pre = 0
                b.gap.add(tag)
            text = _text(c.next, not b.pieces)
            if text is not None and not (not b.pieces and text.isspace()):
                parent = None if b.pieces or b.in_pre else _parent_proxy(doc, c)
                if b.pieces or b.in_pre or parent is not None:
                    if parent is not None:
                        b.owner, b.owner_path = parent, paths[-1]
                    b.add(text)
            if c is top:
                if b.pieces:
                    b.flush()
                b.orphans.extend(b.pending)
                return b.blocks, b.orphans
            nxt = _next_element(c.next)
            if nxt is not NULL:
                c = nxt
                break
            c = c.parent


cdef tree.xmlNode* _first_child_element(tree.xmlNode* n) noexcept:
    cdef tree.xmlNode* c = n.children
    while c is not NULL and c.type != tree.XML_ELEMENT_NODE:
        c = c.next
    return c


cdef tree.xmlNode* _next_sibling_element(tree.xmlNode* n) noexcept:
    cdef tree.xmlNode* c = n.next
    while c is not NULL and c.type != tree.XML_ELEMENT_NODE:
        c = c.next
    return c


cdef tree.xmlNode* _after_subtree(tree.xmlNode* c, tree.xmlNode* top) noexcept:
    """The element after ``c``'s subtree in document order within ``top``'s subtree (NULL after the last)."""
    cdef tree.xmlNode* n
    while c is not top:
        n = _next_sibling_element(c)
        if n is not NULL:
            return n
        c = c.parent
    return NULL


cdef tree.xmlNode* _next_element_in(tree.xmlNode* c, tree.xmlNode* top) noexcept:
    """The element after ``c`` in document order within ``top``'s subtree (NULL after the last)."""
    cdef tree.xmlNode* n = _first_child_element(c)
    return n if n is not NULL else _after_subtree(c, top)


def search_page(_Element root, Py_ssize_t max_href, Py_ssize_t max_links):
    """``elements.search_page`` in one pass over the tree (one node costs a cache miss, so every search
    apart costs a whole walk): (titles, bases, meta and script elements, itemtype values, overlong hrefs)."""
    cdef _Document doc = root._doc
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* c = top
    cdef tree.xmlAttr* a
    cdef const char* name
    cdef Py_ssize_t hrefs = 0, anchors = 0
    cdef list titles = [], bases = [], declarations = [], itemtypes = [], overlong = [], extra = []
    while c is not NULL:
        name = <const char*>c.name
        if c.ns is NULL:
            if strcmp(name, b"title") == 0:
                titles.append(_proxy(doc, c))
            elif strcmp(name, b"base") == 0:
                bases.append(_proxy(doc, c))
            elif strcmp(name, b"meta") == 0 or strcmp(name, b"script") == 0:
                declarations.append(_proxy(doc, c))
        a = c.properties
        while a is not NULL:
            if a.ns is NULL and strcmp(<const char*>a.name, b"itemtype") == 0:
                itemtypes.append(_attribute(doc, c, b"itemtype"))
            elif a.ns is NULL and strcmp(<const char*>a.name, b"href") == 0:
                hrefs += 1
                if (a.children is not NULL and (a.children.next is not NULL or a.children.content is NULL
                                                or strlen(<const char*>a.children.content) > <size_t>max_href)
                        and len(_attribute(doc, c, b"href")) > max_href):  # UTF-8 bytes >= characters
                    overlong.append(_proxy(doc, c))
                if c.ns is NULL and strcmp(name, b"a") == 0:
                    anchors += 1
                    if anchors > max_links:
                        extra.append(_proxy(doc, c))
            a = a.next
        c = _next_element_in(c, top)
    if hrefs > max_links and extra:
        seen = set(overlong)
        overlong += [el for el in extra if el not in seen]
    return titles, bases, declarations, itemtypes, overlong


cdef inline unsigned int _next_char(const unsigned char** p) noexcept:
    """The code point at ``p[0]`` (UTF-8 as libxml2 keeps text), moving ``p[0]`` past it; a broken
    sequence reads as U+FFFD (neither white space nor a word character)."""
    cdef const unsigned char* s = p[0]
    cdef unsigned int c = s[0]
    if c < 0x80:
        p[0] = s + 1
    elif 0xC0 <= c < 0xE0 and s[1] != 0:
        c = ((c & 0x1F) << 6) | (s[1] & 0x3F)
        p[0] = s + 2
    elif 0xE0 <= c < 0xF0 and s[1] != 0 and s[2] != 0:
        c = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F)
        p[0] = s + 3
    elif 0xF0 <= c and s[1] != 0 and s[2] != 0 and s[3] != 0:
        c = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F)
        p[0] = s + 4
    else:
        s += 1
        while (s[0] & 0xC0) == 0x80:
            s += 1
        p[0] = s
        c = 0xFFFD
    return c


cdef inline Py_ssize_t _split_words(const unsigned char* s, bint* inside) noexcept:
    """Tokens of ``str.split()`` that start in the UTF-8 text ``s`` (``inside``: a token runs on from before
    and on after)."""
    cdef Py_ssize_t starts = 0
    cdef Py_UCS4 c
    while s[0] != 0:
        c = _next_char(&s)  # once: the macro reads its argument more than once
        if Py_UNICODE_ISSPACE(c):
            inside[0] = False
        elif not inside[0]:
            inside[0] = True
            starts += 1
    return starts


cdef inline Py_ssize_t _word_runs(const unsigned char* s, bint* inside) noexcept:
    """Runs of ``re``'s ``\\w`` (``str.isalnum`` or ``_``) that start in the UTF-8 text ``s`` (``inside``: a
    run goes on from before and on after)."""
    cdef Py_ssize_t starts = 0
    cdef unsigned int c
    while s[0] != 0:
        c = _next_char(&s)
        if not (c == 95 or Py_UNICODE_ISALNUM(<Py_UCS4>c)):
            inside[0] = False
        elif not inside[0]:
            inside[0] = True
            starts += 1
    return starts


cdef Py_ssize_t _anchor_words(tree.xmlNode* top, bint runs) noexcept:
    """``link_features.anchor_word_count``: ``str.split()`` tokens of the text nodes below ``top``, joined
    (``runs``: ``\\w+`` runs instead); -1 if the subtree holds other nodes than elements and text (its
    ``itertext()`` is then not simply its text nodes in order)."""
    cdef tree.xmlNode* c = top.children
    cdef Py_ssize_t words = 0
    cdef bint inside = False
    while c is not NULL and c is not top:
        if c.type == tree.XML_TEXT_NODE:
            if c.content is not NULL:
                if runs:
                    words += _word_runs(<const unsigned char*>c.content, &inside)
                else:
                    words += _split_words(<const unsigned char*>c.content, &inside)
        elif c.type != tree.XML_ELEMENT_NODE:
            return -1
        elif c.children is not NULL:
            c = c.children
            continue
        while c.next is NULL and c.parent is not top:
            c = c.parent
        c = c.next
    return words


cdef Py_ssize_t _element_children(tree.xmlNode* n, tree.xmlNode* like, Py_ssize_t* same) noexcept:
    """``len(n)``; ``same``: its children with ``like``'s tag (no namespace)."""
    cdef tree.xmlNode* c = n.children
    cdef Py_ssize_t count = 0
    same[0] = 0
    while c is not NULL:
        if _is_element(c):
            count += 1
            if c.type == tree.XML_ELEMENT_NODE and c.ns is NULL and strcmp(<const char*>c.name, <const char*>like.name) == 0:
                same[0] += 1
        c = c.next
    return count


def anchor_facts(list anchors):
    """(raw hrefs, anchor words, parent's same-tag siblings, grandparent's children) of each anchor, the
    values of ``link_features``' ``el.get("href")``, ``anchor_word_count`` and ``list_counts``; -1 among
    the words where a subtree holds other nodes than elements and text, and among the counts where the
    parent has a namespace (the caller's Python functions decide those)."""
    cdef Py_ssize_t i, n = len(anchors), same
    words = np.empty(n, dtype=np.int64)
    siblings = np.empty(n, dtype=np.int64)
    children = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] w = words, s = siblings, k = children
    cdef list hrefs = [None] * n
    cdef _Element el
    cdef tree.xmlNode* a
    cdef tree.xmlNode* parent
    cdef tree.xmlNode* grand
    for i in range(n):
        el = <_Element>anchors[i]
        a = el._c_node
        hrefs[i] = _attribute(el._doc, a, b"href")
        w[i] = _anchor_words(a, False)
        parent = a.parent
        grand = parent.parent if parent is not NULL and _is_element(parent) else NULL
        if grand is NULL or not _is_element(grand):
            s[i] = k[i] = 0
        elif parent.type != tree.XML_ELEMENT_NODE or parent.ns is not NULL:
            s[i] = k[i] = -1
        else:
            k[i] = _element_children(grand, parent, &same)
            s[i] = same
    return hrefs, words, siblings, children


cdef enum:
    NAME_BUFFER = 256


cdef int _stem_in(tree.xmlNode* n, const char* name, tuple stems) noexcept:
    """Whether ``n``'s attribute ``name``, lower-cased, contains one of ``stems`` (ASCII bytes): 1 yes, 0 no
    or absent, -1 undecided (a value of several nodes, with non-ASCII bytes, or over ``NAME_BUFFER``)."""
    cdef tree.xmlAttr* a = _attr(n, name)
    cdef const unsigned char* s
    cdef char low[NAME_BUFFER]
    cdef Py_ssize_t i = 0
    cdef unsigned char ch
    if a is NULL:
        return 0
    s = <const unsigned char*>_one_text(a)
    if s is NULL:
        return -1
    while s[i] != 0:
        ch = s[i]
        if ch >= 0x80 or i == NAME_BUFFER - 1:
            return -1
        low[i] = <char>(ch + 32 if 65 <= ch <= 90 else ch)
        i += 1
    low[i] = 0
    for stem in stems:
        if strstr(low, <const char*><bytes>stem) is not NULL:
            return 1
    return 0


def section_sieve(_Element root, tuple stems, tuple roles, test):
    """``after_article.section_candidates`` over libxml2's nodes: the elements strictly below a ``<body>``
    (document order) whose lower-cased id or class contains one of ``stems`` or whose role is one of ``roles``;
    an element whose id or class this cannot read as short ASCII is decided by ``test`` (Python)."""
    cdef _Document doc = root._doc
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* c = top
    cdef tree.xmlNode* body
    cdef tree.xmlNode* n
    cdef tree.xmlAttr* a
    cdef const char* value
    cdef int found
    cdef list out = []
    while c is not NULL:
        if c.ns is not NULL or strcmp(<const char*>c.name, b"body") != 0:
            c = _next_element_in(c, top)
            continue
        body = c
        n = _next_element_in(body, body)
        while n is not NULL:
            if n.properties is not NULL:
                found = _stem_in(n, b"id", stems)
                if found == 0:
                    found = _stem_in(n, b"class", stems)
                a = _attr(n, b"role") if found == 0 else NULL
                if a is not NULL:
                    value = _one_text(a)
                    if value is NULL:
                        found = -1
                    elif any(strcmp(value, <const char*><bytes>role) == 0 for role in roles):
                        found = 1
                if found == 1 or (found == -1 and test(_proxy(doc, n))):
                    out.append(_proxy(doc, n))
            n = _next_element_in(n, body)
        c = _after_subtree(body, top)
    return out


cdef int _style_may_hide(tree.xmlNode* n) noexcept:
    """For ``hidden.CANDIDATES``: whether ``n`` has a ``hidden`` or ``aria-hidden`` attribute or a ``style``
    containing none/hidden (lower, upper or capitalised): 1 yes, 0 no, -1 a style of several nodes."""
    cdef tree.xmlAttr* a = n.properties
    cdef const char* v
    cdef int found = 0
    while a is not NULL:
        if a.ns is NULL:
            if strcmp(<const char*>a.name, b"hidden") == 0 or strcmp(<const char*>a.name, b"aria-hidden") == 0:
                return 1
            if found == 0 and strcmp(<const char*>a.name, b"style") == 0:
                v = _one_text(a)
                if v is NULL:
                    found = -1
                elif (strstr(v, b"none") is not NULL or strstr(v, b"hidden") is not NULL or strstr(v, b"NONE") is not NULL
                            or strstr(v, b"HIDDEN") is not NULL or strstr(v, b"None") is not NULL
                        or strstr(v, b"Hidden") is not NULL):
                    found = 1
        a = a.next
    return found


def hidden_candidates(_Element root, fallback):
    """``hidden.CANDIDATES(root)`` over libxml2's nodes (every element of the document, document order);
    an element whose style this cannot read as one text node is decided by ``fallback`` (Python)."""
    cdef _Document doc = root._doc
    cdef tree.xmlNode* top = doc._c_doc.children
    cdef tree.xmlNode* c
    cdef int found
    cdef list out = []
    while top is not NULL:
        c = top if top.type == tree.XML_ELEMENT_NODE else NULL
        while c is not NULL:
            if c.properties is not NULL:
                found = _style_may_hide(c)
                if found == 1 or (found == -1 and fallback(_proxy(doc, c))):
                    out.append(_proxy(doc, c))
            c = _next_element_in(c, top)
        top = top.next
    return out


def word_runs(list elements):
    """Per element: the ``\\w+`` runs of its subtree's text (``pagelets.element_text``, tail excluded), -1
    where the subtree holds other nodes than elements and text (the caller's Python decides those)."""
    return [_anchor_words((<_Element>e)._c_node, True) for e in elements]


def anchor_texts(list anchors):
    """Per anchor: its subtree's text nodes joined (``"".join(el.itertext())``: comments and processing
    instructions skipped, their tails kept), None where the subtree holds other nodes (the caller's Python
    decides those)."""
    cdef Py_ssize_t i, n = len(anchors)
    cdef list out = [None] * n, parts
    cdef tree.xmlNode* top
    cdef tree.xmlNode* c
    cdef bint ok
    for i in range(n):
        top = (<_Element>anchors[i])._c_node
        c = top.children
        parts = []
        ok = True
        while c is not NULL and c is not top:
            if c.type == tree.XML_TEXT_NODE:
                if c.content is not NULL and c.content[0] != 0:
                    parts.append(_utf8(<const char*>c.content))
            elif c.type == tree.XML_ELEMENT_NODE:
                if c.children is not NULL:
                    c = c.children
                    continue
            elif c.type != tree.XML_COMMENT_NODE and c.type != tree.XML_PI_NODE:
                ok = False
                break
            while c.next is NULL and c.parent is not top:
                c = c.parent
            c = c.next
        if ok:
            out[i] = parts[0] if len(parts) == 1 else "".join(parts)
    return out


cdef bint _href_anchor(_Document doc, tree.xmlNode* n):
    """Whether ``n`` is an ``<a>`` (no namespace) whose ``href`` is present and not empty."""
    if n.ns is not NULL or strcmp(<const char*>n.name, b"a") != 0:
        return False
    cdef tree.xmlAttr* a = _attr(n, b"href")
    if a is NULL:
        return False
    cdef const char* value = _one_text(a)
    return value[0] != 0 if value is not NULL else bool(_attribute(doc, n, b"href"))


def pagelet_parts(_Element root, Py_ssize_t k, bint linked_only):
    """``pagelets.pagelet_elements``' walk and each pagelet's ``<a href>`` elements in one compiled pass:
    (pagelet elements in document order, their anchors, their hrefs joined by a space). Link counts are
    kept per element in document order (with subtree sizes, to step from a child to the next), not in a
    dict. ``linked_only``: pagelets without an anchor are left out."""
    cdef _Document doc = root._doc
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* c = top
    cdef tree.xmlNode* s
    cdef Py_ssize_t n = 0, i, j, sp = 0
    while c is not NULL:
        n += 1
        c = _next_element_in(c, top)
    cdef Py_ssize_t* count = <Py_ssize_t*>PyMem_Malloc(3 * n * sizeof(Py_ssize_t))
    if count is NULL:
        raise MemoryError()
    cdef Py_ssize_t* size = count + n
    cdef Py_ssize_t* stack = size + n
    cdef list found = [], anchors = [], hrefs = [], own, values
    try:
        c, i = top, 0
        while True:   # counts and sizes: pre-order entry, post-order sums into the parent
            count[i] = _href_anchor(doc, c)
            size[i] = 1
            stack[sp] = i
            sp += 1
            i += 1
            s = _first_child_element(c)
            if s is not NULL:
                c = s
                continue
            while True:
                sp -= 1
                if sp > 0:
                    count[stack[sp - 1]] += count[stack[sp]]
                    size[stack[sp - 1]] += size[stack[sp]]
                if c is top:
                    break
                s = _next_sibling_element(c)
                if s is not NULL:
                    c = s
                    break
                c = c.parent
            if sp == 0:
                break
        c, i = top, 0
        while c is not NULL:   # Figure 3: descend while a child holds >= k links, else a pagelet
            if count[i] >= k:
                s, j = _first_child_element(c), i + 1
                while s is not NULL and count[j] < k:
                    j += size[j]
                    s = _next_sibling_element(s)
                if s is not NULL:
                    c, i = _first_child_element(c), i + 1
                    continue
            if count[i] or not linked_only:
                own, values = [], []
                s = c if count[i] else NULL
                while s is not NULL:
                    if _href_anchor(doc, s):
                        own.append(_proxy(doc, s))
                        values.append(_attribute(doc, s, b"href"))
                    s = _next_element_in(s, c)
                found.append(_proxy(doc, c))
                anchors.append(own)
                hrefs.append(" ".join(values))
            i += size[i]
            c = _after_subtree(c, top)
    finally:
        PyMem_Free(count)
    return found, anchors, hrefs
