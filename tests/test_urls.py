"""URL normalisation cases."""

from __future__ import annotations

import pytest

from rankcrawl.settings.urls import normalize_url, split_url


@pytest.mark.parametrize(
    ("raw", "base", "expected"),
    [
        ("HTTP://Example.COM:80/a#frag", None, "http://example.com/a"),
        ("https://example.com:443", None, "https://example.com/"),
        ("https://example.com:8443/x?b=1&a=2", None, "https://example.com:8443/x?a=2&b=1"),
        ("../c/d.html", "http://h.org/a/b/index.html", "http://h.org/a/c/d.html"),
        ("//cdn.org/x", "https://h.org/", "https://cdn.org/x"),
        ("/a b", "http://h.org/", "http://h.org/a%20b"),
        ("mailto:x@y.org", None, None),
        ("javascript:void(0)", "http://h.org/", None),
        ("http://", None, None),
        ("http://[::1", None, None),
        ("", None, None),
        ("http://münchen.de/straße", None, "http://xn--mnchen-3ya.de/stra%C3%9Fe"),
        # plain URLs and hrefs take the short way (settings.urls.PLAIN): the same answers as urljoin + w3lib
        ("a//b", "http://h.org/d/p.html", "http://h.org/d/a/b"),
        ("http://h.org/a/./b", None, "http://h.org/a/b"),
        ("http://h.org//a//b", None, "http://h.org//a//b"),
        ("a.html#s", "http://h.org/d/p.html", "http://h.org/d/a.html"),
        ("~u/x", "http://h.org", "http://h.org/~u/x"),
        ("http://h.org#top", None, "http://h.org/"),
        ("x/y", "http://h.org/d/p.html#f", "http://h.org/d/x/y"),
        (".a", "http://h.org/d/", "http://h.org/d/.a"),
        ("p.html", "http://h.org/d/.", "http://h.org/d/p.html"),
    ],
)
def test_normalize(raw: str, base: str | None, expected: str | None) -> None:
    assert normalize_url(raw, base) == expected


def test_split() -> None:
    assert split_url("https://a.org:8443/x?y=1") == ("https://a.org:8443", "/x?y=1")
    assert split_url("http://a.org/") == ("http://a.org", "/")


@pytest.mark.parametrize("a, b", [
    ("http://ex.com/p?z=1&a=2", "http://ex.com/p?a=2&z=1"),
    ("http://ex.com/%7Euser/", "http://ex.com/~user/"),
    ("http://ex.com/p?q=%e4", "http://ex.com/p?q=%E4"),
    ("http://ex.com/p#one", "http://ex.com/p#two"),
    ("HTTP://EX.com/p", "http://ex.com/p"),
])
def test_same_request_for_the_dupefilter_is_one_graph_node(a: str, b: str) -> None:
    from scrapy import Request
    from scrapy.utils.request import fingerprint

    assert fingerprint(Request(a)) == fingerprint(Request(b))
    assert normalize_url(a) == normalize_url(b)
