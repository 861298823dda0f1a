"""Extraction benchmark: rankcrawl (every preset of ``steps.PRESETS``) against the peers, same pages, one run.

    python -m bench.extraction [--dataset wcxb-dev|l3s-gn1|both] [--split heldout|dev|test] [--limit N] [--only-default]

Quality: word P/R/F1 (overall and per WCXB page type), WCXB snippet accuracy, content-link P/R/F1 (micro and macro), as in
../shared/data/README.md §3, on a WCXB-dev split of ``bench.datasets`` (``heldout`` by default;
``dev`` = every page but the frozen test split, for development; ``test`` = the frozen test split,
scored once per kept change: each such run appends its figures to ``bench/splits/test_scores.log``,
with the perfect-extraction link ceiling of ``bench.link_ceiling`` beside the link F1) and for
L3S-GN1 on the held-out pages and on all pages. Speed: rankcrawl as the ``rankcrawl extract`` CLI (whole runs over batches of up to
200 files, process start included: CPU seconds of the child processes, and their wall time; with
Python's bytecode cache on, as a ``pip install`` leaves it, whatever ``PYTHONDONTWRITEBYTECODE`` says) and
in process; peers in process; every tool runs on one batch before the next batch starts, the in-process
tools page by page in turn; in-process figures are CPU seconds of this single-threaded
process, so they are fair under machine load. The two speed ratios reported: CLI pages per
CPU second (process start included) / trafilatura's, and in-process / trafilatura's.
The section "extraction" of docs/BENCHMARKS.md is rewritten only by full runs (no ``--limit``, no
``--only-default``) of the held-out split.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from importlib.metadata import version
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from bench.datasets import DATA, TEST_IDS, Page, load
from bench.extraction_peers import PEERS, Extraction, versions
from bench.metrics import PRF, LinkCounts, SnippetCounts, mean_prf, word_prf
from bench.report import markdown_table, write_section

BATCH = 200
CLI_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The CLI's environment: a user's install keeps compiled bytecode (pip writes it), so start-up
does not recompile the modules every time."""


@dataclass
class Run:
    """One tool's outputs on a list of pages, with its time."""

    tool: str
    outputs: dict[str, Extraction] = field(default_factory=dict)
    seconds: float = 0.0
    wall: float | None = None
    failures: int = 0

    def extend(self, more: Run) -> None:
        """Add the outputs and times of the same tool on more pages."""
        self.outputs.update(more.outputs)
        self.seconds += more.seconds
        self.wall = None if self.wall is None or more.wall is None else self.wall + more.wall
        self.failures += more.failures

    def speed(self) -> float:
        """Pages per (CPU) second."""
        return len(self.outputs) / self.seconds if self.seconds else float("nan")


def run_in_process(tools: list[tuple[str, Callable[[str, str], Extraction]]], pages: list[Page]) -> list[Run]:
    """Each page through every tool's ``extract`` in turn (HTML decoded as UTF-8), CPU time summed per
    tool; page by page, so a change in the machine's load falls on every tool alike. A crash scores empty."""
    runs = [Run(tool) for tool, _ in tools]
    for page in pages:
        html = page.html_text()
        for run, (_, extract) in zip(runs, tools):
            start = time.process_time()
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    out = extract(html, page.url)
            except Exception:  # a peer failing on a page scores that page as empty output
                out = Extraction("", [])
                run.failures += 1
            run.seconds += time.process_time() - start
            run.outputs[page.page_id] = out
    return runs


def rankcrawl_in_process(classifier: str) -> Callable[[str, str], Extraction]:
    """``analyze`` with one registered classifier, as an extractor."""
    from rankcrawl.pipelines import analyze

    def extract(html: str, url: str) -> Extraction:
        doc = analyze(html, url=url, classifier=classifier)
        return Extraction(doc.text, [link.written_url for link in doc.links])

    return extract


def run_cli(pages: list[Page]) -> Run:
    """``rankcrawl extract`` over batches of up to 200 files; wall and CPU time of the processes."""
    run = Run("rankcrawl extract (CLI)")
    by_path = {str(p.html_path): p for p in pages}
    exe = shutil.which("rankcrawl")
    if exe is None:
        raise click.ClickException("the rankcrawl command is not on PATH (pip install -e .)")
    with tempfile.TemporaryDirectory() as tmp:
        mapping = Path(tmp) / "map.tsv"
        mapping.write_text("".join(f"{p.html_path}\t{p.url}\n" for p in pages))
        wall = 0.0
        cpu_before = _children_cpu()
        for i in range(0, len(pages), BATCH):
            batch = [str(p.html_path) for p in pages[i : i + BATCH]]
            start = time.perf_counter()
            proc = subprocess.run([exe, "extract", "--urls-from", str(mapping), *batch],
                                  capture_output=True, text=True, timeout=1800, env=CLI_ENV)
            wall += time.perf_counter() - start
            if proc.returncode != 0:
                raise click.ClickException(f"rankcrawl extract failed: {proc.stderr.strip()[-300:]}")
            for line in proc.stdout.splitlines():
                record = json.loads(line)
                page = by_path[record["path"]]
                run.outputs[page.page_id] = Extraction(record["text"], [link["url"] for link in record["links"]])
        run.seconds, run.wall = _children_cpu() - cpu_before, wall
    run.failures = len(pages) - len(run.outputs)
    return run


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Scores:
    """Aggregated quality of one tool on one page set."""

    words: PRF
    snippets: SnippetCounts | None
    links: LinkCounts | None


