"""Scrapy's own typed settings checked before the crawl, so a bad one is named in one line.

A value Scrapy reads with ``getint``/``getfloat``/``getbool`` (``-s CONCURRENT_REQUESTS=abc``,
``-s DOWNLOAD_DELAY=fast``) would otherwise fail deep inside the engine's start-up with a bare
``ValueError`` that names no setting. The type comes from Scrapy's default of the setting.
"""

from __future__ import annotations

from typing import Any

from scrapy.settings import default_settings

from rankcrawl.settings.config import SettingError, shown

READ_AS_NUMBER = frozenset({"DOWNLOAD_DELAY", "DOWNLOAD_TIMEOUT", "DNS_TIMEOUT"})
"""Settings whose Scrapy default is an integer but which Scrapy reads as a float."""


def expected(name: str) -> tuple[str, str] | None:
    """(getter, description) of the values Scrapy accepts for ``name``; None for untyped settings."""
    default = getattr(default_settings, name, None)
    if isinstance(default, bool) or name.endswith("_ENABLED") and isinstance(default, int):
        return "getbool", "True or False (also 1/0, true/false)"
    if isinstance(default, int) and name not in READ_AS_NUMBER:
        return "getint", "an integer"
    if isinstance(default, (int, float)):
        return "getfloat", "a number"
    return None


def check_scrapy_values(settings: Any) -> None:
    """SettingError (one line, naming the setting) for a user-set typed Scrapy setting Scrapy cannot read."""
    for name in list(settings):
        if not name.isupper() or name.startswith("RANKCRAWL_") or not settings.getpriority(name):
            continue
        raw = settings.get(name)
        kind = expected(name)
        if raw is None or kind is None:
            continue
        getter, allowed = kind
        try:
            getattr(settings, getter)(name)
        except (TypeError, ValueError):
            raise SettingError(f"{name} must be {allowed}, not {shown(name, raw)}") from None
