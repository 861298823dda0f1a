"""A large seeded multi-host web for long crawls, each page generated when it is requested.

Pages are of the demo web's kind (``rankcrawl.crawler.demoweb.web``): every host is a news, blog,
shop or wiki site whose template carries a navigation menu, a sidebar with "popular", "related" and
"partner sites" lists and a footer with static pages, a robots-disallowed account page, other hosts
of the network and off-crawl social links; the main region is either article prose whose sentences
link to other articles (mostly of the same host, mostly of the same topic, a share to the host's
popular first articles) or a paginated section listing of teasers. Nothing is held per page: a
page's HTML is a pure function of (seed, host, page), so a web of millions of pages costs no memory
and the server keeps only a bit per page for the distinct pages served.

Per host: the home page, ``SECTIONS`` section listings of ``PER_LISTING`` teasers each (paginated),
the static pages, the account page and the articles, so every page is reachable from the home page.
"""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from rankcrawl.crawler.demoweb.vocabulary import KINDS, SECTIONS, SITE_NAMES, TOPICS, Prose
from rankcrawl.crawler.demoweb.web import PRIVATE_PATH, ROBOTS_TXT, SCRIPT, STATIC_PAGES, STYLE

PER_LISTING = 20
"""Teasers on one page of a section listing."""
NETWORK = 8
"""Other hosts of the network linked from a host's footer (the next ones in host order)."""
CROSS_HOST = 0.15
"""Share of an article's prose links that go to another host."""
POPULAR = 0.3
"""Share of an article's prose links within its host that go to one of its first ``POPULAR_PAGES`` articles."""
POPULAR_PAGES = 20
HTML = "text/html; charset=utf-8"


