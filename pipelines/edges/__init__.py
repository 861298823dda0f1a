"""The graph store's writers: ``writer.EdgeWriter`` (a thread in each analysis worker) and ``sink.EdgeSink``
(the crawl's view of them from the reactor: gone pages, redirects, pauses, the flush at close)."""
