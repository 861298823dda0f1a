"""Seeded generators of hostile page files for the fuzz test and ``bench/fuzz.py``.

``hostile_case(rng, kind)`` → ``(suffix, bytes)`` for one of ``KINDS``: random bytes, mutated HTML,
regular-expression bombs, deep nesting, gzip bombs, bogus charsets, huge attributes, hostile hrefs,
NUL bytes and UTF-16 pages. ``scale`` shrinks the sizes (the test suite uses small cases).
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable

WORDS = ("river water stone house garden light market bridge winter village library harbour "
         "the a of and to in is was for on with report journey").split()
TAGS = "div p span a b i ul li table tr td h1 h2 section article nav footer header em strong font".split()
CHARSETS = ["hex", "rot13", "base64", "zlib", "uu", "bz2", "undefined", "idna", "punycode", "utf-7",
            "unicode_escape", "raw_unicode_escape", "x-user-defined", "utf-16", "utf-32", "utf-16le",
            "mbcs", "oem", "cp65001", "utf-8\x00", "iso-8859-1 ; x", "'\"><", "a" * 5000, "", "shift_jis",
            "iso-2022-jp", "gb18030", "big5", "koi8-r", "euc-kr", "windows-1255", "x-mac-roman", "csASCII"]
HREFS = ["javascript:alert(1)", "http://[::1", "http://exa mple.com", "http://" + "a." * 5000 + "com",
         "http://user:pass@host:99999/x", "data:text/html;base64," + "QUFB" * 20000, "//evil.example/%00",
         "http://xn--" + "a" * 300 + ".com/", "http://127.0.0.1:0/", "http://[::ffff:127.0.0.1]/",
         "https://ex%ample.com/%%%", "http://\u0000/", "http://a/" + "../" * 3000, "mailto:" + "x" * 10000,
         "http://a.example/" + "%E2%80%AE" * 500, "http://[fe80::1%25eth0]/", "http://0x7f.1/", "ftp://a/",
         "http://a.example/?" + "&".join(f"k{i}=v" for i in range(3000)), "\t\n http://a.example/ \r", "#frag",
         "http://例え.テスト/パス", "http://a.example:80:80/", "http://%30.0.0.1/", "https://" + "\U0001F600" * 500]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def page(rng: random.Random, n_blocks: int) -> str:
    """An ordinary page: title, navigation, paragraphs with links, footer."""
    nav = "".join(f"<li><a href='/nav{i}'>{words(rng, 2)}</a></li>" for i in range(rng.randrange(3, 10)))
    body = "".join(f"<p>{words(rng, rng.randrange(5, 60))}. <a href='/p{rng.randrange(10**6)}'>{words(rng, 3)}</a> "
                   f"{words(rng, rng.randrange(0, 30))}.</p>" for _ in range(n_blocks))
    return (f"<!DOCTYPE html><html><head><title>{words(rng, 4)} - Site</title></head><body>"
            f"<ul class='nav'>{nav}</ul><article>{body}</article><footer>{words(rng, 8)}</footer></body></html>")


def random_bytes(rng: random.Random, scale: float) -> tuple[str, bytes]:
    return ".html", rng.randbytes(rng.randrange(int(200_000 * scale) + 1))


def mutated_html(rng: random.Random, scale: float) -> tuple[str, bytes]:
    data = bytearray(page(rng, rng.randrange(1, max(2, int(200 * scale)))).encode())
    for _ in range(rng.randrange(1, 40)):
        op, i = rng.randrange(6), rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(i, len(data) - 1)] = rng.randrange(256)
        elif op == 1:
            data[i:i] = rng.choice([b"<", b">", b"</", b"<!--", b"<![CDATA[", b"&#", b"&#x110000;", b"<script>",
                                    b"<svg><foreignObject>", b"<table><td>", b"\"'", b"<?xml", b"]]>", b"\x00"])
        elif op == 2:
            del data[i:i + rng.randrange(200)]
        elif op == 3 and data:
            j = rng.randrange(len(data))
            data[i:i] = data[j:j + rng.randrange(2000)] * rng.randrange(1, 20)
        elif op == 4:
            data = data[:i]
        else:
            data[i:i] = f"<{rng.choice(TAGS)} {'x' * rng.randrange(50)}=".encode()
    return ".html", bytes(data)


def regex_bomb(rng: random.Random, scale: float) -> tuple[str, bytes]:
    n = max(10, int(rng.randrange(10_000, 200_000) * scale))
    runs = [".", "?!;", ". ", ".)", "<a ", "<div", "<" + "a" * 50, " " * 3 + "-", "www.", "http://", "[1",
            "1.1.", "a.m.", "&#", "\t \n", "-" * 5 + " ", " | ", "»" * 3, "<!--", "\"'", "x" * 40, "\u00a0"]
    run = rng.choice(runs)
    bomb = run * (n // len(run))
    where = rng.choice(["<title>{}</title>", "<p>{}</p>", "<p>{}x", "{}", "<a href='{}'>x</a>", "<p title='{}'>t</p>"])
    return ".html", f"<html><head></head><body>{where.format(bomb)}</body></html>".encode()


def deep_nesting(rng: random.Random, scale: float) -> tuple[str, bytes]:
    depth = max(10, int(rng.randrange(1_000, 100_000) * scale))
    tag = rng.choice(TAGS + ["mixed"])
    opens = "".join(f"<{rng.choice(TAGS) if tag == 'mixed' else tag}>" for _ in range(depth))
    tail = rng.choice(["", "text " * 50, "<b " * depth, "</div>" * depth, "<a href='/x'>x</a>" * 50])
    return ".html", f"<html><body>{opens}{tail}</body></html>".encode()


def gzip_bomb(rng: random.Random, scale: float) -> tuple[str, bytes]:
    unit = rng.choice([b"<p>" + b"word " * 200_000, b"a" * 1_000_000, b"<div>" * 200_000, b"\x00" * 1_000_000,
                       b"<a href=/x>y</a>" * 60_000])
    member = gzip.compress(unit, compresslevel=9, mtime=0)
    return ".html.gz", gzip.compress(b"<html><body>", mtime=0) + member * max(1, int(rng.randrange(50, 2000) * scale))


def bogus_charset(rng: random.Random, scale: float) -> tuple[str, bytes]:
    charset = rng.choice(CHARSETS)
    body = page(rng, rng.randrange(1, max(2, int(50 * scale))))
    head = rng.choice([f'<meta charset="{charset}">', f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">',
                       f'<?xml version="1.0" encoding="{charset}"?>'])
    data = (head + body).encode("utf-8", "surrogatepass") + bytes(rng.randrange(128, 256) for _ in range(rng.randrange(200)))
    return ".html", rng.choice([b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]) + data


def huge_attributes(rng: random.Random, scale: float) -> tuple[str, bytes]:
    n = max(10, int(rng.randrange(10_000, 1_000_000) * scale))
    kind = rng.randrange(4)
    if kind == 0:
        el = f"<div class='{'c' * n}' id='{'1' * n}'>{words(rng, 30)}</div>"
    elif kind == 1:
        el = "<div " + " ".join(f"a{i}=v" for i in range(n // 10)) + f">{words(rng, 30)}</div>"
    elif kind == 2:
        el = f"<p style='{'x:y;' * (n // 4)}'>" + words(rng, 30) + "</p>"
    else:
        el = f"<a href='/x' title='{'&amp;' * (n // 5)}'>{words(rng, 5)}</a>"
    return ".html", f"<html><body>{el * rng.randrange(1, 4)}{page(rng, 3)}</body></html>".encode()


def hostile_hrefs(rng: random.Random, scale: float) -> tuple[str, bytes]:
    n = max(5, int(rng.randrange(50, 20_000) * scale))
    base = rng.choice(["", "<base href='javascript:x'>", "<base href='http://[::1'>", "<base href='//a'>",
                       f"<base href='{rng.choice(HREFS)}'>"])
    links = "".join(f"<a href='{rng.choice(HREFS) if rng.random() < 0.7 else f'/p{i}'}'>{words(rng, 3)}</a> "
                    for i in range(n))
    return ".html", f"<html><head>{base}</head><body><p>{words(rng, 40)} {links}</p></body></html>".encode()


MANY_LINKS = (50_000, 100_000, 200_000)


def many_links(rng: random.Random, scale: float) -> tuple[str, bytes]:
    """A list of 50,000, 100,000 or 200,000 links (2.5-10 MB): the link features' worst case."""
    n = max(5, int(rng.choice(MANY_LINKS) * scale))
    items = "".join(f"<li><a href='/p{i}?q={rng.randrange(9)}'>item {i} {rng.choice(WORDS)}</a></li>" for i in range(n))
    return ".html", f"<html><body><p>{words(rng, 200)}</p><ul>{items}</ul><p>{words(rng, 50)}</p></body></html>".encode()


