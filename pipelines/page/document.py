"""The result of page analysis: ``Document`` with its ``TextBlock``s and ``Link``s."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from rankcrawl.pipelines.page.blockstats import link_density, text_density
from rankcrawl.settings.urls import written_url

W_MAX = 80
"""Line width for the text-density word wrap (Kohlschütter §4.2.1, w_max = 80)."""

WORD_CHAR = re.compile(r"[^\W_]")


def laid_out(pieces: list[str]) -> str:
    """Preformatted text as written: lines without trailing blanks, no empty first or last line."""
    return "\n".join(line.rstrip() for line in "".join(pieces).splitlines()).strip("\n")


NON_WORD_TOKEN = re.compile(r"(?<!\S)(?:[^\w\s]|_)++(?!\S)")
"""A whitespace token without a letter or digit (linear time: tried at token starts, possessive)."""
SENTENCE_END = re.compile(r"""[.?!;](?<![.?!;][.?!;])[.?!;]*+["'»”’)\]]*+(?=\s|$)""")
"""A run of ``. ? ! ;`` and closing quotes/brackets before whitespace or the end. Linear time: a match
starts only where a run starts (the look-behind after its first character) and never backtracks
into the run (possessive), so a page of 40,000 dots costs one scan, not 40,000 (the plain
``[.?!;]+`` retried at every dot); the leading character class lets the engine skip to the next
mark instead of trying every position."""


def python_text_stats(text: str) -> tuple[int, int, int, int, int]:
    """(word characters, sentences, capitalised words, full stops, '|' characters) of ``text``.

    Words are whitespace tokens with a letter or digit; a sentence ends at ``. ? ! ;`` (§4.4.2),
    and trailing words without such a mark count as one more sentence. ``text_stats`` is this, compiled
    (``_textstats``, the same counts in one pass) where that extension was built.
    """
    tokens = text.split()
    non_words = NON_WORD_TOKEN.findall(text)
    has_words = len(tokens) > len(non_words)
    sentences = len(SENTENCE_END.findall(text))
    if has_words and not SENTENCE_END.search(text.rstrip()[-4:] + " "):
        sentences += 1
    return (sum(map(len, tokens)) - sum(map(len, non_words)), sentences,
            sum(map(str.isupper, map(itemgetter(0), tokens))), text.count("."), text.count("|"))


try:
    from rankcrawl.pipelines.page._textstats import text_stats
except ImportError:  # built without the optional extension (no C compiler at install): the regular expressions
    text_stats = python_text_stats


@dataclass(eq=False, slots=True)
class Link:
    """An anchor: normalised absolute ``url``, anchor ``text``, ``weight``, index of its ``block``;
    ``base`` is the URL its href resolved against.

    ``is_content``: the per-link content decision (``link_classifier``); None = its block decides.
    ``alternate``: it links an alternate version of the page (``links.is_alternate``): never content.
    """

    url: str
    text: str
    weight: float = 1.0
    block: int = -1
    element: Any = field(default=None, repr=False)
    is_content: bool | None = None
    alternate: bool = False
    base: str | None = field(default=None, repr=False)

    @property
    def written_url(self) -> str:
        """The target as the page wrote it: the href made absolute, fragment dropped, unsafe characters
        percent-encoded. ``url`` is the graph's form of the same target (``settings.urls``: query
        arguments sorted, encoding canonical), which identifies pages but is not what the page says."""
        href = (self.element.get("href") or "").strip() if self.element is not None else ""
        if not href or not self.base:
            return self.url
        try:
            return written_url(href, self.base)
        except ValueError:
            return self.url

    def to_json(self) -> dict[str, Any]:
        return {"url": self.written_url, "text": self.text, "weight": self.weight}


