"""`sciwrite push predictions FILE` (a prediction file to the Hub as a dataset config, with a card that says what its
generator cost) and `sciwrite push results EVAL_DIR --model-repo ORG/MODEL` (a scored run as the Hub's
``.eval_results`` YAML on the model's repo, as a pull request), or ``push results --inspect-log LOG ...`` (the same
from finished runs of the Inspect tasks, read with `sciwrite.harness.inspect_logs`, imported on first use), or
``push results --store S --submission ID`` (a run the leaderboard scored). Every entry's notes carry the run's
judge (with its snapshots and check), its cost, and from the board its rank with its interval
(`sciwrite.core.run_facts.RunFacts`), so the files say what the board says."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.flags import (
    BENCHMARK,
    DATASET_ID,
    DRY_RUN,
    HUB_CONFIG,
    INSPECT_LOG,
    OUT,
    PRIVATE,
    PUSH_TO_HUB,
    STORE,
    SUBMISSION,
)
from sciwrite.core.costs import run_cost
from sciwrite.core.errors import InputError, Where
from sciwrite.core.eval_results import (
    EVALUATION_FRAMEWORK,
    SOURCE_NAME,
    push_results_files,
    result_entries,
    results_filename,
    with_run_fields,
    write_results_files,
)
from sciwrite.core.hub import cost_summary, push_predictions, run_card_fields
from sciwrite.core.metric_scales import check_result
from sciwrite.core.results import load_summary
from sciwrite.core.run_facts import RunFacts, evaluation_facts, summary_facts
from sciwrite.core.summary import Summary
from sciwrite.harness import inspect_logs_module
from sciwrite.leaderboard.hub_results import board_run
from sciwrite.leaderboard.runs import board_rows
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.scoring.checks import result_rules

#: What the Hub shows for ``--source-url`` when the results come from an Inspect log.
INSPECT_SOURCE_NAME = "Inspect AI log"


@dataclass(frozen=True)
class PushedRun:
    """One run to push: its benchmark, its summary (with its run's setting), where it was read (for messages) and
    its facts (cost, judge, and from the board its rank) for the entries' notes."""

    bench: Benchmark
    summary: Summary
    origin: str | Path
    facts: RunFacts


def cmd_push_predictions(args: argparse.Namespace) -> None:
    fields = run_card_fields(args.predictions, {name: b.data.prediction_split for name, b in BENCHMARKS.items()})
    url = push_predictions(args.predictions, args.push_to_hub, fields, config_name=args.hub_config,
                           private=args.private)
    config = args.hub_config or Path(args.predictions).stem
    print(f"pushed {args.predictions} to {url} as config {config!r} ({fields['benchmark']}, {fields['model']}, "
          f"{fields['method']}; generator cost {cost_summary(fields)}); evaluate it with --predictions "
          f"{args.push_to_hub}:{config}")


def folder_run(eval_dir: str, benchmark: str | None) -> PushedRun:
    """The run of the folder `sciwrite evaluate` wrote for one system, checked with its per-paper rows as every
    door checks a result (`check_result`), so that no row out of range and no nested count or interval that is
    impossible reaches the Hub behind a plausible mean; its facts from the folder (`evaluation_facts`: the ledgers
    beside its predictions and its summary)."""
    path = Path(eval_dir) / "summary.json"
    if not path.is_file():
        raise FileNotFoundError(f"{eval_dir} holds no summary.json: give the folder `sciwrite evaluate` wrote "
                                "for one system (<out>/<system>/)")
    summary = with_run_fields(load_summary(path), path)
    name = summary.benchmark or benchmark
    if not name:
        raise ValueError(f"{path}: no provenance.benchmark; say which benchmark with --benchmark")
    bench = get_benchmark(name)
    rows, lines = board_rows(path.parent / "per_paper.jsonl")
    check_result(summary, rows, result_rules(bench), summary_path=path, rows_path=path.parent / "per_paper.jsonl",
                 row_lines=lines)
    return PushedRun(bench, summary, path, evaluation_facts(summary, path))


def inspect_runs(logs: Sequence[str]) -> list[PushedRun]:
    """The run of each Inspect log, every one read and checked before any is used
    (`sciwrite.harness.inspect_logs.read_inspect_log`: a finished run of a sciwrite task, its metrics what its
    samples' rows give); its cost from the log's model calls (`priced_ledgers`, as the board prices them)."""
    reader = inspect_logs_module()
    runs = []
    for log in logs:
        run = reader.read_inspect_log(log)
        papers = {str(r["paper_id"]) for r in run.records if r.get("paper_id") is not None}
        facts = summary_facts(run.summary, run_cost(run.ledgers, run.summary, papers), system=run.system)
        runs.append(PushedRun(get_benchmark(run.benchmark), with_run_fields(run.summary, record=run.records[0]),
                              Path(log), facts))
    return runs


def stored_run(store: str, submission_id: str) -> PushedRun:
    """The leaderboard's scored submission `submission_id` of the store at `store` (which must exist), with its
    cost, trust card and Rank cell as the board shows them (`sciwrite.leaderboard.hub_results.board_run`)."""
    if not Path(store).is_file():
        raise InputError("no such leaderboard store", Where(path=store, field="--store"),
                         "give the SQLite store the board reads (leaderboard serve / import --store)")
    run = board_run(ResultsStore(store), submission_id)
    return PushedRun(run.bench, run.summary, f"{store} (submission {submission_id})", run.facts)


def results_files(runs: Sequence[PushedRun], dataset_id: str | None,
                  source_url: str | None, source_name: str) -> tuple[dict[str, list[Any]], dict[str, str], list[str]]:
    """(file name -> its entries, file name -> its dataset, lines saying what each run left out) of the runs: one file
    per setting (`results_filename`); two runs giving one task of one file raise `InputError` naming the second."""
    files: dict[str, list[Any]] = {}
    datasets: dict[str, str] = {}
    origins: dict[tuple[str, str], str | Path] = {}
    left_out = []
    for run in runs:
        bench, summary, origin = run.bench, run.summary, run.origin
        name = results_filename(bench.name, summary)
        datasets[name] = dataset_id or bench.hub.repo()
        entries = result_entries(summary, bench.hub.tasks, datasets[name], source_url=source_url,
                                 source_name=source_name, origin=origin, facts=run.facts)
        for entry in entries:
            first = origins.setdefault((name, entry.task_id), origin)
            if first != origin:
                raise InputError(f"gives {entry.task_id} for {name}, as {first} does (two runs of one setting)",
                                 Where(path=origin), "push one of them")
        files.setdefault(name, []).extend(entries)
        missing = [task.key for task in bench.hub.tasks if summary.value(task.key) is None]
        if missing:
            left_out.append(f"left out (not computed in {origin}): {', '.join(missing)}")
    return files, datasets, left_out


def _sources(args: argparse.Namespace) -> None:
    """Refuse, in one line, what does not name exactly one source: an evaluation folder, Inspect logs, or a board
    submission (--submission with its --store)."""
    given = [name for name, value in (("EVAL_DIR", args.eval_dir), ("--inspect-log", args.inspect_log),
                                      ("--submission", args.submission)) if value]
    if len(given) > 1:
        raise InputError(f"give one of EVAL_DIR, --inspect-log or --submission, not {' and '.join(given)}",
                         Where(field=given[-1]), "push each source in its own call")
    if bool(args.store) != bool(args.submission):
        raise InputError("goes with --submission" if args.store else "needs the --store it is a row of",
                         Where(field="--store" if args.store else "--submission"),
                         "give both: --store BOARD.sqlite --submission ID")
    if not given:
        raise InputError("nothing to push", Where(field="EVAL_DIR"), "give the folder `sciwrite evaluate` wrote for "
                         "one system (<out>/<system>/), --inspect-log LOG, or --store S --submission ID")
    if args.benchmark and not args.eval_dir:
        raise InputError("is for an evaluation folder whose summary has no provenance; an Inspect log names its "
                         "task and a board submission its benchmark", Where(field="--benchmark"),
                         "leave --benchmark out")


def cmd_push_results(args: argparse.Namespace) -> None:
    _sources(args)
    if args.inspect_log:
        runs = inspect_runs(args.inspect_log)
    elif args.submission:
        runs = [stored_run(args.store, args.submission)]
    else:
        runs = [folder_run(args.eval_dir, args.benchmark)]
    if args.dataset_id and len({run.bench.name for run in runs}) > 1:
        raise InputError("names one dataset for logs of several benchmarks", Where(field="--dataset-id"),
                         "push each benchmark's logs in its own call")
    source_name = INSPECT_SOURCE_NAME if args.inspect_log else SOURCE_NAME
    files, datasets, left_out = results_files(runs, args.dataset_id, args.source_url, source_name)
    for file, listed in files.items():
        print(f"{file}: {len(listed)} results for {datasets[file]} ({', '.join(e.task_id for e in listed)})")
    print("\n".join(left_out), end="\n" if left_out else "")
    framework = EVALUATION_FRAMEWORK if args.inspect_log else None  # a folder's run is sciwrite's, not Inspect's
    if args.dry_run:
        written = write_results_files(files, args.out or "eval_results_dry_run", evaluation_framework=framework)
        print(f"dry run: wrote {', '.join(map(str, written))}; nothing was sent")
        return
    url = push_results_files(files, args.model_repo, create_pr=args.create_pr, evaluation_framework=framework)
    print(f"{'opened a pull request' if args.create_pr else 'committed'} on {args.model_repo}: {url}")


def add_push_command(sub: argparse._SubParsersAction) -> None:
    """`push predictions` and `push results`."""
    group = sub.add_parser("push", help="publish on the Hub: predictions as a dataset, scores as .eval_results")
    commands = group.add_subparsers(dest="what", required=True)
    p = commands.add_parser("predictions", help="upload a prediction file as a dataset config, with a card")
    p.add_argument("predictions", help="JSON Lines written by `sciwrite generate`")
    PUSH_TO_HUB.add(p, required=True)
    HUB_CONFIG.add(p, "the Hub dataset config to push to (default: the file's stem)")
    PRIVATE.add(p)
    p.set_defaults(func=cmd_push_predictions)
    p = commands.add_parser("results", help="a scored run's headline metrics as .eval_results/<benchmark>*.yaml on "
                                            "a model repo (a pull request by default)")
    p.add_argument("eval_dir", nargs="?", metavar="EVAL_DIR",
                   help="the folder `sciwrite evaluate` wrote for one system (summary.json)")
    INSPECT_LOG.add(p, "instead of EVAL_DIR: logs of finished `inspect eval sciwrite/rwgbench` or `sciwrite/sciig` "
                       "runs (the inspect extra); their entries name the framework, inspect-ai")
    p.add_argument("--model-repo", required=True, help="the model's Hub repo, e.g. org/model")
    p.add_argument("--create-pr", action=argparse.BooleanOptionalAction, default=True,
                   help="open a pull request (default), or commit directly with --no-create-pr (your own repo)")
    p.add_argument("--source-url", help="where the scores can be checked: the leaderboard row or the pushed "
                                        "predictions")
    DATASET_ID.add(p, "the benchmark's Hub dataset (default: the published one; give yours for a run on a set you "
                      "built, such as a fresh arXiv split)")
    STORE.add(p, "instead of EVAL_DIR, with --submission: the leaderboard's SQLite results store")
    SUBMISSION.add(p, "with --store: the board's scored submission to push; its notes carry the board's rank cell "
                      "(with its interval), cost and judge")
    BENCHMARK.add(p, "for an EVAL_DIR whose summary has no provenance", choices=sorted(BENCHMARKS))
    DRY_RUN.add(p, "write the files under --out instead of pushing")
    OUT.add(p, "with --dry-run: the folder to write (default: eval_results_dry_run)")
    p.set_defaults(func=cmd_push_results)
