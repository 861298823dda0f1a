"""The processes that run page and site analysis off the reactor's GIL: every process boundary of a page.

``pool.AnalysisPool``: page analysis (``site.facts.analyze_page``) in worker processes;
``site_process.SiteProcess``: the site-level step in a process of its own; ``logs``: their log records,
carried back with their results and handled by the crawl process's loggers."""
