"""Queries and the graph/ranks/ranker/top/rank commands on a real Valkey server."""

from __future__ import annotations

import gc
import json

import pytest
from click.testing import CliRunner

from rankcrawl.crawler.cli.main import main
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store.graphstore import GraphStore, PageRecord
from rankcrawl.ranker.store.queries import RankQueries
from rankcrawl.settings.urls import normalize_url, split_url

EDGES = """http://a.org/\thttp://b.org/
http://a.org/\thttp://a.org/x\t2.5
# a comment
http://b.org/\thttp://a.org/
ftp://a.org/\thttp://b.org/
http://b.org/x
http://b.org/\thttp://c.org/\tlots
http://c.org/\thttp://a.org/\t-1
HTTP://B.org:80/x#frag\thttp://a.org/x\t1
"""


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def imported(redis_url, tmp_path):
    path = tmp_path / "edges.tsv"
    path.write_text(EDGES)
    result = run("graph", "import", str(path), "--redis-url", redis_url)
    assert result.exit_code == 0, result.output
    return result


def test_import_reports_bad_lines_and_keeps_the_rest(imported, redis_url):
    err = imported.stderr
    assert "line 5: not an http(s) URL: 'ftp://a.org/'" in err
    assert "line 6: expected 2 or 3 tab-separated fields, got 1" in err
    assert "line 7: weight must be a positive number: 'lots'" in err
    assert "line 8: weight must be a positive number: '-1'" in err
    assert "line 1:" not in err and "line 9:" not in err
    assert "imported 4 edges from 3 pages; 4 bad lines skipped" in err
    exported = run("graph", "export", "--redis-url", redis_url)
    assert exported.exit_code == 0
    assert sorted(exported.stdout.splitlines()) == sorted([
        "http://a.org/\thttp://b.org/\t1", "http://a.org/\thttp://a.org/x\t2.5",
        "http://b.org/\thttp://a.org/\t1", "http://b.org/x\thttp://a.org/x\t1",
    ])


def test_import_from_stdin_replaces_edges_and_rejects_all_bad_input(imported, redis_url):
    result = run("graph", "import", "-", "--redis-url", redis_url, input="http://a.org/\thttp://d.org/\t3\n")
    assert result.exit_code == 0
    lines = run("graph", "export", "--redis-url", redis_url).stdout.splitlines()
    assert [l for l in lines if l.startswith("http://a.org/\t")] == ["http://a.org/\thttp://d.org/\t3"]
    bad = run("graph", "import", "-", "--redis-url", redis_url, input="nonsense\n")
    assert bad.exit_code != 0 and "no valid edge" in bad.stderr and "Traceback" not in bad.output


def test_ranker_once_then_queries(imported, redis_url, r):
    assert run("ranks", "export", "--redis-url", redis_url).exit_code != 0  # nothing published yet
    assert "no ranks published yet" in run("top", "--redis-url", redis_url).stderr
    once = run("ranker", "--once", "--redis-url", redis_url, "--tol", "1e-12", "--partitions", "2")
    assert once.exit_code == 0, once.output
    rows = [line.split("\t") for line in run("ranks", "export", "--redis-url", redis_url).stdout.splitlines()]
    ranks = {u: float(x) for u, x in rows}
    assert set(ranks) == {"http://a.org/", "http://a.org/x", "http://b.org/", "http://b.org/x"}
    assert abs(sum(ranks.values()) - 1) < 1e-12
    top = run("top", "-n", "2", "--redis-url", redis_url).stdout.splitlines()
    best = sorted(ranks, key=ranks.get, reverse=True)[:2]
    assert [line.split("\t")[0] for line in top] == best
    assert [float(line.split("\t")[1]) for line in top] == [ranks[u] for u in best]  # full precision, as exported
    hosts = run("top", "--hosts", "--redis-url", redis_url).stdout.splitlines()
    assert {line.split("\t")[0] for line in hosts} == {"http://a.org", "http://b.org"}
    assert abs(sum(float(line.split("\t")[1]) for line in hosts) - 1) < 1e-12
    one = run("rank", "http://a.org/x", "http://A.org:80/x#y", "--redis-url", redis_url)
    assert one.exit_code == 0 and len(one.stdout.splitlines()) == 2
    assert float(one.stdout.splitlines()[0].split("\t")[1]) == ranks["http://a.org/x"]
    unknown = run("rank", "http://a.org/x", "http://nowhere.org/", "--redis-url", redis_url)
    assert unknown.exit_code == 1 and "http://nowhere.org/: not ranked" in unknown.stderr


def test_teleport_file_biases_the_ranks(imported, redis_url, tmp_path):
    bias = tmp_path / "seeds.txt"
    bias.write_text("http://b.org/x\n")
    assert run("ranker", "--once", "--redis-url", redis_url, "--teleport-from", str(bias)).exit_code == 0
    ranks = {u: float(x) for u, x in (l.split("\t") for l in run("ranks", "export", "--redis-url", redis_url).stdout.splitlines())}
    assert ranks["http://b.org/x"] > 0.15 and ranks["http://b.org/"] < 0.05  # b.org/ only gets the dangling share
    nobody = tmp_path / "none.txt"
    nobody.write_text("http://elsewhere.org/\n")
    result = run("ranker", "--once", "--redis-url", redis_url, "--teleport-from", str(nobody))
    assert result.exit_code == 1 and "none of the teleport URLs is in the graph" in result.stderr
    missing = run("ranker", "--once", "--redis-url", redis_url, "--teleport-from", str(tmp_path / "absent.txt"))
    assert missing.exit_code == 1 and "absent.txt" in missing.stderr and "Traceback" not in missing.output


