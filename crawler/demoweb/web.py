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
import socket
import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import numpy as np

from rankcrawl.settings.urls import normalize_url, split_url

KINDS = ("news", "blog", "shop", "wiki")
SITE_NAMES = {
    "news": ("The Daily Ledger", "Harbour Times", "Metro Dispatch"),
    "blog": ("Field Notes", "Slow Kitchen", "Byte Journal"),
    "shop": ("Cobalt Outfitters", "Maple Hardware", "Northwind Goods"),
    "wiki": ("OpenAtlas", "Lexicon Commons", "Terra Encyclopedia"),
}
SECTIONS = {
    "news": ("politics", "economy", "city"),
    "blog": ("travel", "cooking", "notes"),
    "shop": ("outdoor", "kitchen", "tools"),
    "wiki": ("science", "history", "geography"),
}
TOPIC_WORDS = {
    "news": "council budget minister election harbour tenants inflation rates court ruling mayor transit strike "
    "union reform policy vote parliament tariffs exports housing market inquiry report districts police "
    "schools hospital funding pension ministry coalition opposition",
    "blog": "journey trail coastline village recipe bread sourdough garden morning notebook weekend train "
    "harbour museum festival coffee kitchen spices market compiler script library debugging laptop "
    "sketch mountains lantern letters autumn",
    "shop": "jacket boots tent backpack kettle skillet knife drill hammer lantern stove blanket cotton "
    "leather warranty shipping discount catalogue model fabric steel handle battery charger cushion "
    "waterproof season bundle colour sizes",
    "wiki": "species glacier empire dynasty treaty river delta plateau climate fossil element isotope "
    "orbit theorem census migration parish cathedral manuscript archive expedition volcano estuary "
    "reactor enzyme protein galaxy telescope basin",
}
TOPICS = (
    "climate glacier drought rainfall emissions carbon ocean heatwave forecast monsoon wildfire coastline",
    "election ballot campaign parliament coalition senator referendum candidate polling minister debate veto",
    "football stadium league striker tournament coach penalty season trophy midfield goalkeeper referee",
    "cuisine sourdough recipe spices bakery vineyard harvest cheese noodles pastry ferment orchard",
    "software compiler database algorithm server encryption browser kernel debugging startup robotics chipset",
    "medicine vaccine hospital surgeon clinic therapy nutrition virus diagnosis patients genome pharmacy",
    "railway tramline airport motorway cyclists commuters harbour ferry timetable freight tunnel bridge",
    "painting sculpture gallery orchestra novel poetry theatre cinema festival museum opera ballet",
)
LINK_TOPICS = (0.7, 0.15, 0.15)  # shares of prose links to the same topic, a neighbouring one, anywhere
NEIGHBOUR_WORDS = 0.2             # share of an article's topic words taken from neighbouring topics
FUNCTION_WORDS = (
    "the the the of of and and to to a a in in that is was for on with as it by at from this be "
    "are which or were an but not had have has their its after more than when into also about"
).split()
COMMON_WORDS = (
    "people year city work first new time part local group public several early later report "
    "small large number within during between following since under while many most other "
    "years week months made found described showed remained became began continued across "
    "according recent further important significant long short open final central northern "
    "southern western eastern river road street house market plan project service system "
    "history period area region level change support effect result order course"
).split()
AUTHORS = ("Ana Ruiz", "Tom Becker", "Mei Lin", "Sam Okafor", "Lena Fischer", "Ravi Nair", "Joan Ellis")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
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


def related_topics(topic: int) -> tuple[int, int, int]:
    """The topic and its two neighbours on the ring of topics."""
    n = len(TOPICS)
    return topic, (topic + 1) % n, (topic - 1) % n


