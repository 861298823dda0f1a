"""Everything read back from Redis is input: corrupt values planted in the key families rankcrawl
reads (non-numbers, negatives, huge IDs, wrong types, truncated packs, binary) never crash a
command, never size an allocation, are counted, and leave the clean records stored and ranked."""

from __future__ import annotations

import json
import logging
import resource
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import redis
from click.testing import CliRunner
from test_crawl_e2e import OWN_FRAMES

from rankcrawl.crawler.cli.main import main
from rankcrawl.ranker.service import RankerService
from rankcrawl.ranker.store import corrupt
from rankcrawl.ranker.store.graphstore import GraphStore
from rankcrawl.ranker.store.hostedges import EDGE
from rankcrawl.ranker.store.records import PageRecord
from rankcrawl.settings.keys import Keys

EDGES = """http://a.org/\thttp://b.org/
http://a.org/\thttp://a.org/x
http://a.org/x\thttp://a.org/
http://a.org/x\thttp://c.org/
http://b.org/\thttp://a.org/
http://b.org/\thttp://b.org/y
http://b.org/y\thttp://c.org/
http://c.org/\thttp://a.org/
http://c.org/\thttp://c.org/z
http://d.org/\thttp://a.org/
"""
CLEAN = ["http://a.org/", "http://a.org/x", "http://b.org/", "http://b.org/y", "http://c.org/"]
K = Keys()
HUGE = 0xFFFFFFF0


def huge_edges(n: int = 8) -> bytes:
    """Packed out-edges (96 bytes for 8) whose targets are IDs no counter handed out."""
    e = np.zeros(n, dtype=EDGE)
    e["host"], e["local"], e["weight"] = HUGE, HUGE, 1.0
    return e.tobytes()


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def graph(redis_url: str, tmp_path: Any) -> dict[str, int]:
    """The clean graph imported and ranked once; HostIDs by host name."""
    path = tmp_path / "edges.tsv"
    path.write_text(EDGES)
    assert run("graph", "import", str(path), "--redis-url", redis_url).exit_code == 0
    assert run("ranker", "--once", "--redis-url", redis_url).exit_code == 0
    store = GraphStore(redis.Redis.from_url(redis_url))
    ids = store.host_ids([f"http://{x}.org" for x in "abcd"], create=False)
    return {h.removeprefix("http://"): i for h, i in ids.items()}


@pytest.fixture(autouse=True)
def fresh_log() -> Iterator[None]:
    """Each test sees the first corrupt value of each family logged again."""
    corrupt._logged.clear()
    yield
    corrupt._logged.clear()


def epoch(r: redis.Redis) -> int:
    return int(r.hget(K.ranks, "epoch"))


def pages_of_out(r: redis.Redis, hid: int) -> None:
    """The pack of a host goes, as a crash between writes would leave it: the next load rebuilds it from ``out``."""
    r.delete(K.outpack(hid))


