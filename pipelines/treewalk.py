"""The tree ensembles' level walk compiled (numba), for processes that load numba anyway.

``trees.TreeEnsemble.decision`` walks every complete tree for every row with numpy, one array
step per level; once this module is imported it uses ``leaves`` instead: the same rule
``node = 2 * node + 1 + (x[feature[node]] > threshold[node])`` per row and tree in one compiled
loop, the same leaf indices (so numpy sums the same leaf values in the same order: bit-identical
decisions). The crawl's analysis workers import it (``pagefacts``, which needs numba for its
shingles); ``rankcrawl extract`` does not, since importing numba would add a second to its start.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def leaves(x: np.ndarray, feature: np.ndarray, threshold: np.ndarray, depth: int) -> np.ndarray:
    """int64[rows, trees]: leaf index (into ``leaf_value.ravel()``) of every row of ``x`` in every
    complete tree (``feature``/``threshold``: int64/float64[trees, 2**depth - 1], heap order)."""
    n, n_trees, width = x.shape[0], feature.shape[0], feature.shape[1]
    out = np.empty((n, n_trees), dtype=np.int64)
    for i in range(n):
        for t in range(n_trees):
            node = 0
            for _ in range(depth):
                node = 2 * node + 1 + (1 if x[i, feature[t, node]] > threshold[t, node] else 0)
            out[i, t] = t * (width + 1) + node - width
    return out


# Load (or compile) the kernel for the one signature the ensembles use now, at import — in the
# forkserver's preload for the crawl's workers — never inside a page's analysis time budget.
leaves(np.zeros((1, 1)), np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1)), 1)
