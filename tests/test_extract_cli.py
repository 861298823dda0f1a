"""``rankcrawl extract``: JSON Lines per file, folders, .gz, URL maps, bad files reported and skipped."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rankcrawl.crawler.cli.main import main

CLI = [sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()"]

PARA = "<p>" + "Rivers carry water from the hills down to the sea every single day. " * 4 + "</p>"


ABSOLUTE = "https://river.example/next"
"""A link that needs no base URL (a relative one without --url adds a warning line)."""


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


def test_links_are_output_as_the_page_wrote_them(tmp_path: Path) -> None:
    """The graph sorts query arguments to identify pages; the extract output keeps the page's own URL."""
    f = tmp_path / "q.html"
    f.write_text(page("../list?b=2&a=1#top"))
    result, rows = run("--url", "http://Site.example/dir/q.html", str(f))
    assert result.exit_code == 0, result.output
    assert [link["url"] for link in rows[0]["links"]] == ["http://site.example/list?b=2&a=1"]


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
    good.write_text(page(ABSOLUTE))
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
    huge.write_text("<body>" + PARA * 20 + " " * 6_000_000 + "</body>")  # above the page cap (RANKCRAWL_MAX_PAGE_BYTES default)
    hrefs = tmp_path / "hrefs.html"
    hrefs.write_text(page("http://[::1") + "<a href='http://exa mple.com'>x</a><a href='javascript:1'>y</a>")
    proc = subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "extract", str(deep), str(huge), str(hrefs)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 3 and "Rivers carry water" in rows[0]["text"] and rows[2]["links"] == []
    assert "truncated" in proc.stderr and "Traceback" not in proc.stderr


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from rankcrawl.crawler.cli.main import main; main()", "extract", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_bogus_charsets_are_pages_not_crashes(tmp_path: Path) -> None:
    files = []
    for i, charset in enumerate(["hex", "rot13", "undefined", "idna", "no-such-charset", "utf-16"]):
        f = tmp_path / f"p{i}.html"
        f.write_bytes(page().replace("<head>", f'<head><meta charset="{charset}">').encode() + b"\xe9")
        files.append(str(f))
    result, rows = run(*files)
    assert result.exit_code == 0, result.output
    assert len(rows) == len(files) and all("Rivers carry water" in r["text"] for r in rows)


def test_an_analysis_failure_is_one_line_and_the_batch_goes_on(tmp_path: Path, monkeypatch) -> None:
    from rankcrawl.crawler.cli import extract as extract_module

    real = extract_module.analyze_within

    def failing(data, url, **kwargs):
        if b"poison" in data:
            raise LookupError("unknown encoding: poison\nsecond line")
        return real(data, url, **kwargs)

    monkeypatch.setattr(extract_module, "analyze_within", failing)
    (tmp_path / "a.html").write_text(page(ABSOLUTE).replace("River", "poison"))
    (tmp_path / "b.html").write_text(page(ABSOLUTE))
    result, rows = run(str(tmp_path))
    assert result.exit_code == 1
    assert [Path(r["path"]).name for r in rows] == ["b.html"]
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("rankcrawl: error: ") and "a.html" in line and "LookupError" in line


def test_nul_bytes_in_text_are_tolerated(tmp_path: Path) -> None:
    f = tmp_path / "nul.html"
    f.write_bytes(page().encode().replace(b"<h1>", b"\x00\x00<h1>").replace(b"water", b"wa\x00ter"))
    result, rows = run(str(f))
    assert result.exit_code == 0, result.output
    assert "Rivers carry water" in rows[0]["text"]


def test_fifo_and_devices_are_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    good = tmp_path / "good.html"
    good.write_text(page(ABSOLUTE))
    proc = cli(str(fifo), "/dev/zero", str(good), timeout=30)  # a FIFO read would block forever
    assert proc.returncode == 1
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 2 and all("not a regular file" in e for e in errors), proc.stderr
    assert [json.loads(line)["path"] for line in proc.stdout.splitlines()] == [str(good)]


