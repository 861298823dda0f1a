"""``rankcrawl extract``: page analysis of local HTML files as JSON Lines."""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from pathlib import Path

import click

from rankcrawl.pipelines.analyze import analyze

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")


def html_files(paths: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    """(file, problem) for every PATH: files as given, folders recursed (sorted)."""
    out: list[tuple[Path, str | None]] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(HTML_SUFFIXES))
            out.extend((f, None) for f in found)
        elif p.exists():
            out.append((p, None))
        else:
            out.append((p, "no such file or folder"))
    return out


def read_map(path: str) -> dict[Path, str]:
    """MAP.tsv (path<TAB>url) → {resolved path: url}; relative paths count from the cwd and from the map's folder."""
    table: dict[Path, str] = {}
    folder = Path(path).resolve().parent
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"cannot read map {path}: {exc}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        name, sep, url = line.partition("\t")
        if not sep or not url.strip():
            raise click.ClickException(f"{path}:{n}: expected path<TAB>url")
        table.setdefault((folder / name).resolve(), url.strip())
        table[Path(name).resolve()] = url.strip()
    return table


def read_page(path: Path) -> bytes:
    """The HTML bytes of a file (gunzipped for .gz); ValueError for empty or binary files."""
    data = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ValueError(f"not a valid gzip file ({exc})") from None
    if not data.strip():
        raise ValueError("empty file")
    head = data[:8192]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError("binary file, not HTML")
    return data


@click.command("extract")
@click.option("--urls-from", "urls_from", type=click.Path(dir_okay=False), default=None,
              help="TSV file of path<TAB>url giving each page's URL (to resolve its links).")
@click.option("--url", default=None, help="URL of the page(s) not listed in --urls-from.")
@click.argument("paths", nargs=-1, required=True)
def extract(urls_from: str | None, url: str | None, paths: tuple[str, ...]) -> None:
    """Main text, title and content links of HTML files as JSON Lines (one object per file).

    PATH: .html/.htm/.html.gz files, or folders (searched recursively, sorted).
    """
    urls = read_map(urls_from) if urls_from else {}
    failed = 0
    out = sys.stdout
    for path, problem in html_files(paths):
        try:
            if problem:
                raise ValueError(problem)
            data = read_page(path)
            page_url = urls.get(path.resolve(), url)
            doc = analyze(data, page_url)
        except (OSError, ValueError) as exc:
            failed += 1
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            click.echo(f"rankcrawl: error: {path}: {reason}", err=True)
            continue
        if doc.truncated:
            click.echo(f"rankcrawl: warning: {path}: larger than the page size limit, truncated", err=True)
        out.write(json.dumps(doc.to_json(str(path)), ensure_ascii=False) + "\n")
    out.flush()
    if failed:
        raise SystemExit(1)

