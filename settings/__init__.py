"""rankcrawl.settings: configuration, Redis connection, CLI helpers and the Scrapy add-on."""

from rankcrawl.settings.addon import Addon

__all__ = ["Addon"]
