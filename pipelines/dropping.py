"""Blocks inside dropped subtrees leave the page's text; their anchors stay links, never content.

A rule module (``hidden``, ``comments``, ``share_bars``) names subtree roots over the atomic blocks;
``fuse_apart`` runs Block Fusion on each run of atomic blocks inside / outside them, so no fused
block mixes the two, and marks the fused blocks inside; ``drop`` clears the content flag of every
marked block and the content decision of its anchors after the classifier has decided: the
classifier sees every block, and the rules can only remove (every link stays in
``Document.all_links`` for the site-level step, just never as content).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import groupby
from typing import Any

import numpy as np

from rankcrawl.pipelines.document import TextBlock

NOT_INSIDE = object()


def root_of(element: Any, roots: set[Any], memo: dict[Any, Any]) -> Any:
    """The outermost of ``roots`` that is ``element`` or an ancestor of it (None: none is); ``memo``
    caches the answer per element passed."""
    chain: list[Any] = []
    el = element
    found, at = None, -1  # the outermost root seen and its index in chain
    while el is not None:
        known = memo.get(el)
        if known is not None:
            if known is not NOT_INSIDE:
                found, at = known, len(chain)
            break
        if el in roots:
            found, at = el, len(chain)
        chain.append(el)
        el = el.getparent()
    for i, seen in enumerate(chain):
        memo[seen] = found if i <= at else NOT_INSIDE
    return found


def words_inside(blocks: list[TextBlock], roots: Iterable[Any]) -> dict[Any, int]:
    """Words of ``blocks`` inside each of ``roots`` that holds any (counted for the outermost root)."""
    wanted = set(roots)
    memo: dict[Any, Any] = {}
    out: dict[Any, int] = {}
    if not wanted:
        return out
    for b in blocks:
        if b.element is not None and (r := root_of(b.element, wanted, memo)) is not None:
            out[r] = out.get(r, 0) + b.n_words
    return out


def fuse_apart(blocks: list[TextBlock], roots: Iterable[Any],
               fuse: Callable[[list[TextBlock]], list[TextBlock]]) -> tuple[list[TextBlock], list[bool]]:
    """(``fuse`` of each run of ``blocks`` inside / outside ``roots``, concatenated; whether each fused
    block is inside)."""
    wanted = set(roots)
    if not wanted:
        fused = fuse(blocks)
        return fused, [False] * len(fused)
    memo: dict[Any, Any] = {}
    inside = [b.element is not None and root_of(b.element, wanted, memo) is not None for b in blocks]
    out: list[TextBlock] = []
    marks: list[bool] = []
    for mark, run in groupby(zip(blocks, inside), key=lambda pair: pair[1]):
        fused = fuse([b for b, _ in run])
        out += fused
        marks += [mark] * len(fused)
    return out, marks


def drop(blocks: list[TextBlock], flags: np.ndarray, link_content: dict[Any, bool] | None,
         marks: list[bool]) -> int:
    """Clear ``flags[i]`` of the blocks marked (``fuse_apart``) and set their anchors' ``link_content``
    False; returns how many content blocks lost their flag."""
    cleared = 0
    for i, b in enumerate(blocks):
        if not marks[i]:
            continue
        cleared += int(flags[i])
        flags[i] = False
        if link_content is not None:
            for a in b.anchors:
                if a in link_content:
                    link_content[a] = False
    return cleared
