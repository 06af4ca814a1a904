"""SciIG's part of the quick start (`sciwrite.quickstart`): build the sample when missing, generate an introduction
for every test paper (the extractive floor without a model, THREE_SHOT with one), score it and print Table 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.generation.quickstart_run import QuickstartRun, say, scorer
from sciwrite.metrics.memorisation import print_memorisation
from sciwrite.sciig.data.builder import write_sciig_sample
from sciwrite.sciig.data.configs import default_sciig_dir
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
    print(f"\nSciIG sample, {summary.n_papers} papers, {run.writer} writer, profile {run.profile}:")
    print(format_sciig_table(summary))
    print_memorisation([summary])
    if format_model_line(summary):
        print(format_model_line(summary))
    print(f"\nwrote {out_dir / 'sciig' / system}/ and the generation under {out_dir / 'generations' / 'sciig'}")
    return {"sciig": summary}


#: The run metadata the quick start's SciIG lines carry (the plan's, less the seed the runner adds from the settings).
META_KEYS = ("benchmark", "dataset", "model", "method", "retriever")


def _generate(sciig_dir: Path, out: Path, run: QuickstartRun) -> Path:
    """The SciIG system (resumable): the sample's test papers, with the extractive floor or THREE_SHOT, generated as
    ``sciwrite generate sciig --split sample --source <sample> [--level THREE_SHOT]`` would, to the quick start's
    file name."""
    name = "extractive" if run.model is None else "three_shot"
    options = {"split": "sample", "source": str(sciig_dir), "level": None if run.model is None else ["THREE_SHOT"]}
    report = run.generate_system(out, f"{name}.jsonl", META_KEYS, options)
    say("SciIG", report)
    return report.out_path


__all__ = ["run_sciig_quickstart"]