def score(run: Run, pages: list[Page]) -> Scores:
    """README §3 metrics of ``run`` over ``pages`` (missing output counts as empty)."""
    empty = Extraction("", [])
    outs = [run.outputs.get(p.page_id, empty) for p in pages]
    words = mean_prf(word_prf(o.text, p.gold_text) for o, p in zip(outs, pages))
    snippets = None
    if any(p.with_snippets or p.without_snippets for p in pages):
        snippets = SnippetCounts()
        for o, p in zip(outs, pages):
            snippets.add(o.text, p.with_snippets, p.without_snippets)
    links = None
    if any(p.gold_links is not None for p in pages) and all(o.links is not None for o in outs):
        links = LinkCounts()
        for o, p in zip(outs, pages):
            if p.gold_links is not None:
                links.add(o.links or [], p.gold_links)
    return Scores(words, snippets, links)


HEADERS = ["tool", "word F1", "word P", "word R", "snippet acc", "link P", "link R", "link F1",
           "link F1 macro", "pages/s (CPU)", "pages/s (wall, CLI)"]


def row(run: Run, s: Scores) -> list[object]:
    """One table row; ``n/a`` where the tool gives no links / the set has no snippets."""
    na = "n/a"
    link = s.links.micro() if s.links else None
    return [run.tool, s.words.f1, s.words.p, s.words.r,
            s.snippets.accuracy() if s.snippets else na,
            link.p if link else na, link.r if link else na, link.f1 if link else na,
            s.links.macro().f1 if s.links else na,
            f"{run.speed():.1f}",
            f"{len(run.outputs) / run.wall:.1f}" if run.wall else ""]


def classifiers() -> list[str]:
    """Preset names (``steps.PRESETS``), the default first."""
    from rankcrawl.pipelines.page.steps import DEFAULT_PRESET, PRESETS

    return [DEFAULT_PRESET] + sorted(n for n in PRESETS if n != DEFAULT_PRESET)


def evaluate(pages: list[Page], only_default: bool = False) -> list[Run]:
    """Every tool on ``pages``: the CLI, rankcrawl per classifier in process, the peers; interleaved
    by batch of ``BATCH`` pages (one CLI process, then the in-process tools on the same pages, page by
    page), so a change in the machine's load while the benchmark runs falls on every tool alike.
    ``only_default``: rankcrawl's default preset in process only (development runs)."""
    names = classifiers()[:1] if only_default else classifiers()
    tools: list[tuple[str, Callable[[str, str], Extraction]]] = [
        (f"rankcrawl ({name})", rankcrawl_in_process(name)) for name in names]
    if not only_default:
        tools += [(name, extract) for name, (_, extract) in PEERS.items()]
    runs: list[Run] = []
    for i in range(0, len(pages), BATCH):
        batch = pages[i : i + BATCH]
        done = [*([] if only_default else [run_cli(batch)]), *run_in_process(tools, batch)]
        if not runs:
            runs = done
        else:
            for run, more in zip(runs, done):
                run.extend(more)
    return runs


def table(title: str, runs: list[Run], pages: list[Page]) -> tuple[Table, str]:
    """A rich table for the terminal and the same as Markdown."""
    rows = [row(run, score(run, pages)) for run in runs]
    t = Table(title=f"{title} ({len(pages)} pages)")
    for h in HEADERS:
        t.add_column(h)
    for r in rows:
        t.add_row(*(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r))
    return t, f"**{title}** ({len(pages)} pages)\n\n" + markdown_table(HEADERS, rows)


