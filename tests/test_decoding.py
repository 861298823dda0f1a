"""Decoding HTML bytes: declared encodings, BOM, wrong meta charsets, cut pages."""

from __future__ import annotations

import pytest

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.decoding import decode_html, utf8_decoded

TEXT = "Müller’s café — “quoted” naïve façade"


def test_cp1252_declared_in_meta() -> None:
    body = f'<html><head><meta charset="windows-1252"></head><body><p>{TEXT}</p></body></html>'.encode("cp1252")
    text, used, _ = decode_html(body)
    assert TEXT in text and used == "cp1252"


def test_shift_jis_from_meta_and_from_argument() -> None:
    jp = "日本語のテキストです。東京は晴れ。"
    body = f'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>{jp}</p>'.encode("shift_jis")
    assert jp in decode_html(body)[0]
    assert jp in decode_html(f"<p>{jp}</p>".encode("shift_jis"), "shift_jis")[0]


def test_wrong_meta_charset_on_valid_utf8_gives_no_mojibake() -> None:
    body = f'<meta charset="iso-8859-1"><p>{TEXT}</p>'.encode()
    text, used, _ = decode_html(body)
    assert TEXT in text and used == "utf-8"
    assert "Ã" not in text


def test_undeclared_invalid_utf8_falls_back_to_cp1252() -> None:
    text, used, _ = decode_html("<p>caf\xe9 \u20ac</p>".encode("cp1252"))
    assert "café €" in text and used == "cp1252"


def test_utf16_bom() -> None:
    body = "\ufeff<p>hello wide world</p>".encode("utf-16-le")
    assert "hello wide world" in decode_html(body)[0]


def test_cut_multibyte_character_only_tolerated_when_truncated() -> None:
    cut = "abc é".encode()[:-1]
    assert utf8_decoded(cut, truncated=True) == ("abc ", b"abc ") and utf8_decoded(cut) is None
    assert decode_html(cut, truncated=True) == ("abc ", "utf-8", b"abc ")
    assert decode_html("<p>naïve café</p>".encode("latin-1"))[0].count("é") == 1


def test_analyze_uses_the_decoded_text() -> None:
    words = " ".join(["Grüße aus München, schöne Stadt."] * 12)
    doc = analyze(f'<meta charset="iso-8859-1"><body><p>{words}</p></body>'.encode(), classifier="minwords")
    assert "Grüße aus München" in doc.text and doc.encoding == "utf-8"


@pytest.mark.parametrize("charset", ["hex", "rot13", "base64", "zlib", "uu", "undefined", "idna", "punycode",
                                     "utf-7", "unicode_escape", "bogus-xx"])
def test_unusable_declared_charsets_fall_back_instead_of_raising(charset: str) -> None:
    body = f'<html><head><meta charset="{charset}"></head><body><p>caf\xe9 \\u0041 +AGE-</p>'.encode("latin-1")
    for kwargs in ({}, {"encoding": charset}, {"content_type": f"text/html; charset={charset}"}):
        text, used, _ = decode_html(body, **kwargs)
        assert "café \\u0041 +AGE-" in text and used == "cp1252", (kwargs, used)


@pytest.mark.parametrize("charset", ["utf-16", "utf-32"])
def test_wide_charset_in_an_ascii_meta_is_ignored(charset: str) -> None:
    body = f'<html><head><meta charset="{charset}"></head><body><p>caf\xe9 \\u0041 +AGE-</p>'.encode("latin-1")
    text, used, _ = decode_html(body)
    assert "café \\u0041 +AGE-" in text and used == "cp1252"


def test_usable_declared_charset_still_wins_over_an_unusable_header() -> None:
    text, used, _ = decode_html(b"<meta charset=koi8-r><p>\xe9</p>", content_type="text/html; charset=hex")
    assert used == "koi8-r" and "И" in text


def test_the_parser_reads_the_utf8_bytes_the_decoder_kept() -> None:
    from lxml import etree

    from rankcrawl.pipelines.page.parsing import parse_html

    body = "<html><body><p>Grüße 😀 aus München</p><p>zweite ü</p></body></html>".encode()
    for cut in (len(body), len(body) - 20, body.index("😀".encode()) + 2):
        text, used, utf8 = decode_html(body[:cut], truncated=cut < len(body))
        assert used == "utf-8" and utf8 == text.encode()
        assert etree.tostring(parse_html(text, utf8=utf8)) == etree.tostring(parse_html(text))


def test_lazy_utf8_is_the_bytes_python_decodes() -> None:
    """``lazy=True``: where the compiled check is built, valid UTF-8 comes back undecoded, exactly the bytes
    Python's decoder would have kept (a cut last character left out when truncated, CPython's pending
    bytes), and every other page decodes as without ``lazy``."""
    import os
    import random

    from rankcrawl.pipelines.page import decoding

    if decoding._tagscan is None:
        if os.environ.get("CI"):
            pytest.fail("the compiled byte scans (_tagscan) were not built", pytrace=False)
        pytest.skip("the compiled byte scans are not built here")
    pieces = [b"<p>", b"a", b"\x80", b"\xbf", b"\xc0", b"\xc2", b"\xe0", b"\xed", b"\xa0", b"\xef", b"\xf0", b"\xf4",
              b"\x90", b"\x8f", b"\xf5", "é".encode(), "€".encode(), "😀".encode(), "\U0010ffff".encode()]
    rng = random.Random(0)
    lazy_pages = 0
    for _ in range(20000):
        body = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        truncated = rng.random() < 0.5
        eager = decode_html(body, truncated=truncated)
        lazy = decode_html(body, truncated=truncated, lazy=True)
        if lazy.text is None:
            lazy_pages += 1
            assert lazy.utf8 is not None and (lazy.utf8.decode(), lazy.encoding, lazy.utf8) == eager, body
        else:
            assert lazy == eager, body
    assert lazy_pages > 1000
