"""What a ``RANKCRAWL_*`` setting may hold: each kind parses a raw value and says what it allows.

Scrapy settings arrive typed (``settings.py``) or as strings (``-s NAME=VALUE``); ``parse`` takes
both and raises ``ValueError`` with the allowed values (``allowed``), never a traceback-worthy error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit


class Kind(Protocol):
    """Parses one setting's raw value; ``allowed`` describes the valid values for messages and docs."""

    @property
    def allowed(self) -> str: ...

    def parse(self, raw: Any) -> Any: ...


TRUE, FALSE = (True, 1, "1", "True", "true"), (False, 0, "0", "False", "false")


@dataclass(frozen=True)
class Flag:
    """A boolean, spelled as Scrapy's ``getbool`` accepts it."""

    allowed: str = "True or False (also 1/0, true/false)"

    def parse(self, raw: Any) -> bool:
        if isinstance(raw, (bool, int, str)) and raw in TRUE:
            return True
        if isinstance(raw, (bool, int, str)) and raw in FALSE:
            return False
        raise ValueError(self.allowed)


@dataclass(frozen=True)
class Int:
    """An integer at least ``low``."""

    low: int

    @property
    def allowed(self) -> str:
        return f"an integer ≥ {self.low}"

    def parse(self, raw: Any) -> int:
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            raise ValueError(self.allowed)
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(self.allowed) from None
        if value < self.low:
            raise ValueError(self.allowed)
        return value


@dataclass(frozen=True)
class OptionalInt:
    """None (unset: the component chooses) or an integer at least ``low``."""

    low: int

    @property
    def allowed(self) -> str:
        return f"an integer ≥ {self.low} (or unset)"

    def parse(self, raw: Any) -> int | None:
        if raw is None or raw == "":
            return None
        try:
            return Int(self.low).parse(raw)
        except ValueError:
            raise ValueError(self.allowed) from None


@dataclass(frozen=True)
class Number:
    """A finite number above ``low`` (or equal to it when ``closed``) and below ``high`` if given."""

    low: float
    closed: bool = False
    high: float | None = None

    @property
    def allowed(self) -> str:
        if self.high is not None:
            return f"a number between {self.low:g} and {self.high:g} (exclusive)"
        return f"a number {'≥' if self.closed else '>'} {self.low:g}"

    def parse(self, raw: Any) -> float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise ValueError(self.allowed)
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(self.allowed) from None
        above = value >= self.low if self.closed else value > self.low
        below = self.high is None or value < self.high
        if not (math.isfinite(value) and above and below):
            raise ValueError(self.allowed)
        return value


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of names."""

    choices: tuple[str, ...]

    @property
    def allowed(self) -> str:
        return "one of " + ", ".join(self.choices)

    def parse(self, raw: Any) -> str:
        if raw not in self.choices:
            raise ValueError(self.allowed)
        return str(raw)


@dataclass(frozen=True)
class Text:
    """A non-empty string without whitespace."""

    allowed: str = "a non-empty string without spaces"

    def parse(self, raw: Any) -> str:
        if not isinstance(raw, str) or not raw or any(c.isspace() for c in raw):
            raise ValueError(self.allowed)
        return raw


@dataclass(frozen=True)
class Terms:
    """A list of words: a list/tuple of strings or one comma-separated string."""

    allowed: str = "a list of words or a comma-separated string"

    def parse(self, raw: Any) -> tuple[str, ...]:
        items = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(items, (list, tuple)) or not all(isinstance(t, str) for t in items):
            raise ValueError(self.allowed)
        return tuple(t.strip() for t in items if t.strip())


REDIS_SCHEMES = ("redis", "rediss", "unix")


@dataclass(frozen=True)
class RedisURL:
    """None (unset) or a redis://, rediss:// or unix:// URL; messages never repeat the URL (passwords)."""

    allowed: str = "a redis://, rediss:// or unix:// URL (or unset)"

    def parse(self, raw: Any) -> str | None:
        if raw is None or raw == "":
            return None
        if not isinstance(raw, str) or urlsplit(raw).scheme not in REDIS_SCHEMES:
            raise ValueError(self.allowed)
        return raw


@dataclass(frozen=True)
class Checked:
    """None (the component's default) or a string a function of a later stage accepts.

    ``check`` is a dotted path (``module:function`` or ``module.function``), loaded only when a
    value is given, so the settings layer imports no other rankcrawl package; the function raises
    ``ValueError`` naming the allowed values for a value it does not accept.
    """

    check: str
    allowed: str

    def parse(self, raw: Any) -> str | None:
        if raw is None or raw == "":
            return None
        if not isinstance(raw, str):
            raise ValueError(self.allowed)
        from scrapy.utils.misc import load_object  # lazy: `rankcrawl extract` never imports Scrapy

        try:
            load_object(self.check.replace(":", "."))(raw)
        except ValueError as exc:
            raise ValueError(str(exc) or self.allowed) from None
        return raw


def kind_for(default: Any) -> Kind:
    """The kind a setting without an explicit one gets from its default's type."""
    if isinstance(default, bool):
        return Flag()
    if isinstance(default, int):
        return Int(0)
    if isinstance(default, float):
        return Number(0.0, closed=True)
    if isinstance(default, (list, tuple)):
        return Terms()
    return Text()
