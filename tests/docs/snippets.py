"""The documentation's code blocks, found and run the way a reader would run them.

Every fenced ``bash`` or ``python`` block of a page under ``docs/`` runs on the offline sample, in the page's own
working folder, in the order the page gives them (a block may use what an earlier block of its page wrote), or it
follows a note that says why it cannot run here, which the page shows to its readers::

    !!! note "Not run by the docs tests: needs an OpenAI API key"

    ```bash
    sciwrite generate rwgbench --model openai:gpt-5.5 ...
    ```

A ``json`` block must parse (as one document or one object per line) and a ``yaml`` block must load; other
languages (``text``, output) are shown, not checked.

Commands that start with ``sciwrite`` run in this process through ``sciwrite.cli.main`` (models are memoised, so a
page of commands costs its computation, not an interpreter start and a model load per command); any other command
line runs in ``bash`` with the virtual environment's ``bin`` first on the PATH. Python blocks of one page share a
namespace, as in a doctest.

A page runs as in a reader's new terminal (`page_env`): a fresh environment holding the machine's essentials (PATH,
locale, a home of its own with empty caches, shared by the pages of one run as a reader's home is) and the test
machine's offline switches, and no other variable: no ``SCIWRITE_*`` setting, no profile, no data folder. What a
page needs it sets where its reader sees it: an ``export NAME=value`` line (kept for the page's later commands,
as a shell keeps it) or ``NAME=value sciwrite ...`` (for that command only), or a flag such as ``--profile lite``.
The tests are ``tests/docs/test_snippets.py``; an author runs one page with::

    python -m tests.docs.snippets docs/guides/judges.md
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SHELL = ("bash", "sh", "shell", "console")
PYTHON = ("python", "py", "pycon")
RUNNABLE = SHELL + PYTHON
MARKER = re.compile(r'^!!! note "Not run by the docs tests: (?P<reason>[^"]+)"\s*$')
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")
SHELL_SYNTAX = re.compile(r"[|<>;&`$()]")  # a line with any of these goes to bash, not to sciwrite.cli.main
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")  # ``NAME=value`` before a command, or after ``export``
#: What a page's environment takes from the machine: where programs are, the locale and the terminal. None of them
#: is a setting of sciwrite's, and a reader's terminal has them all.
ESSENTIALS = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ", "USER", "LOGNAME", "SHELL")
#: What the test machine adds so that no example reaches the network: the Hub libraries' offline switches and
#: Gradio's telemetry switch. A reader's machine may be online; the pages' examples download nothing either way.
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "GRADIO_ANALYTICS_ENABLED": "False"}
#: The test suite's network guard (tests/netguard): the folder of its sitecustomize on PYTHONPATH and the file its
#: children report to. Carried when the suite set them, so that a child process is guarded too; sciwrite reads
#: neither (the log's name starts with SCIWRITE_ but it belongs to the tests, not to the package).
NETWORK_GUARD = ("PYTHONPATH", "SCIWRITE_TEST_NETWORK_LOG")
#: Variables bash sets itself, never carried from an ``export`` line.
_BASH_OWN = frozenset({"PWD", "OLDPWD", "SHLVL", "_"})


@dataclass(frozen=True)
class Snippet:
    """One fenced block: where it is, its language, its code, and why it is not run (None when it is run)."""

    page: Path
    line: int
    language: str
    code: str
    not_run_because: str | None = None

    @property
    def where(self) -> str:
        return f"{shown(self.page)}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.language in RUNNABLE


def shown(page: Path) -> str:
    """The page's path as a reader of the repository names it."""
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def doc_pages(docs: Path = DOCS) -> list[Path]:
    """The hand-written pages (the generated ones hold no examples of their own)."""
    return sorted(p for p in docs.rglob("*.md") if "generated" not in p.relative_to(docs).parts)


