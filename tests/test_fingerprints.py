"""Normalised segment fingerprints (Kohlschütter §4.3.3)."""

from rankcrawl.pipelines.site.decide import recurrence_floor
from rankcrawl.pipelines.site.fingerprints import fingerprint, fingerprint_key, fingerprint_keys, normalize


def test_case_and_punctuation():
    assert fingerprint("Hello, World!") == fingerprint("hello world")
    assert normalize("Hello, World 42!") == "hello world"


def test_dates_months_days_ampm():
    a = "Posted on Monday, March 3, 2008 at 10:30 AM"
    b = "Posted on Tue, Jan 5, 2009 at 1:05 pm"
    assert normalize(a) == "posted on at $DATE$"
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint("Updated 2024-05-01") == fingerprint("Updated 3/4/99")
    assert fingerprint("Updated 2024-05-01") != fingerprint("Updated")


def test_urls():
    assert normalize("See http://x.org/a?b=1 now") == "see now $URL$"
    assert fingerprint("See https://y.com now") == fingerprint("see www.z.net/q NOW")
    assert fingerprint("see now") != fingerprint("see now http://a.b")


def test_a_bare_url_or_number_has_no_key_but_words_beside_a_url_do():
    """DocBook prints each link's address as a block of its own: those must not share one key."""
    bare = ["→ https://db.debian.org/", "https://www.debian.org/doc/debian-policy/", "42 / 7"]
    assert [fingerprint_key(t) for t in bare] == [0, 0, 0] == fingerprint_keys(bare)
    worded = ["See https://y.com now", "see www.z.net/q NOW"]
    assert fingerprint_keys(worded) == [fingerprint_key(worded[0])] * 2 and fingerprint_key(worded[0]) != 0


def test_different_text_differs_and_is_sha1():
    assert fingerprint("subscribe to our newsletter") != fingerprint("the council voted today")
    assert len(fingerprint("x")) == 40


def frequent(counts: dict[str, int], n_pages: int, share: float) -> set[str]:
    """Fingerprints on at least ``recurrence_floor`` pages of a host."""
    return {f for f, c in counts.items() if c >= recurrence_floor(n_pages, share)}


def test_frequent_threshold():
    counts = {"a": 9, "b": 3, "c": 1}
    assert frequent(counts, 10, 0.5) == {"a"}
    assert frequent(counts, 4, 0.5) == {"a", "b"}
