"""A seeded multi-host demo web with ground truth, served on 127.0.0.1 (one port per host).

Every host is a news, blog, shop or wiki site with a realistic template — logo and navigation
menu, a sidebar with "popular", "related" and "partner sites" lists, a footer full of links
(including cross-host partner links, a robots-disallowed account page and off-crawl social
links) — around a main region: article prose whose sentences link to other pages and hosts,
or the teaser lists of home and section pages. The generator records for each page which links
sit in the main region (``content_links``) and which in the template (``template_links``).

Every article belongs to one of ``TOPICS`` (vocabularies shared across hosts, neighbours on a
ring of topics related): its title and prose draw on the topic's terms and a little on its
neighbours', and its prose links go mostly to articles of the same topic, some to neighbouring
topics, a few anywhere (``LINK_TOPICS``), anchored with the target's title words, so lexical
similarity of linked pages means something, as on real sites. A few
"authority" articles are cited by many topically related articles across hosts, while template
links point at home, section and static pages, so PageRank over content links differs clearly
from PageRank over template links.

Tricky pages on the first host: one encoded in cp1252 (declared only in a ``<meta>``), one with
``<base href>`` whose relative links resolve only through the base, relative and
fragment-carrying links throughout, and an oversized page (``oversized_url``, not linked) for
page-size caps.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from html import escape

import numpy as np

from rankcrawl.crawler.demoweb.vocabulary import (
    AUTHORS,
    KINDS,
    LINK_TOPICS,
    MONTHS,
    SECTIONS,
    SITE_NAMES,
    TOPICS,
    Prose,
    related_topics,
)
from rankcrawl.settings.urls import normalize_url, split_url

STATIC_PAGES = (("/about", "About us"), ("/contact", "Contact"), ("/privacy", "Privacy policy"),
                ("/terms", "Terms of use"))
PRIVATE_PATH = "/private/account"
ROBOTS_TXT = "User-agent: *\nDisallow: /private/\n"
CP1252_PROSE = "The café’s owner said “we’re open” — and the crème brûlée costs €4."
STYLE = "<style>body{font-family:sans-serif}.layout{display:flex}.sidebar{width:30%}</style>"
SCRIPT = "<script>window.dataLayer=window.dataLayer||[];function track(e){dataLayer.push(e)}</script>"
MIN_PAGES_PER_HOST = 1 + 3 + len(STATIC_PAGES) + 1 + 3


@dataclass
class DemoPage:
    """One served page and the ground truth of its links (normalised absolute URLs)."""

    url: str
    html: str
    content_links: list[str] = field(default_factory=list)
    template_links: list[str] = field(default_factory=list)
    kind: str = "article"
    encoding: str = "utf-8"

    @property
    def body(self) -> bytes:
        """The bytes served for this page."""
        return self.html.encode(self.encoding)


@dataclass
class _Article:
    host: int
    path: str
    title: str
    section: int
    date: str
    author: str
    teaser: str
    topic: int
    links: list[tuple[int, int]] = field(default_factory=list)  # (host, article index)


def _slug(text: str) -> str:
    return "-".join("".join(c for c in w if c.isalnum()) for w in text.lower().split()[:5])


def _link(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


class DemoWeb:
    """The generated web; ``serve()`` yields the same web bound to real loopback ports."""

    def __init__(self, seed: int = 0, n_hosts: int = 6, pages_per_host: int = 30,
                 origins: list[str] | None = None, external_origin: str = "http://social.demo.invalid") -> None:
        if n_hosts < 2:
            raise ValueError("the demo web needs at least 2 hosts")
        if pages_per_host < MIN_PAGES_PER_HOST:
            raise ValueError(f"the demo web needs at least {MIN_PAGES_PER_HOST} pages per host")
        self.seed, self.n_hosts, self.pages_per_host = seed, n_hosts, pages_per_host
        self.kinds = [KINDS[i % len(KINDS)] for i in range(n_hosts)]
        self.names = [SITE_NAMES[k][(i // len(KINDS)) % 3] + ("" if i < 12 else f" {i}") for i, k in enumerate(self.kinds)]
        self.origins = origins or [f"http://{k}{i}.demo.invalid" for i, k in enumerate(self.kinds)]
        if len(self.origins) != n_hosts:
            raise ValueError("one origin per host is needed")
        self.external_origin = external_origin
        self.pages: dict[str, DemoPage] = {}
        self.hits: Counter[str] = Counter()
        self.hit_log: list[tuple[float, str]] = []
        self._hits_lock = threading.Lock()
        self._urls: dict[tuple[int, str], str] = {}
        self._plan()
        self._render()

    # -- the public view ---------------------------------------------------------------------

    @property
    def seeds(self) -> list[str]:
        """The home page of every host."""
        return [self._url(h, "/") for h in range(self.n_hosts)]

    @property
    def robots_disallowed(self) -> list[str]:
        """Served pages that every host's robots.txt disallows (linked from the templates)."""
        return [self._url(h, PRIVATE_PATH) for h in range(self.n_hosts)]

    @property
    def authorities(self) -> list[str]:
        """The articles that many others cite in their prose."""
        return [self._article_url(a) for a in self._authorities]

    @property
    def topics(self) -> dict[str, int]:
        """Every article's topic, an index into ``TOPICS``."""
        return {self._article_url((h, i)): a.topic for h, arts in enumerate(self.articles) for i, a in enumerate(arts)}

    @property
    def oversized_url(self) -> str:
        """A served page larger than 2 MiB, linked from nowhere (for page-size caps)."""
        return self._url(0, "/files/oversized.html")

    def content_graph(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Ground truth: (sorted page URLs, src, dst) of every content link between served pages."""
        urls = sorted(self.pages)
        index = {u: i for i, u in enumerate(urls)}
        pairs = [(index[p.url], index[d]) for p in self.pages.values() for d in p.content_links]
        edges = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        return urls, edges[:, 0].copy(), edges[:, 1].copy()

    def template_graph(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Template links between served pages, in the same form as :meth:`content_graph`."""
        urls = sorted(self.pages)
        index = {u: i for i, u in enumerate(urls)}
        pairs = [(index[p.url], index[d]) for p in self.pages.values() for d in p.template_links if d in index]
        edges = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        return urls, edges[:, 0].copy(), edges[:, 1].copy()

    def reset_hits(self) -> None:
        """Forget the requests served so far (between crawls of one served web)."""
        with self._hits_lock:
            self.hits.clear()
            self.hit_log.clear()

    def response(self, url: str) -> tuple[int, str, bytes]:
        """(status, content type, body) served for a request URL; counts the hit."""
        norm = normalize_url(url) or url
        with self._hits_lock:
            self.hits[norm] += 1
            self.hit_log.append((time.monotonic(), norm))
        if split_url(norm)[1] == "/robots.txt":
            return 200, "text/plain; charset=utf-8", ROBOTS_TXT.encode()
        if norm == self.oversized_url:
            filler = "<p>" + "archive record " * 12 + "</p>\n"
            return 200, "text/html; charset=utf-8", f"<html><body>{filler * 12000}</body></html>".encode()
        page = self.pages.get(norm)
        if page is None:
            return 404, "text/html; charset=utf-8", b"<html><body><h1>Not found</h1></body></html>"
        ctype = "text/html" if page.encoding != "utf-8" else "text/html; charset=utf-8"
        return 200, ctype, page.body

    def serve(self) -> AbstractContextManager[DemoWeb]:
        """Serve this web on 127.0.0.1, one HTTP server per host (``server.serve``); stopped on exit."""
        from rankcrawl.crawler.demoweb.server import serve

        return serve(self)

    # -- generation --------------------------------------------------------------------------

    def _url(self, host: int, path: str) -> str:
        key = (host, path)
        if key not in self._urls:
            self._urls[key] = normalize_url(self.origins[host] + path)  # type: ignore[assignment]
        return self._urls[key]

    def _plan(self) -> None:
        """The link structure: articles, their sections, authorities and prose citations."""
        rng = random.Random(self.seed)
        n_articles = self.pages_per_host - (1 + 3 + len(STATIC_PAGES) + 1)
        self.articles: list[list[_Article]] = []
        for h, kind in enumerate(self.kinds):
            prose = Prose(rng, kind)
            host_articles = []
            for i in range(n_articles):
                topic = rng.randrange(len(TOPICS))
                title = prose.title(topic)
                path = f"/articles/{i + 1}-{_slug(title)}.html"
                if h == 0 and i == 1:
                    path = f"/archive/2024/{i + 1}-{_slug(title)}.html"
                date = f"{rng.randint(1, 28)} {MONTHS[(i * 7 + h) % 12]} 2024"
                host_articles.append(_Article(h, path, title, i % 3, date, rng.choice(AUTHORS),
                                              prose.sentence(rng.randint(18, 30), topic), topic))
            self.articles.append(host_articles)
        n_auth = max(2, self.n_hosts // 2 + 1)
        self._authorities = rng.sample([(h, i) for h in range(self.n_hosts) for i in range(n_articles)], n_auth)
        everything = [(h, i) for h in range(self.n_hosts) for i in range(n_articles)]
        by_topic: dict[int, list[tuple[int, int]]] = {}
        for t in everything:
            by_topic.setdefault(self.articles[t[0]][t[1]].topic, []).append(t)
        for h, host_articles in enumerate(self.articles):
            for i, article in enumerate(host_articles):
                same = by_topic.get(article.topic, [])
                near = set(related_topics(article.topic)[1:])
                neighbours = sorted(t for topic in near for t in by_topic.get(topic, []))
                targets: list[tuple[int, int]] = []
                for _ in range(rng.randint(2, 5)):
                    pool = rng.choices((same, neighbours, everything), LINK_TOPICS)[0] or everything
                    roll = rng.random()
                    authorities = [t for t in self._authorities if t in pool]
                    if roll < 0.45 and authorities:
                        target = rng.choice(authorities)
                    elif roll < 0.8 and any(t[0] == h for t in pool):
                        target = rng.choice([t for t in pool if t[0] == h])
                    else:
                        target = rng.choice(pool)
                    if target != (h, i) and target not in targets:
                        targets.append(target)
                if not any(t[0] == h for t in targets):  # every article cites its own host at least once
                    own = [t for t in everything if t[0] == h and t != (h, i)]
                    topical = [t for t in own if self.articles[h][t[1]].topic in {article.topic, *near}]
                    targets.append(rng.choice(topical or own))
                article.links = targets

    def _render(self) -> None:
        rng = random.Random(self.seed * 7919 + 1)
        for h in range(self.n_hosts):
            prose = Prose(rng, self.kinds[h])
            self._add_home(h, prose, rng)
            for s in range(3):
                self._add_section(h, s, prose, rng)
            for path, title in STATIC_PAGES:
                body = "".join(f"<p>{' '.join(prose.sentence() for _ in range(3))}</p>\n" for _ in range(2))
                self._add(h, path, title, f"<h1>{escape(title)}</h1>\n{body}", [], "static", rng)
            self._add(h, PRIVATE_PATH, "My account",
                      "<h1>My account</h1>\n<p>Sign in to manage your subscription and saved items.</p>",
                      [], "private", rng)
            for i in range(len(self.articles[h])):
                self._add_article(h, i, prose, rng)

    def _article_url(self, target: tuple[int, int]) -> str:
        h, i = target
        return self._url(h, self.articles[h][i].path)

    def _add_home(self, h: int, prose: Prose, rng: random.Random) -> None:
        arts = self.articles[h]
        featured = [a for a in self._authorities if a[0] == h] or [self._authorities[h % len(self._authorities)]]
        latest = [(h, i) for i in range(len(arts) - 1, max(-1, len(arts) - 9), -1)]
        blocks = [f"<h1>{escape(self.names[h])}</h1>\n<p>{prose.sentence()} {prose.sentence()}</p>"]
        links = []
        for label, items in (("Featured", featured), ("Latest", latest)):
            blocks.append(f"<h2>{label}</h2>")
            for t in items:
                art = self.articles[t[0]][t[1]]
                blocks.append(self._teaser(self._article_url(t), art, "h3", prose, rng))
                links.append(self._article_url(t))
        self._add(h, "/", self.names[h], "\n".join(blocks), links, "home", rng)

    def _add_section(self, h: int, s: int, prose: Prose, rng: random.Random) -> None:
        name = SECTIONS[self.kinds[h]][s]
        blocks = [f"<h1>{name.capitalize()}</h1>\n<p>{prose.sentence()}</p>"]
        links = []
        for i, art in enumerate(self.articles[h]):
            if art.section == s:
                href = "../.." + art.path  # relative to /section/<name>/
                blocks.append(self._teaser(href, art, "h2", prose, rng))
                links.append(self._article_url((h, i)))
        self._add(h, f"/section/{name}/", name.capitalize(), "\n".join(blocks), links, "section", rng)

    @staticmethod
    def _teaser(href: str, art: _Article, heading: str, prose: Prose, rng: random.Random) -> str:
        """A headline link and a teaser paragraph whose prose links to the article again."""
        words = art.title.split()
        anchor = " ".join(words[rng.randint(0, 1):rng.randint(3, len(words))])
        lead = prose.sentence(rng.randint(8, 14), art.topic)[:-1]
        tail = prose.sentence(rng.randint(6, 12), art.topic).lower()
        return (f'<div class="teaser"><{heading}>{_link(href, art.title)}</{heading}>\n'
                f"<p>{escape(art.teaser)} {lead} ({_link(href, anchor)}) {tail}</p></div>")

    def _add_article(self, h: int, i: int, prose: Prose, rng: random.Random) -> None:
        art = self.articles[h][i]
        n_par = rng.randint(4, 7)
        slots = sorted(rng.sample(range(n_par), min(n_par, len(art.links))) + [0] * max(0, len(art.links) - n_par))
        paragraphs = [[prose.sentence(topic=art.topic) for _ in range(rng.randint(2, 6))] for _ in range(n_par)]
        based = h == 0 and i == 1
        for target, slot in zip(art.links, slots):
            paragraphs[slot].insert(rng.randrange(1, len(paragraphs[slot]) + 1),
                                    self._cite(art, target, based, rng, prose))
        body = [f"<h1>{escape(art.title)}</h1>",
                f'<p class="byline">By {art.author} · {art.date} · {rng.randint(3, 9)} min read</p>']
        if h == 0 and i == 0:
            paragraphs[0].append(CP1252_PROSE)
        body += [f"<p>{' '.join(sentences)}</p>" for sentences in paragraphs]
        self._add(h, art.path, art.title, "\n".join(body), [self._article_url(t) for t in art.links], "article", rng,
                  encoding="cp1252" if h == 0 and i == 0 else "utf-8",
                  base=self._url(h, "/articles/") if based else None, related=art.section)

    def _cite(self, art: _Article, target: tuple[int, int], based: bool, rng: random.Random, prose: Prose) -> str:
        """A sentence that links to ``target``: relative within the host, absolute across hosts."""
        other = self.articles[target[0]][target[1]]
        if target[0] != art.host:
            href = self._article_url(target) + rng.choice(("", "", "#comments"))
            if rng.random() < 0.3:
                href = href.replace("http://", "HTTP://", 1)
        elif based:
            href = other.path.rsplit("/", 1)[1] if other.path.startswith("/articles/") else other.path
        else:
            href = "../" + other.path.lstrip("/") if art.path.startswith("/articles/") else other.path
        words = other.title.split()
        anchor = " ".join(words[: rng.randint(2, len(words))])
        lead = prose.sentence(rng.randint(6, 12), art.topic)[:-1]
        return f"{lead} ({_link(href, anchor)}) {prose.sentence(rng.randint(4, 9), art.topic).lower()}"

    def _add(self, h: int, path: str, title: str, main: str, content: list[str], kind: str, rng: random.Random,
             encoding: str = "utf-8", base: str | None = None, related: int | None = None) -> None:
        url = self._url(h, path)
        header, sidebar, footer, template = self._template(h, url, rng, related)
        charset = "windows-1252" if encoding == "cp1252" else "utf-8"
        base_tag = f'<base href="{escape(base)}">' if base else ""
        html = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="{charset}">{base_tag}'
                f"<title>{escape(title)} | {escape(self.names[h])}</title>{STYLE}{SCRIPT}</head>\n<body>\n"
                f'{header}\n<div class="layout">\n<main>\n<article>\n{main}\n</article>\n</main>\n'
                f"{sidebar}\n</div>\n{footer}\n</body></html>\n")
        self.pages[url] = DemoPage(url, html, list(dict.fromkeys(content)), list(dict.fromkeys(template)),
                                   kind, encoding)

    def _template(self, h: int, url: str, rng: random.Random, related: int | None) -> tuple[str, str, str, list[str]]:
        """Header, sidebar, footer HTML of host ``h`` and the links they carry (absolute paths or URLs)."""
        links: list[str] = []

        def a(host: int, path: str, text: str, absolute: bool = False) -> str:
            links.append(self._url(host, path))
            return _link(self.origins[host] + path if absolute or host != h else path, text)

        sections = SECTIONS[self.kinds[h]]
        nav = "".join(f"<li>{a(h, f'/section/{s}/', s.capitalize())}</li>" for s in sections)
        header = (f'<header class="site-header">{a(h, "/", self.names[h], absolute=True)}\n'
                  f'<nav class="main-nav"><ul><li>{a(h, "/", "Home")}</li>{nav}'
                  f'<li>{a(h, "/about", "About")}</li></ul></nav>\n'
                  '<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>')
        arts = self.articles[h]
        popular = [i for i in range(len(arts) - 1, -1, -1) if (h, i) not in self._authorities][:4]
        items = "".join(f"<li>{a(h, arts[i].path, arts[i].title)}</li>" for i in popular)
        sidebar = f'<aside class="sidebar">\n<section class="popular"><h3>Popular</h3><ul>{items}</ul></section>\n'
        if related is not None:
            same = [i for i, art in enumerate(arts) if art.section == related and self._url(h, art.path) != url]
            picks = rng.sample(same, min(3, len(same)))
            items = "".join(f"<li>{a(h, arts[i].path, arts[i].title)}</li>" for i in picks)
            sidebar += f'<section class="related"><h3>Related</h3><ul>{items}</ul></section>\n'
        partners = [(h + d) % self.n_hosts for d in (1, 2) if (h + d) % self.n_hosts != h]
        items = "".join(f"<li>{a(p, '/', self.names[p])}</li>" for p in dict.fromkeys(partners))
        sidebar += f'<section class="partners"><h3>Partner sites</h3><ul>{items}</ul></section>\n</aside>'
        statics = "".join(f"<li>{a(h, p, t)}</li>" for p, t in STATIC_PAGES)
        account = f"<li>{a(h, PRIVATE_PATH, 'My account')}</li>"
        network = "".join(f"<li>{a(p, '/', self.names[p])}</li>" for p in range(self.n_hosts) if p != h)
        social = "".join(f'<li>{self._social(h, net, links)}</li>' for net in ("mastodon", "video", "photos"))
        footer = (f'<footer>\n<div class="footer-cols"><ul>{statics}{account}</ul>\n<ul>{nav}</ul>\n'
                  f"<ul>{network}</ul>\n<ul>{social}</ul></div>\n"
                  f'<p class="copyright">© 2024 {escape(self.names[h])}. All rights reserved.</p>\n</footer>')
        return header, sidebar, footer, links

    def _social(self, h: int, net: str, links: list[str]) -> str:
        url = f"{self.external_origin}/{net}/{self.kinds[h]}{h}"
        links.append(normalize_url(url))  # type: ignore[arg-type]
        return _link(url, f"Follow us: {net}")
