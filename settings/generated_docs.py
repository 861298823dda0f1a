"""Tables in the docs that are generated from code: replace the text between two markers."""

from __future__ import annotations

import re
from pathlib import Path


def replace_between(path: Path, start: str, end: str, body: str) -> None:
    """Write ``body`` between the ``start`` and ``end`` marker lines of ``path``."""
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {start} marker")
    path.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text), encoding="utf-8")
