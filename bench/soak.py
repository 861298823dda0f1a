"""Soak: one long ``rankcrawl crawl`` of a generated multi-host web, sampling memory and pace.

The web (``bench.soakweb``: demo-web pages generated on request) is served on 127.0.0.1; one
``rankcrawl crawl`` with the ranker live in the crawl, politeness off, crawls it into a fresh
embedded Valkey until the page budget. Every ``--interval`` seconds a sample records the RSS of
the crawl process, of each of its descendants (the analysis workers and their forkserver) and of
the Valkey server, Valkey's ``used_memory``, the distinct pages the server has served, the crawl's
progress line (analysed, edges stored, frontier, the ranker's last epoch and its seconds) and the
published state hash (epoch, ``published_at``). Samples go to ``OUT/samples.jsonl`` as they are
taken; ``OUT/summary.json``, ``OUT/samples.csv`` and ``OUT/soak.png`` are rewritten every minute,
so a run cut short still leaves its figures.

Figures: RSS growth of each process over the last half of the run = (RSS at the end − RSS at
half-time) / RSS at half-time, and the peak form with the last half's maximum; pages/s (distinct
pages served per second) and epoch latency — the seconds between consecutive published epochs
and the ranker's seconds per epoch (load + solve + publish) — in the first vs the last half.

    python bench/soak.py [--pages 100000] [--hosts 100] [--interval 5]   # docs/soak.png + BENCHMARKS
    python bench/soak.py --quick                                           # 3,000 pages, OUT only
    python bench/soak.py --from-samples OUT/samples.jsonl                  # report a (partial) run
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psutil  # noqa: E402

from bench.realrun import RANKCRAWL, ROOT, fresh_valkey  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402
from bench.soakweb import SoakWeb  # noqa: E402
from rankcrawl.ranker.store.epochs import current  # noqa: E402
from rankcrawl.ranker.store.graphstore import GraphStore  # noqa: E402
from rankcrawl.settings.connection import connect  # noqa: E402

DOCS_PNG = ROOT / "docs" / "soak.png"
QUICK_PAGES, QUICK_HOSTS = 3000, 20
WRITE_EVERY = 60.0
"""Seconds between rewrites of the summary, CSV and plot during a run."""
MB = 1 << 20
PROGRESS = re.compile(r"rankcrawl: (\d+) pages .*?, (\d+) analysed, (\d+) edges stored(?:, frontier (\d+))?, "
                      r"(?:epoch (\d+) \((?:([\d.]+) s solve, )?)?")


def crawl_command(web: SoakWeb, redis_url: str, pages: int, interval: float) -> list[str]:
    """``rankcrawl crawl`` of every host's home page, ranker in the crawl, politeness off."""
    settings = {"RANKCRAWL_REDIS_URL": redis_url, "RANKCRAWL_ALLOW_PRIVATE": "True", "DOWNLOAD_DELAY": "0",
                "AUTOTHROTTLE_ENABLED": "False", "CONCURRENT_REQUESTS_PER_DOMAIN": "8", "RANKCRAWL_RANKER": "True",
                "RANKCRAWL_PROGRESS_INTERVAL": str(max(1.0, interval)), "LOG_LEVEL": "INFO"}
    command = [*RANKCRAWL, "crawl", *web.seeds, "--max-pages", str(pages)]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    return command


def rss_tree(pid: int) -> dict[str, int]:
    """RSS bytes of process ``pid`` ('crawl') and of each live descendant ('<kind> <pid>': the forkserver and
    resource tracker it started, and the workers the forkserver forked)."""
    try:
        root = psutil.Process(pid)
        out = {"crawl": root.memory_info().rss}
        children = root.children(recursive=True)
    except psutil.Error:
        return {}
    for child in children:
        try:
            cmd = " ".join(child.cmdline()) if child.ppid() == pid else ""
            kind = "forkserver" if "forkserver" in cmd else "resource_tracker" if "resource_tracker" in cmd else "worker"
            out[f"{kind} {child.pid}"] = child.memory_info().rss
        except psutil.Error:
            continue
    return out


