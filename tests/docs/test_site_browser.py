"""The built documentation site in a real headless Chromium: the home page opens, the navigation leads to three
pages, and the search box finds a command (Material's search runs in the page, from the site's own index)."""

from __future__ import annotations

import functools
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.docs.test_site import build_site
from tests.leaderboard.test_browser import CHROMIUM, CHROMIUM_ARGS, SKIP_REASON

pytest.importorskip("mkdocs", reason="the docs site needs the docs extra (pip install -e '.[docs]'; make docs)")
pytestmark = pytest.mark.skipif(bool(SKIP_REASON), reason=SKIP_REASON)

WAIT_MS = 30_000


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The built site over HTTP on 127.0.0.1 (search needs a server: it fetches its index)."""
    _, site = build_site(tmp_path_factory.mktemp("docs"))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_navigation_and_search(served):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(served)
        expect(page.locator("h1").first).to_have_text(re.compile(r"^sciwrite"), timeout=WAIT_MS)  # then its permalink
        for link, heading in (("Getting started", "Getting started"), ("Benchmarks", "The benchmarks"),
                              ("Command-line reference", "Command-line reference")):
            page.locator("nav.md-nav--primary").get_by_role("link", name=link, exact=True).first.click()
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
