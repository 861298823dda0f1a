"""Elements a browser does not show: their text is never page text, their links never content.

The markers are the ones readability's ``_isProbablyVisible`` checks (an inline ``display: none``
or ``visibility: hidden``, the ``hidden`` attribute, ``aria-hidden="true"``), which trafilatura's
discard XPath removes as well. Only markup the page itself states counts: no style sheet or
class name (``.hidden`` may be toggled by a script) is read.

Two kinds of hidden markup are the page's content all the same, and stay: a closed disclosure
widget's panel (accordion, collapsible, expander, tab panel, carousel slide: the reader opens it
with a click; readability likewise spares its ``aria-hidden`` fallback images), recognised by
its own or its parent's id/class words, its role, a label (``aria-labelledby``: the WAI-ARIA
accordion and tabs patterns label the panel by its button) or a control naming its id
(``aria-controls``, Bootstrap's ``data-target``/``data-bs-target``); and a streamed server-rendered segment
(``<div hidden id="S:0">``, the form React's streaming renderer gives the parts its script moves
into place). So is a loading mask: an element hiding most of the page until its script runs.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import tokens
from rankcrawl.pipelines.page.dropping import words_inside
from rankcrawl.pipelines.page.elements import compiled_walk

HIDING_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)",
                          re.IGNORECASE)
CANDIDATES = etree.XPath("//*[@hidden or @aria-hidden or @style[contains(., 'none') or contains(., 'hidden') "
                         "or contains(., 'NONE') or contains(., 'HIDDEN') or contains(., 'None') or contains(., 'Hidden')]]")
"""Elements that may carry a marker (compiled XPath over attributes: one walk in C; ``is_hidden``
decides). ``candidates`` walks the same way without XPath's node sets where the compiled walk serves the tree."""
CANDIDATE_WORDS = ("none", "hidden", "NONE", "HIDDEN", "None", "Hidden")
CONTROLS = etree.XPath("//@aria-controls | //@data-target | //@data-bs-target")
DISCLOSURE_WORDS = frozenset("accordion accordian collapse collapsed collapsible collapsing expander expandable "
                             "expand expanded tab tabs tabpanel panel pane carousel slide slides slider swiper "
                             "toggle dropdown".split())
DISCLOSURE_ROLES = frozenset({"tabpanel", "region"})
DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
"""A closed dialog (a modal: newsletter sign-up, country picker, cart) is an overlay, not a panel."""
STREAMED_SEGMENT = re.compile(r"^S:[0-9a-z]+$")
MASK_SHARE = 0.5
"""A hidden element holding this share of the page's words or more is a loading mask (the page is
hidden until its script has run), not a hidden part."""


def may_hide(el: Any) -> bool:
    """``CANDIDATES``' test of one element."""
    if el.get("hidden") is not None or el.get("aria-hidden") is not None:
        return True
    style = el.get("style") or ""
    return any(word in style for word in CANDIDATE_WORDS)


def candidates(root: Any) -> list[Any]:
    """``CANDIDATES(root)``: compiled (``_blockwalk.hidden_candidates``) where the extension serves the tree."""
    walk = compiled_walk(root)
    return walk.hidden_candidates(root, may_hide) if walk is not None else CANDIDATES(root)


def is_hidden(el: Any) -> bool:
    """Whether ``el`` itself is marked invisible (its ancestors are not looked at)."""
    if el.get("hidden") is not None:
        return True
    if (el.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = el.get("style")
    return bool(style) and HIDING_STYLE.search(style) is not None


def controlled_ids(root: Any) -> set[str]:
    """The element ids that some control of ``root``'s tree opens or toggles."""
    return {ident.lstrip("#") for value in CONTROLS(root) for ident in str(value).split()}


def revealable(el: Any, controlled: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the hidden ``el`` is content the reader or the page's script shows: a disclosure
    widget's panel (by its or its parent's id/class words, its role, its label or a control of
    ``controlled`` ids naming it; never a dialog) or a streamed segment."""
    ident = el.get("id") or ""
    if el.get("hidden") is not None and STREAMED_SEGMENT.match(ident):
        return True
    role = (el.get("role") or "").strip().lower()
    if role in DIALOG_ROLES or el.tag == "dialog" or el.get("aria-modal") == "true":
        return False
    if role in DISCLOSURE_ROLES or el.get("aria-labelledby"):
        return True
    if ident and ident in controlled:
        return True
    parent = el.getparent()
    for node in (el, parent) if parent is not None else (el,):
        if not tokens(f"{node.get('id') or ''} {node.get('class') or ''}").isdisjoint(DISCLOSURE_WORDS):
            return True
    return False


def hidden_elements(root: Any) -> list[Any]:
    """The elements of ``root``'s tree marked invisible and not ``revealable``, in document order
    (nested ones included)."""
    if root is None:
        return []
    found = [el for el in candidates(root) if is_hidden(el)]
    if not found:
        return []
    controlled = controlled_ids(root)
    return [el for el in found if not revealable(el, controlled)]


def hidden_regions(root: Any, blocks: list[TextBlock]) -> list[Any]:
    """``hidden_elements`` of ``root``'s tree that hold less than ``MASK_SHARE`` of ``blocks``' words."""
    found = hidden_elements(root)
    if not found:
        return []
    total = sum(b.n_words for b in blocks)
    masks = {el for el, n in words_inside(blocks, found).items() if n >= MASK_SHARE * total}
    return [el for el in found if el not in masks and not any(a in masks for a in el.iterancestors())]
