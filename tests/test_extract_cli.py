"""``rankcrawl extract``: JSON Lines per file, folders, .gz, URL maps, bad files reported and skipped."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rankcrawl.crawler.cli.main import main

PARA = "<p>" + "Rivers carry water from the hills down to the sea every single day. " * 4 + "</p>"


def page(link: str = "/next") -> str:
    return (f"<html><head><title>River</title></head><body><h1>Rivers</h1>{PARA}"
            f"<p>{PARA[3:-4]} Read <a href='{link}'>the next part</a> of the story.</p>{PARA}</body></html>")


def run(*args: str):
    result = CliRunner().invoke(main, ["extract", *args])
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result, rows


def test_one_file_with_url(tmp_path: Path) -> None:
    f = tmp_path / "a.html"
    f.write_text(page())
    result, rows = run("--url", "http://site.example/dir/a.html", str(f))
    assert result.exit_code == 0, result.output
    (row,) = rows
    assert set(row) == {"path", "url", "title", "text", "links"}
    assert row["path"] == str(f) and row["title"] == "River" and "Rivers carry water" in row["text"]
    assert row["links"] == [{"url": "http://site.example/next", "text": "the next part", "weight": 1.0}]


def test_folder_recursion_gz_and_map(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.htm").write_text(page("b-next"))
    (tmp_path / "sub" / "a.html.gz").write_bytes(gzip.compress(page("a-next").encode()))
    (tmp_path / "notes.txt").write_text("not html")
    tsv = tmp_path / "map.tsv"
    tsv.write_text(f"b.htm\thttp://b.example/x/\n{tmp_path / 'sub' / 'a.html.gz'}\thttp://a.example/y/\n")
    result, rows = run("--urls-from", str(tsv), str(tmp_path))
    assert result.exit_code == 0, result.output
    assert [Path(r["path"]).name for r in rows] == ["b.htm", "a.html.gz"]
    assert [r["links"][0]["url"] for r in rows] == ["http://b.example/x/b-next", "http://a.example/y/a-next"]


def test_bad_files_are_reported_and_the_rest_processed(tmp_path: Path) -> None:
    good = tmp_path / "good.html"
    good.write_text(page())
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    binary = tmp_path / "bin.html"
    binary.write_bytes(bytes(range(256)) * 50)
    badgz = tmp_path / "bad.html.gz"
    badgz.write_bytes(b"not gzip at all")
    result, rows = run(str(empty), str(binary), str(badgz), str(tmp_path / "missing.html"), str(good))
    assert result.exit_code == 1
    assert [r["path"] for r in rows] == [str(good)]
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 4 and all(line.startswith("rankcrawl: error: ") for line in errors)
    assert "empty file" in errors[0] and "binary" in errors[1] and "gzip" in errors[2] and "no such" in errors[3]
    assert "Traceback" not in result.output


def test_bad_map_is_one_line_error(tmp_path: Path) -> None:
    tsv = tmp_path / "map.tsv"
    tsv.write_text("no tab here\n")
    result, _ = run("--urls-from", str(tsv), str(tmp_path))
    assert result.exit_code != 0 and "expected path<TAB>url" in result.output


def test_huge_and_deep_pages_via_subprocess(tmp_path: Path) -> None:
    deep = tmp_path / "deep.html"
    deep.write_text("<body>" + "<div>" * 10_000 + PARA * 3 + "</div>" * 10_000 + "</body>")
    huge = tmp_path / "huge.html"
    huge.write_text("<body>" + PARA * 20 + " " * 6_000_000 + "</body>")  # above the 5 MB page cap
    hrefs = tmp_path / "hrefs.html"
    hrefs.write_text(page("http://[::1") + "<a href='http://exa mple.com'>x</a><a href='javascript:1'>y</a>")
    proc = subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "extract", str(deep), str(huge), str(hrefs)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 3 and "Rivers carry water" in rows[0]["text"] and rows[2]["links"] == []
    assert "truncated" in proc.stderr and "Traceback" not in proc.stderr
