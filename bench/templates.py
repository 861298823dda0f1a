"""Template detection over a collection of pages (Bar-Yossef & Rajagopalan 2002, §3.2).

Local algorithm (Figure 4): group pagelets by shingle; a shingle that recurs on at least
``min_pages`` distinct pages is a template. Global algorithm (Figure 5): keep the recurring
shingles, then split each shingle's owner group G_s into undirected connected components of
the links between its pages; only non-singleton components are templates (mirror sites that
never link to each other share pagelets but no template).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping


def shingle_owners(pagelets: Mapping[str, Iterable[int]]) -> dict[int, set[str]]:
    """Shingle → set of pages owning a pagelet with that shingle."""
    owners: dict[int, set[str]] = defaultdict(set)
    for page, shingles in pagelets.items():
        for s in shingles:
            owners[s].add(page)
    return owners


def local_templates(pagelets: Mapping[str, Iterable[int]], min_pages: int = 2) -> dict[int, set[str]]:
    """Figure 4: every shingle owned by ≥ min_pages pages, with its owners."""
    return {s: o for s, o in shingle_owners(pagelets).items() if len(o) >= min_pages}


def components(nodes: set[str], edges: Iterable[tuple[str, str]]) -> list[set[str]]:
    """Undirected connected components of ``nodes`` using only edges inside ``nodes`` (union-find)."""
    parent = {n: n for n in nodes}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
    groups: dict[str, set[str]] = defaultdict(set)
    for n in nodes:
        groups[find(n)].add(n)
    return list(groups.values())


def global_templates(
    pagelets: Mapping[str, Iterable[int]], links: Iterable[tuple[str, str]]
) -> dict[int, list[set[str]]]:
    """Figure 5: shingle → its templates, each a connected owner component of ≥ 2 pages."""
    recurring = local_templates(pagelets, 2)
    link_list = list(links)
    result: dict[int, list[set[str]]] = {}
    for s, owners in recurring.items():
        comps = [c for c in components(owners, link_list) if len(c) > 1]
        if comps:
            result[s] = comps
    return result
