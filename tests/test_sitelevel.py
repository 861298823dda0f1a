"""SiteAnalyzer against a real Valkey: templates, content kept, idempotence, re-weighting, conventions."""

import pytest

from bench.site_documents import process_doc
from rankcrawl.pipelines.page.analyze import analyze
from rankcrawl.pipelines.site.analyzer import SiteAnalyzer

HOST = "http://site.test"
NAV = "".join(f'<li><a href="/section/{s}">{s.title()} news</a></li>' for s in ("world", "sport", "arts", "money"))
FOOT = "Subscribe to our newsletter for the best stories of the week delivered to your inbox every morning."


def word(i: int, j: int) -> str:
    """A letters-only word unique to (page i, position j): digits vanish in fingerprints."""
    return "".join(chr(97 + (x % 26)) for x in (i, j, i * 7 + j, j * 3 + 5, i + 11))


def page(i: int) -> tuple[str, str]:
    words = " ".join(word(i, j) for j in range(40))
    body = (
        f"<h1>Story {word(i, 99)} {word(i, 98)}</h1><p>The council met on day {i}. It discussed {words}. "
        f'Read the <a href="/story/{i + 1}">next story</a> and the <a href="/story/{i + 2}">one after</a>.</p>'
        f"<p>Residents said the plan for district {i} would change how the city works for years.</p>"
    )
    html = (
        f"<html><head><title>Story {i}</title></head><body><header><ul>{NAV}</ul></header>"
        f"<main><article>{body}</article></main><footer><h3>Newsletter</h3><p>{FOOT}</p>"
        f'<p><a href="/about">About</a> <a href="/contact">Contact</a> <a href="/jobs">Jobs</a></p></footer></body></html>'
    )
    return f"{HOST}/story/{i}", html


def template_urls() -> set[str]:
    return {f"{HOST}/section/{s}" for s in ("world", "sport", "arts", "money")} | {
        f"{HOST}/{p}" for p in ("about", "contact", "jobs")}


def run(r, n: int = 6, **kw):
    sa = SiteAnalyzer(r, prefix="t:", **kw)
    decisions = []
    for i in range(n):
        url, html = page(i)
        doc = analyze(html, url=url)
        decisions.append((doc, process_doc(sa, doc)))
    return sa, decisions


def links_of(doc):
    """The document's links as the site step sees them (links to the page itself left out)."""
    return [link for link in doc.all_links if link.url != doc.url]


@pytest.mark.parametrize("scope", ["content", "non-template", "all"])
def test_template_links_never_count_and_content_links_stay(r, scope):
    sa, decisions = run(r, scope=scope)
    doc, last = decisions[-1]
    targets = {t for t, _ in last.edges}
    assert {f"{HOST}/story/6", f"{HOST}/story/7"} <= targets
    if scope == "all":
        assert template_urls() <= targets
    else:
        assert not targets & template_urls()
    flagged = {links_of(doc)[j].url for j in last.template_links}
    assert template_urls() <= flagged and not flagged & {f"{HOST}/story/6", f"{HOST}/story/7"}


def test_footer_block_stops_being_content_after_warmup(r):
    _, decisions = run(r, text=True)
    last = decisions[-1][0]
    assert not decisions[0][1].warm and decisions[-1][1].warm
    assert word(5, 3) in last.text
    assert "newsletter" not in last.text


def test_warmup_reweighs_earlier_pages_and_repushes_them(r):
    sa = SiteAnalyzer(r, prefix="t:", min_pages=3, scope="non-template")
    for i in range(2):
        url, html = page(i)
        cold = process_doc(sa, analyze(html, url=url))
        assert not cold.warm and template_urls() <= {t for t, _ in cold.edges}
    assert sa.take_repush() == []
    url, html = page(2)
    assert process_doc(sa, analyze(html, url=url)).warm
    repush = dict(sa.take_repush())
    assert sorted(repush) == [page(0)[0], page(1)[0]]
    early = {t for t, _ in repush[page(0)[0]]}
    assert not early & template_urls() and f"{HOST}/story/1" in early