def test_gzip_bomb_stops_at_the_page_cap(tmp_path: Path) -> None:
    member = gzip.compress(b"<p>" + b"word " * 200_000, compresslevel=9)  # 1 MB of text in ~1 KB
    bomb = tmp_path / "bomb.html.gz"
    with bomb.open("wb") as f:
        f.write(gzip.compress(b"<html><body>"))
        for _ in range(2000):  # 2000 gzip members: 2 GB once inflated
            f.write(member)
    assert bomb.stat().st_size < 4_000_000
    code = ("import resource, sys; from rankcrawl.crawler.cli.main import main\n"
            "try:\n    main()\nfinally:\n"
            "    print('maxrss_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, "extract", "--timeout", "0", str(bomb)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rss_mb = int(proc.stderr.split("maxrss_kb")[1]) / 1024
    assert rss_mb < 600, rss_mb  # the whole bomb would need > 2 GB
    assert "word word" in json.loads(proc.stdout)["text"]
    assert "larger than the page size limit, truncated" in proc.stderr


def test_hostile_file_names_stay_on_one_line(tmp_path: Path) -> None:
    f = tmp_path / "bad\nname\x1b[31m.html"
    f.write_bytes(b"")
    result, _ = run(str(f))
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert "\\x0a" in line and "\x1b" not in line and "empty file" in line


def test_stdin_non_html_and_empty_inputs(tmp_path: Path) -> None:
    page = b"<html><head><title>T</title></head><body><p>" + b"Some words of text here. " * 20 + b"</p></body></html>"
    done = subprocess.run([*CLI, "extract", "-", "--url", "http://site.example/a"], input=page, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["path"] == "-" and row["title"] == "T" and row["url"] == "http://site.example/a"
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    for args, stdin, says in ((["extract", str(text)], b"", f"rankcrawl: error: {text}: no HTML markup: not an HTML file"),
                              (["extract", "-"], b"", "rankcrawl: error: -: empty file"),
                              (["extract", str(tmp_path / "empty")], b"",
                               f"rankcrawl: error: no .html/.htm/.html.gz file in {tmp_path / 'empty'}")):
        (tmp_path / "empty").mkdir(exist_ok=True)
        failed = subprocess.run([*CLI, *args], input=stdin, capture_output=True, timeout=120)
        assert failed.returncode == 1 and failed.stdout == b""
        assert failed.stderr.decode().strip() == says


def test_inline_code_stays_in_its_sentence_and_dropped_links_are_reported() -> None:
    page = (b"<html><body><p>Run <code>x = int(input(\"Please enter an integer: \"))</code> now, then read "
            b"<a href='next.html'>the next part</a> and <a href='https://other.example/'>another site</a> of this "
            b"paragraph, which has enough words to be the main text of the page.</p></body></html>")
    done = subprocess.run([*CLI, "extract", "-"], input=page, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert 'Run x = int(input("Please enter an integer: ")) now, then read the next part' in row["text"]
    assert [link["url"] for link in row["links"]] == ["https://other.example/"]
    assert done.stderr.decode().strip() == ("rankcrawl: warning: -: 1 relative link dropped: no base URL "
                                            "(give --url or --urls-from)")
    with_url = subprocess.run([*CLI, "extract", "-", "--url", "http://site.example/a/"], input=page,
                              capture_output=True, timeout=120)
    assert with_url.returncode == 0 and with_url.stderr == b""
    assert "http://site.example/a/next.html" in with_url.stdout.decode()


def test_a_highlighted_listing_keeps_its_lines_indentation_and_operators() -> None:
    listing = ('<pre><span class="k">def</span> <span class="nf">ask</span><span class="p">():</span>\n'
               '    <span class="n">x</span> <span class="o">=</span> <span class="nb">int</span><span class="p">('
               '</span><span class="nb">input</span><span class="p">(</span><span class="s2">"Please enter an integer: "'
               '</span><span class="p">))</span>\n    <span class="k">return</span> <span class="n">x</span>\n</pre>')
    prose = "<p>" + "This function asks the user for a whole number and returns it to the caller. " * 3 + "</p>"
    page = f"<html><body><h1>Asking</h1>{prose}{listing}{prose}</body></html>".encode()
    done = subprocess.run([*CLI, "extract", "-"], input=page, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["text"]
    assert 'def ask():\n    x = int(input("Please enter an integer: "))\n    return x' in text
    assert "This function asks the user" in text
