"""The result of page analysis: ``Document`` with its ``TextBlock``s and ``Link``s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

W_MAX = 80
"""Line width for the text-density word wrap (Kohlschütter §4.2.1, w_max = 80)."""


@dataclass(eq=False, slots=True)
class Link:
    """An anchor: normalised absolute ``url``, anchor ``text``, ``weight``, index of its ``block``."""

    url: str
    text: str
    weight: float = 1.0
    block: int = -1
    element: Any = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "text": self.text, "weight": self.weight}


@dataclass(eq=False, slots=True)
class TextBlock:
    """A text block (atomic or fused) with the counts its features derive from (§4.4.2).

    ``gap_tags`` are the tags between the previous block and this one (T(x, y) of Eq. 4.8);
    ``path`` is the DOM path of the element enclosing the block's text, one label per level
    (``tag[i]#id.class``, digits in id/class folded to ``N`` so it is stable across a host).
    """

    text: str
    n_words: int
    n_linked_words: int
    n_lines: int
    last_line_words: int
    word_chars: int
    n_sentences: int
    n_capitalised: int
    n_full_stops: int
    n_bars: int
    tag: str
    path: tuple[str, ...]
    gap_tags: frozenset[str] = frozenset()
    anchors: list[Any] = field(default_factory=list, repr=False)
    links: list[Link] = field(default_factory=list, repr=False)
    n_atomic: int = 1
    position: float = 0.0
    is_content: bool = False
    weight: float = 1.0

    @property
    def link_density(self) -> float:
        """Linked words / words."""
        return self.n_linked_words / self.n_words if self.n_words else 0.0

    @property
    def text_density(self) -> float:
        """rho (Eq. 4.6): words in all wrapped lines but the last / (lines − 1); one line: its words."""
        if self.n_lines > 1:
            return (self.n_words - self.last_line_words) / (self.n_lines - 1)
        return float(self.n_words)

    @property
    def avg_word_length(self) -> float:
        return self.word_chars / self.n_words if self.n_words else 0.0

    @property
    def avg_sentence_length(self) -> float:
        return self.n_words / self.n_sentences if self.n_sentences else 0.0

    @property
    def dom_path(self) -> str:
        return "/".join(self.path)


@dataclass(eq=False)
class Document:
    """An analysed page. ``links`` follow the blocks' ``is_content`` flags and link weights live."""

    url: str | None
    title: str
    blocks: list[TextBlock]
    root: Any = field(default=None, repr=False)
    encoding: str = "utf-8"
    truncated: bool = False
    orphan_links: list[Link] = field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        """Main text: the content blocks, a blank line between blocks."""
        return "\n\n".join(b.text for b in self.blocks if b.is_content)

    @property
    def links(self) -> list[Link]:
        """Links inside content blocks, in document order."""
        return [link for b in self.blocks if b.is_content for link in b.links]

    @property
    def all_links(self) -> list[Link]:
        """Every http(s) link of the page; links without text (e.g. image links) have block −1."""
        return [link for b in self.blocks for link in b.links] + self.orphan_links

    def to_json(self, path: str | None = None) -> dict[str, Any]:
        return {
            "path": path,
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "links": [link.to_json() for link in self.links],
        }
