"""The input-bounding layer: chunked inflation, chunked scanning and parsing under a deadline, and the
caps on hrefs and links. Chunking must not change what is analysed; the caps only cut hostile input."""

from __future__ import annotations

import gzip
import io
import random
import time
from pathlib import Path

import pytest
from lxml import etree

from rankcrawl.crawler.cli.extract import extract_file, inflate
from rankcrawl.pipelines.page import parsing
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.page.budget import analyze_within
from rankcrawl.pipelines.page.deadline import AnalysisTimeout, Deadline, clock
from rankcrawl.pipelines.page.elements import MAX_HREF, MAX_LINKS
from rankcrawl.pipelines.page.parsing import cap_attributes, parse_html

WORDS = "river water stone house garden light market bridge".split()


def page(rng: random.Random, n: int) -> str:
    """A page of every kind of token the attribute scan knows, ``n`` paragraphs long."""
    parts = ["<!DOCTYPE html><html><head><title>t</title><style>p>a{x:1}</style><script>if(a<b){}<!--<script>x</script>--></script></head><body>"]
    for i in range(n):
        attrs = " ".join(f"a{j}=v" for j in range(rng.choice([1, 3, 300])))
        parts.append(f"<p {attrs}>{' '.join(rng.choices(WORDS, k=20))} <a href='/p{i}'>link</a><!-- c --> x < y"
                     f"<textarea><b>{i}</b></textarea><br/></p>")
    return "".join(parts) + "</body></html>"


def test_chunked_attribute_scan_and_parse_equal_the_one_pass_ones() -> None:
    rng = random.Random(7)
    for n in (1, 40, 3000):  # the last: several SCAN_TOKENS and PARSE_CHUNK pieces
        html = page(rng, n)
        assert cap_attributes(html, deadline=Deadline(60)) == cap_attributes(html)
        one, chunked = parse_html(html), parse_html(html, Deadline(60))
        assert etree.tostring(one) == etree.tostring(chunked)
    assert len(html.encode()) > 4 * parsing.PARSE_CHUNK


def test_a_passed_deadline_stops_the_scan_and_the_parse() -> None:
    html = "<html><body>" + "<div>" * 200_000
    with pytest.raises(AnalysisTimeout, match="parse"):
        cap_attributes(html, deadline=Deadline(-1))
    with pytest.raises(AnalysisTimeout, match="parse"):
        parse_html("<p>a</p>" * 50_000, Deadline(-1))


def test_overlong_hrefs_and_links_past_the_cap_are_no_links() -> None:
    long = "/x?" + "k=v&" * (MAX_HREF // 4 + 1)
    assert len(long) > MAX_HREF
    html = f"<html><body><p>start <a href='{long}'>long</a> <a href='/ok'>ok</a> end of the words</p></body></html>"
    doc = analyze(html.encode(), "http://a.example/")
    assert [link.url for link in doc.all_links] == ["http://a.example/ok"] and "long" in doc.text
    many = "<html><body><p>" + "".join(f"<a href='/p{i}'>l{i}</a> " for i in range(MAX_LINKS + 50)) + "</p></body></html>"
    links = analyze(many.encode(), "http://a.example/").all_links
    assert len(links) == MAX_LINKS and links[-1].url == f"http://a.example/p{MAX_LINKS - 1}"
    both = many.replace("</p>", f"<a href='{long}'>long and late</a> <link href='{long}'></p>")  # each rule once
    root = parse_html(both)
    assert len(root.xpath("//*[@href]")) == MAX_LINKS and "long and late" in "".join(root.itertext())


def test_inflate_stops_at_the_cap_and_at_the_deadline() -> None:
    member = gzip.compress(b"a" * 1_000_000)
    bomb = member * 200  # 200 MB inflated
    assert len(inflate(io.BytesIO(bomb), 3_000_001)) == 3_000_001
    with pytest.raises(AnalysisTimeout, match="decompress"):
        inflate(io.BytesIO(bomb), 100_000_000, Deadline(-1))


def test_the_budget_counts_from_the_start_of_the_file(tmp_path: Path) -> None:
    started = clock() - 10  # ten seconds already spent reading: nothing is left for the whole page
    html = ("<html><body>" + "<p>" + "river water stone " * 30 + "</p>" * 20 + "</body></html>").encode()
    r = analyze_within(html, "http://a.example/", timeout=1.0, started=started)
    assert r.outcome in ("prefix", "skipped")
    assert analyze_within(html, "http://a.example/", timeout=1.0).outcome == "complete"


@pytest.mark.parametrize("unit", [b"<div>" * 200_000, b"<a href=/x>y</a>" * 60_000, b"<p>" + b"word " * 200_000])
def test_gzip_bombs_end_within_the_budget(tmp_path: Path, unit: bytes) -> None:
    bomb = tmp_path / "bomb.html.gz"
    bomb.write_bytes(gzip.compress(b"<html><body>") + gzip.compress(unit) * 300)
    start = time.process_time()  # CPU: the test machine's wall time is not ours
    row, notes = extract_file(bomb, "http://a.example/", 1.0)
    assert time.process_time() - start < 1.5  # was up to 4.4 s of CPU with the whole 5 MB parsed unchecked
    assert notes and ("truncated" in notes[0] or "budget" in notes[0])


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def test_a_parse_stopped_by_the_deadline_frees_its_partial_tree() -> None:
    class StopsAfter(Deadline):
        def __init__(self, checks: int) -> None:
            super().__init__(100)
            self.checks = checks

        def check(self, step: str) -> None:
            self.checks -= 1
            if self.checks < 0:
                raise AnalysisTimeout(step)

    data = b"<html><body>" + b"<div><p>word word</p></div>" * 80_000
    before = resident_mb()
    for _ in range(30):
        with pytest.raises(AnalysisTimeout):
            parsing._parsed(data, StopsAfter(20))
    assert resident_mb() - before < 150  # leaked about 19 MB per stopped parse (570 MB here) before


def test_the_budget_is_cpu_time_so_a_loaded_machine_cuts_no_more_pages() -> None:
    """Time the analysing thread waits (another process has the core) is not spent from its budget."""
    d = Deadline(0.2)
    time.sleep(0.4)
    d.check("waiting")  # 0.4 s of wall time, no CPU time: within the 0.2 s budget
    spin = time.monotonic() + 2.0
    with pytest.raises(AnalysisTimeout, match="working"):
        while time.monotonic() < spin:
            d.check("working")
