"""SurGE's part of the quick start (`sciwrite.quickstart`): build the offline sample when missing, write a survey for
every sample target with RAG over BM25 (the extractive floor without a model; with one, one request per survey), score
it and print the results table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.generation.quickstart_run import QuickstartRun, say, scorer
from sciwrite.surge.data.configs import default_surge_dir
from sciwrite.surge.data.sample_folder import write_sample_folder
from sciwrite.surge.metrics.report import format_grounding_line, format_surge_table

#: The run metadata the quick start's SurGE lines carry.
META_KEYS = ("benchmark", "dataset", "model", "method", "retriever")


def run_surge_quickstart(run: QuickstartRun) -> dict[str, Any]:
    """{"surge": the summary}; the tables under ``<out>/surge/<system>/``, the generation under
    ``<out>/generations/surge/``."""
    surge_dir, out_dir = Path(run.source or default_surge_dir()), run.out_dir
    if run.rebuild or not (surge_dir / "README.md").exists():
        figures = write_sample_folder(surge_dir)
        print(f"built the SurGE sample in {surge_dir}: {figures.get('surveys')} survey-shaped targets "
              "(ACL papers laid out as SurGE's surveys: a stand-in, not SurGE's surveys)")
    options = {"split": "sample", "source": str(surge_dir), "method": ["rag"], "retriever": "bm25"}
    report = run.generate_system(out_dir / "generations" / "surge", "rag_bm25.jsonl", META_KEYS, options)
    say("SurGE", report)
    system = report.out_path.stem
    [summary] = scorer(run)([report.out_path], [system], out_dir / "surge", surge_dir)
    print(f"\nSurGE sample, {summary.n_papers} survey-shaped targets, {run.writer} writer, profile {run.profile}:")
    print(format_surge_table(summary))
    print(format_grounding_line(summary))
    print(f"\nwrote {out_dir / 'surge' / system}/ and the generation under {out_dir / 'generations' / 'surge'}")
    return {"surge": summary}


__all__ = ["run_surge_quickstart"]
