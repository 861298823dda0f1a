"""Draw the frozen WCXB-dev test split and write its ids to ``bench/splits/wcxb_test_ids.txt``.

    python -m bench.splits.make_test_split [--check]

Whole hosts go to the split (a site's pages share templates, so a host on both sides would leak
its layout into the test): each host is given the page type most of its pages have, the hosts
of each type are shuffled with ``random.Random(SEED)``, and hosts are taken in that order while
the type's test pages stay within ``SHARE`` of its pages (at least one host per type). The file is
written once and committed; ``--check`` redraws it and fails if the committed ids differ.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from pathlib import Path

import click

from bench.datasets import TEST_IDS, Page, load

SEED = 20261128
SHARE = 0.25


def draw(pages: list[Page], seed: int = SEED, share: float = SHARE) -> list[str]:
    """Sorted page ids of the test split: whole hosts, about ``share`` of each page type's pages."""
    by_host: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_host[page.host].append(page)
    hosts_of_type: dict[str, list[str]] = defaultdict(list)
    for host in sorted(by_host):
        kinds = Counter(p.page_type or "?" for p in by_host[host])
        hosts_of_type[max(sorted(kinds), key=lambda k: kinds[k])].append(host)
    type_pages = Counter(p.page_type or "?" for p in pages)
    rng = random.Random(seed)
    chosen: list[str] = []
    for kind in sorted(hosts_of_type):
        hosts = hosts_of_type[kind]
        rng.shuffle(hosts)
        budget, taken = share * type_pages[kind], 0
        for host in hosts:
            size = len(by_host[host])
            if taken and taken + size > budget:
                continue
            chosen.append(host)
            taken += size
    return sorted(p.page_id for host in chosen for p in by_host[host])


@click.command()
@click.option("--check", is_flag=True, help="Redraw and compare with the committed ids instead of writing.")
def main(check: bool) -> None:
    """Draw the split from all WCXB-dev pages and write (or check) its id file."""
    pages = load("wcxb-dev", "all")
    if not pages:
        raise click.ClickException("no WCXB-dev pages found (is ../shared/data there?)")
    ids = draw(pages)
    text = "".join(f"{i}\n" for i in ids)
    if check:
        if not TEST_IDS.exists() or TEST_IDS.read_text() != text:
            raise click.ClickException(f"{TEST_IDS} differs from the drawn split")
        click.echo(f"{TEST_IDS}: {len(ids)} ids, unchanged")
        return
    if TEST_IDS.exists():
        raise click.ClickException(f"{TEST_IDS} exists: the split is frozen (use --check)")
    Path(TEST_IDS).write_text(text)
    kinds = Counter(p.page_type for p in pages if p.page_id in set(ids))
    click.echo(f"wrote {len(ids)} ids to {TEST_IDS}: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))


if __name__ == "__main__":
    main()
