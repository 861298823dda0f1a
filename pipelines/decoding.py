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

from w3lib.encoding import html_body_declared_encoding, html_to_unicode, http_content_type_encoding, read_bom, resolve_encoding

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


def is_utf8(body: bytes, truncated: bool = False) -> bool:
    """True if ``body`` is valid UTF-8; if ``truncated``, a multi-byte sequence cut at the end is fine."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(body, final=not truncated)
    except UnicodeDecodeError:
        return False
    return True


def decode_html(
    body: bytes, encoding: str | None = None, content_type: str | None = None, truncated: bool = False
) -> tuple[str, str]:
    """(text, encoding used) of an HTML page; ``encoding`` overrides ``content_type``'s charset.

    ``truncated`` says that ``body`` was cut at a byte limit (its last character may be partial).
    """
    declared = resolve_encoding(encoding) if encoding else None
    if declared is not None and not usable_encoding(declared):
        declared = None
    bom, _ = read_bom(body)
    wide = declared is not None and declared.startswith(WIDE_ENCODINGS)
    if bom is None and not wide and not body.isascii() and is_utf8(body, truncated):
        return body.decode("utf-8", errors="ignore"), "utf-8"
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
    return text, used
