"""The trained block classifier: vectorised tree inference, the shipped model, features, training labels."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.classifiers import get_classifier
from rankcrawl.pipelines.page.dom_features import PageContext
from rankcrawl.pipelines.page.trained_classifier import (
    ALL_FEATURES,
    PAGE_FEATURES,
    REGION_FEATURES,
    block_model,
    block_region_features,
    trained_features,
)
from rankcrawl.pipelines.page.trees import TreeEnsemble


def tiny_ensemble() -> TreeEnsemble:
    """Two stumps-and-a-tree by hand: tree 0 splits on x0 ≤ 1, tree 1 on x1 ≤ 0.5 then x0 ≤ 3."""
    data = {
        "features": ["a", "b"], "bias": -1.0, "learning_rate": 0.5, "threshold": 0.5,
        "trees": {
            "feature":   [0, 0, 0, 1, 0, 0, 0, 0],
            "threshold": [1.0, 0, 0, 0.5, 3.0, 0, 0, 0],
            "left":      [1, -1, -1, 4, 5, -1, -1, -1],
            "right":     [2, -1, -1, 7, 6, -1, -1, -1],
            "value":     [0, -2.0, 2.0, 0, 0, 1.0, 3.0, -4.0],
            "roots": [0, 3], "depth": 2,
        },
    }
    return TreeEnsemble.from_json(data)


def test_tree_walk_matches_hand_computation() -> None:
    model = tiny_ensemble()
    x = np.array([[0.0, 0.0], [2.0, 0.0], [5.0, 0.2], [5.0, 0.9]])
    # rows: t0 → -2, +2, +2, +2 ; t1 → 1 (x0≤3), 1, 3 (x0>3), -4 (x1>0.5)
    expected = -1.0 + 0.5 * np.array([-2 + 1, 2 + 1, 2 + 3, 2 - 4])
    assert model.decision(x) == pytest.approx(expected)
    assert model.proba(x) == pytest.approx(1 / (1 + np.exp(-expected)))


def random_ensemble(rng: np.random.Generator, n_trees: int, n_features: int, max_depth: int) -> dict:
    """Trees of random shape (leaves at every depth up to ``max_depth``) as model JSON."""
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    for _ in range(n_trees):
        roots.append(len(feature))
        todo = [(len(feature), 0)]
        feature.append(0), threshold.append(0.0), left.append(-1), right.append(-1), value.append(0.0)
        while todo:
            node, depth = todo.pop()
            if depth < max_depth and (depth == 0 or rng.random() < 0.7):
                feature[node], threshold[node] = int(rng.integers(n_features)), float(rng.normal())
                for side in (left, right):
                    side[node] = len(feature)
                    todo.append((len(feature), depth + 1))
                    feature.append(0), threshold.append(0.0), left.append(-1), right.append(-1), value.append(0.0)
            else:
                value[node] = float(rng.normal())
    return {"features": [f"f{i}" for i in range(n_features)], "bias": 0.3, "learning_rate": 0.7,
            "threshold": 0.5, "float32": False,
            "trees": {"feature": feature, "threshold": threshold, "left": left, "right": right,
                      "value": value, "roots": roots, "depth": max_depth}}


def reference_decision(model: TreeEnsemble, x: np.ndarray) -> np.ndarray:
    """The log-odds by walking each stored tree node by node for each row."""
    x = model._inputs(x)
    nd = model.nodes
    out = np.full(x.shape[0], model.bias)
    for i, row in enumerate(x):
        total = 0.0
        for root in nd["roots"]:
            k = int(root)
            while nd["left"][k] >= 0:
                k = int(nd["left"][k] if row[nd["feature"][k]] <= nd["threshold"][k] else nd["right"][k])
            total += nd["value"][k]
        out[i] += model.learning_rate * total
    return out


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_inference_equals_per_node_traversal(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = TreeEnsemble.from_json(random_ensemble(rng, n_trees=25, n_features=6, max_depth=int(rng.integers(1, 8))))
    x = rng.normal(size=(300, 6))
    x[::7] = np.round(x[::7], 1)        # values on or near thresholds too
    assert model.decision(x) == pytest.approx(reference_decision(model, x), abs=1e-12)
    shipped = block_model()
    x = rng.normal(scale=3.0, size=(200, len(ALL_FEATURES)))
    assert shipped.decision(x) == pytest.approx(reference_decision(shipped, x), abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_walk_reaches_the_numpy_walks_leaves(seed: int) -> None:
    from rankcrawl.pipelines.page import trees

    if trees._treewalk is None:
        if os.environ.get("CI"):
            pytest.fail("the compiled tree walk was not built (setup.py: Cython and a C compiler are needed)", pytrace=False)
        pytest.skip("the compiled tree walk is not built here")
    rng = np.random.default_rng(seed)
    for model in (TreeEnsemble.from_json(random_ensemble(rng, n_trees=25, n_features=6, max_depth=int(rng.integers(1, 8)))),
                  block_model()):
        x = rng.normal(scale=3.0, size=(200, model.feature.max() + 1))
        x[::7] = np.round(x[::7], 1)
        x[::11, 0] = np.nan
        x = model._inputs(x)
        compiled = trees._treewalk.leaves(x, model.feature, model.threshold, model.depth)
        assert np.array_equal(compiled, model.level_walk(x))
        assert np.array_equal(model.leaves(x), compiled)   # decision uses the compiled walk
    assert model.leaves(np.zeros((0, x.shape[1]))).shape == (0, model.feature.shape[0])


def test_deeper_trees_than_stated_are_refused() -> None:
    data = random_ensemble(np.random.default_rng(1), n_trees=3, n_features=2, max_depth=4)
    data["trees"]["depth"] = 1
    with pytest.raises(ValueError):
        TreeEnsemble.from_json(data)


def test_export_matches_scikit_learn() -> None:
    pytest.importorskip("sklearn")
    from sklearn.ensemble import HistGradientBoostingClassifier

    from bench.train_classifier import export

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(ALL_FEATURES)))
    y = (x[:, 0] + 0.5 * x[:, 3] * x[:, 7] > 0).astype(int)
    sk = HistGradientBoostingClassifier(max_iter=30, max_depth=4, random_state=0).fit(x, y)
    ours = TreeEnsemble.from_json(json.loads(json.dumps(export(sk, 0.5, {}))))
    assert ours.decision(x) == pytest.approx(sk.decision_function(x), abs=1e-9)


def page(paragraphs: int = 4) -> str:
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))
    body = "".join(
        f"<p>The river valley paragraph {i} describes how the old mill was rebuilt by the village "
        f"after the flood of the spring, and how its wheel turned again for many years afterwards.</p>"
        for i in range(paragraphs)
    )
    foot = '<div class="footer"><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a> | © 2024 Example</div>'
    return (f"<html><head><title>Mill</title></head><body><ul class='nav'>{nav}</ul>"
            f"<div class='article'><h1>The old mill</h1>{body}</div>{foot}</body></html>")


def test_shipped_model_loads_and_is_listed() -> None:
    model = block_model()
    assert model.features == ALL_FEATURES
    assert model.feature.shape[0] > 10 and 0.0 < model.threshold_proba < 1.0
    assert get_classifier("trained") is not None


def test_trained_keeps_article_and_drops_navigation() -> None:
    doc = analyze(page(), url="http://example.org/mill", classifier="trained")
    assert "rebuilt by the village" in doc.text
    assert "Section 3" not in doc.text and "Privacy" not in doc.text
    assert not any("/section/" in link.url for link in doc.links)


def test_region_and_page_features_shape_and_values() -> None:
    doc = analyze(page(2), url="http://example.org/mill", classifier="numwords")
    f, p = block_region_features(doc.blocks, PageContext(doc.root, doc.url))
    assert f.shape == (len(doc.blocks), len(REGION_FEATURES)) and p.shape == (len(PAGE_FEATURES),)
    assert np.isfinite(f).all() and np.isfinite(p).all()
    share = f[:, REGION_FEATURES.index("words_share")]
    assert share.sum() == pytest.approx(1.0)
    assert f[:, REGION_FEATURES.index("words_vs_largest")].max() == pytest.approx(1.0)
    nav = next(i for i, b in enumerate(doc.blocks) if b.text.startswith("Section"))
    body = next(i for i, b in enumerate(doc.blocks) if "rebuilt" in b.text)
    assert f[nav, REGION_FEATURES.index("role_nav")] == 1.0 and f[body, REGION_FEATURES.index("role_nav")] == 0.0
    assert f[body, REGION_FEATURES.index("role_article")] == 1.0
    assert trained_features(doc.blocks).shape == (len(doc.blocks), len(ALL_FEATURES))


def test_empty_page_gives_no_content() -> None:
    doc = analyze("<html><body></body></html>", classifier="trained")
    assert doc.text == "" and doc.links == []


def test_trigram_alignment_labels() -> None:
    from bench.train_classifier import block_labels

    tokens = [["home", "news", "sport"], ["the", "mill", "was", "rebuilt", "by", "the", "village"],
              ["share", "the", "mill"], ["it", "turned", "again"]]
    gold = "The mill was rebuilt by the village. It turned again for years."
    labels, share = block_labels(tokens, gold)
    assert labels.tolist() == [False, True, False, True]
    assert share[1] == 1.0


def test_single_huge_block_is_kept() -> None:
    sentence = "The quick brown fox jumps over the lazy dog near the quiet river bank today."
    doc = analyze("<html><body><p>" + sentence * 400 + "</p></body></html>", classifier="trained")
    assert sentence in doc.text


def test_index_free_paths_drop_every_sibling_index_of_every_label() -> None:
    from rankcrawl.pipelines.page.blockstats import first_seen
    from rankcrawl.pipelines.page.dom_features import PathCodes, index_free

    path = ("html[1]", "body[1]#main.col-N", "div[12].card", "x[3][4]", "li[2]", "a[1]")
    assert tuple(map(index_free, path)) == ("html", "body#main.col-N", "div.card", "x", "li", "a")
    codes = PathCodes()
    paths = [path[:3], ("html[2]", "body[7]#main.col-N", "div[1].card"), path, (), path[:2], ("html[1]", "body[1]#main.col-N", "div[1]")]
    assert first_seen(codes.index_free(codes(paths))).tolist() == [0, 0, 1, 2, 3, 4]
