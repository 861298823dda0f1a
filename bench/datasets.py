"""Labelled pages of ../shared/data (WCXB-dev, L3S-GN1) with their gold, per data README §1–2.

Splits (``split_of``): the WCXB-dev pages listed in ``bench/splits/wcxb_test_ids.txt`` are
``"test"``: whole hosts, about a quarter of each page type, drawn once by
``bench.splits.make_test_split`` and scored only to confirm a kept change (``bench.extraction
--split test`` logs every scoring in ``bench/splits/test_scores.log``). Every other page hashes
``"<dataset>:<page_id>"`` with SHA-1; the first 8 bytes as an integer modulo 100 below 70 is
``"train"``, otherwise ``"heldout"`` (deterministic, independent of file order). Training uses
``train`` only; development figures are on ``heldout`` or ``dev`` (every page but the test split).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml import html as lxml_html

from rankcrawl.settings.urls import host_of


def find_data(start: Path | None = None) -> Path:
    """``$RANKCRAWL_BENCH_DATA``, else the first ``shared/data`` beside an ancestor of this file
    (the repository may be a checkout or a worktree at any depth); the nearest guess if none exists."""
    start = start or Path(__file__).resolve()
    if os.environ.get("RANKCRAWL_BENCH_DATA"):
        return Path(os.environ["RANKCRAWL_BENCH_DATA"])
    for parent in start.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return start.parents[2] / "shared" / "data"


DATA = find_data()
DATASETS = ("wcxb-dev", "l3s-gn1")
SPLITS = ("train", "heldout", "dev", "test", "all")
TRAIN_PERCENT = 70
TEST_IDS = Path(__file__).resolve().parent / "splits" / "wcxb_test_ids.txt"
TEST_DATASET = "wcxb-dev"


@dataclass(frozen=True)
class Page:
    """One labelled page; ``gold_links`` is None where the dataset has no link gold."""

    dataset: str
    page_id: str
    url: str
    html_path: Path
    gold_text: str
    gold_links: frozenset[str] | None = None
    with_snippets: tuple[str, ...] = ()
    without_snippets: tuple[str, ...] = ()
    page_type: str | None = None
    split: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "split", split_of(self.dataset, self.page_id))

    @property
    def host(self) -> str:
        """Lower-case host name of the page URL (pages of one site share it)."""
        return host_of(self.url)

    def html_bytes(self) -> bytes:
        """The page's HTML as stored (gunzipped)."""
        return gzip.decompress(self.html_path.read_bytes())

    def html_text(self) -> str:
        """The page's HTML decoded as UTF-8 (both datasets are UTF-8, whatever <meta> says)."""
        return self.html_bytes().decode("utf-8", errors="replace")


@cache
def frozen_test_ids() -> frozenset[str]:
    """Page ids of the frozen WCXB-dev test split (empty before it is drawn)."""
    return frozenset(TEST_IDS.read_text().split()) if TEST_IDS.exists() else frozenset()


def split_of(dataset: str, page_id: str) -> str:
    """``"test"`` for the frozen test ids; else ``"train"`` for 70 % of pages, ``"heldout"`` for the
    rest, by SHA-1 of the page id."""
    if dataset == TEST_DATASET and page_id in frozen_test_ids():
        return "test"
    digest = hashlib.sha1(f"{dataset}:{page_id}".encode()).digest()
    return "train" if int.from_bytes(digest[:8], "big") % 100 < TRAIN_PERCENT else "heldout"