def nul_bytes(rng: random.Random, scale: float) -> tuple[str, bytes]:
    data = bytearray(page(rng, rng.randrange(1, max(2, int(100 * scale)))).encode())
    for _ in range(rng.randrange(1, 2000)):
        data.insert(rng.randrange(len(data) + 1), 0)
    return ".html", bytes(data)


def utf16_page(rng: random.Random, scale: float) -> tuple[str, bytes]:
    text = page(rng, rng.randrange(1, max(2, int(100 * scale))))
    codec, bom = rng.choice([("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""),
                             ("utf-32-le", b"\xff\xfe\x00\x00")])
    return ".html", bom + text.encode(codec)


KINDS: dict[str, Callable[[random.Random, float], tuple[str, bytes]]] = {
    "random bytes": random_bytes,
    "mutated HTML": mutated_html,
    "regex bomb": regex_bomb,
    "deep nesting": deep_nesting,
    "gzip bomb": gzip_bomb,
    "bogus charset": bogus_charset,
    "huge attributes": huge_attributes,
    "hostile hrefs": hostile_hrefs,
    "many links": many_links,
    "NUL bytes": nul_bytes,
    "UTF-16/32": utf16_page,
}


def hostile_case(rng: random.Random, kind: str, scale: float = 1.0) -> tuple[str, bytes]:
    """(file suffix, content) of one generated hostile input of ``kind``."""
    return KINDS[kind](rng, scale)
