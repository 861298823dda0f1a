"""A Scrapy user's first ``scrapy crawl`` with the add-on: time to the first published epoch and from
the last page to exit, first run (empty numba cache, new RANKCRAWL_HOME) and warm (both kept).

A project from ``scrapy startproject`` with an items-only spider and the README's local add-on lines
crawls a generated multi-host site on 127.0.0.1 (``DemoWeb``) to a page budget. Times come from the
crawl's own log (``LOG_FORMAT`` with epoch seconds): process start → the first ``published epoch``
line of the in-crawl ranker, and the last ``Crawled (`` line → process exit.

    python -m bench.first_run [--pages 60] [--runs 2]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from rankcrawl.crawler.demoweb.web import DemoWeb

SPIDER = '''
import scrapy


class ItemsSpider(scrapy.Spider):
    name = "items"

    def __init__(self, seed: str = "", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [seed]

    def parse(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
'''
ADDON_LINES = 'ADDONS = {"rankcrawl.settings.Addon": 0}\nSPIDER_MODULES += ["rankcrawl.crawler.spider"]\nRANKCRAWL_ALLOW_PRIVATE = True\n'
LINE = re.compile(r"^(\d+\.\d+) \[([\w.]+)\] \w+: (.*)$", re.M)


def make_project(root: Path) -> Path:
    subprocess.run([sys.executable, "-m", "scrapy", "startproject", "userproj"], cwd=root, check=True, capture_output=True)
    settings = root / "userproj" / "userproj" / "settings.py"
    settings.write_text(settings.read_text().replace("\nADDONS = {}\n", "\n") + ADDON_LINES)
    (root / "userproj" / "userproj" / "spiders" / "items.py").write_text(SPIDER)
    return root / "userproj"


def crawl(project: Path, seed: str, pages: int, home: Path, numba_cache: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env.update(RANKCRAWL_HOME=str(home), NUMBA_CACHE_DIR=str(numba_cache))
    started = time.time()
    done = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "items", "-a", f"seed={seed}",
                           "-s", f"RANKCRAWL_MAX_PAGES={pages}", "-s", "LOG_FORMAT=%(created).3f [%(name)s] %(levelname)s: %(message)s"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600)
    ended = time.time()
    if done.returncode:
        raise click.ClickException(f"scrapy crawl failed: {done.stderr[-2000:]}")
    lines = [(float(t), name, msg) for t, name, msg in LINE.findall(done.stderr)]
    epochs = [t for t, name, msg in lines if name == "rankcrawl.ranker" and msg.startswith("published epoch")]
    crawled = [t for t, name, msg in lines if msg.startswith("Crawled (")]
    return {"first_epoch_s": epochs[0] - started if epochs else float("nan"),
            "last_page_to_exit_s": ended - crawled[-1] if crawled else float("nan"),
            "total_s": ended - started, "log_lines": float(len(done.stderr.splitlines()))}


@click.command()
@click.option("--pages", default=60, show_default=True, help="Page budget of each crawl.")
@click.option("--runs", default=2, show_default=True, help="Warm runs after the first.")
def main(pages: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="rankcrawl-first-run-") as scratch, \
            DemoWeb(seed=3, n_hosts=3, pages_per_host=40).serve() as web:
        root = Path(scratch)
        project = make_project(root)
        for label in ["first"] + ["warm"] * runs:
            figures = crawl(project, web.seeds[0], pages, root / "home", root / "numba-cache")
            click.echo(f"{label}\t" + "\t".join(f"{k}={v:.2f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
