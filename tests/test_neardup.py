"""Near-duplicates (Kohlschütter §4.2.5): 8 min-hashes of 6-token shingles, ≥ 50 % shared."""

import random

from rankcrawl.pipelines.neardup import NearDupIndex, fingerprints, largest_segment, shared

WORDS = [f"word{i}" for i in range(500)]


def text(seed: int, n: int = 200) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def test_largest_segment_skips_link_lists():
    blocks = [("a b c d e f g h i j k l", 0.9), ("short text here", 0.0), ("one two", 0.1)]
    assert largest_segment(blocks) == "short text here"


def test_same_lyrics_different_layouts_are_near_duplicates():
    song = text(1)
    a = largest_segment([("Home About Contact Lyrics A-Z", 1.0), (song, 0.0), ("© lyrics site one", 0.0)])
    b = largest_segment([("Menu Top 100 Artists", 0.9), ("Ad: buy ringtones", 0.0), (song + " chorus", 0.0)])
    assert shared(fingerprints(a), fingerprints(b)) >= 0.5
    assert shared(fingerprints(song), fingerprints(text(2))) < 0.5


def test_short_segments_give_no_fingerprints():
    assert fingerprints("log in to your account") == []


def test_index_canonical_page_keeps_links(r):
    index = NearDupIndex(r, "t:")
    song = text(3)
    assert index.canonical("http://a.org/song", fingerprints(song)) is None
    assert index.canonical("http://b.org/lyrics", fingerprints(song + " extra words")) == "http://a.org/song"
    assert index.canonical("http://c.org/other", fingerprints(text(4))) is None
    assert index.canonical("http://a.org/song", fingerprints(song)) is None  # re-crawl: still canonical
    index.forget("http://a.org/song", fingerprints(song))
    assert index.canonical("http://b.org/lyrics", fingerprints(song)) is None
