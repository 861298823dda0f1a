"""rankcrawl.settings."""
