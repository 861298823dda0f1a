"""The ``"trained"`` boilerplate classifier: a small gradient-boosted tree ensemble, numpy inference.

Trained by ``bench/train_classifier.py`` on the train split of ../shared/data (WCXB-dev and
L3S-GN1); its parameters ship as ``rankcrawl/pipelines/models/trained.json`` (tree arrays,
feature names, bias, learning rate, threshold). Features: ``feature_matrix`` (Kohlschütter
§4.4.2, P/C/N context) plus the page-level ones of ``page_features``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

import numpy as np

from rankcrawl.pipelines.classifiers import CLASSIFIERS
from rankcrawl.pipelines.document import TextBlock
from rankcrawl.pipelines.features import FEATURE_NAMES, feature_matrix

PAGE_FEATURES: tuple[str, ...] = (
    "log_words",              # log(1 + words)
    "words_share",            # block words / page words
    "words_vs_largest",       # block words / words of the page's largest block
    "path_depth",             # DOM depth of the block
    "shared_path_largest",    # common DOM-path prefix with the largest block / its depth
    "dist_largest",           # |position − position of the largest block|
    "window_link_density",    # linked words / words over the block and two neighbours each side
    "window_words",           # log(1 + words) over the same window
    "page_link_density",      # linked words / words of the whole page
    "log_page_blocks",        # log(1 + number of blocks)
    "log_same_path",          # log(1 + other blocks with the same index-free DOM path: list items, cards)
    "same_path_words_share",  # words of the blocks sharing that path / page words
    "same_path_link_density", # linked words / words over the blocks sharing that path
    "shared_path_region",     # common prefix with the main region's index-free path / its depth
)
ALL_FEATURES: tuple[str, ...] = FEATURE_NAMES + PAGE_FEATURES
WINDOW = 2
INDEX = re.compile(r"\[\d+\]")


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _window_sum(values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each block and ``WINDOW`` neighbours on each side."""
    c = np.concatenate([[0.0], np.cumsum(values)])
    i = np.arange(values.size)
    return c[np.minimum(i + WINDOW + 1, values.size)] - c[np.maximum(i - WINDOW, 0)]


def region_features(blocks: list[TextBlock], words: np.ndarray, linked: np.ndarray) -> np.ndarray:
    """float64[n, 4]: the repeated structure a block belongs to (the last four ``PAGE_FEATURES``).

    A region is the set of blocks sharing one DOM path with the sibling indices removed (the
    items of a list or a grid of cards; the paragraphs of an article body); the main region is
    the one with the most words.
    """
    keys = [tuple(INDEX.sub("", label) for label in b.path) for b in blocks]
    ids: dict[tuple[str, ...], int] = {}
    group = np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)
    size = np.bincount(group)
    g_words, g_linked = np.bincount(group, words), np.bincount(group, linked)
    main = list(ids)[int(np.argmax(g_words))]
    shared = np.array([_common_prefix(k, main) for k in keys], dtype=np.float64)
    return np.column_stack([
        np.log(size[group]),
        g_words[group] / words.sum(),
        g_linked[group] / g_words[group],
        shared / max(len(main), 1),
    ])


def page_features(blocks: list[TextBlock]) -> np.ndarray:
    """float64[n, len(PAGE_FEATURES)]: where a block stands within its page."""
    n = len(blocks)
    words = np.array([b.n_words for b in blocks], dtype=np.float64)
    linked = np.array([b.n_linked_words for b in blocks], dtype=np.float64)
    position = np.array([b.position for b in blocks], dtype=np.float64)
    depth = np.array([len(b.path) for b in blocks], dtype=np.float64)
    big = int(np.argmax(words))
    big_path = blocks[big].path
    shared = np.array([_common_prefix(b.path, big_path) for b in blocks], dtype=np.float64)
    win_words, win_linked = _window_sum(words), _window_sum(linked)
    total = words.sum()
    return np.column_stack([
        np.log1p(words),
        words / total,
        words / words[big],
        depth,
        shared / max(len(big_path), 1),
        np.abs(position - position[big]),
        win_linked / win_words,
        np.log1p(win_words),
        np.full(n, linked.sum() / total),
        np.full(n, np.log1p(n)),
        region_features(blocks, words, linked),
    ])


