"""The documentation site builds with ``mkdocs build --strict`` from a copy of ``docs/``, and its generated pages
cover the code: every command of the argparse tree has a section in the CLI reference (a command added without one
fails here), every option of a command is in its table, and every evaluate module with a card has a page."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs site needs the docs extra (pip install -e '.[docs]'; make docs)")
pytest.importorskip("material", reason="the docs site needs mkdocs-material (the docs extra)")

from sciwrite.cli import build_parser  # noqa: E402
from sciwrite.cli.reference import commands  # noqa: E402

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


def test_a_broken_link_fails_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("generated"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "docs" / "build_pages.py"), "--docs",
                    str(tmp_path / "docs")], check=True, capture_output=True)
    (tmp_path / "docs" / "index.md").write_text("[gone](no-such-page.md)\n")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml"),
                            "--site-dir", str(tmp_path / "site")], capture_output=True, text=True,
                           env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert built.returncode != 0 and "no-such-page.md" in built.stderr
