"""The import's compiled URL path agrees with ``settings.urls.normalize_url`` on many URLs."""

from __future__ import annotations

import numpy as np

from rankcrawl.ranker.store import _scan
from rankcrawl.ranker.store.records import host_and_path
from rankcrawl.ranker.store.urlids import Table

PIECES = ["http://", "https://", "HTTP://", "ftp://", "a", "b", "z9", "xn--", "-", "--", ".", "..", "A", "0", "123",
          "/", "//", "/.", "/..", "/./", "~", "_", "%7E", "%2f", "?", "?q=1&a=2", "#f", ":80", ":8080", ":443", ":0",
          ":99999", "@", "ü", " ", "\t", "\\", "[::1]", "é", "org", "com", "-x", "x-", "%", "+", "=", ";", ",", "'"]

CLEAN = ["/", "a", "B", "0", "_", "~", "-", ".", "/x", "z.html", "/.", "..", "-y"]


def generated(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        scheme = rng.choice(["http://", "https://", "HTTP://", "ftp://", "http:/", ""], p=[.45, .35, .05, .05, .05, .05])
        labels = PIECES[4:16] if rng.random() < 0.4 else PIECES[4:7] + PIECES[13:15]
        host = ".".join("".join(rng.choice(labels, size=rng.integers(1, 4))) for _ in range(rng.integers(1, 4)))
        pieces = CLEAN if rng.random() < 0.6 else PIECES[14:]
        rest = "/" * (rng.random() < 0.8) + "".join(rng.choice(pieces, size=rng.integers(0, 6)))
        out.append(f"{scheme}{host}{rest}")
    plain = [f"http://h{i}.example/{i * 7}" for i in range(200)] + [f"https://a{i}.b-c.org/x/y_{i}.html" for i in range(200)]
    return out + plain


def split_fast(urls: list[str]) -> list[tuple[str, str] | None]:
    """What the compiled path decides: in place when ``normal_host_end`` recognises the form."""
    buf = np.frombuffer(("\n".join(urls) + "\n").encode(), dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    starts = np.concatenate([[0], ends[:-1] + 1])
    cut = _scan.host_ends(buf, starts, ends)
    out = []
    for u, s, c, e in zip(urls, starts.tolist(), cut.tolist(), ends.tolist()):
        out.append((buf[s:c].tobytes().decode(), buf[c:e].tobytes().decode()) if c >= 0 else host_and_path(u))
    return out


def test_recognised_urls_are_already_normal() -> None:
    urls = [u for u in generated(20_000, 1) if "\n" not in u]
    fast = split_fast(urls)
    for u, got in zip(urls, fast):
        assert got == host_and_path(u), u
    buf = np.frombuffer(("\n".join(urls) + "\n").encode(), dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    recognised = int((_scan.host_ends(buf, np.concatenate([[0], ends[:-1] + 1]), ends) >= 0).sum())
    assert 3000 < recognised < len(urls)  # both paths exercised


TRICKY = ["http://a.org/", "http://a.org", "http://A.org/x", "HTTP://a.org/x", "http://a.org:80/x", "https://a.org:443/",
          "http://a.org:8080/p", "http://a.org:080/p", "http://a.org:99999/", "http://xn--bcher-kva.example/",
          "http://a--b.org/", "http://a-.org/", "http://-a.org/", "http://a..b/x", "http://a.org./x", "http://" + "a" * 63 + ".org/",
          "http://" + "a" * 64 + ".org/", "http://a.org/%7Ex", "http://a.org/x#f", "http://a.org/über", "http://a.org/./b",
          "http://a.org/a/..", "http://a.org/.well-known/x", "http://a.org//double", "http://a.org/~u/_x-y.html",
          "http://a.org/?", "http://a.org/a?b", "http://127.0.0.1/a", "http://a.org/a b", "https://a.org/A/B"]


def test_compiled_path_agrees_on_tricky_urls() -> None:
    assert split_fast(TRICKY) == [host_and_path(u) for u in TRICKY]


def test_split_lines_and_plain_weights() -> None:
    text = "a\tb\t1\nc\td\t0.5\ne\tf\t007.250\ng\th\t1e3\n"
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    fields, k = _scan.split_lines(buf)
    assert k == 3 and fields.shape == (4, 6)
    w, other = _scan.parse_weights(buf, fields[:, 4], fields[:, 5])
    assert w[:3].tolist() == [1.0, 0.5, 7.25] and other.tolist() == [False, False, False, True]
    for bad in ("a\tb\n#c\td\n", "a\tb\nc\td\te\n", "a\tb\r\n", "\tb\n", " \tb\n", "a\n", "a\tb\tc\td\n"):
        assert _scan.split_lines(np.frombuffer(bad.encode(), dtype=np.uint8))[1] == 0, bad


def test_plain_weights_equal_python_float() -> None:
    rng = np.random.default_rng(4)
    texts = [f"{x:.{rng.integers(0, 17)}f}" for x in rng.random(3000) * 10.0 ** rng.integers(-6, 9, 3000)]
    texts += ["1", "0", "0.", ".5", ".", "", "00000000000000000001.5", "123456789012345", "1234567890123456", "1.0000000000000001"]
    buf = np.frombuffer("".join(texts).encode(), dtype=np.uint8)
    ends = np.cumsum([len(t) for t in texts])
    w, other = _scan.parse_weights(buf, ends - [len(t) for t in texts], ends)
    for t, x, o in zip(texts, w.tolist(), other.tolist()):
        if not o:
            assert x == float(t), t
    assert other.sum() < len(texts) // 4  # most plain weights need no Python call
    assert other[-10:].tolist() == [False, False, False, False, True, True, False, False, True, True]


def test_interning_is_exact() -> None:
    table = Table()
    words = [f"u{i % 997}" for i in range(5000)] + ["", "x", "x"]
    buf = np.frombuffer("".join(words).encode(), dtype=np.uint8)
    ends = np.cumsum([len(w) for w in words])
    got = table.add(buf, ends - [len(w) for w in words], ends)
    first: dict[str, int] = {}
    assert got.tolist() == [first.setdefault(w, len(first)) for w in words]
    assert table.n == len(first) and table.text(int(got[-1])) == "x"


def test_merge_links_equals_sorting_and_summing() -> None:
    rng = np.random.default_rng(9)
    m = 60
    src = np.concatenate([rng.integers(0, m, 3000), np.full(200, 7)])  # page 7: a group past insertion sort
    dst = np.concatenate([rng.integers(0, m, 3000), rng.integers(0, 40, 200)])
    w = rng.choice([0.5, 1.0, 2.0], len(src))
    ptr, d, got_w = _scan.merge_links(src, dst, w, m)
    keep = src != dst
    key, inverse = np.unique(src[keep] * m + dst[keep], return_inverse=True)
    assert d.tolist() == (key % m).tolist()
    assert np.allclose(got_w, np.bincount(inverse, weights=w[keep]))
    assert np.diff(ptr).tolist() == np.bincount(key // m, minlength=m).tolist()
