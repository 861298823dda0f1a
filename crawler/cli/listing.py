"""The one output contract of the listing commands (``top``, ``rank``, ``ranks export``).

``tsv`` (default): ``name<TAB>rank`` per line, the rank at full precision (``repr`` of the float,
so it reads back exactly); ``json``: one JSON object per line (``{"url": …, "rank": …}``, or
``"host"`` for hosts); ``table``: aligned columns for a person, ranks to six significant digits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import click

FORMATS = ("tsv", "json", "table")

format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="tsv", show_default=True,
    help="tsv: name<TAB>rank (full precision); json: one object per line; table: aligned columns.",
)


def emit(rows: Iterable[tuple[str, float]], fmt: str, name: str = "url") -> None:
    """Write ``(name, rank)`` rows to stdout in ``fmt``."""
    if fmt == "tsv":
        for key, rank in rows:
            click.echo(f"{key}\t{rank!r}")
    elif fmt == "json":
        for key, rank in rows:
            click.echo(json.dumps({name: key, "rank": rank}, ensure_ascii=False))
    else:
        listed = list(rows)
        click.echo(f"{'#':>4}  {'rank':<12}  {name}")
        for number, (key, rank) in enumerate(listed, 1):
            click.echo(f"{number:>4}  {rank:<12.6g}  {key}")
