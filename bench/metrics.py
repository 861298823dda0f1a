"""Extraction metrics exactly as ../shared/data/README.md §3: word F1, snippets, content links."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class PRF:
    """Precision, recall, F1."""

    p: float
    r: float
    f1: float


def tokens(text: str) -> Counter[str]:
    """Bag of lower-cased ``\\w+`` tokens."""
    return Counter(WORD.findall(text.lower()))


def word_prf(pred: str, gold: str) -> PRF:
    """Per-page bag-of-words P/R/F1; empty prediction scores 0, or 1 when gold is empty too."""
    p_bag, g_bag = tokens(pred), tokens(gold)
    n_pred, n_gold = sum(p_bag.values()), sum(g_bag.values())
    if n_pred == 0 or n_gold == 0:
        score = 1.0 if n_pred == n_gold else 0.0
        return PRF(score, score, score)
    overlap = sum((p_bag & g_bag).values())
    p, r = overlap / n_pred, overlap / n_gold
    return PRF(p, r, 2 * p * r / (p + r) if overlap else 0.0)


def mean_prf(scores: Iterable[PRF]) -> PRF:
    """Mean P, mean R and mean F1 over pages."""
    scores = list(scores)
    if not scores:
        return PRF(0.0, 0.0, 0.0)
    n = len(scores)
    return PRF(sum(s.p for s in scores) / n, sum(s.r for s in scores) / n, sum(s.f1 for s in scores) / n)


def squash(text: str) -> str:
    """Runs of whitespace to one space, trimmed."""
    return " ".join(text.split())


@dataclass
class SnippetCounts:
    """``with``/``without`` snippet outcomes summed over pages."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0

    def add(self, text: str, with_snippets: Iterable[str], without_snippets: Iterable[str]) -> None:
        """Score one page's output text."""
        text = squash(text)
        for s in with_snippets:
            if squash(s) in text:
                self.tp += 1
            else:
                self.fn += 1
        for s in without_snippets:
            if squash(s) in text:
                self.fp += 1
            else:
                self.tn += 1

    def prf(self) -> PRF:
        """P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN)."""
        return PRF(_ratio(self.tp, self.tp + self.fp), _ratio(self.tp, self.tp + self.fn),
                   _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn))

    def accuracy(self) -> float:
        """(TP+TN) / all snippets."""
        return _ratio(self.tp + self.tn, self.tp + self.tn + self.fp + self.fn)


def normalize_link(url: str) -> str:
    """Scheme and host lower-cased, fragment dropped, trailing ``/`` of the path dropped, query kept."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, ""))


@dataclass
class LinkCounts:
    """Content-link outcomes: micro sums and the per-page scores of pages with gold links."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    pages: list[PRF] = field(default_factory=list)

    def add(self, pred: Iterable[str], gold: Iterable[str]) -> None:
        """Score one page: sets of normalised URLs."""
        p, g = {normalize_link(u) for u in pred}, {normalize_link(u) for u in gold}
        tp, fp, fn = len(p & g), len(p - g), len(g - p)
        self.tp, self.fp, self.fn = self.tp + tp, self.fp + fp, self.fn + fn
        if g:
            self.pages.append(_prf(tp, fp, fn))

    def micro(self) -> PRF:
        """P, R, F1 of the summed counts."""
        return _prf(self.tp, self.fp, self.fn)

    def macro(self) -> PRF:
        """Mean per-page P, R, F1 over pages with at least one gold link."""
        return mean_prf(self.pages)


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def _prf(tp: int, fp: int, fn: int) -> PRF:
    return PRF(_ratio(tp, tp + fp), _ratio(tp, tp + fn), _ratio(2 * tp, 2 * tp + fp + fn))
