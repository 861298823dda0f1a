"""rankcrawl.settings: configuration, Redis connection, key names, URL rules and the Scrapy add-on.

``rankcrawl.settings.Addon`` is loaded on first access, so importing a settings module (e.g. the
connection for ``rankcrawl extract``) does not import Scrapy's add-on machinery.
"""

from typing import Any

__all__ = ["Addon"]


def __getattr__(name: str) -> Any:
    if name == "Addon":
        from rankcrawl.settings.addon import Addon

        return Addon
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
