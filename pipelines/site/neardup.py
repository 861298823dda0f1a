"""Near-duplicate pages: min-hash of the page's whole main text (SPEC §2.6).

Kohlschütter 2011, §4.2.5 (after Chakrabarti et al.) takes 8 min-hashes of the 6-token shingles of
the largest text segment and calls two pages near-duplicates when ≥ 50 % of them agree. That gives
false positives: two distinct reference pages that share one long section (an options list) agree
on the largest segment. Here the shingles are those of the page's whole
main text (every content block), and the decision is banded (LSH): N_FINGERPRINTS = 24 min-hashes
in BANDS = 4 bands of 6; two pages are near-duplicates when one band agrees entirely. With main-text
Jaccard similarity J that happens with probability 1 − (1 − J⁶)⁴: 0.99 at J = 0.95, 0.70 at
J = 0.8, 0.06 at J = 0.5, 0.005 at J = 1/3 (two pages half made of one shared section).
Texts under MIN_TOKENS tokens get no signature (stub pages would match each other). Every band key
also carries the page's title (case and spacing folded): a copy keeps its page's name, while distinct
pages of one generator whose main texts are mostly its fixed wording (a site's release notes, API pages
of interfaces with one method each) differ in their titles and stay distinct.

The crawl-wide index maps each band key to the first page (its 8-byte URL key) that registered it,
the canonical page; a later near-duplicate's links are counted once: it keeps only its links to
targets the canonical page does not link to (none when this process does not remember the canonical
page's links), so a mirror of the same links adds nothing while a copy in another folder whose
links lead into its own copies keeps them (``site.decide.decide``). A page is never a near-duplicate
of a page it links as its alternate (``hreflang``: a declared language version,
``site.analyzer.declared_alternates``). The index is read and written inside the site state's one call
per page (``site.sketch``): 4 hash fields per canonical page.
"""

from __future__ import annotations

import hashlib

import numpy as np

from rankcrawl.pipelines.site.shingles import combine, sketch_segments, token_hashes

N_FINGERPRINTS, BANDS, WINDOW, SEED = 24, 4, 6, 6
MIN_TOKENS = 50


def title_key(title: str) -> int:
    """64-bit key of a page title, case and spacing folded (0 for none)."""
    folded = " ".join(title.lower().split())
    return int.from_bytes(hashlib.blake2b(folded.encode(), digest_size=8).digest(), "big") if folded else 0


def signature(text: str, title: str = "") -> list[int]:
    """The BANDS band keys (63-bit) of ``text``'s whole-text min-hashes and ``title``; [] below MIN_TOKENS tokens."""
    if len(token_hashes(text)) < MIN_TOKENS:
        return []
    sketch = sketch_segments([text], N_FINGERPRINTS, WINDOW, SEED)[0]
    rows = N_FINGERPRINTS // BANDS
    bands = np.empty((BANDS, rows + 2), dtype=np.uint64)
    bands[:, 0] = np.arange(BANDS, dtype=np.uint64)
    bands[:, 1] = title_key(title)
    bands[:, 2:] = sketch.reshape(BANDS, rows)
    return [int(v) for v in combine(bands)]
