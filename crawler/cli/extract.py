"""``rankcrawl extract``: page analysis of local HTML files as JSON Lines.

Every file is read the same way whatever it holds: only regular files (a FIFO or a device is
refused, never opened for reading), at most the page byte cap (RANKCRAWL_MAX_PAGE_BYTES' default;
``.gz`` files are inflated a chunk at a time up to that cap, so a gzip bomb stops there), NUL bytes
dropped when the rest is text, and analysed within the time budget (``--timeout``), which counts
from the moment the file is opened: decompression, decoding and parsing are inside it. Each file is
handled in a child process (``sandbox.Sandbox``) killed at ``HARD_FACTOR`` × the budget, whatever
stretch of work it is in. ``-`` reads one page from stdin (up to the cap). A file without HTML markup
is refused. A file that fails gets one line on stderr and the batch goes on; the exit code is 1 if
any file failed or the PATHs hold no HTML file at all.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import sys
import tempfile
import zlib
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import click

from rankcrawl.crawler.cli.options import UserError
from rankcrawl.crawler.cli.sandbox import HARD_FACTOR, HardTimeout, Sandbox, WorkerDied
from rankcrawl.pipelines.page.analyze import DEFAULT_MAX_PAGE_BYTES
from rankcrawl.pipelines.page.budget import FULL_SHARE, PREFIX_SHARE, analyze_within
from rankcrawl.pipelines.page.deadline import AnalysisTimeout, Deadline, clock
from rankcrawl.pipelines.page.links import base_url
from rankcrawl.settings.defaults import DEFAULTS

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")
WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 (and UTF-32 LE) byte order marks: NULs are text there
SNIFF_BYTES = 65536
READ_CHUNK = 65536
WARM_PAGE = b"<html><head><title>warm</title></head><body><p>" + b"word " * 60 + b"<a href='/a'>a</a></p></body></html>"
"""Bytes inflated between two checks of the cap and the deadline."""
CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x1b") + b"\x7f"
"""C0 controls that never occur in text (ESC stays: ISO-2022 pages use it); NUL is judged apart."""
MAX_CONTROL_SHARE = 0.02
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
HTML_MARKUP = re.compile(rb"<(?:!doctype|!--|/?[a-z][a-z0-9-]*[\s>/])", re.I)
"""A tag, doctype or comment: an HTML page (or fragment) has one in its first ``SNIFF_BYTES``, a
text file such as /etc/passwd none."""
STDIN = "-"


class PageError(ValueError):
    """A file that cannot be analysed (one-line reason)."""


def one_line(text: str, limit: int = 300) -> str:
    """``text`` with control characters escaped (a hostile file name cannot break the line), cut at ``limit``."""
    text = UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= limit else text[:limit] + "…"


def html_files(paths: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    """(file, problem) for every PATH: files as given, folders recursed (sorted, regular files only)."""
    out: list[tuple[Path, str | None]] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(HTML_SUFFIXES))
            out.extend((f, None) for f in found)
        elif p.exists() or p.is_symlink():
            out.append((p, None))
        else:
            out.append((p, "no such file or folder"))
    return out


def read_map(path: str) -> dict[Path, str]:
    """MAP.tsv (path<TAB>url) → {resolved path: url}; relative paths count from the cwd and from the map's folder."""
    table: dict[Path, str] = {}
    folder = Path(path).resolve().parent
    try:
        with open_regular(Path(path)) as f:
            lines = f.read().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError, PageError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise click.ClickException(one_line(f"cannot read map {path}: {reason}")) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        name, sep, url = line.partition("\t")
        if not sep or not url.strip():
            raise click.ClickException(one_line(f"{path}:{n}: expected path<TAB>url"))
        given = Path(name)
        if not given.is_absolute():  # an absolute name is the same path from both folders: resolved once
            table.setdefault((folder / given).resolve(), url.strip())
        table[given.resolve()] = url.strip()
    return table


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file; PageError for a FIFO, device or socket.

    It is opened without blocking and checked with ``fstat`` before a byte is read, so a FIFO
    (which would wait for a writer) or ``/dev/zero`` (endless) is refused, not read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        raise PageError("not a regular file (FIFO, device or socket): refused")
    return f


def looks_binary(sample: bytes) -> bool:
    """True when ``sample`` is not text: NUL bytes aside, over 2 % control bytes (or nothing else)."""
    if sample.startswith(WIDE_BOMS):
        return False
    rest = sample.replace(b"\x00", b"")
    if not rest:
        return True
    controls = len(rest) - len(rest.translate(None, CONTROL_BYTES))
    return controls > MAX_CONTROL_SHARE * len(rest)


