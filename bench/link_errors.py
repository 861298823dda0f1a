"""Where the content-link decision goes wrong, per WCXB page type and per page (a diagnosis, no report).

    python -m bench.link_errors [--split train|heldout] [--types listing,forum] [--worst 20] [--limit N]

Each WCXB-dev page with link gold through ``analyze`` (default preset), scored as
``bench.extraction`` scores links (URL as written, ``bench.metrics.normalize_link``). Every
false negative and false positive URL is put where its anchors lie: in the page's *grid* (its
largest link list by anchor words, of at least 3 anchors, none under a template role: the list
``link_classifier.content_lists`` would look at), under a template role
(``link_classifier.TEMPLATE_ROLES``: all its anchors), or elsewhere; gold URLs that no block
anchor carries are counted apart. Then the pages with the most errors. Use the train split to
decide what to change; the held-out split only to look at what the benchmark counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import click
import numpy as np

from bench.datasets import DATA, Page, load
from bench.metrics import normalize_link
from bench.report import markdown_table
from rankcrawl.pipelines.page.link_classifier import TEMPLATE_ROLES
from rankcrawl.pipelines.page.links import link_maker
from rankcrawl.pipelines.page.steps import PageState, preset, run_steps

GRID_MIN = 3


@dataclass
class UrlFacts:
    """One URL of a page: kept as content, in the grid, all its anchors under a template role."""

    kept: bool = False
    grid: bool = False
    template: bool = True


def page_urls(page: Page) -> dict[str, UrlFacts]:
    """The page's block-anchor URLs (normalised) with their facts."""
    state = run_steps(preset(None), PageState(page.html_text(), page.url))
    rows, content = state.anchor_rows, state.link_content or {}
    if rows is None or not rows.group.size:
        return {}
    size = np.bincount(rows.group)
    template = np.bincount(rows.group, (rows.roles & TEMPLATE_ROLES) != 0) > 0
    words = np.bincount(rows.group, rows.words)
    candidate = (size >= GRID_MIN) & ~template
    grid = int(np.argmax(np.where(candidate, words, -1.0))) if candidate.any() else -1
    make = link_maker(state.root, page.url)
    out: dict[str, UrlFacts] = {}
    j = 0
    for i, block in enumerate(state.blocks):
        for el in block.anchors:
            link = make([el], i)
            if link:
                facts = out.setdefault(normalize_link(link[0].written_url), UrlFacts())
                facts.kept |= bool(content.get(el)) and not link[0].alternate
                facts.grid |= bool(rows.group[j] == grid)
                facts.template &= bool(rows.roles[j] & TEMPLATE_ROLES)
            j += 1
    return out


def where(facts: UrlFacts) -> str:
    return "grid" if facts.grid else "template" if facts.template else "other"


@click.command()
@click.option("--split", type=click.Choice(["train", "heldout"]), default="train", show_default=True)
@click.option("--types", default="", help="Comma-separated WCXB page types (default: all).")
@click.option("--worst", type=click.IntRange(min=0), default=20, show_default=True, help="Pages listed.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N pages.")
def main(split: str, types: str, worst: int, limit: int | None) -> None:
    """Print the error table per page type and the pages with the most errors."""
    if not DATA.exists():
        raise click.ClickException(f"benchmark data not found at {DATA}")
    kinds = {t for t in types.split(",") if t}
    pages = [p for p in load("wcxb-dev", split) if p.gold_links is not None and (not kinds or p.page_type in kinds)]
    if not pages:
        raise click.ClickException(f"no WCXB-dev {split} page with link gold of type {types!r}")
    per_type: dict[str, Counter] = {}
    per_page = []
    for page in pages[:limit]:
        urls = page_urls(page)
        gold = {normalize_link(u) for u in page.gold_links or ()}
        kept = {u for u, f in urls.items() if f.kept}
        c = per_type.setdefault(page.page_type or "?", Counter())
        c.update(pages=1, gold=len(gold), tp=len(kept & gold), fp=len(kept - gold), fn=len(gold - kept),
                 not_in_anchors=len(gold - set(urls)))
        c.update(f"fn {where(urls[u])}" for u in gold - kept if u in urls)
        c.update(f"fp {where(urls[u])}" for u in kept - gold)
        per_page.append([page.page_id, page.page_type, page.url[:80], len(gold), len(kept & gold),
                         len(kept - gold), len(gold - kept)])
    places = ("grid", "template", "other")
    headers = ["type", "pages", "gold", "link F1", *(f"FN {p}" for p in places), "FN not in anchors",
               *(f"FP {p}" for p in places)]
    rows = []
    for kind, c in sorted(per_type.items()):
        f1 = 2 * c["tp"] / max(2 * c["tp"] + c["fp"] + c["fn"], 1)
        rows.append([kind, c["pages"], c["gold"], f1, *(c[f"fn {p}"] for p in places), c["not_in_anchors"],
                     *(c[f"fp {p}"] for p in places)])
    click.echo(f"WCXB-dev {split}, default preset: content-link errors by where their anchors lie\n")
    click.echo(markdown_table(headers, rows))
    per_page.sort(key=lambda r: -(r[5] + r[6]))
    click.echo("\n" + markdown_table(["id", "type", "url", "gold", "TP", "FP", "FN"], per_page[:worst]))


if __name__ == "__main__":
    main()
