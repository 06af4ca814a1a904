"""The documentation site builds with ``mkdocs build --strict`` from a copy of ``docs/``, and its generated pages
cover the code: every command of the argparse tree has a section in the CLI reference (a command added without one
fails here), every option of a command is in its table, and every evaluate module with a card has a page. Then, in a
real headless Chromium (the site is built once for both): the home page opens, the navigation's links lead to three
pages (Getting started, a guide under Guides, the command-line reference under Reference), each showing its own
heading, and the search box finds a command (Material's search runs in the page, from the site's own index)."""

from __future__ import annotations

import argparse
import functools
import re
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import evaluate
import pytest
import yaml

pytest.importorskip("mkdocs", reason="the docs site needs the docs extra (pip install -e '.[docs]'; make docs)")
pytest.importorskip("material", reason="the docs site needs mkdocs-material (the docs extra)")

from sciwrite.cli import build_parser  # noqa: E402
from sciwrite.cli.reference import commands  # noqa: E402
from tests.leaderboard.test_browser import CHROMIUM, CHROMIUM_ARGS, SKIP_REASON  # noqa: E402

#: The site build takes tens of seconds: `make test-slow` runs these (CI runs it; `make docs` builds the site too).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def build_site(work: Path) -> tuple[Path, Path]:
    """(the generated docs folder, the built site) from a copy of the repository's docs in `work`."""
    shutil.copytree(ROOT / "docs", work / "docs", ignore=shutil.ignore_patterns("generated"))
    shutil.copy(ROOT / "mkdocs.yml", work / "mkdocs.yml")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "docs" / "build_pages.py"), "--docs", str(work / "docs")],
                   check=True, capture_output=True, text=True)
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(work / "mkdocs.yml"),
                            "--site-dir", str(work / "site")], capture_output=True, text=True,
                           env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert built.returncode == 0, built.stderr[-3000:]
    return work / "docs" / "generated", work / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("docs"))


def test_every_command_and_flag_is_in_the_cli_reference(site):
    generated, built = site
    page = (generated / "cli.md").read_text()
    for words, parser, _ in commands(build_parser()):
        assert f"## sciwrite {' '.join(words)}\n" in page, words
        for action in parser._actions:
            if action.option_strings and action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                assert f"`{action.option_strings[0]}`" in page, (words, action.option_strings)
    assert (built / "generated" / "cli" / "index.html").is_file()
    assert "sciwrite evaluate rwgbench" in (built / "generated" / "cli" / "index.html").read_text()


def test_every_metric_module_has_a_page(site):
    generated, built = site
    cards = sorted(p.parent.name for p in (ROOT / "metrics").glob("*/README.md"))
    assert len(cards) >= 20
    for name in cards:
        assert (generated / "metrics" / f"{name}.md").is_file(), name
        assert (built / "generated" / "metrics" / name / "index.html").is_file(), name
    page = (generated / "metrics" / "sciig_rouge.md").read_text()
    assert page.startswith("# sciig_rouge\n") and "---\ntitle:" not in page  # the Hub front matter is not shown
    # the module's declared interface, as evaluate.load gives it: its inputs and their description
    info = evaluate.load(str(ROOT / "metrics" / "citation_density"))._info()
    page = (generated / "metrics" / "citation_density.md").read_text()
    assert "| `predictions` | `Value('string')` |" in page
    assert info.inputs_description.strip().splitlines()[1].strip() in page


def test_a_broken_link_fails_the_build(tmp_path):
    """The site's own configuration (--strict, link validation) on a one-page site whose page links nowhere."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(nav=["index.md"], plugins=["search"])
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](no-such-page.md)\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml"),
                            "--site-dir", str(tmp_path / "site")], capture_output=True, text=True,
                           env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert built.returncode != 0 and "no-such-page.md" in built.stderr
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nNo link.\n")
    assert subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")], capture_output=True,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"}).returncode == 0


def nav_pages(nav) -> list[str]:
    """Every page the navigation of mkdocs.yml lists."""
    found = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found.extend(nav_pages(value) if isinstance(value, list) else [value])
    return found


def test_every_page_of_the_navigation_is_written(site):
    """No page of the navigation is a stub: each has a title and a few paragraphs."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert len(pages) >= 25
    generated, _ = site
    for page in pages:
        path = (generated.parent / page)
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# ") and len(text.split()) >= 80, f"docs/{page} is a stub"


def test_a_not_run_note_is_shown_to_readers(site):
    """The marker that keeps an example out of the docs tests is an admonition the reader sees, with its reason."""
    _, built = site
    html = (built / "evaluate-a-model" / "index.html").read_text(encoding="utf-8")
    assert 'class="admonition note"' in html and "Not run by the docs tests: " in html


def test_the_api_reference_renders_the_docstrings(site):
    """mkdocstrings found the objects: their signatures and docstrings are in the pages."""
    _, built = site
    html = (built / "api" / "scoring" / "index.html").read_text(encoding="utf-8")
    assert "score_systems" in html and 'class="doc doc-object' in html


WAIT_MS = 30_000
#: (nav section or None for a top-level page, link text, the page's path under docs/, its address in the site)
NAV_PAGES = [(None, "Getting started", "getting-started.md", "getting-started/"),
             ("Guides", "The leaderboard Space", "guides/leaderboard.md", "guides/leaderboard/"),
             ("Reference", "Command line", "generated/cli.md", "generated/cli/")]


def page_heading(markdown: Path) -> str:
    """The text of a page's `# ` heading (as the site shows it: inline code and emphasis marks dropped)."""
    for line in markdown.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return re.sub(r"[`*_]", "", line[2:]).strip()
    raise AssertionError(f"{markdown} has no '# ' heading")


@pytest.fixture(scope="module")
def served(site):
    """(the address of the built site over HTTP on 127.0.0.1, the docs folder it was built from); search needs a
    server: it fetches its index."""
    generated, site = site

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", generated.parent
    server.shutdown()


@pytest.mark.skipif(bool(SKIP_REASON), reason=SKIP_REASON)
def test_navigation_and_search(served):
    from playwright.sync_api import expect, sync_playwright

    url, docs = served
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        expect(page.locator("h1").first).to_have_text(re.compile(r"^sciwrite"), timeout=WAIT_MS)  # then its permalink
        nav = page.locator("nav.md-nav--primary")
        for section, link, source, address in NAV_PAGES:
            # a section's links are in its own list, under its label (the sidebar shows every section open)
            where = nav if section is None else nav.locator("li.md-nav__item--section").filter(
                has=page.locator(":scope > label", has_text=section))
            where.get_by_role("link", name=link, exact=True).first.click()
            expect(page).to_have_url(url + address, timeout=WAIT_MS)
            heading = page_heading(docs / source)
            expect(page.locator("h1").first).to_have_text(re.compile(f"^{re.escape(heading)}"), timeout=WAIT_MS)
        box = page.locator("input.md-search__input")  # in the header at a laptop's width
        box.click()
        results = page.locator(".md-search-result__item")
        # the search index loads in a worker after the page: a query typed before it is ready finds nothing, so
        # type it again until results come (at most WAIT_MS)
        for _ in range(WAIT_MS // 1000):
            box.fill("")
            box.press_sequentially("judge-check")
            try:
                expect(results.first).to_be_visible(timeout=1000)
                break
            except AssertionError:
                continue
        expect(results.first).to_be_visible(timeout=WAIT_MS)
        # the commands are found on the CLI reference page (how search ranks its sections may vary)
        found = page.locator(".md-search-result").inner_text()
        assert "Command-line reference" in found and "judge" in found
        browser.close()
