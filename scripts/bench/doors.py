#!/usr/bin/env python
"""Every door of a result and what it does with an impossible one (issue 48).

The doors are found, not listed: every function under ``src/sciwrite`` that calls the one check of a result
(`sciwrite.core.metric_scales.check_result`), and every one that turns a system name into a path through the one
name check (`sciwrite.core.system_names`). Each door found is then fed one bad input through its public entry (the
command a user runs, or the function the Space calls), and the line says whether it was refused (with the first
words of the one-line error) or accepted. A door found without a probe here says so: add one.

    python scripts/bench/doors.py            # offline; about a minute (one Inspect run of 2 papers)
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "sciwrite"
#: The checks whose call sites are the doors, and the module that defines each (not a door itself).
CHECKS = {"check_result": "sciwrite.core.metric_scales", "system_path": "sciwrite.core.system_names",
          "check_system_name": "sciwrite.core.system_names"}


def call_sites() -> list[tuple[str, str, str, int]]:
    """(check, module, function, line) of every call of a check in `CHECKS`, found in the package's source."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            owner = next((c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and node in c.body), None)
            for call in ast.walk(node):
                name = _called(call)
                if name in CHECKS and CHECKS[name] != module:
                    found.append((name, module, f"{owner}.{node.name}" if owner else node.name, call.lineno))
    return sorted(set(found), key=lambda site: (site[0] != "check_result", site[1], site[3]))


def _called(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)


# -- one bad input per door -----------------------------------------------------------------------------------------

def cli(*argv: str) -> str:
    """``refused: <error>`` or ``accepted`` for one `sciwrite` command."""
    from sciwrite.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    text = err.getvalue().strip().removeprefix("sciwrite: error: ")
    return f"refused (exit {code}): {text}" if code else "accepted"


def raised(call: Callable[[], object]) -> str:
    try:
        call()
    except ValueError as err:
        return f"refused: {err}"
    return "accepted"


def folder(base: Path, name: str, summary: dict | None = None, rows: tuple[float, float] = (0.0, 1.0)) -> Path:
    """An RWGBench evaluation folder, its predictions beside it; `summary` fields over a plausible summary."""
    out = base / name
    out.mkdir(parents=True)
    predictions = base / f"{name}.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p, "pred": "See [1].", "candidates": ["d1"], "model": "m",
                                               "method": "RAG", "retriever": "bm25"}) + "\n" for p in ("p1", "p2")))
    body = {"system": name, "split": "sample", "predictions": str(predictions), "precision": sum(rows) / 2,
            "n_papers": 2, "coverage": {"n_scored": 2, "n_split": 144}, "profile": "lite",
            "provenance": {"benchmark": "rwgbench", "profile": "lite", "dataset": {"config": "sample"}},
            **(summary or {})}
    (out / "summary.json").write_text(json.dumps(body))
    (out / "per_paper.jsonl").write_text("".join(json.dumps({"paper_id": p, "precision": v}) + "\n"
                                                 for p, v in zip(("p1", "p2"), rows)))
    return out


def probe_writer(base: Path) -> tuple[str, str]:
    from sciwrite.benchmarks import get_benchmark
    from sciwrite.core.paper_row import typed_rows
    from sciwrite.core.summary import Summary
    from sciwrite.scoring.core import SystemResult
    from sciwrite.scoring.files import write_system
    from sciwrite.scoring.steps import ResultFiles

    summary = Summary.from_json({"system": "sys", "precision": 0.5, "coverage": {"n_scored": 500, "n_split": 144}})
    result = SystemResult("sys", summary, typed_rows([{"paper_id": "p1", "precision": 0.5}]), [], ResultFiles([]))
    return "write_system, coverage 500/144", raised(lambda: write_system(get_benchmark("rwgbench"), result,
                                                                        base / "sys"))


def probe_push(base: Path) -> tuple[str, str]:
    run = folder(base, "run", rows=(1.7, -0.7))
    return ("push results EVAL_DIR, rows 1.7 and -0.7 under an unchanged mean 0.5",
            cli("push", "results", str(run), "--model-repo", "org/m", "--dry-run", "--out", str(base / "dry")))


def probe_import(base: Path) -> tuple[str, str]:
    run = folder(base, "run", {"intervals": {"precision": [0.5, 0.1]}})
    return ("leaderboard import EVAL_DIR, interval [0.5, 0.1]",
            cli("leaderboard", "import", "--store", str(base / "board.sqlite"), "--benchmark", "rwgbench", str(run)))


def probe_worker(base: Path) -> tuple[str, str]:
    from sciwrite.core.paper_row import typed_rows
    from sciwrite.core.summary import Summary
    from sciwrite.leaderboard.store import ResultsStore
    from sciwrite.leaderboard.worker import Worker

    store = ResultsStore(base / "board.sqlite")
    store.add_submission(benchmark="rwgbench", split="sample", system="s", submitter="ann", sha256="sha",
                         predictions_jsonl='{"paper_id": "p1", "text": "x"}', n_predictions=1)
    bad = Summary.from_json({"precision": 0.5, "memorisation": {"mean": math.inf}})
    ended = Worker(store, lambda s, p: (bad, typed_rows([{"paper_id": "p1", "precision": 0.5}])), name="w").run_once()
    assert ended is not None
    return ("the Space's worker, memorisation mean inf",
            f"refused: {ended.error}" if ended.status == "FAILED" else f"accepted ({ended.status})")


