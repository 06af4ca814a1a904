"""Every shell and Python example of the documentation runs on the offline sample, or its page says why it cannot
(tests/docs/snippets.py): a page's examples run in order in a copy of the folder Getting started's examples leave,
as a reader who followed Getting started would run them, each page in a fresh environment (`page_env`) that holds
no variable of sciwrite's the page does not set itself."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from tests.docs.snippets import (
    DOCS,
    NETWORK_GUARD,
    ROOT,
    START,
    PageRun,
    doc_pages,
    page_env,
    run_page,
    shell_commands,
    snippets,
)

#: Pages whose examples need an optional extra: (the module it installs, the reason the page is skipped without it).
NEEDS = {"inspect.md": ("inspect_ai", "the Inspect page's examples need the inspect extra (pip install -e '.[inspect]')")}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """The reader's home: its caches (the samples, the ONNX exports) start empty and are shared by the pages."""
    return tmp_path_factory.mktemp("snippet-home")


@pytest.fixture(scope="module")
def started(tmp_path_factory, home) -> Path:
    """Getting started's folder after its examples ran."""
    folder = tmp_path_factory.mktemp("snippets") / "getting-started"
    ran, _ = run_page(START, folder, home)
    assert ran >= 1
    return folder


@pytest.mark.slow
def test_getting_started_examples_run(started):
    assert (started / "eval" / "bm25-rag" / "summary.json").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in doc_pages() if p != START], ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page, started, home, tmp_path):
    needed = NEEDS.get(page.relative_to(DOCS).as_posix())
    if needed:
        pytest.importorskip(needed[0], reason=needed[1])
    work = tmp_path / page.stem
    shutil.copytree(started, work)
    run_page(page, work, home)


def test_a_block_after_a_not_run_note_is_not_run_and_a_failing_one_names_its_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text('# A page\n\n!!! note "Not run by the docs tests: needs an API key"\n\n```bash\nfalse\n```\n\n'
                    '- a list item\n\n    ```bash\n    true\n    false  # fails\n    ```\n')
    found = snippets(page)
    assert [(s.line, s.language, s.not_run_because) for s in found] == [(5, "bash", "needs an API key"),
                                                                         (11, "bash", None)]
    assert found[1].code == "true\nfalse  # fails\n"
    with pytest.raises(AssertionError, match=r"page\.md:11: `false  # fails` exited 1"):
        run_page(page, tmp_path / "work", tmp_path / "home")


def test_shell_lines_are_joined_and_comments_dropped():
    assert shell_commands("# set up\nsciwrite evaluate rwgbench \\\n    --split sample   # offline\n\nls\n") == [
        "sciwrite evaluate rwgbench --split sample   # offline", "ls"]


def test_python_blocks_of_a_page_share_names_and_run_in_its_folder(tmp_path):
    runner = PageRun(tmp_path, page_env(tmp_path / "home"))
    page = tmp_path / "p.md"
    page.write_text("```python\nfrom pathlib import Path\nPath('made.txt').write_text('x')\n```\n\n"
                    "```python\nassert Path('made.txt').read_text() == 'x'\n```\n\n```json\n{\"a\": 1}\n{\"b\": 2}\n```\n")
    for snippet in snippets(page):
        runner.run(snippet)
    assert (tmp_path / "made.txt").is_file()
    page.write_text('```json\n{"a": 1,}\n```\n')
    with pytest.raises(AssertionError, match=r"p\.md:2: not JSON"):
        runner.run(snippets(page)[0])


def test_the_readme_examples_are_examples_the_docs_run_or_mark():
    """The README is a landing page: each of its command lines is one a docs page holds, so the docs' test covers
    it (run there, or marked there with the reason)."""
    def words(command: str) -> tuple[str, ...]:
        return tuple(shlex.split(command, comments=True))

    in_docs = {words(command) for page in doc_pages() for s in snippets(page) if s.language == "bash"
               for command in shell_commands(s.code)}
    readme = [s for s in snippets(ROOT / "README.md") if s.language == "bash"]
    assert readme
    for snippet in readme:
        for command in shell_commands(snippet.code):
            assert words(command) in in_docs, f"README.md:{snippet.line}: `{command}` is in no docs page"


def _names(env_file: Path) -> dict[str, str]:
    """NAME -> value of an ``env`` listing (one variable a line; a value's later lines are left out)."""
    return dict(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)


def test_a_page_runs_in_a_fresh_environment_with_only_what_it_sets(tmp_path, monkeypatch, capsys):
    """The machine's sciwrite settings (a developer's profile, the suite's data folder) reach no command of a page,
    in bash, in this process or in a Python block: a page starts from `page_env`; an ``export`` line keeps its
    variable for the page's later commands, and ``NAME=value`` before a command sets it for that command only."""
    monkeypatch.setenv("SCIWRITE_PROFILE", "lite")  # set on the machine, not by the page
    before = dict(os.environ)
    page = tmp_path / "page.md"
    page.write_text("```bash\nsciwrite models\nenv > before.env\nexport SCIWRITE_PROFILE=lite\nsciwrite models\n"
                    "SCIWRITE_MODEL_DENSE_ENCODER=mine sciwrite models\nenv > after.env\n```\n\n"
                    "```python\nimport os\nopen('python.env', 'w').write(''.join(f'{k}={v}\\n' for k, v in "
                    "os.environ.items()))\n```\n")
    run_page(page, tmp_path / "work", tmp_path / "home")
    shown = capsys.readouterr().out
    assert [line.split("'")[1] for line in shown.splitlines() if line.startswith("Model roles under")] == [
        "paper", "lite", "lite"]
    assert shown.count("named by SCIWRITE_MODEL_DENSE_ENCODER") == 1
    fresh, after, python = (_names(tmp_path / "work" / name) for name in ("before.env", "after.env", "python.env"))
    assert {name for name in fresh if name.startswith("SCIWRITE_")} <= set(NETWORK_GUARD)
    assert fresh["HOME"] == str(tmp_path / "home") and fresh["HF_HUB_OFFLINE"] == "1"
    assert after["SCIWRITE_PROFILE"] == python["SCIWRITE_PROFILE"] == "lite"
    assert "SCIWRITE_MODEL_DENSE_ENCODER" not in after and "SCIWRITE_DATA_DIR" not in python
    # this process's settings are back as they were (an import may have added a library's own variable meanwhile)
    assert {k: v for k, v in os.environ.items() if k in before} == before
