"""sciwrite as users install it, not as the checkout: a wheel in a fresh venv gives `sciwrite.metric_path` folders
that `evaluate.load` reads, and the leaderboard Space's app.py serves from a non-editable install with an empty store
while the Hub is unreachable.

Both venvs borrow the dependencies from the test's own environment through a ``.pth`` line (which, unlike a site
directory, does not run that environment's editable-install hook), so they install sciwrite alone: seconds, not the
minutes a full dependency install takes (``scripts/bench/space_install.py`` times that).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _venv_with_sciwrite(tmp: Path, package: Path) -> Path:
    """A fresh venv holding `package` (a wheel or a source folder) installed without dependencies; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True)
    python = tmp / "venv" / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", site, str(package)], check=True, env={**os.environ, "PIP_NO_INDEX": "1"})
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the checkout (a build in the checkout would leave, and later reuse, build/)."""
    source = tmp_path_factory.mktemp("source") / "sciwrite"
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "outputs", ".cache"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(source)], check=True, env={**os.environ, "PIP_NO_INDEX": "1"})
    [built] = out.glob("sciwrite-*.whl")
    return built


def test_metric_path_from_a_wheel_is_loadable_by_evaluate(wheel, tmp_path):
    python = _venv_with_sciwrite(tmp_path, wheel)
    code = ("import evaluate, sciwrite; from importlib.resources import files; "
            "assert list((files('sciwrite.rwgbench.generation') / 'templates').iterdir()), 'no prompt templates'; "
            "assert (files('sciwrite.llm') / 'prices.yaml').is_file(), 'no price table'; "
            "p = sciwrite.metric_path('citation_density'); print(p); "
            "m = evaluate.load(str(p)); "
            "print(m.compute(predictions=['A [1] and [2].'], candidates=[['d1', 'd2']])['citation_density'])")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    path, value = done.stdout.split()[-2:]
    assert "site-packages" in path and not path.startswith(str(REPO)), path  # the wheel's copy, not the checkout
    assert float(value) == 2.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_space_serves_from_an_installed_sciwrite_with_the_hub_unreachable(wheel, tmp_path):
    python = _venv_with_sciwrite(tmp_path, wheel)
    port = _free_port()
    env = {**os.environ, "PORT": str(port), "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9",
           "SCIWRITE_LEADERBOARD_STORE": str(tmp_path / "store.sqlite"), "GRADIO_ANALYTICS_ENABLED": "False",
           "SCIWRITE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": ""}
    app = subprocess.Popen([str(python), str(REPO / "spaces" / "leaderboard" / "app.py")], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, page = time.monotonic() + 240, None
        while time.monotonic() < deadline and app.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode("utf-8", "replace")
                    break
            except OSError:
                time.sleep(1)
        assert page is not None, f"the Space never served: {app.stdout.read()[-3000:] if app.poll() is not None else ''}"
        assert "gradio" in page.lower()
        imported = subprocess.run([str(python), "-c", "import sciwrite; print(sciwrite.__file__)"],
                                  capture_output=True, text=True, env=env).stdout.strip()
        assert not imported.startswith(str(REPO)), imported  # the installed copy served
    finally:
        app.terminate()
        app.wait(timeout=30)
