"""Whole-tree element searches (by tag, by attribute), run by the compiled walk where it was built.

lxml's ``iter(tag)`` and XPath walk libxml2's nodes in C too, but every search pays about 0.2 µs per
element of the tree, and the analysis searches the tree for its ``<title>``, ``<base>``, type
declarations and overlong hrefs apart; ``_blockwalk``'s searches visit a node in a few nanoseconds.
``compiled_walk`` is the one place that decides whether the extension serves a tree: it was built,
and the tree is lxml's plain elements (``parsing.parse_html``'s), not ``lxml.html``'s classes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from lxml import etree

_blockwalk: ModuleType | None
try:
    from rankcrawl.pipelines import _blockwalk
except ImportError:  # built without the optional extension (no C compiler at install): lxml's own searches
    _blockwalk = None


def compiled_walk(root: Any) -> ModuleType | None:
    """The compiled walk's module when it can serve ``root``'s tree, else None."""
    return _blockwalk if _blockwalk is not None and type(root) is etree._Element else None


def by_tag(root: Any, *tags: str) -> list[Any]:
    """``list(root.iter(*tags))`` for plain tag names: the elements so named, in document order."""
    walk = compiled_walk(root)
    return walk.by_tag(root, tags) if walk is not None else list(root.iter(*tags))


def attribute_values(root: Any, name: str) -> list[str]:
    """The values of every ``name`` attribute of the document of top element ``root``, in document order
    (``//@name`` as plain strings)."""
    walk = compiled_walk(root)
    return walk.attribute_values(root, name) if walk is not None else root.xpath(f"//@{name}", smart_strings=False)
