"""`sciwrite fetch arxiv` checks what it can check on this machine (its --out folder, its URLs, its date window)
before it sends a request: a bad one fails at once, in one line, instead of after a run of retries or downloads."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from sciwrite.cli import main
from tests.cli.error_line import error_line
from tests.fakes.arxiv import ArxivServer

PAPER = {"arxiv_id": "2607.00001", "version": 1, "published": "2026-07-01", "title": "A paper", "abstract": "Words.",
         "authors": ["Ada Lovelace"], "categories": ["cs.CL"], "licence": "http://creativecommons.org/licenses/by/4.0/"}


def fetch(server: ArxivServer, out: Path | str, *extra: str, since: str = "2026-07-01") -> list[str]:
    return ["fetch", "arxiv", "--category", "cs.CL", "--since", since, "--out", str(out), "--arxiv-api-url", server.api_url,
            "--arxiv-html-url", server.html_url, "--arxiv-oai-url", server.oai_url, "--arxiv-min-interval", "0", *extra]


def refused(argv: list[str], server: ArxivServer, capsys) -> str:
    """The one error line of `argv`, which must exit 2 without sending the server a request."""
    line = error_line(argv, capsys)
    assert server.requests == []  # nothing sent
    return line


@pytest.fixture
def server():
    with ArxivServer([PAPER], {"2607.00001v1": "<html><!-- LaTeXML --><p>text</p></html>"}) as running:
        yield running


def test_out_that_is_a_file_is_refused_first(tmp_path, server, capsys):
    out = tmp_path / "papers.txt"
    out.write_text("", encoding="utf-8")
    line = refused(fetch(server, out), server, capsys)
    assert f"{out}: --out is a file, not a folder" in line


@pytest.mark.parametrize(("name", "make", "says"), [
    ("html", "file", "is a file where the fetch keeps its pages (a folder)"),
    ("manifest.json", "folder", "is a folder where the fetch writes its manifest (a file)"),
    ("papers.jsonl", "folder", "is a folder where the fetch writes its paper log (a file)"),
])
def test_out_holding_the_wrong_kind_of_entry_is_refused_first(tmp_path, server, capsys, name, make, says):
    entry = tmp_path / name
    entry.mkdir() if make == "folder" else entry.write_text("", encoding="utf-8")
    line = refused(fetch(server, tmp_path), server, capsys)
    assert f"{entry}: {says}" in line


@pytest.mark.parametrize("flag", ["--arxiv-api-url", "--arxiv-html-url", "--arxiv-oai-url"])
@pytest.mark.parametrize("url", ["localhost:8000/api", "ftp://example.org/api", "http://"])
def test_a_url_that_is_not_http_is_refused_naming_the_flag(tmp_path, server, capsys, flag, url):
    argv = fetch(server, tmp_path)
    argv[argv.index(flag) + 1] = url
    line = refused(argv, server, capsys)
    assert f"argument {flag}: expected an http:// or https:// URL" in line and repr(url) in line
    assert not (tmp_path / "manifest.json").exists()


def test_a_window_that_starts_after_today_is_refused(tmp_path, server, capsys):
    tomorrow = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=2)
    line = refused(fetch(server, tmp_path, since=tomorrow.isoformat()), server, capsys)
    assert f"--since {tomorrow.isoformat()} is after today" in line
    assert not (tmp_path / "manifest.json").exists()


@pytest.mark.parametrize("category", ["cs CL", "cat:cs.CL", "cs.CL)", ""])
def test_a_category_that_is_not_one_is_refused(tmp_path, server, capsys, category):
    argv = fetch(server, tmp_path)
    argv[argv.index("--category") + 1] = category
    line = refused(argv, server, capsys)
    assert "argument --category: expected an arXiv category such as cs.CL or hep-th" in line


@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_a_pause_that_is_not_a_finite_number_of_seconds_is_refused(value, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fetch", "arxiv", "--category", "cs.CL", "--since", "2026-07-01", "--arxiv-min-interval", value])
    assert exit_info.value.code == 2
    assert "--arxiv-min-interval" in capsys.readouterr().err