def snippets(page: Path) -> list[Snippet]:
    """Every fenced block of `page`, with the not-run note that precedes it, if any."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Snippet] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        found.append(Snippet(page, i + 1, opening["lang"].lower(), "\n".join(body) + "\n", _note_before(lines, i)))
        i = j + 1
    return found


def _note_before(lines: list[str], fence_index: int) -> str | None:
    """The reason of the not-run note just above the fence (blank lines between are allowed)."""
    k = fence_index - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    match = MARKER.match(lines[k].strip()) if k >= 0 else None
    return match["reason"] if match else None


def shell_commands(code: str) -> list[str]:
    """The command lines of a shell block: continuation lines joined, comments and blank lines dropped."""
    commands, current = [], ""
    for raw in code.splitlines():
        line = raw.strip() if current else raw.rstrip()
        if line.endswith("\\"):
            current += line[:-1].rstrip() + " "
            continue
        current += line
        if current.strip() and not current.lstrip().startswith("#"):
            commands.append(current.strip())
        current = ""
    return commands


@dataclass
class PageRun:
    """Runs one page's blocks in `workdir`; Python blocks share `namespace`."""

    workdir: Path
    env: dict[str, str]
    namespace: dict = field(default_factory=dict)

    def run(self, snippet: Snippet) -> None:
        """Run one block; AssertionError naming the page, the line and the command when it fails."""
        if snippet.language in SHELL:
            for command in shell_commands(snippet.code):
                self._shell(command, snippet)
        elif snippet.language in PYTHON:
            with self._inside():
                code = compile(snippet.code, snippet.where, "exec")
                exec(code, self.namespace)  # noqa: S102 - the docs' own examples, run as a reader runs them
        elif snippet.language == "json":
            _parse_json(snippet)
        elif snippet.language in ("yaml", "yml"):
            yaml.safe_load(snippet.code)

    def _shell(self, command: str, snippet: Snippet) -> None:
        words = shlex.split(command, comments=True)
        if words and words[0] == "export":
            self._export(command, words[1:], snippet)
            return
        assigned = list(itertools.takewhile(ASSIGNMENT.match, words))
        words = words[len(assigned):]
        if words and words[0] == "sciwrite" and not SHELL_SYNTAX.search(command):
            argv = [expanded for word in words[1:] for expanded in (sorted(glob.glob(word, root_dir=self.workdir))
                                                                    if glob.has_magic(word) else [word]) or [word]]
            from sciwrite.cli import main

            with self._inside(dict(word.split("=", 1) for word in assigned)):
                status = main(argv)
            assert status == 0, f"{snippet.where}: `{command}` exited {status}"
            return
        sys.stdout.write(self._bash(command, snippet))

    def _bash(self, script: str, snippet: Snippet) -> str:
        """Run `script` in bash in the page's folder and environment; its output, or AssertionError naming the
        page, the line and the command when it fails."""
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=self.workdir, env=self.env,
                              capture_output=True, text=True)
        assert done.returncode == 0, (f"{snippet.where}: `{script}` exited {done.returncode}\n"
                                      f"{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout

    def _export(self, command: str, names: list[str], snippet: Snippet) -> None:
        """An ``export NAME=value ...`` line: bash evaluates it, and the names it exports stay in the page's
        environment for its later commands, as they stay in a reader's shell."""
        exported = [name.split("=", 1)[0] for name in names if not name.startswith("-")]
        output = self._bash(f"{command}\nenv -0", snippet)
        after = dict(item.split("=", 1) for item in output.split("\0") if "=" in item)
        self.env.update({name: after[name] for name in exported if name in after and name not in _BASH_OWN})

    @contextlib.contextmanager
    def _inside(self, assigned: dict[str, str] | None = None) -> Iterator[None]:
        """This process in the page's folder with exactly the page's environment (and a command's own
        ``NAME=value`` words), as a child process of the reader's shell would have it; restored afterwards. A library
        that reads a setting once, at import (the Hub libraries' cache folders and offline switches), keeps this
        process's: the suite's private caches, and the same offline switches as `OFFLINE`."""
        before_env, before_cwd = dict(os.environ), os.getcwd()
        os.environ.clear()
        os.environ.update({**self.env, **(assigned or {})})
        os.chdir(self.workdir)
        try:
            yield
        finally:
            os.chdir(before_cwd)
            os.environ.clear()
            os.environ.update(before_env)


def _parse_json(snippet: Snippet) -> None:
    try:
        json.loads(snippet.code)
    except json.JSONDecodeError:
        for number, line in enumerate(snippet.code.splitlines(), snippet.line + 1):
            if line.strip():
                try:
                    json.loads(line)
                except json.JSONDecodeError as err:
                    raise AssertionError(f"{snippet.page}:{number}: not JSON: {err}") from None


def count_blocks(page: Path) -> tuple[int, int]:
    """(shell/Python blocks the docs tests run, those marked not run) of `page`."""
    blocks = [s for s in snippets(page) if s.runnable]
    return sum(not s.not_run_because for s in blocks), sum(bool(s.not_run_because) for s in blocks)


def page_env(home: Path) -> dict[str, str]:
    """The fresh environment a page starts in: `ESSENTIALS` from this machine, the virtual environment's ``bin``
    first on PATH, `home` as HOME (so ``~/.cache/sciwrite`` is that home's: empty at first, as a new reader's, and
    never the developer's), `OFFLINE` and the suite's `NETWORK_GUARD`. Nothing else: no ``SCIWRITE_*`` setting of
    the machine reaches a page; what a page needs it sets itself."""
    env = {name: os.environ[name] for name in (*ESSENTIALS, *NETWORK_GUARD) if name in os.environ}
    env.update(OFFLINE, HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return env


def run_page(page: Path, workdir: Path, home: Path) -> tuple[int, int]:
    """Run every runnable block of `page` in a fresh `page_env` with `home`; (blocks run, blocks marked not run)."""
    workdir.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    runner = PageRun(workdir, page_env(home))
    ran = marked = 0
    for snippet in snippets(page):
        if snippet.not_run_because:
            marked += snippet.runnable
            continue
        runner.run(snippet)
        ran += snippet.runnable
    return ran, marked


START = DOCS / "getting-started.md"  # every other page starts where this one ends (its runs, evaluations, board)


def start_folder(work: Path, home: Path) -> Path:
    """Getting started's folder after its blocks ran: what every other page's examples start from."""
    folder = work / "getting-started"
    run_page(START, folder, home)
    return folder


def main(argv: list[str]) -> None:
    """Run the pages named (every page when none is), or with ``--count`` only count their blocks."""
    import shutil
    import tempfile

    count_only = "--count" in argv
    pages = [Path(name).resolve() for name in argv if name != "--count"] or doc_pages()
    work = Path(tempfile.mkdtemp(prefix="sciwrite-snippets-"))
    started = None if count_only else start_folder(work, work / "home")
    totals = [0, 0]
    for page in pages:
        ran, marked = count_blocks(page)
        if not count_only and page != START:
            folder = work / page.relative_to(DOCS).with_suffix("").as_posix().replace("/", "-")
            shutil.copytree(started, folder)
            run_page(page, folder, work / "home")
        totals[0] += ran
        totals[1] += marked
        print(f"{shown(page)}: {ran} {'to run' if count_only else 'run'}, {marked} marked not run")
    print(f"{len(pages)} pages: {totals[0]} shell/Python blocks {'to run' if count_only else 'run'}, "
          f"{totals[1]} marked not run (work folder {work})")


if __name__ == "__main__":
    main(sys.argv[1:])
