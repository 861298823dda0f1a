"""Processes a test's command left behind: every process that inherited a test's ``RANKCRAWL_HOME``."""

from __future__ import annotations

import time
from pathlib import Path


def processes_of(home: Path) -> list[str]:
    """Command lines of live processes whose environment holds ``RANKCRAWL_HOME=home``."""
    marker = f"RANKCRAWL_HOME={home}".encode() + b"\0"
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker in (proc / "environ").read_bytes() + b"\0":
                found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip())
        except OSError:
            continue
    return [c for c in found if c]  # zombies (already exited, not yet reaped) have no command line


def left_running(home: Path, grace: float = 5.0) -> list[str]:
    """``processes_of(home)`` once they had ``grace`` seconds to end (worker processes exit just after their parent)."""
    deadline = time.monotonic() + grace
    while (found := processes_of(home)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found
