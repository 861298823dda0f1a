"""rankcrawl.ranker."""
