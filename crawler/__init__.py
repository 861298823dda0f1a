"""rankcrawl.crawler."""