def probe_paper_table(base: Path) -> tuple[str, str]:
    from sciwrite.rwgbench.metrics.report import TABLE2_METRICS

    run = folder(base, "run", {**dict.fromkeys(TABLE2_METRICS, 0.5), "coverage": {"n_scored": -1, "n_split": 144}})
    return "paper-table rwgbench-table2, coverage -1/144", cli("paper-table", "rwgbench-table2", "--summary", str(run))


def probe_inspect(base: Path) -> tuple[str, str]:
    import datasets
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from sciwrite.harness.inspect_scorers import ROW
    from sciwrite.sciig.data.builder import write_sciig_sample
    from sciwrite.sciig.inspect_task import sciig
    from sciwrite.sources.aclsum import aclsum_paper_dir

    datasets.disable_progress_bars()
    papers = base / "papers"
    papers.mkdir()
    for stem in ("2020.aacl-main.67", "2020.acl-main.547", "2020.acl-main.443", "2020.acl-main.573"):
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    write_sciig_sample(base / "sciig", paper_dir=papers)
    output = ModelOutput.from_content(model="mockllm", content="Earlier work studies parsing.")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=[output] * 10)
    [log] = inspect_eval(sciig(source=str(base / "sciig"), level="ELABORATE", metrics="rouge"), model=model, limit=2,
                         log_dir=str(base / "logs"), display="none")
    log = read_eval_log(log.location)
    first, second = (sample.scores["sciig_scores"].metadata[ROW] for sample in log.samples[:2])
    first["rouge1"], second["rouge1"] = 1.7, second["rouge1"] - (1.7 - first["rouge1"])  # the mean unchanged
    edited = base / "edited.eval"
    write_eval_log(log, str(edited))
    pushed = cli("push", "results", "--inspect-log", str(edited), "--model-repo", "org/m", "--dry-run", "--out",
                 str(base / "dry"))
    imported = cli("leaderboard", "import", "--store", str(base / "board.sqlite"), "--inspect-log", str(edited))
    return ("push results / leaderboard import --inspect-log, a row's rouge1 1.7 under an unchanged mean",
            f"push: {pushed[:60]}... | import: {imported}")


def probe_system_name(base: Path) -> tuple[str, str]:
    predictions = base / "run.jsonl"
    predictions.write_text(json.dumps({"paper_id": "p1", "text": "x [1]", "candidates": ["d1"]}) + "\n")
    os.chdir(base)
    verdict = cli("evaluate", "rwgbench", "--predictions", str(predictions), "--system", "../../escaped", "--out",
                  "inner/ev", "--split", "sample", "--profile", "lite", "--bootstrap", "0")
    escaped = sorted(str(p.relative_to(base.parent)) for p in base.parent.rglob("escaped"))
    return "evaluate --system ../../escaped --out inner/ev", f"{verdict} (written outside --out: {escaped or 'none'})"


def probe_duplicates(base: Path) -> tuple[str, str]:
    from sciwrite.rwgbench.paper_tables import TABLE3_METRICS

    metrics = {key: 0.5 for key, _ in TABLE3_METRICS}
    runs = [folder(base, name, metrics, rows=rows) for name, rows in (("a", (0.0, 1.0)), ("b", (0.5, 1.0)))]
    copy = shutil.copytree(runs[0], base / "a-copy")
    summary = json.loads((copy / "summary.json").read_text())
    (copy / "summary.json").write_text(json.dumps({**summary, "system": "a-copy"}))
    for run in [*runs, copy]:  # every Table 3 metric in the rows too, so that only the copy is wrong
        lines = [json.loads(line) for line in (run / "per_paper.jsonl").read_text().splitlines()]
        (run / "per_paper.jsonl").write_text("".join(json.dumps({**metrics, **row}) + "\n" for row in lines))
    return ("paper-table rwgbench-table3, one folder copied and renamed as the third system",
            cli("paper-table", "rwgbench-table3", "--evals", *map(str, [*runs, copy])))


#: The probe of each door, by (module, function) as `call_sites` finds it.
PROBES: dict[tuple[str, str], Callable[[Path], tuple[str, str]]] = {
    ("sciwrite.scoring.files", "write_system"): probe_writer,
    ("sciwrite.cli.push", "folder_run"): probe_push,
    ("sciwrite.leaderboard.runs", "read_evaluation"): probe_import,
    ("sciwrite.leaderboard.worker", "checked"): probe_worker,
    ("sciwrite.core.paper_tables", "SummaryKind._read"): probe_paper_table,
    ("sciwrite.harness.inspect_logs", "read_inspect_log"): probe_inspect,
    ("sciwrite.scoring.files", "evaluate_files"): probe_system_name,
}


def main() -> None:
    sites = call_sites()
    print(f"{len(sites)} call sites of the one checks ({', '.join(CHECKS)}):")
    done: set[tuple[str, str]] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for n, (check, module, function, line) in enumerate(sites):
            print(f"\n{check} in {module}.{function} (line {line})")
            probe = PROBES.get((module, function))
            if probe is None or (module, function) in done:
                print("  " + ("probed above" if probe else "no probe here: add one to PROBES"))
                continue
            done.add((module, function))
            base = Path(tmp) / f"door{n}" / "work"
            base.mkdir(parents=True)
            what, verdict = probe(base)
            print(f"  {what}\n  -> {verdict.replace(tmp, '<tmp>')[:300]}")
        base = Path(tmp) / "duplicates"
        base.mkdir()
        what, verdict = probe_duplicates(base)
        print(f"\nduplicates by content (SummaryKind.read_all)\n  {what}\n  -> {verdict.replace(tmp, '<tmp>')[:300]}")
    sys.exit(0)


if __name__ == "__main__":
    main()
