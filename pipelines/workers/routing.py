"""Pages to workers by host: every page of a host goes to the worker that owns the host's site memory."""

from __future__ import annotations

from urllib.parse import urlsplit


class HostRouter:
    """Host → worker, stable for the crawl: a host seen first goes to the worker that was sent the fewest
    pages so far (hosts met early, and so large, spread over the workers)."""

    def __init__(self, workers: int) -> None:
        self.owner: dict[str, int] = {}
        self.pages = [0] * max(1, workers)

    def route(self, url: str) -> int:
        """The worker of ``url``'s host."""
        host = urlsplit(url).netloc.lower()
        worker = self.owner.get(host)
        if worker is None:
            worker = self.owner[host] = min(range(len(self.pages)), key=self.pages.__getitem__)
        self.pages[worker] += 1
        return worker