def test_a_template_found_later_is_removed_from_remembered_pages(r):
    """A box that first appears on one page (count 1: content) becomes template on later pages;
    the earlier page's edges are re-pushed without it."""
    sa = SiteAnalyzer(r, prefix="t:", min_pages=1, share=0.4, scope="non-template")
    box = '<div class="promo"><a href="/promo/a">Promo A</a> <a href="/promo/b">Promo B</a> <a href="/promo/c">C</a></div>'
    for i in range(4):
        url, html = page(i)
        if i >= 1:
            html = html.replace("<footer>", box + "<footer>")
        d = process_doc(sa, analyze(html, url=url))
    promo = {f"{HOST}/promo/{x}" for x in "abc"}
    assert not promo & {t for t, _ in d.edges}
    repushed = dict(sa.take_repush())
    assert page(1)[0] in repushed and not promo & {t for t, _ in repushed[page(1)[0]]}


def state_snapshot(r):
    return {k: r.dump(k) for k in sorted(r.keys("t:site:*"))}


def test_reprocessing_is_idempotent(r):
    sa, _ = run(r, n=5, weighting="lexical")
    snapshot = state_snapshot(r)
    for i in range(5):
        url, html = page(i)
        process_doc(sa, analyze(html, url=url))
    assert state_snapshot(r) == snapshot
    assert int(r.hget(f"t:site:{{{HOST}}}:m", "n")) == 5


def test_stats_survive_a_new_analyzer(r):
    run(r, n=5)
    _, decisions = run(r, n=1)  # a second process (or a restart) sees the stored evidence
    assert decisions[0][1].warm and decisions[0][1].template_links


@pytest.mark.parametrize("weighting", ["block", "lexical"])
def test_weighting_modes_keep_content_links(r, weighting):
    sa, decisions = run(r, n=10, weighting=weighting, scope="non-template")
    weights = dict(decisions[-1][1].edges)
    assert weights.get(f"{HOST}/story/10", 0) > 0
    assert not set(weights) & template_urls()


def test_lexical_reweighs_stand_in_when_target_arrives(r):
    sa = SiteAnalyzer(r, prefix="t:", weighting="lexical", min_pages=10, alpha=0.05)
    for i in range(2):
        url, html = page(i)
        process_doc(sa, analyze(html, url=url))
    assert page(1)[0] in {p.facts.url for p in sa.recent.pages.values() if page(2)[0] in p.pending}
    url, html = page(2)
    process_doc(sa, analyze(html, url=url))
    pending = sa.recent.get(page(1)[0]).pending
    assert page(2)[0] not in pending and page(3)[0] in pending  # its link to page 2 re-weighed with page 2's vector


def test_duplicate_page_keeps_no_link_its_canonical_page_has(r):
    sa = SiteAnalyzer(r, prefix="t:")
    _, html = page(1)
    html = html.replace('href="/', f'href="{HOST}/')  # absolute links: a mirror links the same targets
    assert process_doc(sa, analyze(html, url=f"{HOST}/story/1")).edges
    dup = process_doc(sa, analyze(html.replace("<header>", "<header><p>Mirror</p>"), url="http://mirror.test/s1"))
    assert dup.duplicate and dup.edges == []
    again = process_doc(sa, analyze(html, url=f"{HOST}/story/1"))  # the canonical page re-crawled
    assert not again.duplicate and again.edges


def test_copy_in_another_folder_keeps_the_links_into_its_own_copies(r):
    """Links are counted once (SPEC §2.6): a copy whose relative links lead to other pages than its
    canonical page's (an untranslated language folder) keeps them; without the canonical page's
    links (another process decided it) a near-duplicate keeps none."""
    sa = SiteAnalyzer(r, prefix="t:")
    html = page(1)[1].replace('href="/story/', 'href="../story/')
    canonical = process_doc(sa, analyze(html, url=f"{HOST}/en/story/1"))
    copy = process_doc(sa, analyze(html, url=f"{HOST}/de/story/1"))
    assert copy.duplicate and not canonical.duplicate
    assert {t for t, _ in copy.edges} == {f"{HOST}/de/story/2", f"{HOST}/de/story/3"}
    assert {t for t, _ in canonical.edges} == {f"{HOST}/en/story/2", f"{HOST}/en/story/3"}
    other = SiteAnalyzer(r, prefix="t:")  # knows no page: the canonical page's links are unknown
    third = process_doc(other, analyze(html, url=f"{HOST}/fr/story/1"))
    assert third.duplicate and third.edges == []


