"""A crawled page as the graph store takes it, and its packed out-edges (SPEC §3)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from rankcrawl.ranker.store.hostedges import EDGE
from rankcrawl.settings.urls import MAX_URL_LENGTH, URL_CACHE_ENTRIES, normalize_url, split_url

GONE_STATUS = 400


@lru_cache(maxsize=URL_CACHE_ENTRIES)
def host_and_path(url: str, max_length: int = MAX_URL_LENGTH) -> tuple[str, str] | None:
    """(host key, path+query) of a URL after normalisation; None if it is not http(s) or breaks the
    URL contract (``settings.urls``). Cached: link targets repeat a lot within and across batches."""
    normal = normalize_url(url, max_length=max_length)
    return split_url(normal) if normal else None


@dataclass
class PageRecord:
    """A crawled page: its URL, its (target URL, weight) links and metadata to keep.

    ``meta["status"] >= 400`` marks the page gone: it leaves the graph (SPEC §2.7)."""

    url: str
    links: list[tuple[str, float]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def gone(self) -> bool:
        status = self.meta.get("status")
        return isinstance(status, (int, float)) and status >= GONE_STATUS


def pack_links(targets: list[tuple[int, int]], weights: list[float]) -> bytes:
    """Packed out-edges; duplicate targets are merged by summing their weights."""
    acc: dict[tuple[int, int], float] = defaultdict(float)
    for t, w in zip(targets, weights):
        acc[t] += w
    arr = np.zeros(len(acc), dtype=EDGE)
    if acc:
        hl = np.array(list(acc), dtype=np.uint32)
        arr["host"], arr["local"], arr["weight"] = hl[:, 0], hl[:, 1], list(acc.values())
    return arr.tobytes()
