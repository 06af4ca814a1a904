"""SciIG's part of the quick start (`sciwrite.quickstart`): build the sample when missing, generate an introduction
for every test paper (the extractive floor without a model, THREE_SHOT with one), score it and print Table 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.generation.extractive import ExtractiveSciIG
from sciwrite.generation.quickstart_run import QuickstartRun, say, scorer
from sciwrite.generation.runner import run_generation
from sciwrite.metrics.memorisation import print_memorisation
from sciwrite.sciig.data.builder import write_sciig_sample
from sciwrite.sciig.data.configs import default_sciig_dir
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.report import format_sciig_table


def run_sciig_quickstart(run: QuickstartRun) -> dict[str, Any]:
    """{"sciig": the summary}; the tables under ``<out>/sciig/<system>/``, the generation under
    ``<out>/generations/sciig/``."""
    sciig_dir, out_dir = Path(run.source or default_sciig_dir()), run.out_dir
    if run.rebuild or not (sciig_dir / "README.md").exists():
        stats = write_sciig_sample(sciig_dir)
        papers_per_split = ", ".join(f"{n} {split}" for split, n in stats["papers"].items())
        print(f"built the SciIG sample in {sciig_dir}: {papers_per_split} papers")
    path = _generate(sciig_dir, out_dir / "generations" / "sciig", run)
    system = path.stem
    [summary] = scorer(run)([path], [system], out_dir / "sciig", sciig_dir)
    print(f"\nSciIG sample, {summary['n_papers']} papers, {run.writer} writer, profile {run.profile}:")
    print(format_sciig_table(summary))
    print_memorisation([summary])
    if format_model_line(summary):
        print(format_model_line(summary))
    print(f"\nwrote {out_dir / 'sciig' / system}/ and the generation under {out_dir / 'generations' / 'sciig'}")
    return {"sciig": summary}


def _generate(sciig_dir: Path, out: Path, run: QuickstartRun) -> Path:
    test = load_sciig("sample", source=sciig_dir, split="test").to_list()
    if run.model is None:
        method: Any = ExtractiveSciIG()
    else:
        method = SciIGMethod("THREE_SHOT", holdout=load_sciig("sample", source=sciig_dir, split="holdout").to_list(),
                             dataset="sample")
    path = out / f"{'extractive' if run.model is None else 'three_shot'}.jsonl"
    report = run_generation(test[:run.limit] if run.limit else test, method, run.backend(), path,
                            show_progress=run.show_progress, ledger=run.ledger(out),
                            meta={"benchmark": "sciig", "dataset": "sample", "model": run.model or "extractive",
                                  "method": method.name, "retriever": None})
    say("SciIG", report)
    return path


__all__ = ["run_sciig_quickstart"]
