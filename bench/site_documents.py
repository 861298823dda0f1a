"""Site-level decisions applied to an analysed ``Document`` (the benchmarks and tests decide whole documents;
the crawl decides ``PageFacts`` in its site process)."""

from __future__ import annotations

from rankcrawl.pipelines.page.document import Document
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer
from rankcrawl.pipelines.site.decide import Decision
from rankcrawl.pipelines.site.facts import facts_of


def process_doc(sa: SiteAnalyzer, doc: Document) -> Decision:
    """``sa.process`` of the document's facts; its template blocks and links are then marked as not content
    and its links carry the decision's weights."""
    f = facts_of(doc, sa.options)
    d = sa.process(f)
    for i in d.template_blocks:
        doc.blocks[i].is_content = False
    links = [link for link in doc.all_links if link.url != f.url]
    for j in d.template_links:
        links[j].is_content = False
    for link, w in zip(links, d.link_weights):
        link.weight = w
    return d
