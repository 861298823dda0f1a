"""Regexes rewritten for speed match exactly what their plain forms matched (fuzzed)."""

from __future__ import annotations

import random
import re

import pytest

from rankcrawl.pipelines.page.document import SENTENCE_END
from rankcrawl.pipelines.site import fingerprints

_NAMES = sorted(set((fingerprints.MONTHS + " " + fingerprints.DAYS).split()), key=len, reverse=True)
PLAIN = {  # the forms before: a word boundary or look-behind first, tried at every position
    "NAMES": re.compile(r"\b(?:" + "|".join(_NAMES) + r")\b"),
    "NUMERIC_DATE": re.compile(r"\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b"),
    "AMPM": re.compile(r"\b(?:a\.?m\.?|p\.?m\.?)(?=\W|$)"),
    "URL": re.compile(r"\b(?:https?://|www\.)\S+"),
}
PLAIN_SENTENCE_END = re.compile(r"""(?<![.?!;])[.?!;]++["'»”’)\]]*+(?=\s|$)""")
PIECES = [*"amp.jansepdecmontuwhtps:/w.x1290-_é\n\t !?;\"')]»", "\u00a0", "\u2003", "may", "mon", "sun", "sept",
          "a.m.", "http://", "www.", "2024-05-01", "3/4/08", "...", "?!", "_x"]


def fuzz(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))) for _ in range(n)]


@pytest.mark.parametrize("name", list(PLAIN))
def test_fingerprint_patterns_substitute_like_their_plain_forms(name: str) -> None:
    fast, plain = getattr(fingerprints, name), PLAIN[name]
    for text in fuzz(40_000, seed=len(name)):
        assert fast.sub("\x02", text) == plain.sub("\x02", text), repr(text)


def test_sentence_end_counts_like_the_look_behind_first_form() -> None:
    for text in fuzz(40_000, seed=7):
        assert SENTENCE_END.findall(text) == PLAIN_SENTENCE_END.findall(text), repr(text)
        tail = text.rstrip()[-4:] + " "
        assert bool(SENTENCE_END.search(tail)) == bool(PLAIN_SENTENCE_END.search(tail)), repr(text)
    assert len(SENTENCE_END.findall("." * 40_000 + "x")) == 0   # still one linear scan
