"""The rich tables of the terminal views (``rankcrawl demo``, ``rankcrawl crawl``): figures and ranks."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table


def figures_table(rows: Iterable[tuple[str, str]], title: str | None = None) -> Table:
    """A two-column table of named figures, without a header."""
    table = Table(title=title, show_header=False, min_width=48)
    for name, value in rows:
        table.add_row(name, value)
    return table


def ranks_table(rows: Iterable[tuple[str, float]], title: str, column: str = "page") -> Table:
    """Ranked pages (or hosts), best first: rank to five decimals, then the name."""
    table = Table(title=title)
    table.add_column("rank", no_wrap=True)
    table.add_column(column, overflow="fold")
    for name, rank in rows:
        table.add_row(f"{rank:.5f}", name)
    return table
