"""Normalised segment fingerprints (Kohlschütter 2011, §4.3.3 "Template Removal").

Lower case; month and weekday names (full and abbreviated), AM/PM and plain-text URLs
removed; every character except Latin letters becomes whitespace, collapsed to single spaces;
``$DATE$`` appended when the text had a date token, ``$URL$`` when it had a URL; SHA-1 hex.
Date tokens are the month/weekday names and numeric dates such as 2024-05-01 or 1/5/24
(the thesis names only the former; numeric dates are our addition so "Posted 3/4/2008" and
"Posted 5/6/2009" share a fingerprint).
"""

from __future__ import annotations

import hashlib
import re

MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
DAYS = "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun"
AT_WORD_START = r"(?<!\w.)"
"""``\b`` before a pattern's first (word) character, checked just after it: the pattern then starts
with a literal or a class, and the regex engine skips to candidate characters instead of trying
every position (the patterns below match exactly what their ``\b``-first forms did)."""
_NAMES = sorted(set((MONTHS + " " + DAYS).split()), key=len, reverse=True)
NAMES = re.compile("(?:" + "|".join(
    first + AT_WORD_START + "(?:" + "|".join(w[1:] for w in _NAMES if w[0] == first) + ")"
    for first in sorted({w[0] for w in _NAMES})) + r")\b")
"""A month or weekday name as a whole word (longest first among those sharing a first letter)."""
NUMERIC_DATE = re.compile(r"\d" + AT_WORD_START + r"\d{0,3}[-/.]\d{1,2}[-/.]\d{1,4}\b")
AMPM = re.compile(r"(?:a" + AT_WORD_START + r"\.?m\.?|p" + AT_WORD_START + r"\.?m\.?)(?=\W|$)")
URL = re.compile(r"(?:h" + AT_WORD_START + r"ttps?://|w" + AT_WORD_START + r"ww\.)\S+")
LETTERS = re.compile(r"[a-z]+")
"""The words that remain once every character but a Latin letter is white space."""


def normalize(text: str) -> str:
    """The normalised text whose SHA-1 is the fingerprint (markers included)."""
    text = text.lower()
    has_url = bool(URL.search(text))
    text = URL.sub(" ", text)
    has_date = bool(NAMES.search(text) or NUMERIC_DATE.search(text))
    text = NUMERIC_DATE.sub(" ", NAMES.sub(" ", AMPM.sub(" ", text)))
    words = LETTERS.findall(text)
    if has_date:
        words.append("$DATE$")
    if has_url:
        words.append("$URL$")
    return " ".join(words)


def fingerprint(text: str) -> str:
    """SHA-1 hex digest of the normalised text."""
    return hashlib.sha1(normalize(text).encode()).hexdigest()


NO_KEY = ("", "$URL$")
"""Normalised texts without a fingerprint key: a segment of digits and punctuation, or one that is
a bare URL (DocBook prints every link's address as its own block: they all shared one key, which
recurred on every page of the host as a "template")."""


def fingerprint_key(text: str) -> int:
    """The fingerprint as a 63-bit integer (the first 8 bytes of the SHA-1); 0 when the normalised
    text is in NO_KEY."""
    norm = normalize(text)
    return int.from_bytes(hashlib.sha1(norm.encode()).digest()[:8], "big") >> 1 if norm not in NO_KEY else 0


def fingerprint_keys(texts: list[str]) -> list[int]:
    """``fingerprint_key`` of many segments at once: each pattern runs once over the joined texts
    (a page's blocks), matches marked, then the texts are split again."""
    joined = "\n".join(t.replace("\n", " ") for t in texts).lower()
    joined = URL.sub("\x01", joined)
    joined = NUMERIC_DATE.sub("\x02", NAMES.sub("\x02", joined))
    joined = AMPM.sub(" ", joined)
    keys = []
    for part in joined.split("\n"):
        words = LETTERS.findall(part)
        if "\x02" in part:
            words.append("$DATE$")
        if "\x01" in part:
            words.append("$URL$")
        norm = " ".join(words)
        keys.append(int.from_bytes(hashlib.sha1(norm.encode()).digest()[:8], "big") >> 1 if norm not in NO_KEY else 0)
    return keys
