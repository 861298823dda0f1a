"""One cheap pass over a page for the elements whose id or class contains one of a few stems, or whose
ARIA role is one of a few: the candidates of the rules that recognise boxes by their names (``comments``,
``teasers``, ``consent`` through ``after_article.section_candidates``; ``insets``; ``article_end``)."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from rankcrawl.pipelines.page.elements import compiled_walk

NAMED = etree.XPath("//body//*[@id or @class or @role]")


class NameSieve:
    """The elements below ``<body>`` (document order) whose lower-cased id or class contains one of
    ``stems`` or whose ARIA role is one of ``roles``: one cheap pass over the page for rules whose own
    tests run on these few only. Compiled (``_blockwalk.section_sieve``, no proxy for the elements it
    passes over) where the extension serves the tree: 0.11 ms instead of 1.5 ms a page on 3,901
    real-site and WCXB pages."""

    def __init__(self, stems: list[str], roles: frozenset[str]) -> None:
        self.pattern = re.compile("|".join(stems))   # re.IGNORECASE makes the alternation ten times slower
        self.roles = roles
        self._stems = tuple(stem.encode() for stem in stems)
        self._roles = tuple(role.encode() for role in roles)

    def accepts(self, el: Any) -> bool:
        """Whether ``el``'s id or class contains a stem or its role is one of ``roles``."""
        get = el.get
        return bool(self.pattern.search(f"{get('id') or ''} {get('class') or ''}".lower())) or (get("role") or "") in self.roles

    def __call__(self, root: Any) -> list[Any]:
        walk = compiled_walk(root)
        if walk is not None:
            return walk.section_sieve(root, self._stems, self._roles, self.accepts)
        return [el for el in NAMED(root) if self.accepts(el)]