def trained_features(blocks: list[TextBlock]) -> np.ndarray:
    """float64[n, len(ALL_FEATURES)]: ``feature_matrix`` then ``page_features``."""
    return np.hstack([feature_matrix(blocks), page_features(blocks)])


@dataclass(frozen=True)
class TreeEnsemble:
    """Binary gradient-boosted trees as flat node arrays (leaves have ``left == -1``)."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int
    bias: float
    learning_rate: float
    threshold_proba: float
    features: tuple[str, ...]

    @classmethod
    def from_json(cls, data: dict) -> "TreeEnsemble":
        t = data["trees"]
        return cls(
            feature=np.asarray(t["feature"], dtype=np.int64),
            threshold=np.asarray(t["threshold"], dtype=np.float64),
            left=np.asarray(t["left"], dtype=np.int64),
            right=np.asarray(t["right"], dtype=np.int64),
            value=np.asarray(t["value"], dtype=np.float64),
            roots=np.asarray(t["roots"], dtype=np.int64),
            depth=int(t["depth"]),
            bias=float(data["bias"]),
            learning_rate=float(data["learning_rate"]),
            threshold_proba=float(data["threshold"]),
            features=tuple(data["features"]),
        )

    def decision(self, x: np.ndarray) -> np.ndarray:
        """Raw log-odds per row of ``x``: all trees walked at once, one level per step.

        Features are rounded to float32 first, as scikit-learn's trees compare them.
        """
        x = np.asarray(x, dtype=np.float32).astype(np.float64)
        idx = np.broadcast_to(self.roots, (x.shape[0], self.roots.size)).copy()
        rows = np.arange(x.shape[0])[:, None]
        for _ in range(self.depth):
            leaf = self.left[idx] < 0
            go_left = x[rows, np.where(leaf, 0, self.feature[idx])] <= self.threshold[idx]
            idx = np.where(leaf, idx, np.where(go_left, self.left[idx], self.right[idx]))
        return self.bias + self.learning_rate * self.value[idx].sum(axis=1)

    def proba(self, x: np.ndarray) -> np.ndarray:
        """P(content) per row."""
        return 1.0 / (1.0 + np.exp(-self.decision(x)))


@lru_cache(maxsize=4)
def load_model(name: str = "trained", features: tuple[str, ...] = ALL_FEATURES) -> TreeEnsemble:
    """The shipped model ``models/<name>.json``; its feature list must equal ``features``."""
    text = files("rankcrawl.pipelines").joinpath("models", f"{name}.json").read_text(encoding="utf-8")
    model = TreeEnsemble.from_json(json.loads(text))
    if model.features != features:
        raise ValueError(f"model {name!r} was trained on other features; retrain it (bench/train_*.py)")
    return model


def trained_proba(blocks: list[TextBlock]) -> np.ndarray:
    """float64[n]: P(content) of each block by the shipped block model."""
    if not blocks:
        return np.zeros(0)
    return load_model().proba(trained_features(blocks))


def trained(blocks: list[TextBlock]) -> np.ndarray:
    """bool[n]: P(content) of the shipped model ≥ its threshold; never empty for a page with text.

    When no block reaches the threshold, the most probable block is kept (every page has a main
    content; this covers pages unlike the training data, e.g. one huge block).
    """
    return decide(trained_proba(blocks))


def decide(proba: np.ndarray) -> np.ndarray:
    """bool[n]: ``proba`` ≥ the shipped model's threshold, else (none passing) the most probable block."""
    keep = proba >= load_model().threshold_proba
    if proba.size and not keep.any():
        keep[int(np.argmax(proba))] = True
    return keep


CLASSIFIERS["trained"] = trained
CLASSIFIERS["trained-links"] = trained  # same blocks; analyze() adds the per-link model