@dataclass
class LogTail:
    """The crawl's last progress line, read incrementally from its log file."""

    path: Path
    offset: int = 0
    last: dict[str, float] = field(default_factory=dict)

    def read(self) -> dict[str, float]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except OSError:
            return self.last
        end = chunk.rfind(b"\n") + 1
        self.offset += end
        for line in chunk[:end].decode(errors="replace").splitlines():
            if m := PROGRESS.search(line):
                names = ("responses", "analysed", "edges", "frontier", "ranker_epoch", "ranker_s")
                self.last = {k: float(v) for k, v in zip(names, m.groups()) if v is not None}
        return self.last


def sample(t: float, crawl_pid: int, valkey: psutil.Process, client: Any, store: GraphStore, web: SoakWeb,
           tail: LogTail) -> dict[str, Any]:
    """One sample (RSS in bytes, times in seconds since the crawl started)."""
    rss = rss_tree(crawl_pid)
    try:
        rss["valkey"] = valkey.memory_info().rss
    except psutil.Error:
        pass
    state = current(store)
    return {**tail.read(), "t": round(t, 2), "pages": web.pages_served, "requests": web.requests, "rss": rss,
            "used_memory": int(client.info("memory")["used_memory"]),
            "epoch": state.epoch if state else 0,
            "published_at": float(state.fields.get("published_at", "nan")) if state else math.nan,
            "epoch_pages": int(state.fields.get("pages", "0")) if state else 0}


