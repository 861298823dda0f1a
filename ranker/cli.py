"""Graph and rank commands: ``graph``, ``ranks``, ``ranker``, ``top``, ``rank``."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
