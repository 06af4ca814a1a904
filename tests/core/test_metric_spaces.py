"""scripts/push_metrics.py: each evaluate module as a Space in evaluate's layout, loadable by path as `evaluate` loads a
downloaded Space, with a working widget."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import evaluate
import pytest
import yaml

from sciwrite.core.metric_modules import available_metrics
from sciwrite.core.metric_spaces import SCIWRITE_REQUIREMENT, documented_example

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "push_metrics.py"


@pytest.fixture(scope="module")
def spaces(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spaces")
    argv = sys.argv
    sys.argv = ["push_metrics.py", "--namespace", "sciwrite-org", "--dry-run", "--out", str(out)]
    try:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    finally:
        sys.argv = argv
    return out


def test_every_module_becomes_a_space_in_evaluates_layout(spaces):
    assert sorted(p.name for p in spaces.iterdir()) == available_metrics()
    for folder in spaces.iterdir():
        assert sorted(p.name for p in folder.iterdir()) == sorted(["README.md", "app.py", "requirements.txt",
                                                                   f"{folder.name}.py"])
        front = yaml.safe_load((folder / "README.md").read_text().split("---", 2)[1])
        assert front["sdk"] == "gradio" and front["app_file"] == "app.py"
        assert {"evaluate", "metric"} <= set(front["tags"])
        assert SCIWRITE_REQUIREMENT in (folder / "requirements.txt").read_text().splitlines()
        assert f'evaluate.load("sciwrite-org/{folder.name}")' in (folder / "README.md").read_text()
        compile((folder / "app.py").read_text(), str(folder / "app.py"), "exec")


@pytest.mark.parametrize("name", ["citation_density", "memorisation", "citation_precision_recall"])
def test_a_space_loads_by_path_and_computes_its_documented_example(spaces, name):
    module = evaluate.load(str(spaces / name))  # how evaluate loads the folder it downloads for "ORG/<name>"
    example = documented_example(spaces / name / f"{name}.py")
    result = module.compute(**example)
    assert result == evaluate.load(str(Path(__file__).resolve().parents[2] / "metrics" / name)).compute(**example)


def test_the_widget_computes_and_shows_errors_as_text(spaces):
    app = runpy.run_path(str(spaces / "citation_density" / "app.py"), run_name="space")  # built, not launched
    shown = json.loads(app["compute"](app["EXAMPLE"]))
    assert shown["citation_density"] == 1.0
    assert app["compute"]('{"predictions": 3}').startswith("error: ")
