"""The live panel of ``rankcrawl crawl``: its rendering, and a real crawl in a terminal (a pty)."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from leftovers import left_running
from rich.console import Console

from rankcrawl.crawler.cli.live_panel import CrawlFigures, render, render_summary
from rankcrawl.crawler.demoweb.web import DemoWeb

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
TOP = [("http://a.example/best.html", 0.0625), ("http://b.example/next.html", 0.03125)]


def shown(renderable: object, width: int = 120) -> str:
    console = Console(file=io.StringIO(), force_terminal=True, width=width, record=True)
    console.print(renderable)
    return console.export_text()


def test_panel_shows_the_budget_the_figures_and_the_top_pages_and_hosts() -> None:
    figures = CrawlFigures(budget=300, log="log: ~/.rankcrawl/crawl.log", footer="log: ~/.rankcrawl/crawl.log · more",
                           status="crawling", pages=120, rate=12.5,
                           analysed=118, edges=950, frontier=340, first_epoch=4, epoch=16,
                           epoch_published_at=1000.0, solve_seconds=0.02, elapsed=65,
                           top_pages=TOP, top_hosts=[("a.example", 0.5)])
    text = shown(render(figures, now=1003.0))
    assert "40% of the page budget" in text
    for name, value in [("status", "crawling"), ("pages fetched", "120 / 300"), ("pages/s", "12.5"),
                        ("pages analysed", "118"), ("edges stored", "950"), ("frontier", "340"),
                        ("epochs published", "12 (last: epoch 16, 0.02 s solve, 3 s ago)"), ("elapsed", "0:01:05")]:
        assert re.search(rf"│ {re.escape(name)} +│ {re.escape(value)} +│", text), (name, text)
    assert re.search(r"0\.06250 │ http://a\.example/best\.html", text) and re.search(r"0\.50000 │ a\.example", text)
    assert text.rstrip().endswith("log: ~/.rankcrawl/crawl.log · more")


def test_panel_without_a_budget_or_an_epoch_says_so() -> None:
    text = shown(render(CrawlFigures(pages=7, first_epoch=3, epoch=3)))
    assert "of the page budget" not in text
    assert re.search(r"│ pages fetched +│ 7 \(no page budget\) +│", text)
    assert re.search(r"│ epochs published +│ none yet +│", text) and re.search(r"│ frontier +│ — +│", text)


def test_summary_shows_the_outcome_and_the_top_pages() -> None:
    figures = CrawlFigures(log="log: x.log", pages=308, analysed=302, edges=1000, first_epoch=0, epoch=3, elapsed=22)
    text = shown(render_summary(figures, "page_budget", TOP))
    for name, value in [("finish reason", "page_budget"), ("pages fetched", "308"), ("pages analysed", "302"),
                        ("edges stored", "1000"), ("epochs published", "3 (last: epoch 3)"), ("time", "0:00:22")]:
        assert re.search(rf"│ {re.escape(name)} +│ {re.escape(value)} +│", text), (name, text)
    assert "top fetched pages" in text and "http://b.example/next.html" in text and text.rstrip().endswith("log: x.log")


@pytest.fixture
def web() -> Iterator[DemoWeb]:
    with DemoWeb(seed=4, n_hosts=3, pages_per_host=30).serve() as served:
        yield served


def run_in_terminal(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run ``command`` with a 150x50 pty as stdin, stdout and stderr; (exit status, everything it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 150, 0, 0))
    proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer closed the pty
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=max(deadline - time.monotonic(), 1)), out.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.slow
def test_a_crawl_in_a_terminal_is_a_live_panel_then_a_summary(web: DemoWeb, redis_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**{k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL", "COLUMNS", "LINES")},
           "RANKCRAWL_HOME": str(home), "TERM": "xterm-256color"}
    status, out = run_in_terminal([*CLI, "crawl", web.seeds[0], "--redis-url", redis_url, "--max-pages", "40",
                                   "-s", "RANKCRAWL_ALLOW_PRIVATE=True", "-s", "DOWNLOAD_DELAY=0.1",
                                   "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "RANKCRAWL_ANALYSIS_WORKERS=1"],
                                  env, timeout=150)
    text = ANSI.sub("", out)
    assert status == 0, text[-3000:]
    assert "% of the page budget" in text and re.search(r"│ status +│ crawling", text), text[-3000:]
    assert re.search(r"│ pages fetched +│ \d+ / 40 ", text)
    assert f"log: {home / 'crawl.log'} · warnings and errors above · Ctrl-C stops the crawl" in text
    summary = text[text.rindex("finish reason"):]
    assert re.search(r"finish reason +│ page_budget", summary) and re.search(r"epochs published +│ [1-9]", summary)
    ranked = re.findall(r"│ (0\.\d{5}) │ (http://\S+)", summary)
    assert ranked and all(url in web.pages for _, url in ranked), summary
    assert "finish_reason\t" not in text and "[scrapy.core.engine] INFO" not in text  # the log went to the file
    assert "Spider closed (page_budget)" in (home / "crawl.log").read_text()
    assert not left_running(home)
