"""Sibling URLs: the pages of one host that share a file name across its directories.

Sites publish one page in several places — each language (``/en/mod/core.html``,
``/fr/mod/core.html``), each version (``/4.2/ref/models/``, ``/5.0/ref/models/``), each mirror —
and the copies are linked alike within their part of the site. A crawl that has counted many
in-links to one copy has evidence about the others before it fetches a page of their part. This is
the URL-based prediction of page importance (URL tokens as features of a page not yet fetched, as
in Kan & Thi 2005 and the RankMass crawler's use of URL structure), reduced to one feature: the
last path segment within a host. Generic names (``index.html``, the empty segment of
``/dir/``) are no evidence.

``SiblingTally`` keeps, per sibling group, the in-link evidence counted to its URLs (queued and
fetched) and how many URLs it has; a queued URL's *sibling evidence* is ``SIBLING_WEIGHT`` times the
mean evidence of the other URLs of its group.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

SIBLING_WEIGHT = 0.3
"""Weight of the mean in-link evidence of a URL's siblings in its own evidence."""
GROUP_RESCORE_LIMIT = 32
"""An in-link re-scores the queued siblings of its target at once up to this many (larger groups:
at the next published epoch)."""
GENERIC_NAMES = frozenset({"", "index", "index.html", "index.htm", "index.php", "default.htm", "default.html",
                           "default.aspx"})

Group = int
"""A sibling group's id: 8 bytes of a hash of (slot, file name), the same in every process and run."""


_PATH = re.compile(r"[^:/?#]+://[^/?#]*([^?#]*)")
"""The path of an absolute URL (RFC 3986's split, as ``urlsplit``), without parsing the rest."""


def sibling_group(slot: str, url: str) -> Group | None:
    """The group of ``url`` on ``slot`` (its last path segment), or None for a generic name."""
    match = _PATH.match(url)
    name = match.group(1).rsplit("/", 1)[-1] if match else ""
    if name.lower() in GENERIC_NAMES:
        return None
    digest = hashlib.blake2b(f"{slot}\x00{name}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(slots=True)
class _GroupCounts:
    evidence: float = 0.0
    urls: int = 0
    queued: Any = None
    """The group's queued keys: None, one key, or a set of two or more (most file names are unique)."""


@dataclass
class SiblingTally:
    """Per sibling group: counted in-link evidence, URLs seen, and the keys still queued."""

    groups: dict[Group, _GroupCounts] = field(default_factory=dict)
    weight: float = SIBLING_WEIGHT

    def queued(self, group: Group | None, key: Hashable) -> None:
        """A URL of ``group`` entered the frontier."""
        if group is not None:
            counts = self.groups.setdefault(group, _GroupCounts())
            counts.urls += 1
            if counts.queued is None:
                counts.queued = key
            elif isinstance(counts.queued, set):
                counts.queued.add(key)
            else:
                counts.queued = {counts.queued, key}

    def taken(self, group: Group | None, key: Hashable) -> None:
        """A queued URL left the frontier (handed out or dropped): it stays a member of its group."""
        counts = self.groups.get(group) if group is not None else None
        if counts is None:
            return
        if isinstance(counts.queued, set):
            counts.queued.discard(key)
        elif counts.queued == key:
            counts.queued = None

    def linked(self, group: Group | None, evidence: float) -> None:
        """A counted in-link of ``evidence`` to a URL of ``group`` (queued, new or fetched)."""
        if group is not None and evidence > 0:
            self.groups.setdefault(group, _GroupCounts()).evidence += evidence

    def evidence(self, group: Group | None, own: float) -> float:
        """The sibling evidence of a URL of ``group`` whose own evidence is ``own``."""
        counts = self.groups.get(group) if group is not None else None
        if counts is None or counts.urls < 2:
            return 0.0
        return self.weight * max(counts.evidence - own, 0.0) / (counts.urls - 1)

    def gain(self, group: Group | None, evidence: float) -> float:
        """What an in-link of ``evidence`` to one URL of ``group`` adds to the sibling evidence of each
        other URL of the group."""
        counts = self.groups.get(group) if group is not None else None
        if counts is None or counts.urls < 2:
            return 0.0
        return self.weight * evidence / (counts.urls - 1)

    def others(self, group: Group | None, key: Hashable) -> Iterator[Hashable]:
        """The queued siblings of ``key`` to re-score now (none for a group above the limit)."""
        counts = self.groups.get(group) if group is not None else None
        if counts is None or counts.queued is None:
            return
        if not isinstance(counts.queued, set):
            if counts.queued != key:
                yield counts.queued
        elif len(counts.queued) <= GROUP_RESCORE_LIMIT:
            yield from (k for k in counts.queued if k != key)

    def saved(self) -> list[list[float | int]]:
        """Per group [id, evidence, URLs no longer queued] (JSON; the queued ones are saved with the queue)."""
        out: list[list[float | int]] = []
        for group, c in self.groups.items():
            queued = len(c.queued) if isinstance(c.queued, set) else int(c.queued is not None)
            if c.evidence > 0 or c.urls > queued:
                out.append([group, c.evidence, c.urls - queued])
        return out

    def load(self, rows: list[object]) -> None:
        """Groups from ``saved`` rows; malformed rows are skipped."""
        for row in rows:
            try:
                group, evidence, gone = int(row[0]), float(row[1]), int(row[2])  # type: ignore[index]
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if 0 <= group < 2**64 and 0.0 <= evidence < float("inf") and gone >= 0:
                counts = self.groups.setdefault(group, _GroupCounts())
                counts.evidence, counts.urls = evidence, counts.urls + gone