def load(dataset: str, split: str = "all", data: Path = DATA, limit: int | None = None) -> list[Page]:
    """Pages of ``dataset`` in ``split`` (sorted by id), at most ``limit``."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose from {', '.join(DATASETS)}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    source = iter_wcxb(data / "wcxb-dev") if dataset == "wcxb-dev" else iter_l3s(data / "l3s-gn1")
    pages = [p for p in source if split == "all" or p.split == split or (split == "dev" and p.split != "test")]
    return pages[:limit] if limit is not None else pages


def iter_wcxb(root: Path) -> Iterator[Page]:
    """WCXB-dev pages: gold text ``main_content``; gold links from ``main_content_markdown``."""
    for gt_path in sorted((root / "ground-truth").glob("*.json")):
        record = json.loads(gt_path.read_text(encoding="utf-8"))
        gt = record["ground_truth"]
        markdown = gt.get("main_content_markdown")
        yield Page(
            dataset="wcxb-dev",
            page_id=gt_path.stem,
            url=record["url"],
            html_path=root / "html" / f"{gt_path.stem}.html.gz",
            gold_text=gt.get("main_content") or "",
            gold_links=frozenset(markdown_links(markdown, record["url"])) if markdown is not None else None,
            with_snippets=tuple(gt.get("with") or ()),
            without_snippets=tuple(gt.get("without") or ()),
            page_type=record.get("_internal", {}).get("page_type", {}).get("primary"),
        )


AUTOLINK = re.compile(r"<(https?://[^>\s]+)>", re.I)


def markdown_links(markdown: str, base: str) -> list[str]:
    """Absolute http(s) targets of ``[text](url)`` links and ``<http…>`` autolinks; images excluded.

    Destinations may contain balanced parentheses and be followed by a title; a link whose text
    is an image (``[![alt](img)](href)``) counts with its outer target only.
    """
    targets = [m.group(1) for m in AUTOLINK.finditer(markdown)]
    for m in re.finditer(r"\]\(", markdown):
        start = _opening_bracket(markdown, m.start())
        if start is None or (start > 0 and markdown[start - 1] == "!"):
            continue
        dest = _destination(markdown, m.end())
        if dest:
            targets.append(dest)
    out = []
    for target in targets:
        absolute = urljoin(base, target.strip().strip("<>"))
        if urlsplit(absolute).scheme.lower() in ("http", "https"):
            out.append(absolute)
    return out


def _opening_bracket(text: str, close: int) -> int | None:
    """Index of the ``[`` that matches the ``]`` at ``close`` (None if unbalanced)."""
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == "]":
            depth += 1
        elif text[i] == "[":
            depth -= 1
            if depth == 0:
                return i
    return None


def _destination(text: str, start: int) -> str:
    """The link destination starting at ``start`` (after ``](``), up to its unmatched ``)``."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                parts = text[start:i].split()
                return parts[0] if parts else ""
            depth -= 1
        elif c == "\n" and text[i - 1] == "\n":
            break
    return ""


def iter_l3s(root: Path) -> Iterator[Page]:
    """L3S-GN1 pages: original HTML, URL from url-mapping.txt, gold from sel1/sel2/sel3 spans."""
    urls: dict[str, str] = {}
    for line in (root / "url-mapping.txt").read_text(encoding="utf-8").splitlines():
        if "\t" in line:
            urn, url = line.split("\t", 1)
            urls[urn.strip("<>").removeprefix("urn:uuid:")] = url.strip()
    for path in sorted((root / "original").glob("*.html.gz")):
        page_id = path.name.removesuffix(".html.gz")
        annotated = gzip.decompress((root / "annotated" / path.name).read_bytes())
        yield Page(
            dataset="l3s-gn1",
            page_id=page_id,
            url=urls[page_id],
            html_path=path,
            gold_text=annotated_text(annotated, GOLD_LABELS),
        )


GOLD_LABELS = frozenset({"x-nc-sel1", "x-nc-sel2", "x-nc-sel3"})
IGNORED = frozenset({"script", "style", "noscript", "template"})
BLOCK_TAGS = frozenset(
    "address article aside blockquote body br center dd div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot th thead title tr ul".split()
)
SEL = re.compile(r"\bx-nc-sel\d\b")


def annotated_text(html: bytes, labels: frozenset[str]) -> str:
    """Text of an L3S annotated page whose innermost ``x-nc-selN`` span is in ``labels``.

    Text inside script/style/noscript/template is ignored; block-level elements are separated
    by newlines. Iterative walk (annotated pages nest deeply).
    """
    root = lxml_html.document_fromstring(html, parser=lxml_html.HTMLParser(encoding="utf-8"))
    out: list[str] = []
    keep_root = False
    stack: list[tuple[etree._Element, bool, bool]] = [(root, keep_root, False)]
    while stack:
        el, keep_parent, closing = stack.pop()
        tag = el.tag if isinstance(el.tag, str) else ""
        if closing:
            if tag in BLOCK_TAGS:
                out.append("\n")
            if el.tail and keep_parent:
                out.append(el.tail)
            continue
        if tag.lower() in IGNORED or not tag:
            if el.tail and keep_parent:
                out.append(el.tail)
            continue
        match = SEL.search(el.get("class") or "")
        keep = (match.group(0) in labels) if match else keep_parent
        if tag in BLOCK_TAGS:
            out.append("\n")
        if el.text and keep:
            out.append(el.text)
        stack.append((el, keep_parent, True))
        stack.extend((child, keep, False) for child in reversed(el))
    lines = (re.sub(r"[ \t\r\f\v\xa0]+", " ", line).strip() for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line)
