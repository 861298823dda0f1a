"""``rankcrawl extract``: page analysis of local HTML files as JSON Lines."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