@pytest.mark.parametrize("args", [
    ["graph", "import", "-"], ["graph", "export"], ["ranks", "export"], ["ranker", "--once"], ["top"], ["rank", "http://a.org/"],
])
def test_refused_connection_is_one_line(args, rankcrawl_home):
    result = run(*args, "--redis-url", "redis://127.0.0.1:1", input="http://a.org/\thttp://b.org/\n")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("rankcrawl: error: cannot reach Redis")


def test_bad_options_and_files(redis_url, tmp_path):
    assert run("ranker", "--alpha", "1.5", "--redis-url", redis_url).exit_code == 2
    assert run("ranker", "--partitions", "0", "--redis-url", redis_url).exit_code == 2
    assert run("top", "-n", "0", "--redis-url", redis_url).exit_code == 2
    missing = run("graph", "import", str(tmp_path / "nope.tsv"), "--redis-url", redis_url)
    assert missing.exit_code == 2 and "nope.tsv" in missing.stderr
    empty = run("ranker", "--once", "--redis-url", redis_url)
    assert empty.exit_code == 1 and "the graph is empty" in empty.stderr
    (tmp_path / "bin.tsv").write_bytes(b"\xff\xfe\x00garbage\n")
    assert run("graph", "import", str(tmp_path / "bin.tsv"), "--redis-url", redis_url).exit_code == 1


def host_rank(queries: RankQueries, host: str) -> float | None:
    """Summed rank of a host (a URL or ``scheme://host[:port]``) in the published epoch."""
    url = normalize_url(host)
    return dict(queries.top_hosts(1 << 62)).get(split_url(url)[0]) if url else None


def test_crawler_lookups_are_cached_per_epoch(r):
    store = GraphStore(r)
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/", 1.0)])])
    queries = RankQueries(r, refresh=0.0)
    assert queries.page_rank("http://a.org/") is None and host_rank(queries, "http://a.org") is None
    service = RankerService(r, tol=1e-12)
    service.solve_once()
    first = queries.page_rank("http://b.org/")
    assert first == pytest.approx(queries.rank(["http://b.org/"])["http://b.org/"])
    assert host_rank(queries, "http://b.org/some/page") == pytest.approx(first)
    store.put_pages([PageRecord("http://b.org/", [("http://c.org/", 1.0)])])
    service.solve_once()
    assert queries.page_rank("http://b.org/") != first  # new epoch, cache dropped
    assert host_rank(queries, "not a url") is None
    slow = RankQueries(r, refresh=3600)
    value = slow.page_rank("http://b.org/")
    store.put_pages([PageRecord("http://b.org/", [])])
    service.solve_once()
    assert slow.page_rank("http://b.org/") == value  # within `refresh`, the cached epoch is used


def test_ranker_once_leaves_the_cyclic_collector_on_in_a_host_process(imported, redis_url):
    assert run("ranker", "--once", "--redis-url", redis_url).exit_code == 0
    assert gc.isenabled()
    empty = run("ranker", "--once", "--redis-url", redis_url, "--key-prefix", "nothing:")
    assert empty.exit_code == 1 and "the graph is empty" in empty.stderr
    assert gc.isenabled()  # also when the epoch fails


def test_no_epoch_yet_says_why(redis_url, r):
    assert "no page is stored under the prefix 'rc:'" in run("top", "--redis-url", redis_url).stderr
    GraphStore(r).put_pages([PageRecord(url="http://a.org/", links=[("http://b.org/", 1.0)], meta={"status": 200})])
    assert "run `rankcrawl ranker --once`" in run("top", "--redis-url", redis_url).stderr
    r.set(GraphStore(r).keys.lease, "token", px=5000)
    message = run("rank", "http://a.org/", "--redis-url", redis_url).stderr
    assert message == "rankcrawl: error: no ranks published yet: a ranker is solving the first epoch; ask again in a few seconds\n"


def test_listings_share_one_contract_in_three_formats(redis_url, r):
    GraphStore(r).put_pages([PageRecord(url=f"http://s{i}.org/", links=[(f"http://s{(i + 1) % 3}.org/", 1.0), ("http://never.org/", 1.0)],
                                        meta={"status": 200}) for i in range(3)])
    assert run("ranker", "--once", "--redis-url", redis_url).exit_code == 0
    exported = dict(line.split("\t") for line in run("ranks", "export", "--redis-url", redis_url).stdout.splitlines())
    tsv = [line.split("\t") for line in run("top", "-n", "4", "--redis-url", redis_url).stdout.splitlines()]
    assert len(tsv) == 4 and all(exported[url] == value for url, value in tsv)  # the same repr of the same float
    as_json = [json.loads(line) for line in run("top", "-n", "4", "--format", "json", "--redis-url", redis_url).stdout.splitlines()]
    assert [(d["url"], d["rank"]) for d in as_json] == [(url, float(value)) for url, value in tsv]
    table = run("top", "-n", "4", "--format", "table", "--redis-url", redis_url).stdout.splitlines()
    assert table[0].split() == ["#", "rank", "url"] and len(table) == 5 and table[1].split()[2] == tsv[0][0]
    crawled = [line.split("\t")[0] for line in run("top", "--crawled", "--redis-url", redis_url).stdout.splitlines()]
    assert crawled == [url for url, _ in tsv if url != "http://never.org/"] and "http://never.org/" in dict(tsv)
    hosts = [json.loads(line) for line in run("top", "--hosts", "--crawled", "--format", "json", "--redis-url", redis_url).stdout.splitlines()]
    assert {d["host"] for d in hosts} == {"http://s0.org", "http://s1.org", "http://s2.org"}
    rank = run("rank", "http://s1.org/", "--format", "json", "--redis-url", redis_url).stdout
    assert json.loads(rank) == {"url": "http://s1.org/", "rank": float(exported["http://s1.org/"])}
