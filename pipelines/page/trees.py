"""Gradient-boosted tree ensembles as flat arrays: numpy inference, JSON model files (no pickle).

A model file (``models/<name>.json``, written by ``bench/train_*.py``) holds each tree as node
arrays (``feature``, ``threshold``, ``left``, ``right``, ``value``; leaves have ``left == -1``)
plus the bias, learning rate, decision threshold and feature names. ``TreeEnsemble`` stores the
trees padded to complete binary trees of one depth D (a leaf above depth D becomes a chain of
always-left nodes), so inference walks every tree for every row at once, one level per step:
``node = 2 * node + 1 + (x[feature[node]] > threshold[node])`` — D array steps, no Python loop
over rows, trees or nodes; where the optional extension was built the walk is compiled
(``_treewalk``), with the same leaves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib.resources import files

import numpy as np

from rankcrawl.pipelines.page.extensions import optional

_treewalk = optional("rankcrawl.pipelines.page._treewalk")  # None where not built: numpy's level walk


@dataclass(frozen=True)
class TreeEnsemble:
    """Binary gradient-boosted trees, complete to depth ``depth`` (heap order per tree)."""

    feature: np.ndarray      # int64[T, 2**D - 1]
    threshold: np.ndarray    # float64[T, 2**D - 1]
    leaf_value: np.ndarray   # float64[T, 2**D]
    depth: int
    bias: float
    learning_rate: float
    threshold_proba: float
    features: tuple[str, ...]
    float32: bool            # compare features rounded to float32 (scikit-learn's GradientBoosting)
    nodes: dict              # the node arrays as stored

    @classmethod
    def from_json(cls, data: dict) -> TreeEnsemble:
        t = data["trees"]
        feature = np.asarray(t["feature"], dtype=np.int64)
        threshold = np.asarray(t["threshold"], dtype=np.float64)
        left = np.asarray(t["left"], dtype=np.int64)
        right = np.asarray(t["right"], dtype=np.int64)
        value = np.asarray(t["value"], dtype=np.float64)
        roots = np.asarray(t["roots"], dtype=np.int64)
        depth = max(int(t["depth"]), 1)
        n_trees, width = roots.size, 2 ** depth - 1
        c_feature = np.zeros((n_trees, width), dtype=np.int64)
        c_threshold = np.full((n_trees, width), np.inf)
        c_leaf = np.zeros((n_trees, width + 1))
        # breadth-first over all trees at once: (tree, heap slot, node id)
        tree = np.arange(n_trees)
        slot = np.zeros(n_trees, dtype=np.int64)
        node = roots.copy()
        for _ in range(depth):
            leaf = left[node] < 0
            c_feature[tree, slot] = np.where(leaf, 0, feature[node])
            c_threshold[tree, slot] = np.where(leaf, np.inf, threshold[node])
            left_child = np.where(leaf, node, left[node])
            right_child = np.where(leaf, node, right[node])
            tree = np.concatenate([tree, tree])
            slot = np.concatenate([2 * slot + 1, 2 * slot + 2])
            node = np.concatenate([left_child, right_child])
        c_leaf[tree, slot - width] = value[node]
        if (left[node] >= 0).any():
            raise ValueError("model trees are deeper than their stated depth")
        return cls(
            feature=c_feature, threshold=c_threshold, leaf_value=c_leaf, depth=depth,
            bias=float(data["bias"]), learning_rate=float(data["learning_rate"]),
            threshold_proba=float(data["threshold"]), features=tuple(data["features"]),
            float32=bool(data.get("float32", True)),
            nodes={"feature": feature, "threshold": threshold, "left": left, "right": right,
                   "value": value, "roots": roots},
        )

    def _inputs(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return x.astype(np.float32).astype(np.float64) if self.float32 else x

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """int64[rows, trees]: index into ``leaf_value.ravel()`` of the leaf each row of ``x`` reaches
        in each tree — compiled (``_treewalk``) where that extension was built, else ``level_walk``."""
        x = self._inputs(x)
        if _treewalk is not None:
            return _treewalk.leaves(np.ascontiguousarray(x), np.ascontiguousarray(self.feature),
                                    np.ascontiguousarray(self.threshold), self.depth)
        return self.level_walk(x)

    @cached_property
    def levels(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """(feature, threshold) of each level's nodes, tree-major: level ``l`` of tree ``t`` at
        ``t * 2**l`` on, so a node's children at the next level are ``2 * i`` and ``2 * i + 1``."""
        return tuple((np.ascontiguousarray(self.feature[:, 2**lv - 1: 2 ** (lv + 1) - 1]).ravel(),
                      np.ascontiguousarray(self.threshold[:, 2**lv - 1: 2 ** (lv + 1) - 1]).ravel())
                     for lv in range(self.depth))

    def level_walk(self, x: np.ndarray) -> np.ndarray:
        """``leaves`` by numpy, every tree for every row at once, one array step per level.

        ``at`` indexes the current level's nodes of all trees (``levels``), from the roots (one
        column gather of ``x``) down: ``at → 2 at + (x > t)``, which ends at the leaf's index into
        ``leaf_value.ravel()``. ``mode="clip"`` (the indices are valid): numpy's fastest ``take``.
        """
        x = self._inputs(x)
        (feature, threshold), *deeper = self.levels
        at = 2 * np.arange(feature.size) + (np.take(x, feature, axis=1) > threshold)
        flat_x = x.ravel()
        row_base = (np.arange(x.shape[0]) * x.shape[1])[:, None]
        for feature, threshold in deeper:
            at_x = np.take(feature, at, mode="clip")
            at_x += row_base
            above = np.take(flat_x, at_x, mode="clip") > np.take(threshold, at, mode="clip")
            at <<= 1
            at += above
        return at

    def decision(self, x: np.ndarray) -> np.ndarray:
        """Raw log-odds per row of ``x``: its leaf in every tree, the leaf values summed."""
        return self.bias + self.learning_rate * self.leaf_value.ravel()[self.leaves(x)].sum(axis=1)

    def proba(self, x: np.ndarray) -> np.ndarray:
        """P(positive) per row."""
        return 1.0 / (1.0 + np.exp(-self.decision(x)))


@lru_cache(maxsize=8)
def load_model(name: str, features: tuple[str, ...]) -> TreeEnsemble:
    """The shipped model ``models/<name>.json``; its feature list must equal ``features``."""
    text = files("rankcrawl.pipelines.page").joinpath("models").joinpath(f"{name}.json").read_text(encoding="utf-8")
    model = TreeEnsemble.from_json(json.loads(text))
    if model.features != features:
        raise ValueError(f"model {name!r} was trained on other features; retrain it (bench/train_*.py)")
    return model
