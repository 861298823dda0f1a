"""How far a perfect text extraction would take content-link F1 on WCXB-dev: the yardstick for the link target.

    python -m bench.link_ceiling [--limit N] [--no-write]

Per WCXB page type and split, micro content-link F1 scored as ``bench.extraction`` scores it
(sets of URLs as written, ``bench.metrics.normalize_link``):

- **rankcrawl**: ``analyze`` with the default preset (the shipped block and link models);
- **content blocks' links**: every anchor of the blocks whose words the gold main text covers
  (``bench.train_classifier.block_labels``, the block model's own training labels): the links a
  perfect block classifier would keep;
- **link model over perfect blocks** (train split only): the link model of
  ``bench.train_link_classifier`` (shipped parameters and threshold, host-grouped 3-fold
  cross-validation, ``link_classifier.decided``) with those labels in place of the block
  probabilities, so its content region and block features are the true ones.

A page whose text yields no block keeps no link. The held-out split is for reading only: the
models were fitted on the train split.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import click
import numpy as np

from bench.datasets import DATA, Page, load
from bench.metrics import LinkCounts, normalize_link
from bench.report import markdown_table, write_section
from bench.train_classifier import analysed, page_data
from bench.train_link_classifier import MODEL, PageLinks, fit, host_folds, page_links
from rankcrawl.pipelines import analyze
from rankcrawl.pipelines.page.link_classifier import decided
from rankcrawl.pipelines.page.links import link_maker

FOLDS = 3
TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")


@dataclass
class Scored:
    """Link outcomes of one split, overall and per page type, for each way of choosing links."""

    counts: dict[str, dict[str, LinkCounts]] = field(default_factory=dict)

    def add(self, how: str, page_type: str, pred: set[str], gold: set[str]) -> None:
        per = self.counts.setdefault(how, {})
        for key in ("all", page_type):
            per.setdefault(key, LinkCounts()).add(pred, gold)

    def f1(self, how: str, key: str) -> float | str:
        c = self.counts.get(how, {}).get(key)
        return c.micro().f1 if c is not None else "n/a"


def content_block_links(page: Page) -> tuple[set[str], PageLinks | None]:
    """(URLs of the anchors of the gold-covered blocks, the page's link rows with those labels as
    block probabilities; None without a block or an http(s) anchor)."""
    state = analysed(page)
    data = page_data(page, state)
    if data is None:
        return set(), None
    make = link_maker(state.root, page.url)
    urls = {normalize_link(link.written_url) for i, b in enumerate(state.blocks) if data.y[i] > 0.5 and b.anchors
            for link in make(b.anchors, i)}
    return urls, page_links(page, state, data.y.astype(np.float64), data.page, 0.5)


def model_over_true_blocks(pages: list[PageLinks], scored: Scored) -> None:
    """Host-grouped cross-validation of the link model on rows built from the gold block labels."""
    shipped = json.loads(MODEL.read_text())
    params = shipped["training"]["params"]
    fold_of = host_folds([p.host for p in pages], FOLDS)
    for k in range(FOLDS):
        model = fit([p for p, f in zip(pages, fold_of) if f != k], params)
        for j in np.flatnonzero(fold_of == k):
            page = pages[j]
            keep = decided(model.predict_proba(page.rows.x)[:, 1], page.rows, shipped["threshold"])[page.linked]
            scored.add("model", page.page_type, {u for u, kept in zip(page.urls, keep) if kept}, page.gold)


def measure(split: str, limit: int | None) -> Scored:
    """All three ways of choosing links on the WCXB-dev pages of ``split`` with link gold."""
    scored = Scored()
    rows: list[PageLinks] = []
    for page in [p for p in load("wcxb-dev", split, limit=limit) if p.gold_links is not None]:
        gold = {normalize_link(u) for u in page.gold_links or ()}
        kind = page.page_type or "?"
        doc = analyze(page.html_text(), url=page.url)
        scored.add("rankcrawl", kind, {normalize_link(link.written_url) for link in doc.links}, gold)
        urls, page_rows = content_block_links(page)
        scored.add("blocks", kind, urls, gold)
        if page_rows is not None:
            rows.append(page_rows)
        elif split == "train":  # no row to fit or score: every gold link is missed
            scored.add("model", kind, set(), gold)
    if split == "train":
        model_over_true_blocks(rows, scored)
    return scored


@click.command()
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N pages per split.")
@click.option("--write/--no-write", default=True, show_default=True, help="Write the docs/BENCHMARKS.md section.")
def main(limit: int | None, write: bool) -> None:
    """Print (and write) the table of link F1 per page type: rankcrawl and the two ceilings."""
    if not DATA.exists():
        raise click.ClickException(f"benchmark data not found at {DATA}")
    headers = ["split", "page type", "pages with gold links", "gold links", "rankcrawl", "content blocks' links",
               "link model over perfect blocks"]
    table = []
    for split in ("train", "heldout"):
        scored = measure(split, limit)
        for key in ("all", *TYPES):
            c = scored.counts["rankcrawl"].get(key)
            if c is not None:
                table.append([split, key, len(c.pages), c.tp + c.fn,
                              scored.f1("rankcrawl", key), scored.f1("blocks", key), scored.f1("model", key)])
    body = markdown_table(headers, table)
    click.echo(body)
    if write:
        write_section("link-ceiling", "## WCXB content links: the ceiling of a perfect text extraction\n\n"
                      f"Command: `python -m bench.link_ceiling`{f' --limit {limit}' if limit else ''} "
                      "(bench/link_ceiling.py docstring: definitions). Micro content-link F1 over all pages with link gold; "
                      "train-split rankcrawl figures are in-sample.\n\n" + body)


if __name__ == "__main__":
    main()