class _Prose:
    """Generated English-like prose with realistic word and sentence lengths.

    Without a topic, words come from the host kind's vocabulary; with one, mostly from the
    topic's terms (``TOPICS[topic]``) and a little from the kind's.
    """

    def __init__(self, rng: random.Random, kind: str) -> None:
        self.rng = rng
        self.kind = TOPIC_WORDS[kind].split()

    def word(self, topic: int | None = None) -> str:
        roll = self.rng.random()
        if roll < 0.42:
            return self.rng.choice(FUNCTION_WORDS)
        if roll < 0.7:
            if topic is None or roll >= 0.64:
                return self.rng.choice(self.kind)
            if self.rng.random() < NEIGHBOUR_WORDS:
                topic = self.rng.choice(related_topics(topic)[1:])
            return self.rng.choice(TOPICS[topic].split())
        return self.rng.choice(COMMON_WORDS)

    def sentence(self, words: int | None = None, topic: int | None = None) -> str:
        n = words or max(5, min(34, round(self.rng.gauss(17, 6))))
        tokens = [self.word(topic) for _ in range(n)]
        if n > 10 and self.rng.random() < 0.5:
            tokens[self.rng.randrange(3, n - 3)] += ","
        return " ".join(tokens).capitalize() + "."

    def title(self, topic: int) -> str:
        terms = TOPICS[topic].split()
        words = [self.rng.choice(terms), self.rng.choice(COMMON_WORDS), self.rng.choice(terms)]
        joiner = self.rng.choice(("of the", "and the", "after", "in", "for"))
        return f"{words[0].capitalize()} {words[1]} {joiner} {words[2]}".title()


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

    @contextmanager
    def serve(self) -> Iterator["DemoWeb"]:
        """Serve this web on 127.0.0.1, one ThreadingHTTPServer per host; stopped on exit.

        Yields a DemoWeb of the same seed and size whose URLs are the served ones. Off-crawl
        social links point at a loopback port that is bound but never listens (refused).
        """
        servers: list[_HostServer] = []
        threads: list[threading.Thread] = []
        closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            servers += [_HostServer() for _ in range(self.n_hosts)]
            closed.bind(("127.0.0.1", 0))
            origins = [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
            web = DemoWeb(self.seed, self.n_hosts, self.pages_per_host, origins=origins,
                          external_origin=f"http://127.0.0.1:{closed.getsockname()[1]}")
            for server, origin in zip(servers, origins):
                server.web, server.origin = web, origin
                thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                          name=f"demo-web {origin}", daemon=True)
                thread.start()
                threads.append(thread)
            yield web
        finally:
            for server in servers[: len(threads)]:
                server.shutdown()
            for server in servers:
                server.server_close()
            for thread in threads:
                thread.join(timeout=5)
            closed.close()

    # -- generation --------------------------------------------------------------------------

    def _url(self, host: int, path: str) -> str:
        return normalize_url(self.origins[host] + path)  # type: ignore[return-value]

    def _plan(self) -> None:
        """The link structure: articles, their sections, authorities and prose citations."""
        rng = random.Random(self.seed)
        n_articles = self.pages_per_host - (1 + 3 + len(STATIC_PAGES) + 1)
        self.articles: list[list[_Article]] = []
        for h, kind in enumerate(self.kinds):
            prose = _Prose(rng, kind)
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
        for h, host_articles in enumerate(self.articles):
            for i, article in enumerate(host_articles):
                same = [t for t in everything if self.articles[t[0]][t[1]].topic == article.topic]
                near = set(related_topics(article.topic)[1:])
                neighbours = [t for t in everything if self.articles[t[0]][t[1]].topic in near]
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
            prose = _Prose(rng, self.kinds[h])
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

    def _add_home(self, h: int, prose: _Prose, rng: random.Random) -> None:
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

    def _add_section(self, h: int, s: int, prose: _Prose, rng: random.Random) -> None:
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
    def _teaser(href: str, art: _Article, heading: str, prose: _Prose, rng: random.Random) -> str:
        """A headline link and a teaser paragraph whose prose links to the article again."""
        words = art.title.split()
        anchor = " ".join(words[rng.randint(0, 1):rng.randint(3, len(words))])
        lead = prose.sentence(rng.randint(8, 14), art.topic)[:-1]
        tail = prose.sentence(rng.randint(6, 12), art.topic).lower()
        return (f'<div class="teaser"><{heading}>{_link(href, art.title)}</{heading}>\n'
                f"<p>{escape(art.teaser)} {lead} ({_link(href, anchor)}) {tail}</p></div>")

    def _add_article(self, h: int, i: int, prose: _Prose, rng: random.Random) -> None:
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

    def _cite(self, art: _Article, target: tuple[int, int], based: bool, rng: random.Random, prose: _Prose) -> str:
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


class _HostServer(ThreadingHTTPServer):
    """One host of the demo web: a threading HTTP server on a free loopback port."""

    daemon_threads = True
    web: DemoWeb
    origin: str

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HostServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._respond(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._respond(send_body=False)

    def _respond(self, send_body: bool) -> None:
        status, ctype, body = self.server.web.response(self.server.origin + self.path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silent: the demo's progress view is the log."""
