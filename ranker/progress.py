"""What the ranker shows while it works: rich on a terminal, plain log lines otherwise (without
importing rich, a share of a ``ranker --once`` start)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

log = logging.getLogger("rankcrawl.ranker")


def maybe_terminal() -> bool:
    """False when rich's ``Console(stderr=True).is_terminal`` is surely False: stderr is no TTY and
    neither FORCE_COLOR nor TTY_COMPATIBLE=1 overrides that."""
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty or bool(os.environ.get("FORCE_COLOR")) or os.environ.get("TTY_COMPATIBLE") == "1"


class Progress:
    """Reports loads, solves and publishes of the ranker service."""

    def __init__(self, console: Console | None = None) -> None:
        if console is None and maybe_terminal():
            from rich.console import Console

            console = Console(stderr=True)
        self.console = console if console is not None and console.is_terminal else None  # None: log lines

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.log(text)
        else:
            log.info(text)

    def loaded(self, hosts: int, pages: int, edges: int, reloaded: int) -> None:
        self._say(f"graph: {hosts} hosts, {pages} pages, {edges} edges ({reloaded} hosts reloaded)")

    @contextmanager
    def solving(self) -> Iterator[None]:
        self._say("solving")
        status: Any = self.console.status("solving PageRank…") if self.console is not None else nullcontext()
        with status:
            yield

    def waiting(self, reason: str) -> None:
        self._say(reason)

    def published(self, report: Any) -> None:
        self._say(
            f"published epoch {report.epoch}: {report.iterations} iterations, residual {report.residual:.3g}, "
            f"{report.pages} pages, {report.seconds:.2f} s"
        )
