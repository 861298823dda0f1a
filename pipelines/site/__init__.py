"""Site analysis: a page's facts, its host's evidence in Redis, and the decision the evidence gives.

``facts`` turns a ``Document`` into the picklable ``PageFacts`` (pagelets, fingerprints, shingles,
the near-duplicate signature, the lexical terms); ``analyzer.SiteAnalyzer`` counts a page's keys in its
host's sketch (``sketch``, one Redis round trip) and ``decide`` applies the host's evidence, with
``linkweights`` for the link weights and ``recent_pages`` for the pages it may re-decide; ``result``
is what the decision hands the crawler. Imports ``page`` and ``rankcrawl.settings``, never Scrapy."""