def test_declared_language_versions_are_never_near_duplicates(r):
    """Pages that link each other as alternates (``hreflang``: a language switcher) are distinct pages
    even when one is an untranslated copy of the other: both keep every link, in either crawl order."""
    switcher = ('<p class="lang"><a href="/en/story/1" hreflang="en" rel="alternate">en</a> '
                '<a href="/de/story/1" hreflang="de" rel="alternate">de</a></p>')
    html = page(1)[1].replace('href="/story/', 'href="../story/').replace("<header>", f"<header>{switcher}")
    shared = html.replace("</article>", f'<p>See the <a href="{HOST}/glossary">glossary</a> for the terms this story uses.</p></article>')
    for order in (("en", "de"), ("de", "en")):
        sa = SiteAnalyzer(r, prefix=f"t:{order[0]}:")
        for lang in order:
            d = process_doc(sa, analyze(shared, url=f"{HOST}/{lang}/story/1"))
            assert not d.duplicate
            assert {t for t, _ in d.edges} == {f"{HOST}/{lang}/story/2", f"{HOST}/{lang}/story/3", f"{HOST}/glossary"}


def test_a_copy_found_after_its_canonical_page_left_the_window_still_keeps_its_own_links(r):
    """The canonical page's link targets outlive the re-decision window (``remember``)."""
    sa = SiteAnalyzer(r, prefix="t:", remember=2)
    html = page(1)[1].replace('href="/story/', 'href="../story/')
    process_doc(sa, analyze(html, url=f"{HOST}/en/story/1"))
    for i in range(5, 9):
        story, html_i = page(i)
        process_doc(sa, analyze(html_i, url=story))
    assert f"{HOST}/en/story/1" not in sa.recent
    copy = process_doc(sa, analyze(html, url=f"{HOST}/de/story/1"))
    assert copy.duplicate and {t for t, _ in copy.edges} == {f"{HOST}/de/story/2", f"{HOST}/de/story/3"}


def test_bad_options_and_missing_url(r):
    with pytest.raises(ValueError, match="unknown link weighting"):
        SiteAnalyzer(r, weighting="pagerank")
    with pytest.raises(ValueError, match="unknown link scope"):
        SiteAnalyzer(r, scope="some")
    with pytest.raises(ValueError, match="URL"):
        process_doc(SiteAnalyzer(r), analyze(page(0)[1]))


def related_page(i: int) -> tuple[str, str]:
    """A story whose "related" box lists different links on every page (no recurring shingle)."""
    words = " ".join(word(i, j) for j in range(30))
    related = "".join(f'<li><a href="/story/{i * 10 + k}">{word(i, 50 + k)} {word(i, 60 + k)}</a></li>'
                      for k in range(3))
    html = (f"<html><head><title>Story {i}</title></head><body><main><article><h1>{word(i, 99)}</h1>"
            f'<p>{words}. See <a href="/cite/{i}">the source {word(i, 70)}</a> and '
            f'<a href="/cite/{i + 1}">the reply</a> and <a href="/cite/{i + 2}">the answer</a>.</p>'
            f'</article></main><aside><section class="related"><h3>Related</h3><ul>{related}</ul></section>'
            "</aside></body></html>")
    return f"{HOST}/story/{i}", html


def test_recurring_link_list_is_template_but_recurring_prose_is_not(r):
    sa = SiteAnalyzer(r, prefix="t:", scope="non-template")
    for i in range(6):
        url, html = related_page(i)
        doc = analyze(html, url=url)
        decision = process_doc(sa, doc)
    flagged = {links_of(doc)[j].url for j in decision.template_links}
    assert flagged == {f"{HOST}/story/{50 + k}" for k in range(3)}
    assert {t for t, _ in decision.edges} == {f"{HOST}/cite/{k}" for k in (5, 6, 7)}


