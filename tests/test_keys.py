"""The key registry: every key family once, and docs/REDIS_KEYS.md generated from it."""

from __future__ import annotations

from pathlib import Path

from rankcrawl.settings.keys import TABLE_END, TABLE_START, Keys, markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "REDIS_KEYS.md"


def test_redis_keys_doc_is_the_generated_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    generated = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip()
    assert generated == markdown(), "run: python -m rankcrawl.settings.keys docs/REDIS_KEYS.md"


def test_every_family_is_under_the_prefix_and_distinct() -> None:
    table = markdown("zz:")
    rows = [line for line in table.splitlines()[2:]]
    keys = [row.split("`")[1] for row in rows]
    assert all(k.startswith("zz:") for k in keys)
    assert len(set(keys)) == len(keys)
    assert Keys("zz:").site_sketch("https://a.example") == "zz:site:{https://a.example}:cm"
