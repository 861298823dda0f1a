"""SiteAnalyzer against the real embedded Valkey: templates, content kept, idempotence, re-weighting."""

import pytest

from rankcrawl.pipelines.analyze import analyze
from rankcrawl.pipelines.sitelevel import SiteAnalyzer
from rankcrawl.pipelines.sitestats import SiteStats

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
        decisions.append((doc, sa.process(doc)))
    return sa, decisions


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
    flagged = {doc.all_links[j].url for j in last.template_links}
    assert template_urls() <= flagged and not flagged & {f"{HOST}/story/6", f"{HOST}/story/7"}


def test_footer_block_stops_being_content_after_warmup(r):
    _, decisions = run(r)
    last = decisions[-1][0]
    assert not decisions[0][1].warm and decisions[-1][1].warm
    assert word(5, 3) in last.text
    assert "newsletter" not in last.text


def test_warmup_makes_earlier_pages_stale_and_reweighs_them(r):
    sa, decisions = run(r, n=4, min_pages=3, scope="non-template")
    assert decisions[2][1].stale == [page(0)[0], page(1)[0]]
    early = {t for t, _ in sa.edges_for(page(0)[0])}
    assert not early & template_urls() and f"{HOST}/story/1" in early


def test_reprocessing_is_idempotent(r):
    sa, _ = run(r, n=5)
    stats = SiteStats(r, "t:")
    keys = sorted(k for k in r.keys("t:site:*") if not k.endswith(b":pg"))
    snapshot = {k: r.hgetall(k) if r.type(k) == b"hash" else r.smembers(k) for k in keys}
    df = r.hgetall("t:lex:{df}:df"), r.get("t:lex:{df}:n")
    for i in range(5):
        url, html = page(i)
        sa.process(analyze(html, url=url))
    assert {k: r.hgetall(k) if r.type(k) == b"hash" else r.smembers(k) for k in keys} == snapshot
    assert (r.hgetall("t:lex:{df}:df"), r.get("t:lex:{df}:n")) == df
    assert stats.n_pages(HOST) == 5


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


def test_lexical_refreshes_stand_in_when_target_arrives(r):
    sa, decisions = run(r, n=3, weighting="lexical", min_pages=10)
    url2, _ = page(2)
    assert page(1)[0] in decisions[2][1].stale  # page 1 linked to page 2 with a stand-in


def test_duplicate_page_keeps_no_links(r):
    sa = SiteAnalyzer(r, prefix="t:")
    _, html = page(1)
    assert sa.process(analyze(html, url=f"{HOST}/story/1")).edges
    dup = sa.process(analyze(html.replace("<header>", "<header><p>Mirror</p>"), url="http://mirror.test/s1"))
    assert dup.duplicate_of == f"{HOST}/story/1" and dup.edges == []


def test_bad_options_and_missing_url(r):
    with pytest.raises(ValueError, match="unknown link weighting"):
        SiteAnalyzer(r, weighting="pagerank")
    with pytest.raises(ValueError, match="unknown link scope"):
        SiteAnalyzer(r, scope="some")
    with pytest.raises(ValueError, match="URL"):
        SiteAnalyzer(r).process(analyze(page(0)[1]))


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
        decision = sa.process(doc)
    flagged = {doc.all_links[j].url for j in decision.template_links}
    assert flagged == {f"{HOST}/story/{50 + k}" for k in range(3)}
    assert {t for t, _ in decision.edges} == {f"{HOST}/cite/{k}" for k in (5, 6, 7)}
    first = {t for t, _ in sa.edges_for(related_page(0)[0])}
    assert first == {f"{HOST}/cite/{k}" for k in (0, 1, 2)}
