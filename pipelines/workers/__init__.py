"""The analysis workers: every process boundary a page crosses, once each way.

``pool.AnalysisPool`` sends each page to the worker of its host (``routing``) and keeps what a dead
worker still owed; ``worker.Worker`` analyses the page, runs the site-level step with its hosts'
memory and stores the page's edges (``edges.writer``); ``board`` holds the workers' figures in
shared memory; ``processes`` their start and awaiting; ``logs`` their log records, carried back with
their results and handled by the crawl process's loggers."""
