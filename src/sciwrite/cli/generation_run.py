"""What ``sciwrite generate`` reads of a run from its flags (the writer model, `writer_model`, and how every job
runs, `run_options`: `sciwrite.generation.writer`) and what it prints as the run goes (`CommandOutput`: each job's
notes, its dry-run prompts or its one-line report, and the push of its file to the Hub).

A run with a language model writes every request's usage to ``<out>/usage.jsonl`` (`sciwrite.llm.ledger`), prices
it with ``--prices`` over the packaged table where the endpoint reports no cost, and never spends past
``--max-cost``: each request reserves its worst case before it is sent, and once the next one does not fit the run
stops (exit status 3, saying what was spent and how many papers are left; a rerun with a higher budget resumes).
A model with no price whose endpoint reports no cost is refused under ``--max-cost`` (pass ``--prices``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.core.hub import push_predictions
from sciwrite.generation.generate import JobObserver, JobRun
from sciwrite.generation.jobs import GenerationJob
from sciwrite.generation.runner import RunReport
from sciwrite.generation.writer import RunOptions, WriterModel
from sciwrite.llm.capabilities import describe_adjustment
from sciwrite.llm.ledger import UsageLedger, usd
from sciwrite.llm.types import GenerationSettings


def writer_model(args: argparse.Namespace) -> WriterModel:
    """The writer ``--model`` names, with ``--base-url``, ``--model-option`` (a later KEY winning) and
    ``--batch-size``."""
    return WriterModel(args.model, base_url=args.base_url, model_options=dict(args.model_option or []),
                       batch_size=args.batch_size)


def run_options(args: argparse.Namespace) -> RunOptions:
    """How every job of the command runs (`add_generation_flags`' sampling, request and budget flags)."""
    settings = GenerationSettings(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                                  concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries)
    return RunOptions(settings, prices=args.prices, max_cost=args.max_cost, keep_reasoning=args.keep_reasoning)


class CommandOutput(JobObserver):
    """What the command prints of each job: its notes first; then its dry-run prompts, or its report (and, with
    ``--push-to-hub``, the push of its file)."""

    def __init__(self, push_to_hub: str | None = None) -> None:
        self.push_to_hub = push_to_hub

    def starting(self, job: GenerationJob) -> None:
        for note in job.notes:
            print(f"note: {job.method.name}: {note}")

    def finished(self, run: JobRun) -> None:
        job = run.job
        if run.report is None:
            for paper_id, text in run.prompts:
                print(f"=== paper {paper_id} · method {job.method.name} · exact prompt ===\n{text}\n")
            return
        print_report(run.report, run.ledger, job.out_path)
        if self.push_to_hub:
            print(f"pushed {job.out_path} to {push_predictions(job.out_path, self.push_to_hub, dict(job.card))}")


def print_report(report: RunReport, ledger: UsageLedger | None, out_path: Path) -> None:
    """A job's report: papers written, tokens, cost, what was not applied as asked, and the budget's stop."""
    print(f"{report.n_written} papers written to {out_path} ({report.n_already_done} already there, "
          f"{report.n_failed} failed in this run{'' if not report.n_failed else f' -> {report.failures_path}; rerun with --retry-failed'}); "
          f"{report.prompt_tokens} prompt + {report.completion_tokens} completion tokens"
          f"{f' ({report.reasoning_tokens} reasoning)' if report.reasoning_tokens else ''} in {report.wall_seconds:.1f} s")
    if ledger is not None:
        total = ledger.total
        unpriced = f"; {ledger.session.unpriced_requests} requests unpriced" if ledger.session.unpriced_requests else ""
        print(f"cost: ${ledger.session.cost_usd:.4f} in this run, ${total.cost_usd:.4f} in {ledger.path}"
              f"{f' (budget {usd(ledger.max_cost)})' if ledger.max_cost is not None else ''}{unpriced}")
    for item in report.adjustments:
        print(f"not applied as asked: {describe_adjustment(item)}")
    if report.stopped == "max_cost":
        spent = f"spent ${ledger.total.cost_usd:.4f} of {usd(ledger.max_cost)} in {ledger.path}" \
            if ledger is not None and ledger.max_cost is not None else "the budget is spent"
        detail = f" ({report.stop_detail})" if report.stop_detail else ""
        print(f"stopped at the budget: {spent}{detail}; {report.n_not_started} papers left undone (not sent); "
              "rerun with a higher --max-cost to resume them")
    print(f"run metadata: {report.meta_path}")


__all__ = ["CommandOutput", "print_report", "run_options", "writer_model"]