def ratios(runs: list[Run], pages: list[Page], against: str = "trafilatura") -> str:
    """rankcrawl (default classifier) against ``against``: word F1, link F1 and speed ratios."""
    by = {r.tool: r for r in runs}
    cli, default, peer = runs[0], runs[1], by[against]
    s_def, s_peer = score(default, pages), score(peer, pages)
    best = max((r for r in runs if r.tool in PEERS), key=lambda r: score(r, pages).words.f1)
    parts = [f"word F1 {s_def.words.f1:.3f} vs {s_peer.words.f1:.3f} (best peer {best.tool} "
             f"{score(best, pages).words.f1:.3f})"]
    if s_def.links and s_peer.links:
        parts.append(f"link F1 {s_def.links.micro().f1:.3f} vs {s_peer.links.micro().f1:.3f}")
    parts.append(f"speed `rankcrawl extract` (process start included) / {against} = "
                 f"{cli.speed() / peer.speed():.2f}x")
    parts.append(f"speed in-process / {against} = {default.speed() / peer.speed():.2f}x")
    return f"{default.tool} vs {against}: " + "; ".join(parts)


def default_run(runs: list[Run]) -> Run:
    """The in-process run of the default preset."""
    return next(r for r in runs if r.tool.startswith("rankcrawl (") and "CLI" not in r.tool)


def type_words(run: Run, pages: list[Page]) -> dict[str, PRF]:
    """Word P/R/F1 of ``run`` per WCXB page type (``"?"`` for pages without one)."""
    kinds = sorted({p.page_type or "?" for p in pages})
    return {k: score(run, [p for p in pages if (p.page_type or "?") == k]).words for k in kinds}


def words_by_type(run: Run, pages: list[Page]) -> Table:
    """A rich table of ``run``'s word F1, P and R per WCXB page type."""
    t = Table(title=f"{run.tool} by WCXB page type")
    for h in ("page type", "pages", "word F1", "word P", "word R"):
        t.add_column(h)
    for kind, prf in type_words(run, pages).items():
        n = sum((p.page_type or "?") == kind for p in pages)
        t.add_row(kind, str(n), f"{prf.f1:.3f}", f"{prf.p:.3f}", f"{prf.r:.3f}")
    return t


def by_page_type(runs: list[Run], pages: list[Page], against: str = "trafilatura") -> str:
    """Markdown: word F1 and content-link F1 per WCXB page type: rankcrawl (default), ``against`` and
    the best peer of the run by word F1 on that type."""
    default, peer = default_run(runs), next(r for r in runs if r.tool == against)
    peers = [r for r in runs if r.tool in PEERS]
    rows = []
    for kind in sorted({p.page_type or "?" for p in pages}):
        subset = [p for p in pages if (p.page_type or "?") == kind]
        ours, theirs = score(default, subset), score(peer, subset)
        best = max(peers, key=lambda r: score(r, subset).words.f1)
        rows.append([kind, len(subset), ours.words.f1, theirs.words.f1,
                     f"{score(best, subset).words.f1:.3f} ({best.tool})",
                     ours.links.micro().f1 if ours.links else "n/a",
                     theirs.links.micro().f1 if theirs.links else "n/a",
                     sum(len(p.gold_links or ()) for p in subset)])
    headers = ["page type", "pages", f"word F1 {default.tool}", f"word F1 {against}", "word F1 best peer",
               f"link F1 {default.tool}", f"link F1 {against}", "gold links"]
    return markdown_table(headers, rows)


TEST_LOG = TEST_IDS.parent / "test_scores.log"
SPLIT_TITLES = {"heldout": "held-out", "dev": "dev (all but the test split)", "test": "frozen test split"}


def ceiling(pages: list[Page]) -> dict[str, LinkCounts]:
    """Link counts of a perfect text extraction (``bench.link_ceiling``), overall (``"all"``) and per type."""
    from bench.link_ceiling import content_block_links

    counts: dict[str, LinkCounts] = {}
    for page in pages:
        if page.gold_links is None:
            continue
        urls, _ = content_block_links(page)
        for key in ("all", page.page_type or "?"):
            counts.setdefault(key, LinkCounts()).add(urls, page.gold_links)
    return counts