def inflate(f: BinaryIO, max_bytes: int, deadline: Deadline | None = None) -> bytes:
    """Up to ``max_bytes`` bytes of the gzip stream ``f`` (every member), inflated ``READ_CHUNK`` bytes
    at a time with the cap and ``deadline`` checked before each: a gzip bomb stops at the cap or the
    deadline, whichever comes first, never materialising more than the cap."""
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=f) as g:
            while len(out) < max_bytes:
                if deadline is not None:
                    deadline.check("decompress")
                chunk = g.read(min(READ_CHUNK, max_bytes - len(out)))
                if not chunk:
                    break
                out += chunk
    except (OSError, EOFError, zlib.error) as exc:
        raise PageError(f"not a valid gzip file ({exc})") from None
    return bytes(out)


def read_page(path: Path, max_bytes: int = DEFAULT_MAX_PAGE_BYTES, deadline: Deadline | None = None) -> bytes:
    """Up to ``max_bytes + 1`` bytes of HTML from a regular file (``.gz``: decompressed within
    ``deadline``), NUL bytes dropped when the rest is text; PageError for empty, binary or broken gzip files."""
    with open_regular(path) as f:
        data = inflate(f, max_bytes + 1, deadline) if path.name.lower().endswith(".gz") else f.read(max_bytes + 1)
    if not data.strip():
        raise PageError("empty file")
    if looks_binary(data[:SNIFF_BYTES]):
        raise PageError("binary file, not HTML")
    if not HTML_MARKUP.search(data[:SNIFF_BYTES].replace(b"\x00", b"")):
        raise PageError("no HTML markup: not an HTML file")
    if not data.startswith(WIDE_BOMS) and b"\x00" in data:
        data = data.replace(b"\x00", b"")  # as an HTML parser does; the cut at max_bytes stays visible to analyze
        if not data.strip():
            raise PageError("empty file")
    return data


def extract_file(path: Path, url: str | None, timeout: float, max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
                 sandbox: Sandbox | None = None, name: str | None = None) -> tuple[str | None, list[str]]:
    """(JSON line or None, stderr lines) for one file, shown as ``name`` (default: its path); never
    raises for a bad file. With a ``sandbox`` the work runs in its child process, killed
    ``HARD_FACTOR`` budgets after the start."""
    if sandbox is None:
        return _extract_file(path, url, timeout, max_bytes, name)
    shown = one_line(name or str(path))
    try:
        result: tuple[str | None, list[str]] = sandbox.run(_extract_file, (path, url, timeout, max_bytes, name),
                                                           HARD_FACTOR * timeout if timeout > 0 else None)
    except HardTimeout:
        return None, [f"rankcrawl: error: {shown}: analysis stopped at {HARD_FACTOR:g} × the {timeout:g} s budget, skipped"]
    except WorkerDied:
        return None, [f"rankcrawl: error: {shown}: the analysis process died (out of memory?), skipped"]
    return result


def warm() -> None:
    """Analyse a tiny page once (models loaded, patterns compiled) before a sandbox forks its children."""
    analyze_within(WARM_PAGE, "http://warm.invalid/", timeout=0)