Plant = Callable[[redis.Redis, dict[str, int]], None]
SCENARIOS: dict[str, Plant] = {
    "hosts: non-number, negative, huge": lambda r, h: r.hset(K.hosts, mapping={
        "http://e.org": "abc", "http://f.org": "-1", "http://g.org": "99999999999"}),
    "hostnames: field not an ID, ID beyond the count, binary name": lambda r, h: r.hset(K.hostnames, mapping={
        "abc": "http://x.org", "4000000000": "http://y.org", "-1": b"\xff\xfe"}),
    "urls: non-number and huge LocalIDs": lambda r, h: r.hset(K.urls(h["a.org"]), mapping={
        "/e": "abc", "/f": "-1", "/g": "4294967295"}),
    "paths: field not an ID, binary and control-character paths": lambda r, h: r.hset(K.paths(h["a.org"]), mapping={
        "abc": "/q", "99": b"\xff\xfe", "98": "/\x00x"}),
    "out: huge target IDs (the 96-byte OOM value), truncated pack, field not an ID": lambda r, h: (
        r.hset(K.out(h["c.org"]), mapping={"1": huge_edges(), "abc": huge_edges(1), "0": b"\x01\x02\x03"}),
        pages_of_out(r, h["c.org"])),
    "out: weights that are NaN, negative, zero": lambda r, h: (
        r.hset(K.out(h["b.org"]), "1", np.array([(h["a.org"], 0, np.nan), (h["a.org"], 1, -1.0), (h["c.org"], 0, 0.0)],
                                                  dtype=EDGE).tobytes()),
        pages_of_out(r, h["b.org"])),
    "outpack: truncated, counts that do not add up, binary": lambda r, h: (
        r.set(K.outpack(h["a.org"]), b"\x05\x00\x00\x00abc"),
        r.set(K.outpack(h["b.org"]), b"\x01\x00\x00\x00" + np.array([(0, 13)], dtype="<u4,<u4").tobytes() + b"x" * 13),
        r.set(K.outpack(h["c.org"]), b"\xff")),
    "gone: -1, non-number, huge LocalID": lambda r, h: r.sadd(K.gone(h["a.org"]), "-1", "abc", "4294967295", "70000"),
    "alias: field not an ID, short target, huge target": lambda r, h: r.hset(K.alias(h["a.org"]), mapping={
        "abc": b"12345678", "1": b"short", "55": np.array([(HUGE, HUGE)], dtype="<u4,<u4").tobytes()}),
    "wrong types: out, gone, alias, paths, outpack of one host": lambda r, h: (
        [r.delete(k) for k in (K.out(h["d.org"]), K.gone(h["d.org"]), K.alias(h["d.org"]), K.outpack(h["d.org"]))],
        r.set(K.out(h["d.org"]), "x"), r.hset(K.gone(h["d.org"]), "a", "b"), r.sadd(K.alias(h["d.org"]), "1"),
        r.rpush(K.outpack(h["d.org"]), "x"), r.delete(K.paths(h["d.org"])), r.sadd(K.paths(h["d.org"]), "0")),
    "ranks: non-number epoch, NaN norm, junk offset": lambda r, h: r.hset(K.ranks, mapping={
        "epoch": "abc", "norm": "nan", "offset": "zzz"}),
    "ranks: wrong type": lambda r, h: (r.delete(K.ranks), r.set(K.ranks, "x")),
    "ranks:next, attempts, retired: non-numbers": lambda r, h: (
        r.set(K.epoch_counter, "abc"), r.sadd(K.attempts, "abc", "-1"), r.sadd(K.retired, "zz")),
    "lease: junk without expiry": lambda r, h: r.set(K.lease, "junk"),
    "manifest: truncated; garbage: odd length": lambda r, h: (
        r.set(K.manifest(epoch(r)), b"\x01\x00\x00"), r.set(K.garbage(epoch(r)), b"abc")),
    "manifest: names a future epoch and hosts that do not exist": lambda r, h: r.append(
        K.manifest(epoch(r)), np.array([0, 0, 0, 0, 0, 0, epoch(r) + 9], dtype="<u4").tobytes()),
    "rank vectors: truncated, -inf, binary": lambda r, h: (
        r.set(K.rank(h["a.org"], epoch(r)), b"\x01\x02\x03\x04\x05"),
        r.set(K.rank(h["b.org"], epoch(r)), np.array([-np.inf, 1.0], dtype="<f8").tobytes())),
    "top and hostrank: binary and control-character members": lambda r, h: (
        r.zadd(K.top(epoch(r)), {b"\xff\xfe": 1e9, "http://a.org/\x00": 1e9}),
        r.zadd(K.hostrank(epoch(r)), {b"\xc3\x28": 1e9})),
}
PROBES = {"hosts: non-number, negative, huge": ["http://e.org/", "http://f.org/", "http://g.org/"],
          "urls: non-number and huge LocalIDs": ["http://a.org/e", "http://a.org/f", "http://a.org/g"]}
"""URLs whose stored IDs a scenario corrupts: ``rank`` of them is 'not ranked' (exit 1), counted."""
RANK_KEYS = {"rank vectors: truncated, -inf, binary", "manifest: truncated; garbage: odd length",
             "manifest: names a future epoch and hosts that do not exist", "top and hostrank: binary and control-character members",
             "ranks: non-number epoch, NaN norm, junk offset", "ranks: wrong type"}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_commands_survive_corrupt_values_and_keep_the_clean_records(
        scenario: str, graph: dict[str, int], redis_url: str, r: redis.Redis, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="rankcrawl.corrupt")
    SCENARIOS[scenario](r, graph)
    if scenario in RANK_KEYS:  # the queries read the planted epoch before a new one replaces it
        for args in (["top"], ["top", "--hosts"], ["ranks", "export"], ["rank", *CLEAN]):
            result = run(*args, "--redis-url", redis_url)
            assert "Traceback" not in result.output
            assert result.exit_code in (0, 1), result.output
            if result.exit_code:
                assert result.output.strip().startswith("rankcrawl: error: ") or "not ranked" in result.output
    if scenario in PROBES:
        probed = run("rank", *PROBES[scenario], "--redis-url", redis_url)
        assert probed.exit_code == 1 and probed.output.count("not ranked") == len(PROBES[scenario]), probed.output
    ranked = run("ranker", "--once", "--redis-url", redis_url, "--lease-wait", "5")
    assert ranked.exit_code == 0, ranked.output
    top = run("top", "-n", "50", "--redis-url", redis_url)
    assert top.exit_code == 0, top.output
    exported = run("ranks", "export", "--redis-url", redis_url)
    assert exported.exit_code == 0, exported.output
    ranks = dict(line.split("\t") for line in exported.output.splitlines())
    assert set(CLEAN) <= set(ranks), exported.output
    assert all("\x00" not in u and "\ufffd" not in u for u in ranks)
    rank = run("rank", *CLEAN, "--redis-url", redis_url)
    assert rank.exit_code == 0, rank.output
    for resolved in ([], ["--resolved"]):
        edges = run("graph", "export", *resolved, "--redis-url", redis_url)
        assert edges.exit_code == 0, edges.output
        assert "http://a.org/\thttp://b.org/\t1" in edges.output
        assert str(HUGE) not in edges.output
    assert "corrupt value at key" in caplog.text, f"nothing counted for {scenario}"
    state = r.hgetall(K.ranks)
    assert int(state[b"pages"]) < 100  # no page numbered by a planted ID


