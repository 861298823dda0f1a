"""Block Fusion (Kohlschütter §4.2.2, Algorithm 4.1): fuse neighbouring blocks of similar density.

Slope delta Δρ(x, y) = |ρ(x) − ρ(y)| / max(ρ(x), ρ(y)) (Eq. 4.7); blocks are fused while
Δρ ≤ theta_max. BF-SMOOTHED also fuses a block with both neighbours when they have the same,
higher density. BF-RULEBASED (smoothed) replaces Δρ by Δρ' (Eq. 4.8): +∞ when the gap holds a
gap-enforcing tag, −∞ when all its tags are gap-avoiding. JUSTRULES is BF-RULEBASED with
theta_max = ∞. Fusion joins wrapped lines without re-wrapping them, so a group's density comes
from the sums of its atomic blocks' words and lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rankcrawl.pipelines.page.blockstats import shared_path
from rankcrawl.pipelines.page.deadline import Deadline
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.extensions import optional

FORCE_GAP = frozenset("h1 h2 h3 h4 h5 h6 ul dl ol hr table address img script".split())
NO_GAP = frozenset("a b br code em font i kbd s samp span strong sub sup tt u var".split())
INLINE = NO_GAP - {"br"}

_blockfusion = optional("rankcrawl.pipelines.page._blockfusion")  # None where not built: the Python passes


@dataclass(frozen=True)
class Variant:
    """A Block Fusion variant: threshold theta_max, smoothing, tag rules."""

    theta_max: float
    smoothed: bool
    rules: bool


VARIANTS: dict[str, Variant | None] = {
    "none": None,
    "plain": Variant(0.38, smoothed=False, rules=False),
    "smoothed": Variant(0.38, smoothed=True, rules=False),
    "rulebased": Variant(0.6, smoothed=True, rules=True),
    "justrules": Variant(math.inf, smoothed=False, rules=True),
}
DEFAULT_FUSION = "rulebased"


class _Group:
    """A run of atomic blocks [start, end) with the sums that define its density (``blockstats.text_density``
    of Python numbers, inlined: fusion recomputes it for every absorbed block)."""

    __slots__ = ("start", "end", "words", "lines", "last", "rho")

    def __init__(self, start: int, end: int, words: int, lines: int, last: int) -> None:
        self.start, self.end, self.words, self.lines, self.last = start, end, words, lines, last
        self.rho = (words - last) / (lines - 1) if lines > 1 else float(words)

    def absorb(self, other: _Group) -> None:
        self.end, self.last = other.end, other.last
        words = self.words = self.words + other.words
        lines = self.lines = self.lines + other.lines
        self.rho = (words - self.last) / (lines - 1) if lines > 1 else float(words)


def slope_delta(x: float, y: float) -> float:
    """Δρ(x, y) of Eq. 4.7."""
    top = max(x, y)
    return abs(x - y) / top if top > 0 else 0.0


def fusion_groups(blocks: list[TextBlock], variant: Variant, deadline: Deadline | None = None) -> list[tuple[int, int]]:
    """[start, end) ranges of ``blocks`` that Algorithm 4.1 fuses (``deadline`` checked every pass):
    compiled (``_blockfusion``, the same passes over C arrays) where that extension was built."""
    if _blockfusion is None:
        return python_fusion_groups(blocks, variant, deadline)
    gaps = [b.gap_tags for b in blocks]
    n = len(blocks)
    return _blockfusion.fusion_groups(
        np.fromiter((b.n_words for b in blocks), dtype=np.int64, count=n),
        np.fromiter((b.n_lines for b in blocks), dtype=np.int64, count=n),
        np.fromiter((b.last_line_words for b in blocks), dtype=np.int64, count=n),
        np.fromiter((not FORCE_GAP.isdisjoint(g) for g in gaps), dtype=np.uint8, count=n),
        np.fromiter((g <= NO_GAP for g in gaps), dtype=np.uint8, count=n),
        variant.theta_max, variant.smoothed, variant.rules, deadline)


def python_fusion_groups(blocks: list[TextBlock], variant: Variant,
                         deadline: Deadline | None = None) -> list[tuple[int, int]]:
    """``fusion_groups`` in Python, one object per group (the reference of the compiled passes)."""
    groups = [_Group(i, i + 1, b.n_words, b.n_lines, b.last_line_words) for i, b in enumerate(blocks)]
    gaps = [b.gap_tags for b in blocks]
    forced = [bool(g & FORCE_GAP) for g in gaps]
    no_gap = [g <= NO_GAP for g in gaps]
    rules, theta_max = variant.rules, variant.theta_max

    def fuses(x: _Group, y: _Group) -> bool:
        """Δρ'(x, y) ≤ theta_max (Eq. 4.8): +∞ never fuses, −∞ always does."""
        if rules:
            if forced[y.start]:
                return False
            if no_gap[y.start]:
                return True
        a, b = x.rho, y.rho
        top = a if a > b else b
        return (abs(a - b) / top if top > 0 else 0.0) <= theta_max   # slope_delta, inlined

    changed = True
    while changed and len(groups) > 1:
        if deadline is not None:
            deadline.check("fusion")
        changed = False
        out = [groups[0]]
        i, m = 1, len(groups)
        while i < m:
            prev, cur = out[-1], groups[i]
            nxt = groups[i + 1] if i + 1 < m else None
            if (variant.smoothed and nxt is not None and prev.rho == nxt.rho and cur.rho < prev.rho
                    and not (rules and (forced[cur.start] or forced[nxt.start]))):
                prev.absorb(cur)
                prev.absorb(nxt)
                i += 2
                changed = True
            elif fuses(prev, cur):
                prev.absorb(cur)
                i += 1
                changed = True
            else:
                out.append(cur)
                i += 1
        groups = out
    return [(g.start, g.end) for g in groups]