def test_log_line(runs: list[Run], pages: list[Page], limit: int | None) -> str:
    """One line of the test-split log: UTC time, git head, pages, rankcrawl's word F1 (P/R) overall and
    per type, the best peer's word F1, link F1 and its share of the perfect-extraction ceiling, then
    word P/R per type (appended last, so the earlier fields keep their places)."""
    head = subprocess.run(["git", "-C", str(TEST_IDS.parent), "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip() or "?"
    default = default_run(runs)
    ours = score(default, pages)
    parts = [datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ"), f"head {head}", f"pages {len(pages)}"
             + (f" (limit {limit})" if limit else ""),
             f"word F1 {ours.words.f1:.3f} (P {ours.words.p:.3f} R {ours.words.r:.3f})"]
    peers = [r for r in runs if r.tool in PEERS]
    if peers:
        best = max(peers, key=lambda r: score(r, pages).words.f1)
        parts.append(f"best peer {best.tool} {score(best, pages).words.f1:.3f}")
    per_type = type_words(default, pages)
    kinds = list(per_type)
    parts.append("by type " + ", ".join(f"{k} {prf.f1:.3f}" for k, prf in per_type.items()))
    if ours.links:
        top = ceiling(pages)
        link_parts = []
        for key in ["all", *kinds]:
            subset = pages if key == "all" else [p for p in pages if (p.page_type or "?") == key]
            got = score(default, subset).links
            if got is None or key not in top:
                continue
            f1, best_f1 = got.micro().f1, top[key].micro().f1
            link_parts.append(f"{key} {f1:.3f}/{best_f1:.3f}" + (f" ({f1 / best_f1:.2f})" if best_f1 else ""))
        parts.append("link F1/ceiling " + ", ".join(link_parts))
    parts.append("P/R by type " + ", ".join(f"{k} {prf.p:.3f}/{prf.r:.3f}" for k, prf in per_type.items()))
    return " | ".join(parts)


@click.command()
@click.option("--dataset", type=click.Choice(["wcxb-dev", "l3s-gn1", "both"]), default="both", show_default=True)
@click.option("--split", type=click.Choice(list(SPLIT_TITLES)), default="heldout", show_default=True,
              help="WCXB-dev pages to score; every scoring of 'test' is appended to bench/splits/test_scores.log.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="At most N pages per dataset (quick runs; no report written).")
@click.option("--only-default", is_flag=True,
              help="Only rankcrawl's default preset in process: no CLI, no peers, no report written.")
def main(dataset: str, split: str, limit: int | None, only_default: bool) -> None:
    """Run the extraction benchmark and print (and, on full held-out runs, record) the tables."""
    if not DATA.exists():
        raise click.ClickException(f"benchmark data not found at {DATA}")
    console = Console(width=200)
    sections = []
    title = SPLIT_TITLES[split]
    if dataset in ("wcxb-dev", "both"):
        pages = load("wcxb-dev", split, limit=limit)
        if not pages:
            raise click.ClickException(f"no WCXB-dev pages in split {split!r}")
        runs = evaluate(pages, only_default)
        t, md = table(f"WCXB-dev {title}", runs, pages)
        console.print(t, words_by_type(default_run(runs), pages))
        if not only_default:
            line = ratios(runs, pages)
            types = by_page_type(runs, pages)
            console.print(line, types, sep="\n\n")
            sections.append(md + "\n\n" + line + f"\n\nBy WCXB page type ({title}):\n\n" + types)
        if split == "test":
            entry = test_log_line(runs, pages, limit)
            with TEST_LOG.open("a") as log:
                log.write(entry + "\n")
            scored = len(TEST_LOG.read_text().splitlines())
            console.print(f"{entry}\nappended to {TEST_LOG} (the test split has been scored {scored} times)")
    if dataset in ("l3s-gn1", "both"):
        pages = load("l3s-gn1", "all", limit=limit)
        runs = evaluate(pages, only_default)
        held = [p for p in pages if p.split == "heldout"]
        for name, subset in (("L3S-GN1 held-out", held), ("L3S-GN1 all (train split included)", pages)):
            t, md = table(name, runs, subset)
            console.print(t)
            if not only_default:
                line = ratios(runs, subset)
                console.print(line)
                sections.append(md + "\n\n" + line)
    failures = ", ".join(f"{r.tool}: {r.failures}" for r in runs if r.failures)
    if limit is None and not only_default and split == "heldout":
        write_section("extraction", report(dataset, sections, failures))
        console.print("wrote section 'extraction' of docs/BENCHMARKS.md")


def report(dataset: str, sections: list[str], failures: str) -> str:
    """The Markdown section: command, date, versions, tables."""
    pkgs = {"rankcrawl": version("rankcrawl"), "lxml": version("lxml"), **versions()}
    return "\n".join([
        "## Extraction",
        "",
        f"Command: `python -m bench.extraction --dataset {dataset}` ({date.today().isoformat()}).",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in pkgs.items()) + ".",
        "",
        "Held-out = pages whose SHA-1(dataset:id) mod 100 ≥ 70, outside the frozen WCXB test split",
        "(bench/datasets.py); the `trained` models were fitted on train-split pages only. Metrics: data README §3. Peers get the HTML",
        "decoded as UTF-8 and the page URL. pages/s (CPU) = pages per CPU second on one core: in",
        "process, and for the CLI row of whole `rankcrawl extract` runs (≤ 200 files each, process",
        "start included; their wall-clock rate beside it). n/a: the tool returns no links."
        + (f" Pages a tool crashed on (scored empty): {failures}." if failures else ""),
        "",
        *("\n\n".join(sections),),
    ])


if __name__ == "__main__":
    main()