def test_ranker_service_survives_a_corrupt_change_stream(graph: dict[str, int], redis_url: str, r: redis.Redis) -> None:
    """A warm epoch reads the change stream: entries naming hosts and pages no counter handed out,
    packs of odd length and grown lists that are not numbers are counted and skipped."""
    service = RankerService(r, tol=1e-8)
    assert service.solve_once() is not None
    pairs = np.array([(HUGE, 0), (graph["a.org"], HUGE), (graph["a.org"], 0)], dtype="<u4,<u4").tobytes()
    r.xadd(K.changes, {"pages": pairs, "grown": f"abc,-1,{HUGE},{graph['b.org']}"})
    r.xadd(K.changes, {"pages": b"\x01\x02\x03", "grown": ""})
    r.hset(K.out(graph["a.org"]), "0", huge_edges())
    store = GraphStore(r)
    store.put_pages([PageRecord("http://b.org/y", [("http://a.org/", 1.0), ("http://b.org/", 2.0)])])
    report = service.solve_once()
    assert report is not None and report.pages < 100
    assert service.store.corruption.total >= 4, service.store.corruption.counts


def test_pages_with_corrupt_stored_ids_are_skipped_and_the_rest_stored(r: redis.Redis) -> None:
    store = GraphStore(r)
    store.put_pages([PageRecord("http://a.org/", [("http://b.org/", 1.0)])])
    r.hset(K.hosts, "http://bad.org", "-1")
    r.hset(K.urls(store.host_ids(["http://a.org"], create=False)["http://a.org"]), "/junk", "abc")
    stored = store.put_pages([PageRecord("http://bad.org/", [("http://a.org/", 1.0)]),
                              PageRecord("http://a.org/junk", []),
                              PageRecord("http://a.org/x", [("http://bad.org/", 1.0), ("http://a.org/junk", 1.0),
                                                            ("http://b.org/", 1.0)])])
    assert stored == 1 and sorted(store.unstored) == ["http://a.org/junk", "http://bad.org/"]
    assert [(s, d) for s, d, _ in store.iter_edges()] == [("http://a.org/", "http://b.org/"),
                                                          ("http://a.org/x", "http://b.org/")]
    assert store.corruption.total == 2  # one per corrupt value, however often the batch names it
    r.hset(K.meta(0), "0", "not json")
    assert store.meta("http://a.org/") is None and store.corruption.total == 3


CHILD = """
import resource, sys
from rankcrawl.crawler.cli.main import main
try:
    main(["ranker", "--once", "--redis-url", sys.argv[1]])
finally:
    sys.stderr.write(f"\\nmaxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n")
"""


def ranker_rss(redis_url: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", CHILD, redis_url], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    return int(done.stderr.rsplit("maxrss ", 1)[1]), done.stderr


def test_a_planted_huge_id_does_not_grow_the_ranker(graph: dict[str, int], redis_url: str, r: redis.Redis) -> None:
    """The audit's 96-byte value in ``out`` (ranker --once grew to 21.6 GB): peak RSS stays within
    2x of a clean run, and the corruption is logged with its key."""
    clean, _ = ranker_rss(redis_url)
    r.hset(K.out(graph["c.org"]), "1", huge_edges())
    r.delete(K.outpack(graph["c.org"]))
    r.sadd(K.gone(graph["a.org"]), "-1")
    r.hset(K.meta(graph["a.org"]), "0", json.dumps([1]))
    planted, log = ranker_rss(redis_url)
    assert planted < 2 * clean, (planted, clean)
    assert f"corrupt value at key {K.out(graph['c.org'])}" in log and f"corrupt value at key {K.gone(graph['a.org'])}" in log
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 4 * clean


CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]
FAST = ["-s", "RANKCRAWL_ALLOW_PRIVATE=True", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "LOG_LEVEL=WARNING",
        "-s", "RANKCRAWL_RANKER=False", "-s", "DOWNLOAD_DELAY=0"]


