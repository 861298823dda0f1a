"""Page analysis as named steps: the preset table, specs, and that analyze() runs exactly them."""

from __future__ import annotations

import numpy as np
import pytest

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.classifiers import CLASSIFIERS, RULES
from rankcrawl.pipelines.page.steps import BASE, DEFAULT_PRESET, PRESETS, PageState, Step, preset, run_steps

SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank today."
PAGE = ("<html><head><title>Fox</title></head><body><ul><li><a href='/a'>Home</a></li><li><a href='/b'>News</a>"
        f"</li></ul><div><p>{SENTENCE * 4}</p><p>{SENTENCE * 3} <a href='/c'>more</a></p></div></body></html>")


def names(steps: tuple[Step, ...]) -> list[str]:
    return [s.name for s in steps]


def test_preset_table_is_explicit() -> None:
    base = ["decode", "parse", "blocks", "regions", "fusion", "positions", "title"]
    assert names(BASE) == base
    assert DEFAULT_PRESET == "trained"
    tail = ["link_blocks", "repeats", "article_end", "trailing", "drop"]
    assert names(PRESETS["trained"]) == base + ["block_model", "link_model", "prose_links", *tail]
    assert names(PRESETS["trained-lists"]) == base + ["block_model", "link_model", "prose_links", "content_lists", *tail]
    assert names(PRESETS["trained-blocks"]) == base + ["block_model", "drop"]
    for rule in RULES:
        assert names(PRESETS[rule]) == base + [f"rules:{rule}", "drop"]
    assert set(CLASSIFIERS) == set(RULES) | {"trained"}


def test_specs_filters_and_errors() -> None:
    assert names(preset("numwords+largest"))[-3:] == ["rules:numwords", "drop", "filter:largest"]
    assert names(preset(None)) == names(PRESETS["trained"])
    assert names(preset(lambda blocks: [True] * len(blocks)))[-2:] == ["custom", "drop"]
    with pytest.raises(ValueError, match="unknown classifier"):
        preset("nope")
    with pytest.raises(ValueError, match="unknown filter"):
        preset("numwords+nope")
    with pytest.raises(ValueError, match="unknown Block Fusion"):
        analyze(PAGE, fusion="nope")


def test_state_after_each_stage() -> None:
    state = PageState(PAGE.encode(), "http://h.example/p")
    run_steps(BASE[:3], state)
    atomic = list(state.atomic)
    assert atomic and not state.blocks
    run_steps(BASE[3:], state)
    assert state.root is not None and state.title == "Fox" and state.blocks and not state.atomic
    assert sum(b.n_atomic for b in state.blocks) == len(atomic)
    assert len(state.context.anchor_paths) == 3 and state.proba is None and state.flags is None
    run_steps(PRESETS["trained"][len(BASE):], state)
    assert state.proba.shape == (len(state.blocks),) and state.flags.dtype == bool
    assert set(state.link_content) == {el for b in state.blocks for el in b.anchors}


def test_analyze_runs_the_named_preset() -> None:
    state = run_steps(PRESETS["numwords"], PageState(PAGE, "http://h.example/p"))
    doc = analyze(PAGE, "http://h.example/p", classifier="numwords")
    assert [b.is_content for b in doc.blocks] == np.asarray(state.flags).tolist()
    assert doc.link_content is None
    assert analyze(PAGE, "http://h.example/p").link_content is not None
