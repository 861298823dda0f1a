"""A worker process's log records and warnings reach this process's loggers (Scrapy's log settings
apply), with its results; a flood is cut at ``MAX_RECORDS`` per result and reported."""

from __future__ import annotations

import logging
import os
import pickle
import warnings
from concurrent.futures import ProcessPoolExecutor

import pytest

from rankcrawl.pipelines.workers.logs import MAX_RECORDS, RecordBuffer, capture, replay, traced
from rankcrawl.pipelines.workers.processes import forkserver


def test_records_and_warnings_of_a_worker_process_are_replayed_here(caplog: pytest.LogCaptureFixture) -> None:
    with ProcessPoolExecutor(1, mp_context=forkserver(), initializer=capture, initargs=(logging.INFO,)) as pool:
        _, said = pool.submit(traced, logging.warning, "from %s", "the worker").result()
        _, warned = pool.submit(traced, warnings.warn, "careful").result()
        _, quiet = pool.submit(traced, logging.debug, "below the level").result()
    with caplog.at_level(logging.INFO):
        replay(said + warned + quiet)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records][:1] == [("root", "WARNING", "from the worker")]
    assert "careful" in caplog.records[1].getMessage() and caplog.records[1].name == "py.warnings"
    assert len(caplog.records) == 2 and all(r.process != os.getpid() for r in caplog.records)


def test_replay_respects_this_process_levels(caplog: pytest.LogCaptureFixture) -> None:
    record = logging.makeLogRecord({"name": "rankcrawl.x", "levelno": logging.INFO, "levelname": "INFO", "msg": "hi"})
    with caplog.at_level(logging.WARNING):
        replay([record])
    assert not caplog.records


def test_buffer_is_bounded_and_its_records_pickle() -> None:
    buffer = RecordBuffer()
    log = logging.getLogger("rankcrawl.test.flood")
    log.addHandler(buffer)
    log.propagate = False
    try:
        try:
            raise ValueError("bad page")
        except ValueError:
            log.exception("failed on %s", "a page")
        for i in range(MAX_RECORDS + 5):
            log.warning("page %d", i)
    finally:
        log.removeHandler(buffer)
        log.propagate = True
    records = pickle.loads(pickle.dumps(buffer.take()))
    assert len(records) == MAX_RECORDS + 1
    assert "failed on a page" in records[0].getMessage() and "ValueError: bad page" in records[0].getMessage()
    assert "6 log records of a worker process dropped" in records[-1].getMessage()
    assert buffer.take() == []