@pytest.fixture
def web() -> Iterator[Any]:
    from rankcrawl.crawler.demoweb.web import DemoWeb

    with DemoWeb(seed=2, n_hosts=2, pages_per_host=14).serve() as served:
        yield served


def crawl(web: Any, redis_url: str, *extra: str) -> tuple[int, dict[str, str], str]:
    done = subprocess.run([*CLI, "crawl", *web.seeds, "--redis-url", redis_url, *FAST, *extra],
                          capture_output=True, text=True, timeout=240)
    stats = dict(line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line)
    assert not any(frame in done.stderr for frame in OWN_FRAMES), done.stderr[-3000:]  # Scrapy logs refused connections
    return done.returncode, stats, done.stderr


@pytest.mark.slow
def test_a_crawl_over_corrupt_site_state_and_stream_stores_every_page(web: Any, redis_url: str, r: redis.Redis) -> None:
    """Site-level state of the wrong types and with counts that are not numbers, a change stream that
    is a string: repaired and counted; every fetched page stored, ranked afterwards, exit 0."""
    for origin in web.origins:
        r.hset(K.site_meta(origin), mapping={"n": "abc", "gen": "7"})
        r.rpush(K.site_sketch(origin), "x")
        r.hset(K.site_seen(origin, 0), "a", "b")
    r.set(K.site_df_n, "abc")
    r.set(K.site_neardup, "x")
    r.set(K.changes, "x")
    r.hset(K.hosts, "http://elsewhere.invalid", "-1")
    code, stats, err = crawl(web, redis_url)
    assert code == 0, err[-3000:]
    assert int(stats["rankcrawl/pages/pushed"]) >= len(web.pages) // 2 and stats["rankcrawl/pages/failed"] == "0"
    assert int(stats["rankcrawl/redis/corrupt"]) >= 1  # the stream
    assert int(stats["rankcrawl/site/corrupt"]) >= 2 * len(web.origins) + 2  # per host n or gen, sketch, seen; dfn, nd
    assert "corrupt value at key rc:site:{" in err and "corrupt value at key rc:{g}:changes" in err
    assert run("ranker", "--once", "--redis-url", redis_url).exit_code == 0
    top = run("top", "--redis-url", redis_url)
    assert top.exit_code == 0 and len(top.output.splitlines()) == 10


@pytest.mark.slow
def test_a_crawl_whose_host_id_is_corrupt_says_so_and_fails(web: Any, redis_url: str, r: redis.Redis) -> None:
    """The first host's stored HostID is not a number: its pages cannot be stored (counted, the edge
    writer goes on), the other host's pages are, and the crawl exits non-zero saying why."""
    r.hset(K.hosts, web.origins[0], "abc")
    code, stats, err = crawl(web, redis_url)
    assert code == 1
    failed, pushed = int(stats["rankcrawl/pages/failed"]), int(stats["rankcrawl/pages/pushed"])
    assert failed > 0 and pushed > 0 and int(stats["rankcrawl/redis/corrupt"]) >= 1
    assert err.strip().splitlines()[-1] == (f"rankcrawl: error: {failed} pages could not be stored (corrupt values in "
                                            "Redis or write errors: see the log)")
    assert "corrupt value at key rc:{g}:hosts" in err
    stored = {u for u, _, _ in GraphStore(r).iter_edges()}
    assert stored and all(u.startswith(web.origins[1]) for u in stored)


def test_the_edge_writer_survives_a_host_whose_keys_hold_the_wrong_type(redis_url: str, r: redis.Redis) -> None:
    """Every write to one host fails on what its key holds: those pages are counted as failed (and
    the key as corrupt), never retried; the other host's pages are stored; the thread goes on."""
    from rankcrawl.pipelines.edges.writer import EdgeWriter

    store = GraphStore(r)
    store.put_pages([PageRecord("http://a.org/", []), PageRecord("http://b.org/", [])])
    r.delete(K.out(0))
    r.set(K.out(0), "x")
    writer = EdgeWriter(redis_url, "rc:", batch=4, limit=100)
    writer.start()
    for i in range(6):
        writer.put(PageRecord(f"http://a.org/{i}", [("http://b.org/", 1.0)]))
        writer.put(PageRecord(f"http://b.org/{i}", [("http://a.org/", 1.0)]))
    assert writer.close(30) == 0
    assert (writer.failed, writer.pages) == (6, 6)
    assert writer.corrupt == {"rc:{h<id>}:out": 6}
    assert len(set(GraphStore(r).iter_edges())) == 6
