"""Decoding HTML bytes: declared encodings, BOM, wrong meta charsets, cut pages."""

from __future__ import annotations

from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.decoding import decode_html, is_utf8

TEXT = "Müller’s café — “quoted” naïve façade"


def test_cp1252_declared_in_meta() -> None:
    body = f'<html><head><meta charset="windows-1252"></head><body><p>{TEXT}</p></body></html>'.encode("cp1252")
    text, used = decode_html(body)
    assert TEXT in text and used == "cp1252"


def test_shift_jis_from_meta_and_from_argument() -> None:
    jp = "日本語のテキストです。東京は晴れ。"
    body = f'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>{jp}</p>'.encode("shift_jis")
    assert jp in decode_html(body)[0]
    assert jp in decode_html(f"<p>{jp}</p>".encode("shift_jis"), "shift_jis")[0]


def test_wrong_meta_charset_on_valid_utf8_gives_no_mojibake() -> None:
    body = f'<meta charset="iso-8859-1"><p>{TEXT}</p>'.encode("utf-8")
    text, used = decode_html(body)
    assert TEXT in text and used == "utf-8"
    assert "Ã" not in text


def test_undeclared_invalid_utf8_falls_back_to_cp1252() -> None:
    text, used = decode_html("<p>caf\xe9 \u20ac</p>".encode("cp1252"))
    assert "café €" in text and used == "cp1252"


def test_utf16_bom() -> None:
    body = "\ufeff<p>hello wide world</p>".encode("utf-16-le")
    assert "hello wide world" in decode_html(body)[0]


def test_cut_multibyte_character_only_tolerated_when_truncated() -> None:
    cut = "abc é".encode("utf-8")[:-1]
    assert is_utf8(cut, truncated=True) and not is_utf8(cut)
    assert decode_html("<p>naïve café</p>".encode("latin-1"))[0].count("é") == 1


def test_analyze_uses_the_decoded_text() -> None:
    words = " ".join(["Grüße aus München, schöne Stadt."] * 12)
    doc = analyze(f'<meta charset="iso-8859-1"><body><p>{words}</p></body>'.encode("utf-8"), classifier="minwords")
    assert "Grüße aus München" in doc.text and doc.encoding == "utf-8"
