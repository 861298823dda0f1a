"""The compiled byte scans (``_tagscan``): the attribute-cap pre-check never hides a tag that
``cap_attributes`` would cut, and the UTF-8 check keeps what Python's decoder keeps."""

from __future__ import annotations

import os
import random
import time

import pytest

from rankcrawl.pipelines.page import parsing

if parsing._tagscan is None:
    if os.environ.get("CI"):
        pytest.fail("the compiled attribute-cap pre-check was not built (setup.py: Cython and a C compiler are needed)",
                    pytrace=False)
    pytest.skip("the compiled attribute-cap pre-check is not built here", allow_module_level=True)

PIECES = ["<div", "<p", "</div", "<b", " ", "\n", "\t", "\x0c", "\x0b", ">", "<", "=", '"', "'", "a", "b=c", "x='1'",
          'y="2"', "/", "/>", "<!--", "-->", "--!>", "<!-->", "<!doctype html>", "<?pi?>", "</ ", "<script>", "<script",
          "</script>", "<SCRIPT ", "<title>", "</title>", "<textarea>", "<style>", "</style>", "text", "<!", "<A", "q=",
          "'>'", '">"', "<br/>", "<plaintext ", "<xmp>", "</xmp>", "= v", "=\t'", "é", "€", "\U0001f600", "</a b c d>"]


def possible(html: str, limit: int) -> bool:
    assert parsing._tagscan is not None
    return parsing._tagscan.long_tag_possible(html.encode("utf-8", "replace"), limit)


def test_false_only_where_the_full_scan_cuts_nothing() -> None:
    rng = random.Random(3)
    ruled_out = cut = 0
    for _ in range(6000):
        html = "".join(rng.choice(PIECES) for _ in range(rng.randrange(50)))
        limit = rng.choice([0, 1, 2, 3])
        changed = parsing.cap_attributes(html, limit) != html
        may = possible(html, limit)
        assert may or not changed, (html, limit)
        ruled_out += not may
        cut += changed
    assert ruled_out > 1000 and cut > 1000  # both outcomes are exercised


def test_ordinary_pages_skip_the_scan_and_long_tags_do_not() -> None:
    items = "".join(f'<li class="i{i}"><a href="/p/{i}" title="x > y" data-x=\'{i}\'>Page {i}</a></li>' for i in range(500))
    page = f"<html><head><script>if (a<b && c>d) x = '<p a b c>';</script></head><body><ul>{items}</ul></body></html>"
    assert not possible(page, parsing.MAX_ATTRIBUTES)
    for value in ("a{i}", 'a{i}="<b>"', "a{i}='>'", "a{i}=v/"):
        attrs = " ".join(value.format(i=i) for i in range(parsing.MAX_ATTRIBUTES + 1))
        long = page.replace("<ul>", f"<ul {attrs}>")
        assert possible(long, parsing.MAX_ATTRIBUTES)
        assert parsing.cap_attributes(long) != long
        assert parsing.parse_html(long).find(".//ul") is not None


def test_overlapping_scans_stop_at_the_work_bound() -> None:
    html = '<a x="' * 200_000  # every "<a" opens a tag whose quoted value runs to the end of the page
    start = time.process_time()
    assert possible(html, parsing.MAX_ATTRIBUTES)
    assert time.process_time() - start < 2.0


def test_utf8_length_is_what_pythons_decoder_keeps() -> None:
    """``utf8_length`` against Python's strict decoder (incremental when truncated) on random byte runs:
    overlongs, surrogates, code points past U+10FFFF, stray and missing continuation bytes."""
    from rankcrawl.pipelines.page.decoding import utf8_decoded

    pieces = [b"a", b"\x80", b"\xbf", b"\xc0", b"\xc1", b"\xc2", b"\xdf", b"\xe0", b"\xe1", b"\xed", b"\xef", b"\xf0",
              b"\xf3", b"\xf4", b"\xf5", b"\xff", b"\x9f", b"\xa0", b"\x90", b"\x8f", "é".encode(), "€".encode(),
              "😀".encode(), "\ud7ff".encode(), "\U0010ffff".encode()]
    rng = random.Random(3)
    valid = 0
    for _ in range(40000):
        body = b"".join(rng.choice(pieces) for _ in range(rng.randrange(6)))
        for truncated in (False, True):
            kept = utf8_decoded(body, truncated)
            assert parsing._tagscan.utf8_length(body, truncated) == (-1 if kept is None else len(kept[1])), (body, truncated)
            valid += kept is not None
    assert valid > 10000


def test_has_control_finds_the_control_bytes() -> None:
    for byte in range(256):
        data = b"<p>x" + bytes([byte]) + b"</p>"
        assert parsing._tagscan.has_control(data) == (byte in parsing.CONTROL_BYTES), byte
    assert not parsing._tagscan.has_control(b"")
