"""HTML bytes → text: BOM, valid UTF-8, HTTP/explicit encoding, ``<meta>`` charset, then cp1252.

w3lib (Scrapy's own library) does the BOM/header/meta resolution. One rule runs before the
declarations: bytes that are valid UTF-8 and contain non-ASCII characters are decoded as UTF-8,
because a wrong declared charset (common: ``iso-8859-1`` on UTF-8 pages) would otherwise give
mojibake, while legacy-encoded text is almost never valid UTF-8 by accident.
"""

from __future__ import annotations

import codecs

from w3lib.encoding import html_to_unicode, read_bom, resolve_encoding

WIDE_ENCODINGS = ("utf-16", "utf-32")


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
    bom, _ = read_bom(body)
    wide = declared is not None and declared.startswith(WIDE_ENCODINGS)
    if bom is None and not wide and not body.isascii() and is_utf8(body, truncated):
        return body.decode("utf-8", errors="ignore"), "utf-8"
    header = f"text/html; charset={declared}" if declared else content_type
    used, text = html_to_unicode(header, body, default_encoding="cp1252")
    return text, used