def index_page() -> tuple[str, str]:
    """A host's index: the content region is a heading and a long list of links (a table of contents)."""
    toc = "".join(f'<li><a href="/story/{k}">{word(k, 1)} {word(k, 2)}</a></li>' for k in range(100, 130))
    html = (f"<html><head><title>Index</title></head><body><header><ul>{NAV}</ul></header>"
            f"<main><article><h1>All stories</h1><p>Every story we published, newest first.</p>"
            f"<ul class='toc'>{toc}</ul></article></main><footer><h3>Newsletter</h3><p>{FOOT}</p>"
            f'<p><a href="/about">About</a> <a href="/contact">Contact</a> <a href="/jobs">Jobs</a></p></footer></body></html>')
    return f"{HOST}/index", html


def test_a_list_unique_to_the_page_is_content_and_the_nav_list_is_not(r):
    """With a per-page classifier that rejects link-dense blocks (CleanEval's rule), the host's
    evidence keeps the index's list and still drops the navigation."""
    url, html = index_page()
    per_page = {link.url for link in analyze(html, url=url, classifier="cleaneval").links}
    toc = {f"{HOST}/story/{k}" for k in range(100, 130)}
    assert not per_page & toc
    sa = SiteAnalyzer(r, prefix="t:")
    for i in range(5):
        story, html_i = page(i)
        process_doc(sa, analyze(html_i, url=story, classifier="cleaneval"))
    d = process_doc(sa, analyze(html, url=url, classifier="cleaneval"))
    assert {t for t, _ in d.edges} == toc  # kept: no other page of the host has it; nav and footer: template


def test_index_page_decided_cold_is_repushed_with_its_list_once_the_host_is_warm(r):
    sa = SiteAnalyzer(r, prefix="t:")
    url, html = index_page()
    assert process_doc(sa, analyze(html, url=url, classifier="cleaneval")).edges == []
    for i in range(3):
        story, html_i = page(i)
        process_doc(sa, analyze(html_i, url=story, classifier="cleaneval"))
    repush = dict(sa.take_repush())
    assert {t for t, _ in repush[url]} == {f"{HOST}/story/{k}" for k in range(100, 130)}


def test_a_list_template_on_a_small_host_counts_again_once_the_host_outgrows_it(r):
    """Two index pages share one table of contents: on a host of 3 pages it recurs (2 of 3), so it
    is template; after 20 more pages, none holding it, it is asked again and both indexes get it back."""
    sa = SiteAnalyzer(r, prefix="t:")
    toc = {f"{HOST}/story/{k}" for k in range(100, 130)}
    url, html = index_page()
    second = f"{HOST}/all"
    story, html_0 = page(0)
    process_doc(sa, analyze(html_0, url=story))
    process_doc(sa, analyze(html, url=url))
    warm = process_doc(sa, analyze(html, url=second))
    assert not {t for t, _ in warm.edges} & toc
    sa.take_repush()
    for i in range(1, 21):
        story, html_i = page(i)
        process_doc(sa, analyze(html_i, url=story))
    repush = dict(sa.take_repush())
    assert {t for t, _ in repush[url]} == toc and {t for t, _ in repush[second]} == toc


def test_links_to_the_page_itself_are_not_edges(r):
    url, html = page(3)
    html = html.replace("</article>", f'<p>Jump to <a href="#part2">part two</a>, or <a href="{url}">reload</a>, '
                                      f'or <a href="/story/3#comments">read the comments</a>.</p></article>')
    for sa in (SiteAnalyzer(r, prefix="t:", scope="all"), SiteAnalyzer(r, prefix="t2:", scope="content")):
        d = process_doc(sa, analyze(html, url=url))
        assert url not in {t for t, _ in d.edges} and d.edges


def test_repeated_links_count_once_unless_summed(r):
    url, html = page(3)
    html = html.replace("</article>", '<p>Again: <a href="/story/4">story four</a> and '
                                      '<a href="/story/4">the same story</a>.</p></article>')
    once = dict(process_doc(SiteAnalyzer(r, prefix="t:", scope="all"), analyze(html, url=url)).edges)
    summed = dict(process_doc(SiteAnalyzer(r, prefix="t2:", scope="all", sum_repeated=True), analyze(html, url=url)).edges)
    assert once[f"{HOST}/story/4"] == 1.0 and summed[f"{HOST}/story/4"] == 3.0
