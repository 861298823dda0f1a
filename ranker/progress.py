"""What the ranker shows while it works: rich on a terminal, plain log lines otherwise."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from rich.console import Console

log = logging.getLogger("rankcrawl.ranker")


class Progress:
    """Reports loads, solves and publishes of the ranker service."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.rich = self.console.is_terminal

    def _say(self, text: str) -> None:
        if self.rich:
            self.console.log(text)
        else:
            log.info(text)

    def loaded(self, hosts: int, pages: int, edges: int, reloaded: int) -> None:
        self._say(f"graph: {hosts} hosts, {pages} pages, {edges} edges ({reloaded} hosts reloaded)")

    @contextmanager
    def solving(self) -> Iterator[None]:
        self._say("solving")
        status: Any = self.console.status("solving PageRank…") if self.rich else nullcontext()
        with status:
            yield

    def waiting(self, reason: str) -> None:
        self._say(reason)

    def published(self, report: Any) -> None:
        self._say(
            f"published epoch {report.epoch}: {report.iterations} iterations, residual {report.residual:.3g}, "
            f"{report.pages} pages, {report.seconds:.2f} s"
        )
