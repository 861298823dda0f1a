"""What a block's DOM ancestry and the page's markup say about its role (page-type aware features).

A DOM-path label (``tag[i]#id.class``) is split into lower-case word tokens (``post-body`` →
``post``, ``body``; ``mainContent`` → ``main``, ``content``); each ``ROLES`` entry is a set of
tag names and tokens, and a path has a role when one of its labels below ``<body>`` matches.
The page's own type hints come from ``<body>``'s classes (``single-post``, ``archive`` …),
``og:type`` and schema.org ``@type``s in JSON-LD or ``itemtype``: ``PAGE_TYPES``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from typing import Any

import numpy as np

from rankcrawl.pipelines.page.elements import PageSearch, search_page
from rankcrawl.pipelines.page.extensions import optional

_tokens = optional("rankcrawl.pipelines.page._tokens")  # None where not built: the regular expressions alone

ROLES: dict[str, frozenset[str]] = {
    "nav": frozenset("nav menu menus navbar navigation breadcrumb breadcrumbs topnav subnav skip dropdown".split()),
    "header": frozenset("header masthead banner topbar".split()),
    "footer": frozenset("footer copyright legal colophon bottom".split()),
    "aside": frozenset("aside sidebar side rail widget widgets complementary".split()),
    "social": frozenset("share sharing social follow facebook twitter whatsapp pinterest linkedin".split()),
    "comment": frozenset("comment comments disqus respond discussion replies".split()),
    "related": frozenset("related recommended recommendations popular trending teaser teasers more promo "
                         "suggested outbrain taboola".split()),
    "meta": frozenset("byline author date time meta tags tag category categories posted published".split()),
    "form": frozenset("form input button select label search login signup subscribe newsletter cookie "
                      "consent modal popup".split()),
    "article": frozenset("article main content contents post entry story blog body text prose markdown "
                         "richtext article-body".split()),
    "listing": frozenset("list listing listings results grid items cards card feed archive catalog "
                         "collection products tiles".split()),
    "product": frozenset("product products price cart buy sku offer shop".split()),
    "thread": frozenset("thread topic topics message messages reply answer answers question forum "
                        "posts postbody".split()),
    "toc": frozenset("toc contents index glossary sitemap directory chapters summary".split()),
    "table": frozenset("table tbody tr td th dl dt dd".split()),
    "list": frozenset("ul ol li".split()),
}
ROLE_NAMES: tuple[str, ...] = tuple(ROLES)
PAGE_TYPES: dict[str, frozenset[str]] = {
    "article": frozenset("article newsarticle blogposting reportagenewsarticle single post single-post "
                         "postid".split()),
    "product": frozenset("product offer productgroup woocommerce single-product".split()),
    "listing": frozenset("itemlist collectionpage searchresultspage archive category tag search blog home "
                         "catalog".split()),
    "forum": frozenset("discussionforumposting qapage question answer forum topic thread".split()),
    "docs": frozenset("techarticle apireference howto documentation docs".split()),
}
PAGE_TYPE_NAMES: tuple[str, ...] = tuple(PAGE_TYPES)
LABEL = re.compile(r"^([^\[]*)\[\d+\](.*)$")
CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
TOKEN = re.compile(r"[a-z]+")
CASED = re.compile(r"[A-Z]+[a-z]*|[a-z]+")
"""An ASCII text's ``tokens`` before lower-casing: a camelCase split letter run is upper-case
letters then lower-case ones."""
LD_TYPE = re.compile(r'"@type"\s*:\s*\[?\s*"([^"]+)"')
SCHEMA_TYPE = re.compile(r"schema\.org/(\w+)")
INDEX = re.compile(r"\[\d+\]")


def tokens(text: str) -> set[str]:
    """Lower-case letter runs of ``text``, camelCase split (``mainContent`` → main, content)."""
    if text.isascii():
        return set(map(str.lower, CASED.findall(text)))
    return set(TOKEN.findall(CAMEL.sub(" ", text).lower()))


TOKEN_ROLES: dict[str, int] = {}
for _bit, _words in enumerate(ROLES.values()):
    for _word in _words:
        TOKEN_ROLES[_word] = TOKEN_ROLES.get(_word, 0) | 1 << _bit


@lru_cache(maxsize=65536)
def label_roles(label: str) -> int:
    """Bit mask over ``ROLE_NAMES`` of one DOM-path label (its tag, id and class tokens)."""
    m = LABEL.match(label)
    tag, attrs = (m.group(1), m.group(2)) if m else (label, "")
    mask = TOKEN_ROLES.get(tag, 0)
    if attrs:
        for token in tokens(attrs):
            mask |= TOKEN_ROLES.get(token, 0)
    return mask


@lru_cache(maxsize=1 << 16)
def index_free(label: str) -> str:
    """One DOM-path label without its sibling indices (cached: a page's paths share their labels)."""
    return INDEX.sub("", label)


def label_facts(labels: list[str]) -> tuple[list[int], list[str]]:
    """(``label_roles``, ``index_free``) of each label: compiled (``_tokens``) where that extension was
    built, the regular expressions for the labels it leaves (and everywhere else)."""
    if _tokens is None:
        return list(map(label_roles, labels)), list(map(index_free, labels))
    masks, frees = _tokens.label_facts(labels, TOKEN_ROLES)
    for i in (i for i, free in enumerate(frees) if free is None):
        masks[i] = label_roles(labels[i])
    return masks, [index_free(label) if free is None else free for label, free in zip(labels, frees)]


def number_paths(paths: list[tuple[str, ...]], numbers: dict[str, int]) -> tuple[np.ndarray, list[str]]:
    """(int64[len(paths), max(longest, 1)] of the paths' label numbers, -1 past each path's end; the labels
    numbered now, in order), each label not in ``numbers`` given the next number there."""
    flat = list(chain.from_iterable(paths))
    new = [label for label in dict.fromkeys(flat) if label not in numbers]
    numbers.update(zip(new, range(len(numbers), len(numbers) + len(new))))
    lengths = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
    codes = np.full((len(paths), max(int(lengths.max(initial=0)), 1)), -1, dtype=np.int64)
    codes[np.arange(codes.shape[1]) < lengths[:, None]] = np.fromiter(map(numbers.__getitem__, flat), dtype=np.int64,
                                                                       count=len(flat))
    return codes, new


class PathCodes:
    """A page's DOM paths as int arrays: every distinct label numbered once, with its role mask and
    the number of its index-free form, so the prefixes, roles and index-free forms of many paths
    are array operations (``blockstats.common_prefixes``, ``roles``, ``index_free``)."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self._roles: list[int] = []
        self._free: list[int] = []
        self._free_numbers: dict[str, int] = {}
        self._last: tuple[Sequence[tuple[str, ...]], np.ndarray] = ((), np.zeros((0, 1), dtype=np.int64))

    def __call__(self, paths: Sequence[tuple[str, ...]]) -> np.ndarray:
        """int64[len(paths), max(longest, 1)]: the paths' label numbers, -1 past each path's end (the
        last call's kept: the block and the link model both code the blocks' paths). Read-only."""
        if paths == self._last[0]:
            return self._last[1]
        codes, new = (number_paths if _tokens is None else _tokens.number_paths)(list(paths), self.numbers)
        masks, frees = label_facts(new)
        self._roles += masks
        self._free += [self._free_numbers.setdefault(free, len(self._free_numbers)) for free in frees]
        codes.flags.writeable = False
        self._last = (paths, codes)
        return codes

    def roles(self, codes: np.ndarray) -> np.ndarray:
        """int64[n]: role masks of coded paths: the OR of their ``label_roles`` below ``<body>``."""
        table = np.array([*self._roles, 0], dtype=np.int64)   # -1, past the end: no role
        return np.bitwise_or.reduce(table[codes[:, 2:]], axis=1)

    def index_free(self, codes: np.ndarray) -> np.ndarray:
        """Coded paths' index-free forms (``index_free`` labels), -1 past the end: equal rows for paths
        that differ in sibling indices only (the items of one list or grid)."""
        return np.array([*self._free, -1], dtype=np.int64)[codes]


def role_matrix(masks: list[int] | np.ndarray) -> np.ndarray:
    """float64[n, len(ROLE_NAMES)]: the bits of each mask."""
    m = np.asarray(masks, dtype=np.int64).reshape(-1, 1)
    return ((m >> np.arange(len(ROLE_NAMES))) & 1).astype(np.float64)


def type_declarations(found: PageSearch) -> list[str]:
    """og:type, JSON-LD and microdata type declarations of the page searched (in no particular order):
    the ``itemtype`` values, then the ``<meta>`` and ``<script>`` ones."""
    out = list(found.itemtypes)
    for el in found.declarations:
        if el.tag == "meta":
            if el.get("property") == "og:type" and (content := el.get("content")) is not None:
                out.append(content)
        elif el.get("type") == "application/ld+json":
            out += el.xpath("text()", smart_strings=False)
    return out


def declarations(root: Any, found: PageSearch | None = None) -> tuple[set[str], set[str]]:
    """The lower-case words the page declares its type with, in two strengths: ``(stated, class_words)``.
    ``stated``: og:type, the schema.org types (JSON-LD, microdata) and ``<body>``'s whole class names
    (``single-post``, ``archive``); ``class_words``: the letter runs of ``<body>``'s class names
    (``postid-12`` → ``postid``), which themes and plugins also fill with words that do not describe the
    page (WooCommerce's ``woocommerce-no-js`` on every page of a site with a shop, a Squarespace
    blog's ``tweak-product-…`` style switches). ``found``: the page's ``elements.search_page`` (made here
    when not given)."""
    stated: set[str] = set()
    class_words: set[str] = set()
    if root is not None:
        body = root.find("body")
        if body is not None:
            classes = body.get("class") or ""
            stated |= set(classes.lower().split())
            class_words = tokens(classes)
        for value in type_declarations(found if found is not None else search_page(root)):
            if value.lstrip().startswith(("{", "[")):
                stated |= {t.lower() for t in LD_TYPE.findall(value[:20000])}
            elif "schema.org" in value:
                stated |= {t.lower() for t in SCHEMA_TYPE.findall(value)}
            else:
                stated.add(value.strip().lower())
    return stated, class_words


def declared_words(root: Any, found: PageSearch | None = None) -> set[str]:
    """Lower-case words the page declares its type with: ``<body>``'s classes (whole and split), og:type
    and schema.org types (both ``declarations``); ``found``: the page's ``elements.search_page`` (made
    here when not given)."""
    stated, class_words = declarations(root, found)
    return stated | class_words


def type_hints(words: set[str]) -> np.ndarray:
    """float64[len(PAGE_TYPE_NAMES)]: whether ``declared_words`` name each of ``PAGE_TYPES``."""
    return np.array([float(bool(words & kinds)) for kinds in PAGE_TYPES.values()])


def page_type_hints(root: Any, found: PageSearch | None = None) -> np.ndarray:
    """float64[len(PAGE_TYPE_NAMES)]: page types named by ``<body>``'s classes, og:type or schema.org types;
    ``found``: the page's ``elements.search_page`` (made here when not given)."""
    return type_hints(declared_words(root, found))


class PageContext:
    """What page-level features need besides the blocks: the tree, URL, anchors' DOM paths, and the
    tree's search (``elements.search_page``) where the parse made it.

    The paths' labels are numbered once (``codes``) and the page-type hints computed once.
    """

    def __init__(self, root: Any = None, url: str | None = None,
                 anchor_paths: dict[Any, tuple[str, ...]] | None = None, search: PageSearch | None = None) -> None:
        self.root, self.url, self.search = root, url, search
        self.anchor_paths = anchor_paths if anchor_paths is not None else {}
        self.codes = PathCodes()
        self._declarations: tuple[set[str], set[str]] | None = None
        self._declared: set[str] | None = None
        self._page_types: np.ndarray | None = None

    @property
    def declarations(self) -> tuple[set[str], set[str]]:
        """``declarations`` of the page: (stated, class_words)."""
        if self._declarations is None:
            self._declarations = declarations(self.root, self.search)
        return self._declarations

    @property
    def declared(self) -> set[str]:
        """``declared_words`` of the page."""
        if self._declared is None:
            stated, class_words = self.declarations
            self._declared = stated | class_words
        return self._declared

    @property
    def page_types(self) -> np.ndarray:
        """``page_type_hints`` of the page."""
        if self._page_types is None:
            self._page_types = type_hints(self.declared)
        return self._page_types
