"""The killable worker behind ``rankcrawl extract``: a file that runs past the hard limit is stopped
there and costs only itself; a child that dies costs only its file."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from rankcrawl.crawler.cli.extract import extract_file
from rankcrawl.crawler.cli.sandbox import HardTimeout, Sandbox, WorkerDied


def test_calls_run_in_one_reused_child() -> None:
    with Sandbox() as box:
        first, second = box.run(os.getpid, (), 10), box.run(os.getpid, (), 10)
        assert first == second != os.getpid()
        assert box.last_cpu is not None and box.last_cpu >= 0


def test_overrun_is_killed_at_the_limit_and_the_next_call_gets_a_new_child() -> None:
    with Sandbox() as box:
        before = box.run(os.getpid, (), 10)
        start = time.monotonic()
        with pytest.raises(HardTimeout):
            box.run(time.sleep, (30,), 0.5)
        assert time.monotonic() - start < 5 and box.kills == 1 and box.last_cpu is None
        assert box.run(os.getpid, (), 10) not in (before, os.getpid())
        assert box.run(sum, ([1, 2],), 10) == 3  # no late answer of the killed call


def test_a_child_that_dies_is_one_error_and_is_replaced() -> None:
    with Sandbox() as box:
        child = box.run(os.getpid, (), 10)
        with pytest.raises(WorkerDied):
            box.run(os.kill, (child, signal.SIGKILL), 10)
        assert box.run(sum, ([2, 3],), 10) == 5


def slow_analysis(*args: object, **kwargs: object) -> None:
    time.sleep(30)


def test_extract_file_in_a_sandbox_stops_a_stuck_file_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rankcrawl.crawler.cli import extract as extract_module

    page = tmp_path / "a.html"
    page.write_text("<html><body><p>" + "river water stone " * 40 + "</p></body></html>")
    real = extract_module.analyze_within
    monkeypatch.setattr(extract_module, "analyze_within", slow_analysis)  # a stretch no soft check can end
    with Sandbox() as box:  # forked after the patch: its child is stuck too
        start = time.monotonic()
        row, notes = extract_file(page, "http://a.example/", 0.4, sandbox=box)
        assert time.monotonic() - start < 3
        assert row is None and notes == [f"rankcrawl: error: {page}: analysis stopped at 1.5 × the 0.4 s budget, skipped"]
    monkeypatch.setattr(extract_module, "analyze_within", real)
    with Sandbox() as box:
        row, notes = extract_file(page, "http://a.example/", 5.0, sandbox=box)
        assert row is not None and "river water" in row and notes == []
