"""The URL contract at every entrance: valid UTF-8, no control characters, a length limit, http(s)
only; violations are reported and never stored (crawl records, ``graph import``, queries)."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from rankcrawl.crawler.cli.main import main
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.urls import MAX_URL_LENGTH, normalize_url, url_problem

LONG = "http://a.org/" + "x" * MAX_URL_LENGTH


@pytest.mark.parametrize(("url", "why"), [
    ("http://\x00a/", "control character '\\x00'"),
    ("http://a.org/x\x01y", "control character '\\x01'"),
    ("http://a.org/\x7f", "control character '\\x7f'"),
    ("http://a.org/\x85x", "control character '\\x85'"),
    ("http://a.org/\udcff", "not valid UTF-8"),
    (LONG, f"longer than {MAX_URL_LENGTH} characters"),
    ("ftp://a.org/", "not an http(s) URL"),
    ("/relative", "not an http(s) URL"),
    ("http://%00a/", "not an http(s) URL"),
])
def test_urls_breaking_the_contract_have_no_normal_form(url: str, why: str) -> None:
    assert normalize_url(url) is None
    assert (url_problem(url) or "").startswith(why)


def test_urls_keeping_the_contract_are_unchanged_by_it() -> None:
    assert normalize_url("http://a.org/ok\n") == "http://a.org/ok"  # tab, CR, LF removed as browsers do
    assert normalize_url("HTTP://A.org/é") == "http://a.org/%C3%A9"
    assert normalize_url(LONG[:MAX_URL_LENGTH]) == LONG[:MAX_URL_LENGTH]
    assert normalize_url(LONG, max_length=len(LONG)) == LONG
    assert url_problem("http://a.org/x") is None


def test_the_store_rejects_pages_and_drops_links_breaking_the_contract(r: redis.Redis) -> None:
    store = GraphStore(r, max_url_length=64)
    for bad in ("http://\x00a/", "http://a.org/" + "y" * 64):
        with pytest.raises(ValueError, match="control character|longer than 64"):
            store.put_pages([PageRecord(bad, [])])
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/\x00", 1.0), ("http://b.org/" + "z" * 64, 1.0),
                                                   ("http://b.org/\udcff", 1.0), ("http://b.org/ok", 1.0)])])
    assert store.rejected_urls == 3
    assert [d for _, d, _ in store.iter_edges()] == ["http://b.org/ok"]
    assert r.hkeys(store.keys.hostnames) == [b"0", b"1"]
    assert RankQueries(r).rank(["http://\x00a/", LONG]) == {"http://\x00a/": None, LONG: None}


def import_file(redis_url: str, path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["graph", "import", str(path), "--redis-url", redis_url], catch_exceptions=False)
    return result.exit_code, result.output


def test_graph_import_rejects_each_bad_line_by_number_and_stores_the_rest(redis_url: str, tmp_path: Path) -> None:
    path = tmp_path / "edges.tsv"
    path.write_bytes(b"http://a.org/\thttp://b.org/\n"
                     b"http://\x00a/\thttp://b.org/\n"
                     b"http://a.org/\xff\xfe\thttp://b.org/\n"
                     + b"http://a.org/" + b"x" * 3000 + b"\thttp://b.org/\n"
                     b"ftp://x/\thttp://b.org/\n"
                     b"http://a.org/y\thttp://a.org/\x01\n"
                     b"http://b.org/\thttp://a.org/\t2\n")
    code, out = import_file(redis_url, path)
    assert code == 0, out
    lines = sorted(line for line in out.splitlines() if line.startswith("line "))
    assert lines == ["line 2: control character '\\x00': 'http://\\x00a/'",
                     "line 3: not valid UTF-8: 'http://a.org/\\xff\\xfe'",
                     f"line 4: longer than {MAX_URL_LENGTH} characters (3013): '{'http://a.org/' + 'x' * 87}'…",
                     "line 5: not an http(s) URL: 'ftp://x/'",
                     "line 6: control character '\\x01': 'http://a.org/\\x01'"], out
    assert "imported 2 edges from 2 pages; 5 bad lines skipped" in out
    edges = CliRunner().invoke(main, ["graph", "export", "--redis-url", redis_url], catch_exceptions=False).output
    assert edges.splitlines() == ["http://a.org/\thttp://b.org/\t1", "http://b.org/\thttp://a.org/\t2"]


@pytest.mark.parametrize("content", [b"\xff\xfe\thttp://b.org/\nftp://x/\thttp://a.org/\n",
                                     b"rel/a\trel/b\nrel/c\trel/d\n", b"http://\x00a/\thttp://b.org/\n"])
def test_graph_import_of_only_bad_lines_fails_in_one_line(redis_url: str, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "edges.tsv"
    path.write_bytes(content)
    code, out = import_file(redis_url, path)
    assert code == 1 and "Traceback" not in out
    assert out.splitlines()[-1] == "rankcrawl: error: no valid edge in the input"
    names = set(redis.Redis.from_url(redis_url).hvals("rc:{g}:hostnames"))
    assert names <= {b"http://a.org", b"http://b.org"}  # a line's valid URL may be numbered, never a bad one
