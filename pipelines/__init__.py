"""rankcrawl.pipelines."""
