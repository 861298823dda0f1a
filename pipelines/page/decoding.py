"""HTML bytes → text: BOM, valid UTF-8, HTTP/explicit encoding, ``<meta>`` charset, then cp1252.

w3lib (Scrapy's own library) does the BOM/header/meta resolution. One rule runs before the
declarations: bytes that are valid UTF-8 and contain non-ASCII characters are decoded as UTF-8,
because a wrong declared charset (common: ``iso-8859-1`` on UTF-8 pages) would otherwise give
mojibake, while legacy-encoded text is almost never valid UTF-8 by accident. A declared charset
Python cannot use to decode HTML (``hex``, ``rot13``, ``idna``, an unknown name …) is ignored.
"""

from __future__ import annotations

import codecs
from functools import lru_cache
from typing import NamedTuple

from w3lib.encoding import html_body_declared_encoding, html_to_unicode, http_content_type_encoding, read_bom, resolve_encoding

from rankcrawl.pipelines.page.extensions import optional

_tagscan = optional("rankcrawl.pipelines.page._tagscan")  # None where not built: Python's decoder checks UTF-8 (and decodes)

WIDE_ENCODINGS = ("utf-16", "utf-32")
DEFAULT_ENCODING = "cp1252"
ESCAPE_CODECS = frozenset({"unicode-escape", "raw-unicode-escape", "utf-7"})
"""Codecs that decode any bytes but interpret text (backslash/plus escapes): never an HTML charset."""
ALL_BYTES = bytes(range(256))


@lru_cache(maxsize=512)
def usable_encoding(name: str) -> bool:
    """True if ``name`` is a text codec that decodes any bytes (with replacement characters)."""
    try:
        info = codecs.lookup(name)
        if info.name.replace("_", "-") in ESCAPE_CODECS:
            return False
        ALL_BYTES.decode(info.name, "replace")
    except (LookupError, ValueError, TypeError):  # non-text codecs (hex, zlib); idna/undefined raise UnicodeError
        return False
    return True


class Decoded(NamedTuple):
    """A page's text, the encoding it was decoded with, and its UTF-8 bytes where they are at hand."""

    text: str | None
    """None only when asked (``decode_html(lazy=True)``) and the page is valid UTF-8."""
    encoding: str
    utf8: bytes | None
    """``text`` encoded as UTF-8 when it was decoded from valid UTF-8 (the body, less a cut last
    character), so the parser need not encode it again; else None."""


def utf8_decoded(body: bytes, truncated: bool = False) -> tuple[str, bytes] | None:
    """(text, the bytes it decodes) of valid UTF-8 ``body``, else None; if ``truncated``, a multi-byte
    sequence cut at the end is fine (and left out). One decode, no separate validation."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(body, final=not truncated)
    except UnicodeDecodeError:
        return None
    pending = len(decoder.getstate()[0])
    return text, body[: len(body) - pending] if pending else body


def decode_html(
    body: bytes, encoding: str | None = None, content_type: str | None = None, truncated: bool = False,
    lazy: bool = False,
) -> Decoded:
    """(text, encoding used, UTF-8 bytes or None) of an HTML page; ``encoding`` overrides ``content_type``'s charset.

    ``truncated`` says that ``body`` was cut at a byte limit (its last character may be partial).
    ``lazy``: valid UTF-8 is recognised without being decoded where the compiled check is at hand
    (``_tagscan.utf8_length``): text None, the bytes in ``utf8`` (the parser reads bytes, and decodes
    them only to rewrite them, which few pages need).
    """
    declared = resolve_encoding(encoding) if encoding else None
    if declared is not None and not usable_encoding(declared):
        declared = None
    bom, _ = read_bom(body)
    wide = declared is not None and declared.startswith(WIDE_ENCODINGS)
    if bom is None and not wide and not body.isascii():
        if lazy and _tagscan is not None:
            if (size := _tagscan.utf8_length(body, truncated)) >= 0:
                return Decoded(None, "utf-8", body if size == len(body) else body[:size])
        elif (valid := utf8_decoded(body, truncated)) is not None:
            return Decoded(valid[0], "utf-8", valid[1])
    charset = declared or http_content_type_encoding(content_type)
    if charset is not None and not usable_encoding(charset):
        charset = None
    if bom is None and charset is None:
        charset = html_body_declared_encoding(body)
        if charset is not None and charset.startswith(WIDE_ENCODINGS):
            charset = None  # a <meta> readable as ASCII is not UTF-16/32 (WHATWG: such a label means UTF-8)
    if bom is None and (charset is None or not usable_encoding(charset)):
        charset = DEFAULT_ENCODING
    used, text = html_to_unicode(f"text/html; charset={charset}" if charset else None, body,
                                 default_encoding=DEFAULT_ENCODING)
    return Decoded(text, used, None)
