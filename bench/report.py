"""Write one benchmark's section of ``docs/BENCHMARKS.md`` (between its own markers)."""

from __future__ import annotations

import platform
import re
import sys
from datetime import date
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"
HEADER = "# Benchmarks\n\nEach section is written by the script it names; rerun the command to refresh it.\n"


def machine() -> str:
    """One line describing where the figures were measured."""
    import os

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}"


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of docs/BENCHMARKS.md with ``body``."""
    DOC.parent.mkdir(parents=True, exist_ok=True)
    text = DOC.read_text() if DOC.exists() else HEADER
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.rstrip()}\n\n_Measured {date.today().isoformat()} on {machine()}._\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text)


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A GitHub-flavoured Markdown table; floats with 3 decimals."""
    def cell(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
