"""Train the ``"trained"`` boilerplate classifier on the TRAIN split only; write pipelines/page/models/trained.json.

    python -m bench.train_classifier [--limit N] [--folds 3]

Block labels: the gold text is aligned to rankcrawl's own blocks (``analyze`` with Block Fusion,
as at inference). The page's blocks are concatenated into one lower-cased ``\\w+`` token
sequence; a token is *covered* when some token trigram containing it (within that sequence)
occurs among the gold text's trigrams (unigrams when the gold has fewer than 3 tokens). A block
is content when at least half of its tokens are covered. Trigrams rather than single words,
because boilerplate shares common words ("the", "and") with any article.

Sample weight of a block = its tokens / its page's tokens, so every page counts the same, as in
the per-page averaged word F1. The model (scikit-learn ``GradientBoostingClassifier``) and its
probability threshold are chosen by page-grouped cross-validation on the train split, scoring
the benchmark's own metric (mean word F1 of the pages); then it is refit on the whole train split.
The ensemble is scikit-learn's ``HistGradientBoostingClassifier`` (depth-limited trees, so the
shipped model's complete-tree inference stays small), exported as flat JSON arrays and checked
against scikit-learn's own decision before it is written.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import date
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np
from scipy import sparse

from bench.datasets import DATA, Page, load
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.steps import PRESETS, PageState, run_steps
from rankcrawl.pipelines.page.trained_classifier import ALL_FEATURES, features_and_page
from rankcrawl.pipelines.page.trees import TreeEnsemble

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier

MODEL = Path(__file__).resolve().parents[1] / "pipelines" / "page" / "models" / "trained.json"
WORD = re.compile(r"\w+")
COVERED_SHARE = 0.5
GRID = ({"max_iter": 200, "max_depth": 5, "max_leaf_nodes": 24}, {"max_iter": 300, "max_depth": 6, "max_leaf_nodes": 31})
FIXED = {"learning_rate": 0.1, "min_samples_leaf": 20, "l2_regularization": 1.0, "early_stopping": False,
         "random_state": 0}
THRESHOLDS = np.round(np.arange(0.2, 0.71, 0.05), 2)
TRAINING_CLASSIFIER = "numwords"
"""Any model-free classifier: the blocks and their features do not depend on it, and the shipped
model may not match the features being trained."""


@dataclass
class PageData:
    """One training page: features, labels, weights and the token counts for scoring."""

    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    counts: sparse.csr_matrix   # blocks × vocabulary token counts
    gold: np.ndarray            # gold token counts over the same vocabulary (+ gold-only words)
    page: np.ndarray            # the page's PAGE_FEATURES


def block_tokens(blocks: list[TextBlock]) -> list[list[str]]:
    """Lower-cased ``\\w+`` tokens of each block (the metric's tokens)."""
    return [WORD.findall(b.text.lower()) for b in blocks]


def block_labels(tokens: list[list[str]], gold_text: str) -> tuple[np.ndarray, np.ndarray]:
    """(is-content labels, covered share) per block by trigram coverage of the gold text."""
    gold = WORD.findall(gold_text.lower())
    seq = [t for toks in tokens for t in toks]
    owner = np.repeat(np.arange(len(tokens)), [len(t) for t in tokens])
    covered = np.zeros(len(seq), dtype=bool)
    if len(gold) < 3:
        vocab = set(gold)
        covered[:] = [t in vocab for t in seq]
    else:
        grams = set(zip(gold, gold[1:], gold[2:]))
        for j in range(len(seq) - 2):
            if (seq[j], seq[j + 1], seq[j + 2]) in grams:
                covered[j : j + 3] = True
    n = np.bincount(owner, minlength=len(tokens)).astype(np.float64)
    share = np.bincount(owner, weights=covered, minlength=len(tokens)) / np.maximum(n, 1.0)
    return share >= COVERED_SHARE, share


def analysed(page: Page) -> PageState:
    """The page through the model-free preset (the blocks and contexts the models see)."""
    return run_steps(PRESETS[TRAINING_CLASSIFIER], PageState(page.html_text(), page.url))


def page_data(page: Page, state: PageState | None = None) -> PageData | None:
    """Features/labels of one page (None when it has no block); ``state``: its analysis, if done."""
    state = state or analysed(page)
    if not state.blocks:
        return None
    tokens = block_tokens(state.blocks)
    y, _ = block_labels(tokens, page.gold_text)
    n_tok = np.array([len(t) for t in tokens], dtype=np.float64)
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, toks in enumerate(tokens):
        for t in toks:
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
    gold_ids = [vocab.setdefault(t, len(vocab)) for t in WORD.findall(page.gold_text.lower())]
    counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(tokens), len(vocab)))
    gold = np.bincount(np.asarray(gold_ids, dtype=np.int64), minlength=len(vocab)).astype(np.float64)
    x, page_row = features_and_page(state.blocks, state.context)
    return PageData(x, y, n_tok / n_tok.sum(), counts, gold, page_row)


def page_f1(data: PageData, keep: np.ndarray) -> float:
    """Word F1 (data README §3) of the page whose kept blocks are ``keep``."""
    pred = np.asarray(data.counts.T @ keep.astype(np.float64)).ravel()
    n_pred, n_gold = pred.sum(), data.gold.sum()
    if n_pred == 0 or n_gold == 0:
        return float(n_pred == n_gold)
    overlap = np.minimum(pred, data.gold).sum()
    return 0.0 if overlap == 0 else 2 * overlap / (n_pred + n_gold)