def run_soak(pages: int, hosts: int, interval: float, out: Path, seed: int = 0, timeout: float = 3 * 3600.0) -> Path:
    """Serve the web, run the crawl, sample it; returns the samples file (its last line: the end record)."""
    out.mkdir(parents=True, exist_ok=True)
    samples_path, log_path = out / "samples.jsonl", out / "crawl.log"
    articles = max(20, -(-pages // hosts))
    web = SoakWeb(seed, hosts, articles)
    server, redis_url = fresh_valkey(out / f"valkey-{os.getpid()}", persist=False)
    client = connect(redis_url)
    store = GraphStore(client)
    valkey = psutil.Process(int(client.info("server")["process_id"]))
    samples: list[dict[str, Any]] = []
    try:
        with web.serve(), open(samples_path, "w") as sink, open(log_path, "w") as err:
            header = {"pages_budget": pages, "hosts": hosts, "web_pages": web.n_pages, "interval": interval,
                      "seed": seed, "started": time.time()}
            sink.write(json.dumps({"run": header}) + "\n")
            proc = subprocess.Popen(crawl_command(web, redis_url, pages, interval), stdout=subprocess.DEVNULL,
                                    stderr=err, cwd=ROOT, start_new_session=True)
            started = last_write = time.monotonic()
            tail = LogTail(log_path)
            timed_out = False
            try:
                while proc.poll() is None:
                    if time.monotonic() - started > timeout:
                        timed_out = True
                        break
                    s = sample(time.monotonic() - started, proc.pid, valkey, client, store, web, tail)
                    if proc.poll() is not None:  # it ended while sampled (an exited process reads as 0 bytes)
                        break
                    samples.append(s)
                    sink.write(json.dumps(s) + "\n")
                    sink.flush()
                    if time.monotonic() - last_write > WRITE_EVERY:
                        write_outputs(header, samples, None, out)
                        last_write = time.monotonic()
                    deadline = time.monotonic() + interval
                    while proc.poll() is None and time.monotonic() < deadline:
                        time.sleep(min(0.2, interval))
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            end = {**tail.read(), "exit": proc.returncode, "timed_out": timed_out, "wall": round(time.monotonic() - started, 2),
                   "pages": web.pages_served, "requests": web.requests, "epoch": samples[-1]["epoch"] if samples else 0}
            if proc.returncode:
                end["last_line"] = (log_path.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
            sink.write(json.dumps({"end": end}) + "\n")
        write_outputs(header, samples, end, out)
    finally:
        client.close()
        server.stop()
    return samples_path


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(run header, samples, end record or None) of a samples file."""
    header: dict[str, Any] = {}
    samples: list[dict[str, Any]] = []
    end = None
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a kill
            continue
        if "run" in record:
            header = record["run"]
        elif "end" in record:
            end = record["end"]
        else:
            samples.append(record)
    return header, samples, end


def epoch_intervals(samples: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(sample time, seconds per epoch) wherever the published epoch advanced since the last change."""
    out, prev = [], None
    for s in samples:
        if not s["epoch"]:
            continue
        if prev is not None and s["epoch"] > prev["epoch"] and not math.isnan(s["published_at"]):
            out.append((s["t"], (s["published_at"] - prev["published_at"]) / (s["epoch"] - prev["epoch"])))
        if prev is None or s["epoch"] != prev["epoch"]:
            prev = s
    return out


def rate(samples: list[dict[str, Any]]) -> float:
    """Distinct pages served per second between the first and the last of ``samples``."""
    if len(samples) < 2 or samples[-1]["t"] <= samples[0]["t"]:
        return math.nan
    return (samples[-1]["pages"] - samples[0]["pages"]) / (samples[-1]["t"] - samples[0]["t"])


def median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def summarize(header: dict[str, Any], samples: list[dict[str, Any]], end: dict[str, Any] | None) -> dict[str, Any]:
    """The figures: pages, duration, RSS growth per process over the last half, pace per half."""
    if len(samples) < 2:
        return {"samples": len(samples), "finished": end is not None}
    half = samples[-1]["t"] / 2
    first = [s for s in samples if s["t"] <= half]
    last = [s for s in samples if s["t"] >= half]
    mid = last[0]
    growth = {}
    for name, base in mid["rss"].items():
        seen = [s["rss"][name] for s in last if name in s["rss"]]
        if base and len(seen) == len(last):  # alive through the whole last half
            growth[name] = {"half_mb": base / MB, "end_mb": seen[-1] / MB, "peak_mb": max(seen) / MB,
                            "growth": seen[-1] / base - 1, "peak_growth": max(seen) / base - 1}
    intervals = epoch_intervals(samples)
    solve = [(s["t"], s["ranker_s"]) for s in samples if "ranker_s" in s]
    return {
        "samples": len(samples), "finished": end is not None and end.get("exit") == 0,
        "exit": end.get("exit") if end else None, "timed_out": bool(end and end.get("timed_out")),
        "pages": samples[-1]["pages"] if end is None else end["pages"],
        "seconds": samples[-1]["t"] if end is None else end["wall"], "web_pages": header.get("web_pages"),
        "pages_budget": header.get("pages_budget"), "hosts": header.get("hosts"),
        "epochs": samples[-1]["epoch"], "half_t": half, "growth": growth,
        "used_memory_mb": (mid["used_memory"] / MB, samples[-1]["used_memory"] / MB),
        "bytes_per_edge": tuple(s["used_memory"] / s["edges"] if s.get("edges") else math.nan for s in (mid, samples[-1])),
        "pages_at": (mid["pages"], samples[-1]["pages"]),
        "data_at": {k: (mid.get(k, 0), samples[-1].get(k, 0)) for k in ("frontier", "epoch_pages", "edges")},
        "pps": (rate(first), rate(last)),
        "epoch_interval": (median([v for t, v in intervals if t <= half]), median([v for t, v in intervals if t > half])),
        "ranker_s": (median([v for t, v in solve if t <= half]), median([v for t, v in solve if t > half])),
    }


def plot(samples: list[dict[str, Any]], path: Path, title: str) -> None:
    """RSS per process, pages/s and epoch latency over the run, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [s["t"] / 60 for s in samples]
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
    names = sorted({n for s in samples for n in s["rss"]}, key=lambda n: (n != "crawl", n != "valkey", n))
    for name in names:
        ax1.plot([m for m, s in zip(minutes, samples) if name in s["rss"]],
                 [s["rss"][name] / MB for s in samples if name in s["rss"]], label=name, lw=1.2)
    ax1.set_ylabel("RSS (MiB)")
    ax1.legend(fontsize=7, ncol=3, loc="upper left")
    ax1.set_ylim(bottom=0)
    window = max(1, round(60 / max(samples[1]["t"] - samples[0]["t"], 1e-3))) if len(samples) > 1 else 1
    pps = [rate(samples[max(0, i - window): i + 1]) for i in range(len(samples))]
    ax2.plot(minutes, pps, color="tab:green", lw=1.2, label="pages/s (1-min window)")
    ax2b = ax2.twinx()
    ax2b.plot(minutes, [s["pages"] / 1000 for s in samples], color="tab:gray", lw=1, ls="--", label="pages served (k)")
    ax2.set_ylabel("pages/s")
    ax2b.set_ylabel("pages served (thousands)")
    ax2.set_ylim(bottom=0)
    ax2b.set_ylim(bottom=0)
    ax2.legend(fontsize=7, loc="upper left")
    ax2b.legend(fontsize=7, loc="lower right")
    intervals = epoch_intervals(samples)
    ax3.plot([t / 60 for t, _ in intervals], [v for _, v in intervals], ".", ms=3, label="s between published epochs")
    solve = [(s["t"] / 60, s["ranker_s"]) for s in samples if "ranker_s" in s]
    ax3.plot([t for t, _ in solve], [v for _, v in solve], lw=1, label="ranker s per epoch (load+solve+publish)")
    ax3.set_ylabel("seconds")
    ax3.set_xlabel("minutes since the crawl started")
    ax3.set_ylim(bottom=0)
    ax3.legend(fontsize=7, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(header: dict[str, Any], samples: list[dict[str, Any]], end: dict[str, Any] | None, out: Path) -> None:
    """summary.json, samples.csv and soak.png in ``out``."""
    summary = summarize(header, samples, end)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    names = sorted({n for s in samples for n in s["rss"]})
    scalars = ["t", "pages", "requests", "used_memory", "epoch", "published_at", "epoch_pages", "responses", "analysed",
               "edges", "frontier", "ranker_epoch", "ranker_s"]
    with open(out / "samples.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(scalars + [f"rss {n}" for n in names])
        for s in samples:
            writer.writerow([s.get(k, "") for k in scalars] + [s["rss"].get(n, "") for n in names])
    if len(samples) > 1:
        plot(samples, out / "soak.png", title(summary))


def title(summary: dict[str, Any]) -> str:
    state = "" if summary.get("finished") else " (partial)"
    return (f"rankcrawl soak{state}: {summary.get('pages', 0):,} pages on {summary.get('hosts')} hosts "
            f"in {summary.get('seconds', 0) / 60:.0f} min")


def section(summary: dict[str, Any], command: str) -> str:
    """The BENCHMARKS section of a run."""
    g, d = summary["growth"], summary["data_at"]
    rows = [[name, f"{v['half_mb']:.1f}", f"{v['end_mb']:.1f}", f"{v['peak_mb']:.1f}", f"{100 * v['growth']:+.1f} %",
             f"{100 * v['peak_growth']:+.1f} %"] for name, v in sorted(g.items(), key=lambda kv: kv[0] != "crawl")]
    table = markdown_table(["process", "RSS at half-time MiB", "RSS at end MiB", "peak in last half MiB",
                            "growth end vs half", "peak vs half"], rows)
    worst = max((v["peak_growth"] for name, v in g.items() if name != "valkey"), default=math.nan)
    per_edge = summary["bytes_per_edge"]
    pace = markdown_table(["", "first half", "last half"], [
        ["pages/s (distinct pages served)", summary["pps"][0], summary["pps"][1]],
        ["s between published epochs (median)", summary["epoch_interval"][0], summary["epoch_interval"][1]],
        ["ranker s per epoch, load+solve+publish (median)", summary["ranker_s"][0], summary["ranker_s"][1]]])
    if summary["finished"]:
        status = "The crawl ended at its page budget (exit 0)."
    elif summary["exit"] is None:
        status = "**Partial run**: the samples were read while the crawl still ran."
    else:
        cause = "killed at the --timeout limit" if summary["timed_out"] else f"exit {summary['exit']}"
        status = f"**Partial run** (crawl {cause}): the figures cover the samples taken until then."
    return (
        f"One `rankcrawl crawl` (ranker live in the crawl, DOWNLOAD_DELAY=0, no AutoThrottle, "
        f"CONCURRENT_REQUESTS_PER_DOMAIN=8) of a generated web of {summary['web_pages']:,} pages on "
        f"{summary['hosts']} hosts (`bench/soakweb.py`, demo-web pages generated on request) served on 127.0.0.1, "
        f"into a fresh embedded Valkey, page budget {summary['pages_budget']:,}. {status} "
        f"**{summary['pages']:,} pages in {summary['seconds'] / 60:.1f} min**, {summary['epochs']} epochs, "
        f"{summary['samples']} samples. RSS growth over the last half of the run "
        f"(from {summary['pages_at'][0]:,} to {summary['pages_at'][1]:,} pages): worst process of the crawl "
        f"(the crawl process, its workers) **{100 * worst:+.1f} %** (peak in the last half vs half-time; target ≤ 10 %). "
        f"Valkey holds the graph, so its memory grows with it: used_memory {summary['used_memory_mb'][0]:.1f} → "
        f"{summary['used_memory_mb'][1]:.1f} MiB over the last half, **{per_edge[0]:.0f} → {per_edge[1]:.0f} bytes per "
        f"stored edge**. The data the crawl process holds: frontier {d['frontier'][0]:,.0f} → "
        f"{d['frontier'][1]:,.0f} queued requests, ranked graph {d['epoch_pages'][0]:,.0f} → {d['epoch_pages'][1]:,.0f} "
        f"pages and {d['edges'][0]:,.0f} → {d['edges'][1]:,.0f} stored edges. "
        "The machine was shared with other jobs (2 cores), so pace figures carry their load. "
        f"Curve: `docs/soak.png`. Command: `{command}`.\n\n{table}\n\n{pace}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000, help="page budget of the crawl (default 100000)")
    parser.add_argument("--hosts", type=int, default=100, help="hosts of the generated web (default 100)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples (default 5)")
    parser.add_argument("--quick", action="store_true",
                        help=f"a {QUICK_PAGES:,}-page run on {QUICK_HOSTS} hosts; docs/ left alone")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rankcrawl-soak"), help="samples, log, summary, plot")
    parser.add_argument("--timeout", type=float, default=3 * 3600.0,
                        help="seconds after which the crawl is killed and the run reported as partial")
    parser.add_argument("--from-samples", type=Path, metavar="JSONL",
                        help="no crawl: write docs/soak.png and the BENCHMARKS section from this samples file")
    args = parser.parse_args(argv)
    if args.pages < 1 or args.hosts < 2 or args.interval <= 0:
        parser.error("--pages must be ≥ 1, --hosts ≥ 2, --interval > 0")
    if args.from_samples is not None:
        if not args.from_samples.is_file():
            parser.error(f"no such samples file: {args.from_samples}")
        path = args.from_samples
    else:
        pages, hosts = (QUICK_PAGES, QUICK_HOSTS) if args.quick else (args.pages, args.hosts)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the crawl and Valkey on the way out
        path = run_soak(pages, hosts, args.interval, args.out, timeout=args.timeout)
    header, samples, end = load(path)
    summary = summarize(header, samples, end)
    print(json.dumps(summary, indent=1, default=str))
    if args.quick or len(samples) < 2:
        return
    plot(samples, DOCS_PNG, title(summary))
    command = f"python bench/soak.py --pages {header['pages_budget']} --hosts {header['hosts']} --interval {header['interval']:g}"
    write_section("soak", section(summary, command))


if __name__ == "__main__":
    main()
