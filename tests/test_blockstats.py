"""Block statistics (the one place): rho (Eq. 4.6), link density, DOM prefixes; DOM roles and page hints."""

from __future__ import annotations

import numpy as np

from rankcrawl.pipelines.page.blockstats import block_counts, common_prefix, common_prefixes, first_seen, link_density, shared_path, text_density
from rankcrawl.pipelines.page.document import TextBlock
from rankcrawl.pipelines.page.dom_features import PAGE_TYPE_NAMES, ROLE_NAMES, PathCodes, label_roles, page_type_hints
from rankcrawl.pipelines.page.parsing import parse_html


def test_text_density_scalars_and_arrays_agree() -> None:
    assert text_density(10, 1, 10) == 10.0
    assert text_density(20, 3, 4) == 8.0                     # (20 − 4) / (3 − 1)
    words, lines, last = np.array([10, 20, 0]), np.array([1, 3, 1]), np.array([10, 4, 0])
    assert text_density(words, lines, last).tolist() == [10.0, 8.0, 0.0]
    block = TextBlock(text="x", n_words=20, n_linked_words=5, n_lines=3, last_line_words=4, tag="p", path=())
    assert block.text_density == 8.0 and block.link_density == 0.25
    assert [a.tolist() for a in block_counts([block])] == [[20.0], [5.0], [3.0], [4.0]]


def test_link_density_without_words_is_zero() -> None:
    assert link_density(0, 0) == 0.0 and link_density(3, 4) == 0.75
    assert link_density(np.array([0.0, 3.0]), np.array([0.0, 4.0])).tolist() == [0.0, 0.75]


def test_dom_prefixes() -> None:
    a, b = ("html[1]", "body[1]", "div[1]", "p[1]"), ("html[1]", "body[1]", "div[1]", "p[2]")
    assert common_prefix(a, b) == 3 and common_prefix(a, ()) == 0
    assert shared_path([a, b, a[:2]]) == a[:2] and shared_path([]) == ()


def test_coded_paths_agree_with_the_tuple_helpers() -> None:
    paths = [("html[1]", "body[1]", "nav[1]", "ul[1].menu", "li[2]", "a[1]"), ("html[1]", "body[1]", "nav[1]"), (),
             ("html[1]", "body[1]", "div[2]#mainContent", "p[1]"), ("html[1]", "body[1]", "nav[1]", "ul[1].menu", "li[3]", "a[1]")]
    codes = PathCodes()
    coded = codes(paths)
    assert coded.shape == (5, 6) and (coded[2] == -1).all()
    for ref in (paths[0], paths[3], paths[0][:2], ()):
        assert common_prefixes(coded, codes([ref])[0, :len(ref)]).tolist() == [common_prefix(p, ref) for p in paths]
    masks = [0 if len(p) < 3 else np.bitwise_or.reduce([label_roles(label) for label in p[2:]]) for p in paths]
    assert codes.roles(coded).tolist() == masks
    assert first_seen(codes.index_free(coded)).tolist() == [0, 1, 2, 3, 0]


def roles(label: str) -> set[str]:
    mask = label_roles(label)
    return {name for i, name in enumerate(ROLE_NAMES) if mask >> i & 1}


def test_label_roles_from_tag_id_and_class_tokens() -> None:
    assert roles("nav[1]") == {"nav"}
    assert roles("div[2]#mainContent.post-body") == {"article"}
    assert roles("ul[1].related-links") == {"list", "related"}
    assert roles("div[3].x-Nyz") == set()


def test_page_type_hints() -> None:
    root = parse_html('<html><head><meta property="og:type" content="product"></head><body class="single-post">'
                      '<div itemscope itemtype="https://schema.org/QAPage"></div></body></html>')
    hints = dict(zip(PAGE_TYPE_NAMES, page_type_hints(root)))
    assert hints == {"article": 1.0, "product": 1.0, "listing": 0.0, "forum": 1.0, "docs": 0.0}
    assert not page_type_hints(None).any()