def fit_rows(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, params: dict) -> HistGradientBoostingClassifier:
    """A gradient-boosted tree ensemble on rows ``x`` with labels ``y`` and sample weights ``w`` (``params``
    over ``FIXED``)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # training only; the labels need no sklearn

    return HistGradientBoostingClassifier(**{**FIXED, **params}).fit(x, y, sample_weight=w)


def fit(pages: list[PageData], params: dict) -> HistGradientBoostingClassifier:
    """The block model on the blocks of ``pages``."""
    return fit_rows(np.vstack([p.x for p in pages]), np.concatenate([p.y for p in pages]),
                    np.concatenate([p.w for p in pages]), params)


def cross_validate(pages: list[PageData], folds: int) -> list[tuple[float, dict, float]]:
    """(mean page word F1, params, threshold) for every grid point × threshold, page-grouped folds."""
    fold_of = np.arange(len(pages)) % folds
    results = []
    start = time.perf_counter()
    for params in GRID:
        f1 = {t: [] for t in THRESHOLDS}
        for k in range(folds):
            model = fit([p for p, f in zip(pages, fold_of) if f != k], params)
            for p in (p for p, f in zip(pages, fold_of) if f == k):
                proba = model.predict_proba(p.x)[:, 1]
                for t in THRESHOLDS:
                    f1[t].append(page_f1(p, proba >= t))
        for t in THRESHOLDS:
            results.append((float(np.mean(f1[t])), params, float(t)))
        best = max(r for r in results if r[1] is params)
        click.echo(f"  cv {params}: best mean word F1 {best[0]:.4f} at threshold {best[2]} "
                   f"({time.perf_counter() - start:.0f} s)")
    return results


def export(model: HistGradientBoostingClassifier, threshold: float, meta: dict, name: str = "trained",
           features: tuple[str, ...] = ALL_FEATURES) -> dict:
    """The fitted ensemble as flat JSON arrays (``trees.TreeEnsemble``)."""
    feature, thr, left, right, value, roots = [], [], [], [], [], []
    depth = 0
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        offset = len(feature)
        roots.append(offset)
        depth = max(depth, int(nodes["depth"].max()))
        leaf = nodes["is_leaf"].astype(bool)
        feature += np.where(leaf, 0, nodes["feature_idx"]).tolist()
        thr += np.where(leaf, 0.0, nodes["num_threshold"]).tolist()
        left += np.where(leaf, -1, nodes["left"].astype(np.int64) + offset).tolist()
        right += np.where(leaf, -1, nodes["right"].astype(np.int64) + offset).tolist()
        value += np.where(leaf, nodes["value"], 0.0).tolist()
    return {
        "name": name,
        "features": list(features),
        "bias": float(np.ravel(model._baseline_prediction)[0]),
        "learning_rate": 1.0,
        "threshold": threshold,
        "float32": False,
        "trees": {"feature": feature, "threshold": thr, "left": left, "right": right,
                  "value": value, "roots": roots, "depth": depth},
        "training": meta,
    }


def checked(model: HistGradientBoostingClassifier, data: dict, x: np.ndarray) -> None:
    """Raise unless the exported trees give scikit-learn's decision on ``x``."""
    gap = float(np.abs(TreeEnsemble.from_json(data).decision(x) - model.decision_function(x)).max())
    if gap > 1e-9:
        raise click.ClickException(f"exported trees disagree with scikit-learn (max gap {gap:.3g}); not written")


@click.command()
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N train pages per dataset (quick runs).")
@click.option("--folds", type=click.IntRange(min=2), default=3, show_default=True)
def main(limit: int | None, folds: int) -> None:
    """Fit on the train split, choose by cross-validation, write the model JSON."""
    if not DATA.exists():
        raise click.ClickException(f"training data not found at {DATA}")
    start = time.perf_counter()
    train = load("wcxb-dev", "train", limit=limit) + load("l3s-gn1", "train", limit=limit)
    pages = [d for d in map(page_data, train) if d is not None]
    n_blocks = sum(len(p.y) for p in pages)
    share = sum(p.y.sum() for p in pages) / n_blocks
    click.echo(f"{len(pages)} train pages, {n_blocks} blocks, {share:.1%} content ({time.perf_counter() - start:.0f} s)")
    oracle = np.mean([page_f1(p, p.y) for p in pages])
    click.echo(f"oracle mean word F1 of the derived labels (upper bound for any block classifier): {oracle:.4f}")
    score, params, threshold = max(cross_validate(pages, folds), key=lambda r: r[0])
    model = fit(pages, params)
    meta = {
        "data": "train split of ../shared/data (bench/datasets.py: SHA-1(dataset:id) mod 100 < 70), "
                "WCXB-dev + L3S-GN1",
        "pages": len(pages), "blocks": n_blocks, "date": date.today().isoformat(),
        "sklearn": version("scikit-learn"), "params": {**params, **FIXED},
        "cv_folds": folds, "cv_mean_word_f1": round(score, 4), "labels": "trigram coverage >= 0.5",
    }
    data = export(model, threshold, meta)
    checked(model, data, np.vstack([p.x for p in pages[:50]]))
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    MODEL.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    click.echo(f"cv mean word F1 {score:.4f} with {params}, threshold {threshold}; wrote {MODEL} "
               f"({MODEL.stat().st_size // 1024} KiB, {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
