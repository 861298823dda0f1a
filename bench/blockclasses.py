"""Block classes and block weights (Oliveira 2010, Ch. 2 Def. 1–4 and Ch. 5 Eq. 5.1–5.11): the reference the
crawl's ``block`` link weighting (``pipelines/site/linkweights.py``, bw4 from a host's class sketch) follows.

A block is (label, text); blocks of different pages of a host that share a label form a block
class C. Statistics: ICF(t, C) = ln(n_C / n_{t,C}) (Eq. 5.1) and Spread(t, ρ) = number of blocks
of page ρ containing t (Eq. 5.2). Block weights (|b| = number of *distinct* terms of b, as the
Portuguese extended abstract states):

- bw4 = Σ_{t∈b} ICF(t, C_b) / |b|                (5.6)
- bw5 = Σ_{t∈b} Spread(t, ρ_b) / |b|             (5.7)
- bw6 = Σ_{t∈b} Spread(t, ρ_b)·ICF(t, C_b) / |b|  (5.8, mean of products as printed; the tables'
  product of means bw4·bw5 is available with ``bw6_form="product"``)
- bw7 = Σ_{t∈v(C)} ICF(t, C) / |v(C)|, v(C) the union vocabulary of the class (5.9)
- bw8 = mean of bw5 over the blocks of C (5.10),  bw9 = bw7·bw8 (5.11)

Settled ambiguities (digest §6): natural log; labels keep only the ``class`` and ``id``
attribute names (this reproduces the printed Fig. 3.2 labels, which omit ``bgcolor``/``src``);
sibling numbers start at 1 and are added only where siblings would otherwise share a label;
classes with fewer than β = 8 blocks use a fallback ICF, the mean ICF over all (term, class)
pairs of the site (§5.5), or none when ``fallback_icf`` is None.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lxml import etree

from rankcrawl.pipelines.site.linkweights import BETA

LABEL_ATTRIBUTES = ("class", "id")


def labels(root: etree._Element, readable: bool = False) -> dict[etree._Element, str]:
    """Oliveira's label of every element (sequence number/name/attribute names/parent label).

    Readable labels grow with depth, so by default each label is a 16-hex digest of its own
    token and its parent's digest (iterative, any depth); ``readable=True`` gives the text form.
    """
    out: dict[etree._Element, str] = {root: _own(root, "", readable)}
    stack = [root]
    while stack:
        parent = stack.pop()
        children = [c for c in parent if isinstance(c.tag, str)]
        base = [_own(c, out[parent], readable) for c in children]
        dup = Counter(base)
        seq: Counter[str] = Counter()
        for child, lab in zip(children, base):
            if dup[lab] > 1:
                seq[lab] += 1
                lab = f"{seq[lab]}/{lab}" if readable else digest(f"{seq[lab]}/{lab}")
            out[child] = lab
            stack.append(child)
    return out


def _own(el: etree._Element, parent_label: str, readable: bool) -> str:
    token = "/".join([el.tag] + [a for a in LABEL_ATTRIBUTES if a in el.attrib])
    text = f"{token}/{parent_label}" if parent_label else token
    return text if readable else digest(text)


def digest(text: str) -> str:
    """16-hex BLAKE2b digest of a label."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass
class ClassStats:
    """n_C and n_{t,C} of one block class, plus the running sum of its blocks' bw5."""

    n_blocks: int = 0
    term_blocks: dict[str, int] = field(default_factory=dict)
    bw5_sum: float = 0.0

    def icf(self, term: str, fallback: float | None = None) -> float:
        """ICF(t, C) (Eq. 5.1), or the fallback for a class smaller than β."""
        if fallback is not None and self.n_blocks < BETA:
            return fallback
        return math.log(self.n_blocks / self.term_blocks[term])


@dataclass
class BlockWeights:
    """bw4…bw9 of one block (block- and class-level functions, one value for all its terms)."""

    bw4: float
    bw5: float
    bw6: float
    bw7: float
    bw8: float
    bw9: float


def spread(page: Sequence[set[str]]) -> Counter[str]:
    """Spread(t, ρ) for every term of a page given its blocks' term sets (Eq. 5.2)."""
    return Counter(t for terms in page for t in terms)


def site_statistics(site: Sequence[Sequence[tuple[str, list[str]]]]) -> dict[str, ClassStats]:
    """Class statistics of a whole site: pages → blocks (label, tokens)."""
    stats: dict[str, ClassStats] = defaultdict(ClassStats)
    for page in site:
        sets = [set(toks) for _, toks in page]
        sp = spread(sets)
        for (label, _), terms in zip(page, sets):
            c = stats[label]
            c.n_blocks += 1
            for t in terms:
                c.term_blocks[t] = c.term_blocks.get(t, 0) + 1
            if terms:
                c.bw5_sum += sum(sp[t] for t in terms) / len(terms)
    return dict(stats)


def average_icf(stats: Mapping[str, ClassStats]) -> float:
    """Mean ICF over all (term, class) pairs: the small-class fallback of §5.5."""
    values = [math.log(c.n_blocks / n) for c in stats.values() for n in c.term_blocks.values()]
    return sum(values) / len(values) if values else 0.0


def class_icf(c: ClassStats, fallback: float | None = None) -> float:
    """bw7 of a class: mean ICF over its vocabulary v(C) (Eq. 5.9)."""
    if not c.term_blocks:
        return 0.0
    return sum(c.icf(t, fallback) for t in c.term_blocks) / len(c.term_blocks)


def page_weights(
    page: Sequence[tuple[str, list[str]]],
    stats: Mapping[str, ClassStats],
    fallback_icf: float | None = None,
    bw6_form: str = "mean",
) -> list[BlockWeights | None]:
    """bw4…bw9 for every block of a page (None for a block without terms)."""
    sets = [set(toks) for _, toks in page]
    sp = spread(sets)
    out: list[BlockWeights | None] = []
    for (label, _), terms in zip(page, sets):
        if not terms:
            out.append(None)
            continue
        c = stats[label]
        icf = {t: c.icf(t, fallback_icf) for t in terms}
        bw4 = sum(icf.values()) / len(terms)
        bw5 = sum(sp[t] for t in terms) / len(terms)
        bw6 = bw4 * bw5 if bw6_form == "product" else sum(sp[t] * icf[t] for t in terms) / len(terms)
        bw7 = class_icf(c, fallback_icf)
        bw8 = c.bw5_sum / c.n_blocks
        out.append(BlockWeights(bw4, bw5, bw6, bw7, bw8, bw7 * bw8))
    return out
