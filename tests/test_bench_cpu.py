"""The benchmarks' CPU accounting counts processes a crawl leaves behind (its analysis workers'
forkserver is never waited for by the crawl, so plain ``RUSAGE_CHILDREN`` missed their CPU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A "crawl" that forks a grandchild burning ~1 s of CPU and exits at once without waiting for it.
ORPHANING = """
import os, time
if os.fork() == 0:
    end = time.process_time() + 1.0
    while time.process_time() < end:
        pass
    os._exit(0)
"""

MEASURE = f"""
import subprocess, sys
sys.path.insert(0, {str(ROOT)!r})
from bench.realrun import become_subreaper, children_cpu, reap_session
if sys.argv[1] == "reap":
    become_subreaper()
before = children_cpu()
proc = subprocess.Popen([sys.executable, "-c", {ORPHANING!r}], start_new_session=True)
proc.wait()
if sys.argv[1] == "reap":
    reap_session(proc.pid)
print(children_cpu() - before)
"""


def measured(mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", MEASURE, mode], capture_output=True, text=True, timeout=60, check=True)
    return float(out.stdout)


def test_orphaned_grandchildren_count_once_reaped() -> None:
    assert measured("reap") >= 0.8


def test_without_the_subreaper_their_cpu_is_missed() -> None:
    assert measured("plain") < 0.5
