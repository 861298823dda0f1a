"""A reader thread that checks, while epochs are published, that every read sees one whole epoch."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from rankcrawl.ranker.store.queries import RankQueries


@dataclass
class Reads:
    problems: list[str] = field(default_factory=list)
    count: int = 0


@contextmanager
def whole_epoch_reader(client: redis.Redis, urls: list[str]) -> Iterator[Reads]:
    """Read ``urls`` through ``rank()`` and ``export()`` in a loop until the block ends; each read must
    name every URL and sum to 1 within 1e-9."""
    reads, stop = Reads(), threading.Event()

    def loop() -> None:
        queries = RankQueries(client)
        while not stop.is_set():
            ranks = queries.rank(urls)
            if any(v is None for v in ranks.values()) or abs(sum(ranks.values()) - 1) > 1e-9:
                reads.problems.append(f"rank(): {sum(v or 0 for v in ranks.values())}")
            exported = dict(queries.export())
            if set(exported) != set(urls) or abs(sum(exported.values()) - 1) > 1e-9:
                reads.problems.append(f"export(): {len(exported)} pages, sum {sum(exported.values())}")
            reads.count += 1

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        yield reads
    finally:
        stop.set()
        thread.join(timeout=30)
