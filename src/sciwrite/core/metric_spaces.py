"""sciwrite's `evaluate` modules as Hub Spaces, in the layout ``evaluate-cli create`` makes, so that
``evaluate.load("ORG/<name>")`` works for anyone with sciwrite installed.

Each Space holds the module (``<name>.py``), its card as ``README.md`` with the Space front matter (Gradio SDK,
``app.py``) and the ``evaluate`` / ``metric`` tags, a ``requirements.txt`` naming sciwrite (the module imports it),
and an ``app.py``: a small widget of our own, since ``evaluate.utils.launch_gradio_widget`` is broken with
Gradio >= 4. The widget takes the module's keyword arguments as JSON (prefilled with the card's documented example)
and shows what ``compute`` returns.
"""

from __future__ import annotations

import ast
import doctest
import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from sciwrite import __version__
from sciwrite.core.metric_modules import available_metrics, metric_path

#: Where a Space installs sciwrite from (the leaderboard Space's source as well).
SCIWRITE_REQUIREMENT = "sciwrite @ git+https://github.com/sciwrite/sciwrite"
GRADIO_VERSION = "6.31.0"

APP = '''"""The {name} metric as a Space: a small widget over `compute` (evaluate's own widget is broken with Gradio >= 4)."""

import json
from pathlib import Path

import evaluate
import gradio as gr

module = evaluate.load(str(Path(__file__).with_name("{name}.py")))
EXAMPLE = {example!r}


def compute(arguments: str) -> str:
    """`module.compute(**arguments)` as indented JSON, or the error it raised."""
    try:
        result = module.compute(**json.loads(arguments))
    except Exception as err:  # shown to the user, not raised: a widget must stay up
        return f"error: {{type(err).__name__}}: {{err}}"
    return json.dumps(result, indent=2, default=str)


with gr.Blocks(title="{title}") as demo:
    gr.Markdown(Path(__file__).with_name("README.md").read_text(encoding="utf-8").split("---", 2)[-1])
    arguments = gr.Code(EXAMPLE, language="json", label="compute(**arguments), as JSON")
    result = gr.Code(label="result", language="json")
    gr.Button("Compute").click(compute, arguments, result)

if __name__ == "__main__":
    demo.launch()
'''


def _card(folder: Path) -> tuple[dict[str, Any], str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}, text
    _, head, body = text.split("---", 2)
    return yaml.safe_load(head) or {}, body


def documented_example(module_file: Path) -> dict[str, Any]:
    """The keyword arguments of the first ``metric.compute(...)`` call in the module's documented example."""
    tree = ast.parse(module_file.read_text(encoding="utf-8"))
    text = next((node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 and any(getattr(t, "id", "") == "_KWARGS_DESCRIPTION" for t in node.targets)), "")
    examples = doctest.DocTestParser().get_examples(text)
    namespace: dict[str, Any] = {}
    for example in examples:
        source = example.source.strip()
        if ".compute(" in source:
            call = ast.parse(source).body[0]
            node = next(n for n in ast.walk(call) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "compute")
            return {kw.arg: eval(compile(ast.Expression(kw.value), "<example>", "eval"), namespace)  # noqa: S307
                    for kw in node.keywords if kw.arg is not None}
        if not source.startswith(("import ", "from ")) and "evaluate.load" not in source:
            exec(compile(source, "<example>", "exec"), namespace)  # noqa: S102 - the module's own doctest lines
    return {}


def space_files(name: str, namespace: str) -> dict[str, str]:
    """The files of metric `name`'s Space: path -> text."""
    folder = metric_path(name)
    meta, body = _card(folder)
    front = {"title": meta.get("title", name), "emoji": "📏", "colorFrom": "indigo", "colorTo": "green",
             "sdk": "gradio", "sdk_version": GRADIO_VERSION, "python_version": "3.11", "app_file": "app.py",
             "pinned": False, "tags": list(dict.fromkeys(["evaluate", "metric", *(meta.get("tags") or [])])),
             "description": meta.get("description", ""), "license": "mit"}
    usage = (f"\n## Loading it from the Hub\n\n```python\nimport evaluate  # needs `pip install \"{SCIWRITE_REQUIREMENT}\"`\n"
             f"metric = evaluate.load(\"{namespace}/{name}\")\n```\n")
    example = documented_example(folder / f"{name}.py")
    return {
        f"{name}.py": (folder / f"{name}.py").read_text(encoding="utf-8"),
        "README.md": "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---" + body + usage,
        "requirements.txt": f"# the module imports sciwrite (version {__version__} when this Space was written)\n"
                            f"{SCIWRITE_REQUIREMENT}\nevaluate>=0.4.5\ngradio=={GRADIO_VERSION}\n",
        "app.py": APP.format(name=name, title=front["title"], example=json.dumps(example, indent=2)),
    }


def write_spaces(namespace: str, out: str | Path, names: list[str] | None = None) -> list[Path]:
    """Each metric's Space as a folder ``out/<name>/`` (what `push_spaces` would upload)."""
    written = []
    for name in names or available_metrics():
        folder = Path(out) / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for path, text in space_files(name, namespace).items():
            (folder / path).write_text(text, encoding="utf-8")
        written.append(folder)
    return written


def push_spaces(namespace: str, names: list[str] | None = None, *, token: str | None = None,
                api: Any = None) -> list[str]:
    """Create (or update) one Gradio Space per metric under `namespace`; returns their URLs."""
    from huggingface_hub import CommitOperationAdd, HfApi

    api = api or HfApi(token=token)
    urls = []
    for name in names or available_metrics():
        repo_id = f"{namespace}/{name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
        operations = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode("utf-8"))
                      for path, text in space_files(name, namespace).items()]
        api.create_commit(repo_id=repo_id, repo_type="space", operations=operations,
                          commit_message=f"sciwrite {__version__}: the {name} evaluate module")
        urls.append(f"https://huggingface.co/spaces/{repo_id}")
    return urls


__all__ = ["GRADIO_VERSION", "SCIWRITE_REQUIREMENT", "documented_example", "push_spaces", "space_files",
           "write_spaces"]
