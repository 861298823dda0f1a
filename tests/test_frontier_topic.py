"""Topic terms steer the re-scoring frontier: a topical branch is fetched before an equally linked off-topic one."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from loopback import http_site

pytestmark = pytest.mark.slow

LEAVES = 4
TOPIC = "database sql"
OTHER = "garden flowers"
FILLER = "which this chapter explains step by step with several worked examples and notes"
DELAY = 0.8
"""Seconds each page but the start page takes to serve: a page's links are parsed and queued while the next
page downloads, so every choice is made among the URLs found so far (one request at a time, the engine
pops the next URL as soon as a download ends, without waiting for the parse)."""


def section(words: str, urls: list[str]) -> str:
    """A section about ``words`` whose last paragraph links to ``urls`` (a text block of its own)."""
    links = ", ".join(f'<a href="{u}">{words} chapter {i}</a>' for i, u in enumerate(urls, 1))
    return (f"<section><h2>{words}</h2><p>This part is about {words}, {FILLER}. It covers {words} at length, "
            f"{FILLER}.</p><p>Start with {links}.</p></section>")


def page(title: str, body: str) -> bytes:
    return (f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            f"<p>An introduction {FILLER}.</p>{body}</article></body></html>").encode()


def pages() -> dict[str, bytes]:
    """A start page linking to a contents page, then in two sections of their own to two hubs, off-topic
    first; each hub links to its own leaves. The contents page is first in line, so the hubs compete once
    both are queued."""
    out = {"/": page("Guide", section("the contents", ["/contents"]) + section(OTHER, ["/o"]) + section(TOPIC, ["/t"])),
           "/contents": page("Contents", section("the guide", ["/"]))}
    for prefix, words in (("/o", OTHER), ("/t", TOPIC)):
        out[prefix] = page(f"{words} hub", section(words, [f"{prefix}{i}" for i in range(1, LEAVES + 1)]))
        for i in range(1, LEAVES + 1):
            out[f"{prefix}{i}"] = page(f"{words} {i}", section("the guide", ["/"]))
    return out


@contextmanager
def site() -> Iterator[tuple[str, list[str]]]:
    """The generated site on 127.0.0.1; yields its base URL and the paths in the order served."""
    served: list[str] = []
    site_pages = pages()

    def answer(path: str) -> tuple[int, bytes, dict[str, str]]:
        if path in site_pages:
            if path != "/":
                time.sleep(DELAY)
            served.append(path)
            return 200, site_pages[path], {}
        return 404, b"not found", {}

    with http_site(answer) as port:
        yield f"http://127.0.0.1:{port}", served


def crawl(seed: str, redis_url: str, *settings: str) -> list[str]:
    """Paths in the order a one-at-a-time ``rankcrawl crawl`` under the pagerank frontier fetched them."""
    with site() as (base, served):
        cmd = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "crawl", base + seed,
               "--redis-url", redis_url]
        for s in ("RANKCRAWL_ALLOW_PRIVATE=True", "DOWNLOAD_DELAY=0", "AUTOTHROTTLE_ENABLED=False", "LOG_LEVEL=WARNING",
                  "ROBOTSTXT_OBEY=False", "CONCURRENT_REQUESTS=1", "RANKCRAWL_FRONTIER=pagerank", *settings):
            cmd += ["-s", s]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return served


def leaves(order: list[str], prefix: str) -> list[int]:
    return [i for i, p in enumerate(order) if p.startswith(prefix) and p != prefix]


def test_topic_terms_fetch_the_topical_branch_first(redis_url: str) -> None:
    """Both hubs and their leaves are linked alike; with the topic terms the topical hub and all its leaves
    come before the off-topic hub's leaves, though the off-topic hub is linked first."""
    order = crawl("/", redis_url, "RANKCRAWL_TOPIC_TERMS=database,sql")
    assert sorted(order) == sorted(pages()), order
    assert order.index("/t") < order.index("/o"), order
    assert max(leaves(order, "/t")) < min(leaves(order, "/o")), order


def test_without_topic_terms_the_first_linked_branch_leads(redis_url: str) -> None:
    """The control: the same site without topic terms fetches the first-linked, off-topic branch first."""
    order = crawl("/", redis_url)
    assert sorted(order) == sorted(pages()), order
    assert order.index("/o") < order.index("/t"), order
    assert min(leaves(order, "/o")) < min(leaves(order, "/t")), order
