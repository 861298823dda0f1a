"""Site evidence inside the host's main region: a list class that recurs with different links is
content (its one entry that recurs too), a link the per-page classifier rejects there counts, a
menu's recurring links and sidebars do not."""

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer

HOST = "http://docs.test"
NAV = "".join(f'<li><a href="/{s}.html">{s.title()} guide</a></li>' for s in ("install", "usage", "api", "faq"))


def word(i: int, j: int) -> str:
    """A letters-only word unique to (page i, position j)."""
    return "".join(chr(97 + (x % 26)) for x in (i, j, i * 7 + j, j * 3 + 5, i + 11))


MENU = "".join(f'<li><a href="/{s}.html">{s} chapter</a></li>' for s in ("intro", "config", "modules", "glossary"))


def module_page(i: int) -> tuple[str, str]:
    """A reference page: a chapter menu (the same links on every page but the current section's),
    prose, a short note with a cross-reference, and a "See also" list whose links differ from page
    to page but for one (the index, on every page); a sidebar with a link of its own; the site's
    navigation."""
    prose = " ".join(word(i, j) for j in range(60))
    see_also = "".join(f'<li><a href="/mod/{(i + k) % 40}.html">module {word(i + k, 7)}</a></li>' for k in (1, 2, 3))
    html = (f"<html><head><title>Module {i}</title></head><body><header><ul>{NAV}</ul></header>"
            f'<main><ul class="menu">{MENU}<li><a href="/section/{i}.html">section {word(i, 3)}</a></li></ul>'
            f"<h1>Module {word(i, 99)}</h1><p>{prose}.</p>"
            f'<p class="note">Short note: see <a href="/topic/{i}.html">topic {word(i, 5)}</a>.</p>'
            f'<ul class="seealso">{see_also}<li><a href="/mod/index.html">all modules</a></li></ul></main>'
            f'<aside><p>Sponsored: <a href="/ad/{i}.html">offer {word(i, 8)}</a>.</p></aside></body></html>')
    return f"{HOST}/mod/m{i}.html", html


def per_page(blocks):
    """A per-page classifier that keeps the main region's blocks but the short note (as real
    classifiers misjudge short paragraphs)."""
    return [("main" in "/".join(b.path)) and not b.text.startswith("Short note") for b in blocks]


def decisions(r, n: int = 8):
    sa = SiteAnalyzer(r, prefix="hr:")
    out = []
    for i in range(n):
        url, html = module_page(i)
        out.append(process_doc(sa, analyze(html, url=url, classifier=per_page)))
    return out


def test_see_also_lists_keep_their_links_and_their_recurring_one_a_menu_does_not(r):
    last = decisions(r)[-1]
    targets = {t for t, _ in last.edges}
    assert {f"{HOST}/mod/{k}.html" for k in (8, 9, 10)} <= targets
    assert f"{HOST}/mod/index.html" in targets  # recurs, but in a list whose other links differ: content
    assert not targets & {f"{HOST}/{s}.html" for s in ("intro", "config", "modules", "glossary")}  # the menu's
    assert not targets & {f"{HOST}/{s}.html" for s in ("install", "usage", "api", "faq")}


def test_a_rejected_link_inside_the_hosts_main_region_counts_but_not_one_outside(r):
    first, *_, last = decisions(r)
    targets = {t for t, _ in last.edges}
    assert f"{HOST}/topic/7.html" in targets
    assert f"{HOST}/ad/7.html" not in targets
    assert f"{HOST}/topic/0.html" not in {t for t, _ in first.edges}  # a cold host: the page's own verdict


def tutorial_page(i: int) -> tuple[str, str]:
    """A page whose prose, last paragraph and footer Block Fusion fuses into one block (its DOM path
    is ``<body>``), with a link in the paragraph and one in the footer."""
    prose = " ".join(word(i, j) for j in range(60))
    html = (f"<html><head><title>Step {i}</title></head><body><div class='related'><ul>{NAV}</ul></div>"
            f"<div class='document'><div class='body'><section><h1>Step {word(i, 1)}</h1><p>{prose}.</p>"
            f"<p>This step covered the first part. To continue, read <a href='/next/{i}.html'>the next part</a>.</p>"
            f"</section></div></div><div class='footer'>© Copyright 2007-2023, the developers. Built with "
            f"<a href='/build/{i}.html'>the generator</a> 5.3.0.</div></body></html>")
    return f"{HOST}/tutorial/{i}.html", html


def test_a_link_of_a_block_fused_across_the_main_region_counts_by_its_own_place(r):
    def in_body(blocks):  # the per-page verdict: only blocks inside div.body are content
        return ["div[1].body" in b.path for b in blocks]

    sa = SiteAnalyzer(r, prefix="fu:")
    for i in range(6):
        url, html = tutorial_page(i)
        doc = analyze(html, url=url, classifier=in_body)
        d = process_doc(sa, doc)
    fused = [b for b in doc.blocks if "/next/5.html" in {a.get("href") for a in b.anchors}]
    assert fused and fused[0].n_atomic > 1 and not fused[0].is_content  # fused with the footer, rejected
    targets = {t for t, _ in d.edges}
    assert f"{HOST}/next/5.html" in targets and f"{HOST}/build/5.html" not in targets