@dataclass(eq=False, slots=True)
class TextBlock:
    """A text block (atomic or fused) with the counts its features derive from (§4.4.2).

    ``gap_tags`` are the tags between the previous block and this one (T(x, y) of Eq. 4.8);
    ``anchors`` are its ``<a href>`` elements; ``links`` their ``Link``s, resolved on first use
    through ``Document.links`` / ``Document.all_links`` (None until then).
    ``path`` is the DOM path of the element enclosing the block's text, one label per level
    (``tag[i]#id.class``, digits in id/class folded to ``N`` so it is stable across a host);
    ``element`` is that element (for a fused block: the one whose path is the shared prefix).
    """

    text: str
    n_words: int
    n_linked_words: int
    n_lines: int
    last_line_words: int
    tag: str
    path: tuple[str, ...]
    gap_tags: frozenset[str] = frozenset()
    anchors: tuple[Any, ...] = field(default=(), repr=False)
    element: Any = field(default=None, repr=False)
    links: list[Link] | None = field(default=None, repr=False)
    n_atomic: int = 1
    _stats: tuple[int, int, int, int, int] | None = field(default=None, repr=False)
    position: float = 0.0
    is_content: bool = False
    weight: float = 1.0

    @property
    def link_density(self) -> float:
        """Linked words / words (``blockstats.link_density``)."""
        return link_density(self.n_linked_words, self.n_words)

    @property
    def text_density(self) -> float:
        """rho (Eq. 4.6, ``blockstats.text_density``)."""
        return text_density(self.n_words, self.n_lines, self.last_line_words)

    @property
    def text_stats(self) -> tuple[int, int, int, int, int]:
        """(word characters, sentences, capitalised words, full stops, '|' characters) of the text."""
        if self._stats is None:
            self._stats = text_stats(self.text)
        return self._stats

    @property
    def avg_word_length(self) -> float:
        return self.text_stats[0] / self.n_words if self.n_words else 0.0

    @property
    def avg_sentence_length(self) -> float:
        return self.n_words / self.text_stats[1] if self.n_words else 0.0

    @property
    def dom_path(self) -> str:
        return "/".join(self.path)


LinkMaker = Callable[[Sequence[Any], int], list[Link]]


@dataclass(eq=False)
class Document:
    """An analysed page. ``links`` follow the per-link decisions (``link_content``, made when the
    blocks' ``is_content`` flags were ``content_basis``) or the blocks' flags, and link weights live.

    Links are resolved lazily (URL normalisation is the costliest step of analysis) and then kept
    on their blocks, so weights set on them stay.
    """

    url: str | None
    title: str
    blocks: list[TextBlock]
    root: Any = field(default=None, repr=False)
    encoding: str = "utf-8"
    truncated: bool = False
    orphan_anchors: list[Any] = field(default_factory=list, repr=False)
    make_links: LinkMaker | None = field(default=None, repr=False)
    link_content: dict[Any, bool] | None = field(default=None, repr=False)
    content_basis: list[bool] | None = field(default=None, repr=False)
    anchor_paths: dict[Any, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _orphan_links: list[Link] | None = field(default=None, repr=False)

    def block_links(self, index: int) -> list[Link]:
        """The links of block ``index`` (resolved on first use)."""
        b = self.blocks[index]
        if b.links is None:
            b.links = self.make_links(b.anchors, index) if self.make_links else []
            if self.link_content is not None:
                for link in b.links:
                    link.is_content = self.link_content.get(link.element)
        return b.links

    @property
    def text(self) -> str:
        """Main text: the content blocks, a blank line between blocks."""
        return "\n\n".join(b.text for b in self.blocks if b.is_content)

    def is_content_link(self, link: Link) -> bool:
        """Whether ``link`` is a content link: its own decision, unless there is none or its block's
        ``is_content`` was changed after analysis (``content_basis``), then its block's flag.
        A link to an alternate version of the page (``Link.alternate``) never is."""
        if link.block < 0 or link.alternate:
            return False
        b = self.blocks[link.block]
        basis = self.content_basis
        if link.is_content is None or (basis is not None and basis[link.block] != b.is_content):
            return b.is_content
        return link.is_content

    def may_hold_content_links(self, index: int) -> bool:
        """False when no link of block ``index`` can be content (so its hrefs need no resolving)."""
        b = self.blocks[index]
        if self.link_content is None or self.content_basis is None or self.content_basis[index] != b.is_content:
            return b.is_content or b.links is not None
        return b.links is not None or any(self.link_content.get(a) for a in b.anchors)

    @property
    def links(self) -> list[Link]:
        """Content links (``is_content_link``) in document order."""
        return [link for i in range(len(self.blocks)) if self.may_hold_content_links(i)
                for link in self.block_links(i) if self.is_content_link(link)]

    @property
    def all_links(self) -> list[Link]:
        """Every http(s) link: the blocks' in order, then those without text (e.g. image links, block −1)."""
        if self._orphan_links is None:
            self._orphan_links = self.make_links(self.orphan_anchors, -1) if self.make_links else []
        return [link for i in range(len(self.blocks)) for link in self.block_links(i)] + self._orphan_links

    def to_json(self, path: str | None = None) -> dict[str, Any]:
        return {
            "path": path,
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "links": [link.to_json() for link in self.links],
        }
