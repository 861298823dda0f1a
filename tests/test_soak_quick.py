"""The soak benchmark's machinery: the generated web is whole and reachable, and a short soak crawl
leaves sane samples (no timing figures checked: the machine is shared)."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from bench.soakweb import SoakWeb

HREF = re.compile(r'href="([^"]*)"')


def test_every_page_of_the_soak_web_is_reachable_from_the_home_pages() -> None:
    web = SoakWeb(seed=3, n_hosts=3, articles=45)
    origins = {o: h for h, o in enumerate(web.origins)}
    seen, queue = set(web.seeds), deque(web.seeds)
    pages = 0
    while queue and len(seen) < 10 * web.n_pages:
        url = queue.popleft()
        parts = urlsplit(url)
        host = origins.get(f"{parts.scheme}://{parts.netloc}")
        if host is None:  # the social links' origin
            continue
        status, _, body = web.response(host, parts.path)
        if status != 200:
            continue
        pages += 1
        for href in HREF.findall(body.decode()):
            target = urljoin(url, href.replace("&amp;", "&")).split("#")[0]
            if target not in seen:
                seen.add(target)
                queue.append(target)
    assert pages == web.n_pages == web.pages_served
    assert web.response(0, "/articles/46.html")[0] == web.response(0, "/articles/01.html")[0] == 404
    assert web.response(1, web.article_path(7))[2] == SoakWeb(seed=3, n_hosts=3, articles=45).response(1, web.article_path(7))[2]


@pytest.mark.slow
def test_a_short_soak_samples_every_process(tmp_path: Path) -> None:
    pytest.importorskip("psutil")
    pytest.importorskip("matplotlib")
    from bench.soak import load, run_soak, summarize

    path = run_soak(pages=600, hosts=4, interval=0.5, out=tmp_path)  # long enough for an epoch in a progress line
    header, samples, end = load(path)
    assert end is not None and end["exit"] == 0 and not end["timed_out"], end
    assert header["pages_budget"] == 600 and header["web_pages"] >= 600
    assert 600 <= end["pages"] <= header["web_pages"]
    assert len(samples) >= 3
    assert [s["pages"] for s in samples] == sorted(s["pages"] for s in samples)
    assert [s["t"] for s in samples] == sorted(s["t"] for s in samples)
    for s in samples:
        assert s["rss"]["valkey"] > 1 << 20 and s["rss"]["crawl"] > 0
    assert max(s["rss"]["crawl"] for s in samples) > 20 << 20  # the first sample may catch the process at exec
    assert any(name.startswith("worker ") for s in samples for name in s["rss"])  # the analysis workers
    assert max(s["epoch"] for s in samples) > 0 and any("ranker_s" in s for s in samples)
    summary = summarize(header, samples, end)
    assert summary["finished"] and {"crawl", "valkey"} <= set(summary["growth"])
    assert summary["pps"][0] > 0 and summary["pps"][1] > 0
    assert (tmp_path / "soak.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "summary.json").read_text())["samples"] == len(samples)
    assert len((tmp_path / "samples.csv").read_text().splitlines()) == len(samples) + 1
