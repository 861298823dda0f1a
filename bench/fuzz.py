"""Fuzz benchmark: generated hostile files through ``rankcrawl extract``'s per-file logic, one at a time.

    python -m bench.fuzz [--cases 10000] [--seed 0] [--timeout 1.0] [--no-write]

Every case (``bench.hostile``: random bytes, mutated HTML, regex bombs, deep nesting, gzip bombs,
bogus charsets, huge attributes, hostile hrefs, pages of 50k/100k/200k links, NUL bytes, UTF-16/32, plus FIFOs and /dev/zero) is
written to a file and given to ``extract_file`` exactly as the command does (in a ``Sandbox`` child:
read the regular file up to the page cap, analyse within ``--timeout`` seconds, JSON line; the child
is killed at ``HARD_FACTOR`` × the budget). The wall time of each call is measured in this process
(CPU time: the child's; a killed child's is counted as its wall time); a call still running after
``HARD_LIMIT`` s is interrupted (SIGALRM) and counted as a hang. Outcomes: analysed, truncated (over
the byte cap), prefix (over the time budget: its first eighth analysed), refused (one error line:
empty, binary, bad gzip, not a regular file, budget skipped), killed (stopped at the hard limit),
failed (an unexpected exception inside analysis or a dead child, reported as one line) and crash (an
exception escaping ``extract_file``, which would stop the batch). Peak memory: the largest maximum
resident set size of the sandbox children (the analysis), and apart that of this process (which
builds the cases). A full run (>= 10,000 cases) rewrites the
"fuzz" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import click

from bench.hostile import KINDS, hostile_case
from bench.report import markdown_table, write_section
from rankcrawl.crawler.cli.extract import extract_file, warm
from rankcrawl.crawler.cli.sandbox import HARD_FACTOR, Sandbox
from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES

HARD_LIMIT = 60
SLOW = 2.0
SPECIAL = ("FIFO", "/dev/zero")


class Hang(BaseException):
    """A case ran past HARD_LIMIT seconds."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def classify(line: str | None, notes: list[str]) -> str:
    """The outcome name of one ``extract_file`` result."""
    text = " ".join(notes)
    if line is not None:
        return "prefix" if "budget" in text else "truncated" if "truncated" in text else "analysed"
    if "analysis failed" in text or "too complex" in text or "process died" in text:
        return "failed"
    return "killed" if "analysis stopped at" in text else "refused"


