"""Link-dense content is content (tables of contents, indexes, product grids), navigation is not.

Generated pages, the shipped models: the default ``trained`` preset (block model, per-link model,
prose links) and ``trained-lists`` (plus the content-list rule for bare indexes and grids).
"""

from __future__ import annotations

from rankcrawl.pipelines import analyze

WORDS = ("river mill valley stone bridge harbour lantern orchard meadow quarry "
         "granary forge weaver tannery chapel market ferry beacon").split()


def sentence(i: int, n: int = 14) -> str:
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(n)).capitalize() + "."


def chrome(body: str, title: str) -> str:
    """A page frame: header navigation, the body, a sidebar of popular links, a footer."""
    nav = "".join(f'<li><a href="/section/{name}/">{name.title()}</a></li>' for name in WORDS[:9])
    side = "".join(f'<li><a href="/popular/{i}.html">{sentence(i, 5)}</a></li>' for i in range(6))
    foot = " | ".join(f'<a href="/{name}">{name.title()}</a>' for name in ("about", "contact", "privacy", "terms"))
    return (f"<html><head><title>{title} | Example</title></head><body>"
            f"<header><nav class='main-menu'><ul>{nav}</ul></nav></header>"
            f"<main><div class='content'>{body}</div></main>"
            f"<aside class='sidebar'><h3>Popular</h3><ul>{side}</ul></aside>"
            f"<footer class='site-footer'>{foot} © 2024 Example</footer></body></html>")



def typed(body: str, title: str, og_type: str) -> str:
    """``chrome`` of ``body`` on a page that declares its type by ``og:type``."""
    return chrome(body, title).replace("</title>", f"</title><meta property='og:type' content='{og_type}'>", 1)


def template_urls(doc_urls: set[str], host: str) -> set[str]:
    boiler = {f"{host}/section/{name}/" for name in WORDS[:9]} | {f"{host}/popular/{i}.html" for i in range(6)}
    boiler |= {f"{host}/{name}" for name in ("about", "contact", "privacy", "terms")}
    return doc_urls & boiler


def toc_page(n: int = 40, described: bool = False) -> str:
    items = "".join(f'<li><a href="/docs/api/{WORDS[i % 18]}{i}.html">{WORDS[i % 18]}{i}()</a>'
                    f'{" — " + sentence(i, 6) if described else ""}</li>' for i in range(n))
    return chrome(f"<h1>Function index</h1><p>{sentence(1)}</p><ul class='toc'>{items}</ul>", "Function index")


def chapters_page() -> str:
    """A user guide's table of contents: chapters with their sections (Sphinx toctree)."""
    items = "".join(
        f'<li><a href="/guide/{i}.html">{i}. {sentence(i, 3)[:-1]}</a><ul>'
        + "".join(f'<li><a href="/guide/{i}/{j}.html">{i}.{j} {sentence(i + j, 2)[:-1]}</a></li>' for j in range(3))
        + "</ul></li>" for i in range(1, 12))
    body = f"<h1>User guide</h1><p>{sentence(1)} {sentence(2)}</p><div class='toctree-wrapper'><ul>{items}</ul></div>"
    return chrome(body, "User guide")


def test_table_of_contents_keeps_its_links_and_drops_the_template() -> None:
    host = "http://docs.example"
    doc = analyze(chapters_page(), f"{host}/guide/index.html")
    urls = {link.url for link in doc.links}
    toc = {f"{host}/guide/{i}.html" for i in range(1, 12)} | {f"{host}/guide/{i}/{j}.html"
                                                              for i in range(1, 12) for j in range(3)}
    assert len(urls & toc) >= 0.9 * len(toc)
    assert not template_urls(urls, host)


def test_index_with_descriptions_keeps_its_links() -> None:
    host = "http://docs.example"
    doc = analyze(toc_page(described=True), f"{host}/docs/api/index.html")
    urls = {link.url for link in doc.links}
    toc = {f"{host}/docs/api/{WORDS[i % 18]}{i}.html" for i in range(40)}
    assert len(urls & toc) >= 0.8 * len(toc)
    assert not template_urls(urls, host)


def test_bare_index_needs_the_content_list_rule() -> None:
    host = "http://docs.example"
    toc = {f"{host}/docs/api/{WORDS[i % 18]}{i}.html" for i in range(40)}
    doc = analyze(toc_page(), f"{host}/docs/api/index.html", classifier="trained-lists")
    urls = {link.url for link in doc.links}
    assert toc <= urls and not template_urls(urls, host)


def grid_page(n: int = 12) -> str:
    cards = "".join(
        f'<div class="card"><a href="/products/{WORDS[i % 18]}-{i}"><img src="/i/{i}.jpg"></a>'
        f'<h3><a href="/products/{WORDS[i % 18]}-{i}">{WORDS[i % 18].title()} lamp {i}</a></h3>'
        f'<span class="price">${10 + i}.99</span></div>' for i in range(n))
    return chrome(f"<h1>Lamps</h1><p>{sentence(2)}</p><div class='products grid'>{cards}</div>", "Lamps")


def test_product_grid_keeps_its_links() -> None:
    host = "http://shop.example"
    doc = analyze(grid_page(), f"{host}/lamps/", classifier="trained-lists")
    urls = {link.url for link in doc.links}
    grid = {f"{host}/products/{WORDS[i % 18]}-{i}" for i in range(12)}
    assert len(urls & grid) >= 0.9 * len(grid)
    assert not template_urls(urls, host)


def article_page() -> str:
    paras = "".join(f"<p>{sentence(i)} {sentence(i + 1)} {sentence(i + 2)}</p>" for i in range(6))
    paras += f'<p>{sentence(9)} See <a href="/reports/flood-2023.html">the flood report</a> for details.</p>'
    return chrome(f"<h1>The mill is rebuilt</h1>{paras}", "The mill is rebuilt")


def test_article_keeps_body_links_and_drops_navigation_lists() -> None:
    host = "http://news.example"
    doc = analyze(article_page(), f"{host}/2024/mill.html")
    urls = {link.url for link in doc.links}
    assert f"{host}/reports/flood-2023.html" in urls
    assert not template_urls(urls, host)
    assert "Popular" not in doc.text and "Privacy" not in doc.text