def separator(gap: frozenset[str]) -> str:
    """How fused text is joined across a gap: a space (inline tags), a newline (br), a blank line."""
    if gap <= INLINE:
        return " "
    return "\n" if gap <= NO_GAP else "\n\n"


def merge(blocks: list[TextBlock]) -> TextBlock:
    """One block spanning ``blocks``; counts are summed (one pass) and features follow from them."""
    first = blocks[0]
    if len(blocks) == 1:
        return first
    parts = [first.text]
    words, linked, lines, atomic = first.n_words, first.n_linked_words, first.n_lines, first.n_atomic
    anchors = list(first.anchors)
    for b in blocks[1:]:
        parts.append(separator(b.gap_tags))
        parts.append(b.text)
        words += b.n_words
        linked += b.n_linked_words
        lines += b.n_lines
        atomic += b.n_atomic
        anchors += b.anchors
    path = shared_path([b.path for b in blocks])
    element = first.element
    for _ in range(len(first.path) - len(path)):
        element = element.getparent() if element is not None else None
    return TextBlock(
        text="".join(parts),
        n_words=words,
        n_linked_words=linked,
        n_lines=lines,
        last_line_words=blocks[-1].last_line_words,
        tag=first.tag,
        path=path,
        gap_tags=first.gap_tags,
        anchors=tuple(anchors),
        element=element,
        n_atomic=atomic,
    )


def block_fusion(blocks: list[TextBlock], variant: str = DEFAULT_FUSION,
                 deadline: Deadline | None = None) -> list[TextBlock]:
    """Fuse atomic ``blocks`` with the named variant (none, plain, smoothed, rulebased, justrules)."""
    try:
        v = VARIANTS[variant]
    except KeyError:
        raise ValueError(f"unknown Block Fusion variant {variant!r} (one of {', '.join(VARIANTS)})") from None
    if v is None or len(blocks) < 2:
        return list(blocks)
    return [merge(blocks[s:e]) for s, e in fusion_groups(blocks, v, deadline)]
