"""The peer extractors, each as ``extract(html: str, url: str) -> Extraction`` (same input for all).

Links are given where the tool's output keeps them: trafilatura (XML output with
``include_links=True``: the ``<ref target>`` of the extracted text) and readability-lxml (the
``href``s of its summary HTML). boilerpy3, jusText and resiliparse return plain text only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from urllib.parse import urljoin

from lxml import etree
from lxml import html as lxml_html


@dataclass(frozen=True)
class Extraction:
    """Main text and, where the tool gives them, absolute content-link URLs (None: no links)."""

    text: str
    links: list[str] | None


def trafilatura_extract(html: str, url: str) -> Extraction:
    """trafilatura defaults, XML output with links kept (text = all text of the XML)."""
    import trafilatura

    xml = trafilatura.extract(html, url=url, output_format="xml", include_links=True)
    if not xml:
        return Extraction("", [])
    root = etree.fromstring(xml.encode("utf-8"))
    links = [urljoin(url, t) for t in root.xpath("//ref/@target")]
    return Extraction("\n".join(t.strip() for t in root.itertext() if t.strip()), links)


def readability_extract(html: str, url: str) -> Extraction:
    """readability-lxml ``Document.summary()``: its text and the hrefs inside it."""
    from readability import Document

    summary = Document(html, url=url).summary(html_partial=True)
    if not summary.strip():
        return Extraction("", [])
    root = lxml_html.fragment_fromstring(summary, create_parent="div")
    links = [urljoin(url, h) for h in root.xpath("//a/@href")]
    return Extraction(root.text_content(), links)


def boilerpy3_extract(html: str, url: str) -> Extraction:
    """boilerpy3 (boilerpipe port) ``ArticleExtractor``."""
    from boilerpy3 import extractors

    return Extraction(extractors.ArticleExtractor(raise_on_failure=False).get_content(html), None)


def justext_extract(html: str, url: str) -> Extraction:
    """jusText with its English stop list; the non-boilerplate paragraphs."""
    import justext

    paragraphs = justext.justext(html.encode("utf-8"), justext.get_stoplist("English"), encoding="utf-8")
    return Extraction("\n".join(p.text for p in paragraphs if not p.is_boilerplate), None)


def resiliparse_extract(html: str, url: str) -> Extraction:
    """resiliparse ``extract_plain_text(main_content=True)``."""
    from resiliparse.extract.html2text import extract_plain_text

    return Extraction(extract_plain_text(html, main_content=True), None)


PEERS: dict[str, tuple[str, Callable[[str, str], Extraction]]] = {
    "trafilatura": ("trafilatura", trafilatura_extract),
    "readability-lxml": ("readability-lxml", readability_extract),
    "boilerpy3": ("boilerpy3", boilerpy3_extract),
    "jusText": ("justext", justext_extract),
    "resiliparse": ("resiliparse", resiliparse_extract),
}


def versions() -> dict[str, str]:
    """Installed version of each peer's distribution."""
    return {name: version(dist) for name, (dist, _) in PEERS.items()}
