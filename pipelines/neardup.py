"""Near-duplicate pages (Kohlschütter 2011, §4.2.5, after Chakrabarti et al.).

The tokens of a page's largest content segment (segments with ≥ 50 % linked words skipped)
give 8 min-hash fingerprints over 6-token shingles; two pages sharing ≥ 50 % of them (4 of 8)
are near-duplicates. The crawl-wide index in Redis maps each (position, fingerprint) to the
first page that registered it, the canonical page: a later near-duplicate is told which page
is canonical and keeps no links of its own (its links are counted once, by the canonical page).
Memory: 8 hash fields per canonical page (~0.6 KB/page), in one hash under the ``{nd}`` tag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import redis

from rankcrawl.pipelines.shingles import minhash, shingle_hashes, tokens
from rankcrawl.settings.keys import Keys

N_FINGERPRINTS, WINDOW, SHARE = 8, 6, 0.5
MIN_TOKENS = 20


def largest_segment(blocks: Sequence[tuple[str, float]]) -> str:
    """Text of the block with the most tokens among (text, link density) with density < 0.5."""
    best, size = "", -1
    for text, density in blocks:
        n = len(tokens(text))
        if density < 0.5 and n > size:
            best, size = text, n
    return best


def fingerprints(text: str) -> list[int]:
    """The 8 min-hash fingerprints of the 6-token shingles of ``text``; [] below MIN_TOKENS tokens
    (short segments such as "Log in" would make unrelated pages near-duplicates)."""
    toks = tokens(text)
    if len(toks) < MIN_TOKENS:
        return []
    return [int(v) for v in minhash(shingle_hashes(toks, WINDOW), N_FINGERPRINTS, seed=6)]


def shared(a: Sequence[int], b: Sequence[int]) -> float:
    """Fraction of positions where two fingerprint vectors agree."""
    return sum(x == y for x, y in zip(a, b)) / N_FINGERPRINTS if a and b else 0.0


class NearDupIndex:
    """Crawl-wide (position, fingerprint) → canonical URL index in Redis."""

    def __init__(self, client: redis.Redis, prefix: str = "rc:") -> None:
        self.r, self.key = client, Keys(prefix).neardup

    def canonical(self, url: str, fps: Sequence[int]) -> str | None:
        """The canonical page ``url`` near-duplicates, or None after registering ``url`` as one."""
        if not fps:
            return None
        fields = [f"{i}:{v}" for i, v in enumerate(fps)]
        owners = [o.decode() if isinstance(o, bytes) else o for o in self.r.hmget(self.key, fields) if o is not None]
        votes = Counter(o for o in owners if o != url)
        if votes:
            other, n = votes.most_common(1)[0]
            if n >= SHARE * N_FINGERPRINTS:
                return other
        with self.r.pipeline(transaction=False) as pipe:
            for f in fields:
                pipe.hsetnx(self.key, f, url)
            pipe.execute()
        return None

    def forget(self, url: str, fps: Sequence[int]) -> None:
        """Drop ``url``'s registrations (before re-registering a re-crawled page)."""
        fields = [f"{i}:{v}" for i, v in enumerate(fps)]
        owners = self.r.hmget(self.key, fields) if fields else []
        mine = [f for f, o in zip(fields, owners) if o is not None and (o.decode() if isinstance(o, bytes) else o) == url]
        if mine:
            self.r.hdel(self.key, *mine)
