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

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

SIBLING_WEIGHT = 0.3
"""Weight of the mean in-link evidence of a URL's siblings in its own evidence."""
GROUP_RESCORE_LIMIT = 32
"""An in-link re-scores the queued siblings of its target at once up to this many (larger groups:
at the next published epoch)."""
GENERIC_NAMES = frozenset({"", "index", "index.html", "index.htm", "index.php", "default.htm", "default.html",
                           "default.aspx"})

Group = tuple[str, str]


def sibling_group(slot: str, url: str) -> Group | None:
    """The (slot, last path segment) of ``url``, or None for a generic name."""
    path = urlsplit(url).path
    name = path.rsplit("/", 1)[-1]
    if name.lower() in GENERIC_NAMES:
        return None
    return slot, name


@dataclass(slots=True)
class _GroupCounts:
    evidence: float = 0.0
    urls: int = 0
    queued: set[Hashable] = field(default_factory=set)


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
            counts.queued.add(key)

    def taken(self, group: Group | None, key: Hashable) -> None:
        """A queued URL left the frontier (handed out or dropped): it stays a member of its group."""
        if group is not None and (counts := self.groups.get(group)) is not None:
            counts.queued.discard(key)

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
        if counts is not None and len(counts.queued) <= GROUP_RESCORE_LIMIT:
            yield from (k for k in counts.queued if k != key)

    def saved(self) -> list[list[object]]:
        """Per group [slot, name, evidence, URLs no longer queued] (JSON; the queued ones are saved
        with the queue)."""
        return [[slot, name, c.evidence, c.urls - len(c.queued)] for (slot, name), c in self.groups.items()
                if c.evidence > 0 or c.urls > len(c.queued)]

    def load(self, rows: list[object]) -> None:
        """Groups from ``saved`` rows; malformed rows are skipped."""
        for row in rows:
            try:
                slot, name, evidence, gone = str(row[0]), str(row[1]), float(row[2]), int(row[3])  # type: ignore[index]
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if 0.0 <= evidence < float("inf") and gone >= 0:
                counts = self.groups.setdefault((slot, name), _GroupCounts())
                counts.evidence, counts.urls = evidence, counts.urls + gone
