"""Blocks inside dropped subtrees leave the page's text; their anchors stay links, never content.

A rule module (``hidden``, ``comments``, ``teasers``, ``share_bars``) names subtree roots (in document order) over the atomic blocks;
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

from rankcrawl.pipelines.page.document import TextBlock


def kept(flags: np.ndarray, dropped: list[bool]) -> list[int]:
    """Indices of the content blocks (``flags``) outside the ``dropped`` subtrees, in document order."""
    return [i for i, (flag, gone) in enumerate(zip(flags, dropped)) if flag and not gone]


def owners(roots: Iterable[Any]) -> dict[Any, Any]:
    """Every element of the subtrees of ``roots`` → the outermost of ``roots`` holding it (one walk of
    each subtree, in C; a root inside an earlier one adds nothing). ``roots`` in document order."""
    out: dict[Any, Any] = {}
    for root in roots:
        if root in out:
            continue
        for el in root.iter():
            out[el] = root
    return out


def words_inside(blocks: list[TextBlock], roots: Iterable[Any]) -> dict[Any, int]:
    """Words of ``blocks`` inside each of ``roots`` that holds any (counted for the outermost root)."""
    owner = owners(roots)
    out: dict[Any, int] = {}
    if not owner:
        return out
    for b in blocks:
        if (r := owner.get(b.element)) is not None:
            out[r] = out.get(r, 0) + b.n_words
    return out


def fuse_apart(blocks: list[TextBlock], roots: Iterable[Any],
               fuse: Callable[[list[TextBlock]], list[TextBlock]]) -> tuple[list[TextBlock], list[bool]]:
    """(``fuse`` of each run of ``blocks`` inside / outside ``roots``, concatenated; whether each fused
    block is inside)."""
    owner = owners(roots)
    if not owner:
        fused = fuse(blocks)
        return fused, [False] * len(fused)
    inside = [b.element in owner for b in blocks]
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
            unlink(b, link_content)
    return cleared


def unlink(block: TextBlock, link_content: dict[Any, bool]) -> None:
    """Set the content decision of ``block``'s anchors False."""
    for a in block.anchors:
        if a in link_content:
            link_content[a] = False