def _link(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


class SoakWeb:
    """``n_hosts`` hosts with ``articles`` articles each; ``serve()`` binds it to loopback ports."""

    def __init__(self, seed: int = 0, n_hosts: int = 100, articles: int = 1000) -> None:
        if n_hosts < 2 or articles < POPULAR_PAGES:
            raise ValueError(f"the soak web needs at least 2 hosts and {POPULAR_PAGES} articles per host")
        self.seed, self.n_hosts, self.articles = seed, n_hosts, articles
        self.kinds = [KINDS[h % len(KINDS)] for h in range(n_hosts)]
        self.names = [f"{SITE_NAMES[k][(h // len(KINDS)) % 3]} {h}" for h, k in enumerate(self.kinds)]
        self.sections = [SECTIONS[k] for k in self.kinds]
        self.listing_pages = -(-articles // (len(self.sections[0]) * PER_LISTING))
        self.origins = [f"http://soak{h}.invalid" for h in range(n_hosts)]
        self.external_origin = "http://social.invalid"
        self._served = [bytearray(articles + 16 + 3 * self.listing_pages) for _ in range(n_hosts)]
        self._lock = threading.Lock()
        self.pages_served = 0
        self.requests = 0

    @property
    def pages_per_host(self) -> int:
        """Served HTML pages of one host (the account page counted, though robots.txt disallows it)."""
        return 1 + len(self.sections[0]) * self.listing_pages + len(STATIC_PAGES) + 1 + self.articles

    @property
    def n_pages(self) -> int:
        return self.n_hosts * self.pages_per_host

    @property
    def seeds(self) -> list[str]:
        return [self.origins[h] + "/" for h in range(self.n_hosts)]

    # -- serving -------------------------------------------------------------------------------

    def response(self, host: int, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for ``path`` on ``host``; counts requests and distinct pages."""
        if path == "/robots.txt":
            with self._lock:
                self.requests += 1
            return 200, "text/plain; charset=utf-8", ROBOTS_TXT.encode()
        found = self._page(host, path)
        with self._lock:
            self.requests += 1
            if found is not None and not self._served[host][found[0]]:
                self._served[host][found[0]] = 1
                self.pages_served += 1
        if found is None:
            return 404, HTML, b"<html><body><h1>Not found</h1></body></html>"
        return 200, HTML, found[1].encode()

    @contextmanager
    def serve(self) -> Iterator[SoakWeb]:
        """Serve every host on its own 127.0.0.1 port (threading HTTP servers); stopped on exit.
        Social links point at a loopback port that is bound but never listens (refused)."""
        servers = [_HostServer(self, h) for h in range(self.n_hosts)]
        closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        threads: list[threading.Thread] = []
        try:
            closed.bind(("127.0.0.1", 0))
            self.origins = [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
            self.external_origin = f"http://127.0.0.1:{closed.getsockname()[1]}"
            for server in servers:
                thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True)
                thread.start()
                threads.append(thread)
            yield self
        finally:
            stoppers = [threading.Thread(target=server.shutdown) for server in servers[: len(threads)]]
            for stopper in stoppers:  # in parallel: each waits up to a poll interval
                stopper.start()
            for stopper in stoppers:
                stopper.join()
            for server in servers:
                server.server_close()
            for thread in threads:
                thread.join(timeout=5)
            closed.close()

    # -- pages ---------------------------------------------------------------------------------

    def _rng(self, host: int, index: int) -> random.Random:
        return random.Random((self.seed * 1_000_003 + host) * 10_000_019 + index)

    def topic(self, host: int, article: int) -> int:
        return (article * 7 + host) % len(TOPICS)

    def title(self, host: int, article: int) -> str:
        return Prose(self._rng(host, -1 - article), self.kinds[host]).title(self.topic(host, article))

    def article_path(self, article: int) -> str:
        return f"/articles/{article + 1}.html"

    def _page(self, host: int, path: str) -> tuple[int, str] | None:
        """(page number within the host, HTML) of ``path``, or None."""
        if not 0 <= host < self.n_hosts:
            return None
        statics = {p: i for i, (p, _) in enumerate(STATIC_PAGES)}
        n_listings = len(self.sections[host]) * self.listing_pages
        if path == "/":
            return 0, self._home(host)
        if path in statics:
            title = STATIC_PAGES[statics[path]][1]
            prose = Prose(self._rng(host, -100 - statics[path]), self.kinds[host])
            body = "".join(f"<p>{' '.join(prose.sentence() for _ in range(3))}</p>\n" for _ in range(2))
            return 1 + statics[path], self._wrap(host, title, f"<h1>{escape(title)}</h1>\n{body}", None)
        if path == PRIVATE_PATH:
            main = "<h1>My account</h1>\n<p>Sign in to manage your subscription and saved items.</p>"
            return 1 + len(STATIC_PAGES), self._wrap(host, "My account", main, None)
        if path.startswith("/section/"):
            parts = path.split("/")  # '', 'section', name, '' or 'page-K.html'
            if len(parts) == 4 and parts[2] in self.sections[host]:
                s = self.sections[host].index(parts[2])
                k = 0 if parts[3] == "" else _number(parts[3], "page-", ".html", 2, self.listing_pages) - 1
                if k >= 0:
                    return 2 + len(STATIC_PAGES) + s * self.listing_pages + k, self._listing(host, s, k)
            return None
        if path.startswith("/articles/"):
            i = _number(path[len("/articles/"):], "", ".html", 1, self.articles) - 1
            if i >= 0:
                return 2 + len(STATIC_PAGES) + n_listings + i, self._article(host, i)
        return None

    def _home(self, host: int) -> str:
        prose = Prose(self._rng(host, -200), self.kinds[host])
        blocks = [f"<h1>{escape(self.names[host])}</h1>\n<p>{prose.sentence()} {prose.sentence()}</p>",
                  "<h2>Featured</h2>"]
        blocks += [self._teaser(host, i, "h3", prose) for i in range(4)]
        blocks.append("<h2>Latest</h2>")
        blocks += [self._teaser(host, i, "h3", prose) for i in range(self.articles - 1, self.articles - 7, -1)]
        return self._wrap(host, self.names[host], "\n".join(blocks), None)

    def _listing(self, host: int, s: int, k: int) -> str:
        name = self.sections[host][s]
        prose = Prose(self._rng(host, -300 - s * self.listing_pages - k), self.kinds[host])
        blocks = [f"<h1>{name.capitalize()}</h1>\n<p>{prose.sentence()}</p>"]
        first = k * PER_LISTING * len(self.sections[host]) + s
        members = range(first, min(self.articles, first + PER_LISTING * len(self.sections[host])), len(self.sections[host]))
        blocks += [self._teaser(host, i, "h2", prose) for i in members]
        pages = [(n, f"/section/{name}/" if n == 0 else f"/section/{name}/page-{n + 1}.html")
                 for n in (k - 1, k + 1, self.listing_pages - 1) if 0 <= n < self.listing_pages and n != k]
        blocks.append('<nav class="pagination">' + " ".join(_link(p, f"Page {n + 1}") for n, p in pages) + "</nav>")
        return self._wrap(host, name.capitalize(), "\n".join(blocks), None)

    def _teaser(self, host: int, i: int, heading: str, prose: Prose) -> str:
        href, title = self.article_path(i), self.title(host, i)
        topic = self.topic(host, i)
        return (f'<div class="teaser"><{heading}>{_link(href, title)}</{heading}>\n'
                f"<p>{prose.sentence(prose.rng.randint(10, 18), topic)} ({_link(href, ' '.join(title.split()[:3]))}) "
                f"{prose.sentence(prose.rng.randint(6, 12), topic).lower()}</p></div>")

    def _article(self, host: int, i: int) -> str:
        rng = self._rng(host, i)
        prose, topic = Prose(rng, self.kinds[host]), self.topic(host, i)
        paragraphs = [[prose.sentence(topic=topic) for _ in range(rng.randint(2, 5))] for _ in range(rng.randint(3, 6))]
        for _ in range(rng.randint(2, 5)):
            h, j = self._target(host, i, topic, rng)
            href = self.article_path(j) if h == host else self.origins[h] + self.article_path(j)
            words = self.title(h, j).split()
            cite = (f"{prose.sentence(rng.randint(6, 12), topic)[:-1]} ({_link(href, ' '.join(words[: rng.randint(2, len(words))]))}) "
                    f"{prose.sentence(rng.randint(4, 9), topic).lower()}")
            paragraph = rng.choice(paragraphs)
            paragraph.insert(rng.randrange(1, len(paragraph) + 1), cite)
        title = self.title(host, i)
        author = prose.sentence(2).rstrip(".").title()
        main = "\n".join([f"<h1>{escape(title)}</h1>", f'<p class="byline">By {escape(author)} · {rng.randint(3, 9)} min read</p>',
                          *(f"<p>{' '.join(p)}</p>" for p in paragraphs)])
        return self._wrap(host, title, main, i)

    def _target(self, host: int, i: int, topic: int, rng: random.Random) -> tuple[int, int]:
        """An article to cite: another host's at rate CROSS_HOST, else a popular or a same-topic one of this host."""
        h = rng.randrange(self.n_hosts) if rng.random() < CROSS_HOST else host
        if h == host and rng.random() < POPULAR:
            return h, rng.randrange(POPULAR_PAGES)
        step = len(TOPICS)
        first = (topic - h) * pow(7, -1, step) % step  # articles j with topic(h, j) == topic: j ≡ first (mod step)
        j = first + step * rng.randrange(max(1, (self.articles - first + step - 1) // step))
        return h, j if j < self.articles and (h, j) != (host, i) else (i + 1) % self.articles

    def _wrap(self, host: int, title: str, main: str, article: int | None) -> str:
        """The page: head, template around ``main`` (related articles in the sidebar of an article)."""
        sections = self.sections[host]
        nav = "".join(f"<li>{_link(f'/section/{s}/', s.capitalize())}</li>" for s in sections)
        header = (f'<header class="site-header">{_link(self.origins[host] + "/", self.names[host])}\n'
                  f'<nav class="main-nav"><ul><li>{_link("/", "Home")}</li>{nav}<li>{_link("/about", "About")}</li></ul></nav>\n'
                  '<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>')
        popular = "".join(f"<li>{_link(self.article_path(j), self.title(host, j))}</li>" for j in range(4))
        sidebar = f'<aside class="sidebar">\n<section class="popular"><h3>Popular</h3><ul>{popular}</ul></section>\n'
        if article is not None:
            near = [(article + d) % self.articles for d in (-1, 1, 2)]
            items = "".join(f"<li>{_link(self.article_path(j), self.title(host, j))}</li>" for j in near)
            sidebar += f'<section class="related"><h3>Related</h3><ul>{items}</ul></section>\n'
        partners = "".join(f"<li>{_link(self.origins[(host + d) % self.n_hosts] + '/', self.names[(host + d) % self.n_hosts])}</li>"
                           for d in (1, 2))
        sidebar += f'<section class="partners"><h3>Partner sites</h3><ul>{partners}</ul></section>\n</aside>'
        statics = "".join(f"<li>{_link(p, t)}</li>" for p, t in STATIC_PAGES) + f"<li>{_link(PRIVATE_PATH, 'My account')}</li>"
        others = [(host + d) % self.n_hosts for d in range(1, min(NETWORK, self.n_hosts - 1) + 1)]
        network = "".join(f"<li>{_link(self.origins[p] + '/', self.names[p])}</li>" for p in others)
        social = "".join(f"<li>{_link(f'{self.external_origin}/{net}/{self.kinds[host]}{host}', f'Follow us: {net}')}</li>"
                         for net in ("mastodon", "video", "photos"))
        footer = (f'<footer>\n<div class="footer-cols"><ul>{statics}</ul>\n<ul>{nav}</ul>\n<ul>{network}</ul>\n'
                  f'<ul>{social}</ul></div>\n<p class="copyright">© 2024 {escape(self.names[host])}. All rights reserved.</p>\n</footer>')
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{escape(title)} | {escape(self.names[host])}</title>{STYLE}{SCRIPT}</head>\n<body>\n"
                f'{header}\n<div class="layout">\n<main>\n<article>\n{main}\n</article>\n</main>\n'
                f"{sidebar}\n</div>\n{footer}\n</body></html>\n")


def _number(text: str, prefix: str, suffix: str, low: int, high: int) -> int:
    """The integer in ``prefix<N>suffix`` if low ≤ N ≤ high (no leading zeros), else -1."""
    digits = text[len(prefix): len(text) - len(suffix)] if text.startswith(prefix) and text.endswith(suffix) else ""
    if not digits.isdigit() or digits.startswith("0") or not low <= int(digits) <= high:
        return -1
    return int(digits)


class _HostServer(ThreadingHTTPServer):
    """One host of the soak web on a free loopback port."""

    daemon_threads = True

    def __init__(self, web: SoakWeb, host: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.web, self.host = web, host


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HostServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, ctype, body = self.server.web.response(self.server.host, urlsplit(self.path).path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silent."""