def run_case(folder: Path, index: int, kind: str, rng: random.Random, scale: float, timeout: float,
             sandbox: Sandbox, max_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> tuple[str, float, float, str]:
    """(outcome, wall seconds, CPU seconds, first note) of one generated case of ``kind`` (or a FIFO /
    /dev/zero). CPU: the sandbox child's, or the wall time when it was killed."""
    if kind == "FIFO":
        path = folder / f"case{index}.html"
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path = Path("/dev/zero")
    else:
        suffix, data = hostile_case(rng, kind, scale)
        path = folder / f"case{index}{suffix}"
        path.write_bytes(data)
    start = time.perf_counter()
    try:
        line, notes = extract_file(path, "http://fuzz.example/dir/page.html", timeout, max_bytes, sandbox)
        outcome = classify(line, notes)
        if line is not None:
            line.encode("utf-8")  # what the command writes to stdout
    except Hang:
        outcome, notes = "hang", []
    except Exception as exc:  # noqa: BLE001 - a crash is what this benchmark counts
        outcome, notes = "crash", [f"{type(exc).__name__}: {exc}"[:300]]
    seconds = time.perf_counter() - start
    cpu = seconds if sandbox.last_cpu is None else sandbox.last_cpu
    if path.parent == folder:
        path.unlink()
    return outcome, seconds, cpu, notes[0] if notes else ""


def kinds_for(n: int, rng: random.Random) -> list[str]:
    """``n`` case kinds: every generator equally often, a FIFO and /dev/zero every 500 cases."""
    names = list(KINDS)
    out = [names[i % len(names)] for i in range(n)]
    rng.shuffle(out)
    for i in range(0, n, 500):
        out[i] = SPECIAL[(i // 500) % 2]
    return out


def fuzz(n: int, seed: int, timeout: float, scale: float = 1.0, max_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> dict:
    """Run ``n`` cases; per-kind outcome counts, times, the slowest cases and peak memory."""
    rng = random.Random(seed)
    outcomes: dict[str, Counter] = defaultdict(Counter)
    times: dict[str, list[float]] = defaultdict(list)
    cpu_times: dict[str, list[float]] = defaultdict(list)
    slowest: list[tuple[float, str, str, str]] = []
    problems: list[tuple[str, str, str]] = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sandbox = Sandbox(warm)
    try:
        with tempfile.TemporaryDirectory(prefix="rankcrawl-fuzz-") as tmp:
            for i, kind in enumerate(kinds_for(n, rng)):
                signal.alarm(HARD_LIMIT)
                try:
                    outcome, seconds, cpu, note = run_case(Path(tmp), i, kind, rng, scale, timeout, sandbox, max_bytes)
                finally:
                    signal.alarm(0)
                outcomes[kind][outcome] += 1
                times[kind].append(seconds)
                cpu_times[kind].append(cpu)
                slowest = sorted([*slowest, (seconds, kind, outcome, note[:120])], reverse=True)[:5]
                if outcome in ("crash", "failed", "hang"):
                    problems.append((kind, outcome, note))
    finally:
        signal.signal(signal.SIGALRM, previous)
        peak = sandbox.peak_rss_mb()
        sandbox.close()
    return {"outcomes": outcomes, "times": times, "cpu": cpu_times, "slowest": slowest, "problems": problems,
            "load": os.getloadavg()[0], "kills": sandbox.kills, "rss_before_mb": rss_before / 1024,
            "rss_peak_mb": max(peak, sandbox.peak_rss_mb()),
            "bench_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def report(result: dict, n: int, seed: int, timeout: float) -> str:
    outcomes, times, cpu = result["outcomes"], result["times"], result["cpu"]
    columns = ["analysed", "truncated", "prefix", "refused", "killed", "failed", "crash", "hang"]

    def figures(ts: list[float], cs: list[float]) -> list[object]:
        ts, cs = sorted(ts), sorted(cs)
        return [round(ts[len(ts) // 2] * 1000, 1), round(ts[int(len(ts) * 0.99)] * 1000, 1), round(ts[-1], 3),
                sum(t > SLOW for t in ts), round(cs[-1], 3), sum(c > SLOW for c in cs)]

    rows = [[kind, len(times[kind]), *[outcomes[kind][c] for c in columns], *figures(times[kind], cpu[kind])]
            for kind in [*KINDS, *SPECIAL] if kind in times]
    every = [t for ts in times.values() for t in ts]
    every_cpu = [c for cs in cpu.values() for c in cs]
    total = Counter()
    for c in outcomes.values():
        total.update(c)
    rows.append(["all", len(every), *[total[c] for c in columns], *figures(every, every_cpu)])
    table = markdown_table(["kind", "cases", *columns, "p50 ms", "p99 ms", "max s", f"> {SLOW:g} s",
                            "max CPU s", f"CPU > {SLOW:g} s"], rows)
    slow = "\n".join(f"- {s:.3f} s: {kind} → {outcome}{': ' + note if note else ''}"
                     for s, kind, outcome, note in result["slowest"])
    problems = "\n".join(f"- {kind}: {outcome}: {note}" for kind, outcome, note in result["problems"][:20]) or "- none"
    return (f"Command: `python -m bench.fuzz --cases {n} --seed {seed} --timeout {timeout:g}` "
            f"(`rankcrawl extract --timeout {timeout:g}` per-file logic, one file at a time, each in the command's "
            f"sandbox child process, killed at {HARD_FACTOR:g} × the budget: outcome \"killed\").\n\n"
            f"{table}\n\n"
            f"Crashes (exception escaping the per-file step): **{total['crash']}**; unexpected analysis errors: "
            f"**{total['failed']}**; hangs (> {HARD_LIMIT} s): **{total['hang']}**; files over {SLOW:g} s: "
            f"**{sum(t > SLOW for t in every)}** wall, **{sum(c > SLOW for c in every_cpu)}** CPU. "
            f"Peak RSS of the analysis (the sandbox children): **{result['rss_peak_mb']:.0f} MB**; of this bench "
            f"process, which generates the cases in memory (hostile pages of tens of MB before the cap), "
            f"{result['bench_rss_mb']:.0f} MB (before the first case {result['rss_before_mb']:.0f} MB). "
            f"Wall times are per file in this process; the machine's load average was {result['load']:.1f} "
            f"at the end (2 cores shared), so CPU seconds are the fairer figure.\n\n"
            f"Slowest cases:\n{slow}\n\nProblems:\n{problems}\n")


@click.command()
@click.option("--cases", default=10_000, show_default=True, help="Generated inputs.")
@click.option("--seed", default=0, show_default=True)
@click.option("--timeout", default=1.0, show_default=True, help="Analysis budget per file (rankcrawl extract --timeout).")
@click.option("--scale", default=1.0, show_default=True, help="Input size factor (1 = full-size bombs).")
@click.option("--no-write", is_flag=True, help="Do not rewrite docs/BENCHMARKS.md.")
def main(cases: int, seed: int, timeout: float, scale: float, no_write: bool) -> None:
    started = time.monotonic()
    result = fuzz(cases, seed, timeout, scale)
    text = report(result, cases, seed, timeout)
    print(text)
    print(f"wall time {time.monotonic() - started:.0f} s")
    if cases >= 10_000 and scale == 1.0 and not no_write:
        write_section("fuzz", text)


if __name__ == "__main__":
    main()