def _extract_file(path: Path, url: str | None, timeout: float, max_bytes: int,
                  name: str | None = None) -> tuple[str | None, list[str]]:
    shown = one_line(name or str(path))
    started = clock()
    try:
        data = read_page(path, max_bytes, Deadline(timeout * FULL_SHARE) if timeout > 0 else None)
        result = analyze_within(data, url, max_bytes=max_bytes, timeout=timeout, links="content",
                                started=started)
    except AnalysisTimeout:
        return None, [f"rankcrawl: error: {shown}: decompression over the {timeout:g} s budget, skipped"]
    except OSError as exc:
        return None, [f"rankcrawl: error: {shown}: {one_line(exc.strerror or str(exc))}"]
    except PageError as exc:
        return None, [f"rankcrawl: error: {shown}: {one_line(str(exc))}"]
    except (RecursionError, MemoryError) as exc:
        return None, [f"rankcrawl: error: {shown}: too complex to analyse ({type(exc).__name__})"]
    except Exception as exc:  # noqa: BLE001 - one bad page must not stop the batch; the line names the cause
        return None, [f"rankcrawl: error: {shown}: analysis failed: {type(exc).__name__}: {one_line(str(exc))}"]
    doc = result.doc
    if doc is None:
        return None, [f"rankcrawl: error: {shown}: analysis over the {timeout:g} s budget, skipped"]
    notes = []
    if result.outcome == "prefix":
        notes.append(f"rankcrawl: warning: {shown}: analysis over the {timeout:g} s budget, "
                     f"only its first {PREFIX_SHARE:.1%} analysed")
    elif doc.truncated:
        notes.append(f"rankcrawl: warning: {shown}: larger than the page size limit, truncated")
    if url is None and (dropped := unresolvable_links(doc.root)):
        many = f"{dropped} or more" if dropped == DROPPED_SCAN else str(dropped)
        notes.append(f"rankcrawl: warning: {shown}: {many} relative link{'s' if dropped > 1 else ''} dropped: "
                     "no base URL (give --url or --urls-from)")
    row = doc.to_json(name or str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    line = json.dumps(row, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (e.g. from a character reference): escape it
        line = json.dumps(row)
    return line, notes


DROPPED_SCAN = 2_000
"""Anchors ``unresolvable_links`` looks at, at most (a bounded check after the page's analysis)."""


def unresolvable_links(root: Any) -> int:
    """Anchors, among the first ``DROPPED_SCAN``, of a page analysed without a URL whose relative ``href``
    nothing resolves (no ``<base href>`` with a scheme); 0 when the page has such a base."""
    if root is None or base_url(root, None):
        return 0
    count = 0
    for anchor in islice(root.iter("a"), DROPPED_SCAN):
        href = (anchor.get("href") or "").strip()
        try:
            relative = bool(href) and not href.startswith("#") and not urlsplit(href).scheme
        except ValueError:  # not a URL at all (e.g. a broken IPv6 host): no link either way
            relative = False
        count += relative
    return count


def resolved(path: Path) -> Path | None:
    """``path.resolve()``, or None when it cannot be resolved (a symlink loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


@click.command("extract")
@click.option("--urls-from", "urls_from", type=click.Path(dir_okay=False), default=None,
              help="TSV file of path<TAB>url giving each page's URL (to resolve its links).")
@click.option("--url", default=None, help="URL of the page(s) not listed in --urls-from.")
@click.option("--timeout", type=click.FloatRange(min=0), default=DEFAULTS["RANKCRAWL_ANALYSIS_TIMEOUT"],
              show_default=True, help="Seconds of analysis per file (then its prefix, else skipped); 0 = no limit.")
@click.argument("paths", nargs=-1, required=True)
def extract(urls_from: str | None, url: str | None, timeout: float, paths: tuple[str, ...]) -> None:
    """Main text, title and content links of HTML files as JSON Lines (one object per file).

    PATH: .html/.htm/.html.gz files, folders (searched recursively, sorted), or - for stdin.
    """
    urls = read_map(urls_from) if urls_from else {}
    with tempfile.TemporaryDirectory(prefix="rankcrawl-extract-") as scratch:
        copy = stdin_copy(Path(scratch)) if STDIN in paths else None
        files = html_files(tuple(copy if p == STDIN and copy else p for p in paths))
        if not files:
            raise UserError(f"no .html/.htm/.html.gz file in {' '.join(map(one_line, paths))}")
        extract_all(files, urls, url, timeout, {Path(copy): STDIN} if copy else {})


def stdin_copy(scratch: Path) -> str:
    """The page on stdin (up to the cap, and one byte more to see a cut) copied to a file in ``scratch``."""
    copy = scratch / "stdin.html"
    copy.write_bytes(sys.stdin.buffer.read(DEFAULT_MAX_PAGE_BYTES + 1))
    return str(copy)


def extract_all(files: list[tuple[Path, str | None]], urls: dict[Path, str], url: str | None, timeout: float,
                names: dict[Path, str]) -> None:
    """One JSON line per file that could be analysed (``names``: files shown by another name, stdin's
    copy as ``-``); SystemExit(1) when any could not."""
    failed = 0
    out = sys.stdout
    with Sandbox(warm) as sandbox:
        for path, problem in files:
            if problem:
                row, notes = None, [f"rankcrawl: error: {one_line(str(path))}: {problem}"]
            else:
                where = resolved(path)
                row, notes = extract_file(path, urls.get(where, url) if where else url, timeout, sandbox=sandbox,
                                          name=names.get(path))
            for note in notes:
                click.echo(note, err=True)
            if row is None:
                failed += 1
                continue
            out.write(row + "\n")
    out.flush()
    if failed:
        raise SystemExit(1)
