"""``rankcrawl server start|stop|status``, ``rankcrawl reset``, and a ranker stopped by a signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from leftovers import left_running

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]
EDGES = "http://a.org/\thttp://b.org/\nhttp://b.org/\thttp://a.org/\n"


def rankcrawl(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(home)
    return subprocess.run([*CLI, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


def test_server_outlives_commands_until_stopped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert rankcrawl(home, "server", "status").returncode == 1
    started = rankcrawl(home, "server", "start")
    assert started.returncode == 0 and f"redis-cli -s {home / 'valkey.sock'}" in started.stdout, started.stderr
    try:
        assert "already running" in rankcrawl(home, "server", "start").stdout
        assert rankcrawl(home, "graph", "import", "-", stdin=EDGES).returncode == 0
        assert rankcrawl(home, "ranker", "--once").returncode == 0
        client = redis.Redis(unix_socket_path=str(home / "valkey.sock"))  # what redis-cli -s does
        epoch, norm = client.hmget("rc:{g}:ranks", "epoch", "norm")
        best = client.zrevrange(f"rc:{{g}}:top:{int(epoch)}", 0, 0, withscores=True)
        top = rankcrawl(home, "top", "-n", "1").stdout.split("\t")
        assert top[0] == best[0][0].decode() and float(top[1]) == pytest.approx(best[0][1] / float(norm), rel=1e-12)
        held = rankcrawl(home, "server", "stop")
        assert held.returncode != 0 and "1 other clients are connected" in held.stderr
        client.close()
        status = rankcrawl(home, "server", "status")
        assert status.returncode == 0 and status.stdout.startswith("running (pid ")
    finally:
        stopped = rankcrawl(home, "server", "stop", "--force")
    assert stopped.stdout.strip() == "stopped" and not left_running(home)
    assert rankcrawl(home, "server", "stop").stdout.startswith("not running")


def test_reset_deletes_one_prefix_after_confirmation(redis_url: str, r: redis.Redis, tmp_path: Path) -> None:
    r.mset({f"rc:{{h{i}}}:urls": b"x" for i in range(1200)} | {"rcx:keep": b"1", "other:keep": b"1", "a*b:keep": b"1"})
    home = tmp_path / "home"
    refused = rankcrawl(home, "reset", "--redis-url", redis_url, stdin="n\n")
    assert refused.returncode != 0 and r.dbsize() == 1203
    done = rankcrawl(home, "reset", "--redis-url", redis_url, stdin="y\n")
    assert done.returncode == 0 and done.stdout.strip().endswith("deleted 1200 keys starting with 'rc:'")
    assert sorted(r.keys()) == [b"a*b:keep", b"other:keep", b"rcx:keep"]
    assert rankcrawl(home, "reset", "--yes", "--key-prefix", "a?", "--redis-url", redis_url).stdout.startswith("deleted 0 ")
    assert rankcrawl(home, "reset", "--yes", "--key-prefix", "a*", "--redis-url", redis_url).stdout.startswith("deleted 1 ")
    assert sorted(r.keys()) == [b"other:keep", b"rcx:keep"]  # the prefix is literal: no glob


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_ranker_and_its_embedded_server(tmp_path: Path, stop_signal: int) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(home)
    ranker = subprocess.Popen([*CLI, "ranker", "--poll-interval", "0.2"], env=env, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (home / "valkey.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        ranker.send_signal(stop_signal)
        _, err = ranker.communicate(timeout=30)
    finally:
        ranker.kill()
    assert ranker.returncode in (0, 130) and "Traceback" not in err, err
    assert not left_running(home)


def test_the_embedded_server_outlives_a_terminals_ctrl_c(tmp_path: Path) -> None:
    """Ctrl-C in a terminal signals the whole foreground process group: the server a command started
    keeps serving, so the command ends in order (its final writes included) and then stops it."""
    from rankcrawl.settings.connection import EmbeddedValkey

    server = EmbeddedValkey(tmp_path / "home")
    server.ensure_running()
    try:
        client = redis.Redis(unix_socket_path=str(server.socket_path))
        pid = int(client.info("server")["process_id"])
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        assert client.ping()
        client.close()
    finally:
        server.stop(force=True)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
