"""`sciwrite leaderboard serve|worker|import`: the leaderboard Space run locally, its evaluation worker on its own,
and runs scored with `sciwrite evaluate` (or Inspect logs of sciwrite's tasks) put on the board.

`serve` and `worker` take each benchmark's split and dataset as repeatable ``--split BENCHMARK=SPLIT`` and
``--source BENCHMARK=DIR`` (a benchmark not named keeps its default)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.flags import (
    BENCHMARK,
    DATASET_ID,
    HOST,
    INSPECT_LOG,
    LEDGER,
    PORT,
    PROFILE,
    SOURCES,
    SPLITS,
    STORE,
)
from sciwrite.cli.options import key_value, known_benchmark
from sciwrite.core.costs import GENERATOR, ledger_from_bytes
from sciwrite.core.errors import InputError, Where
from sciwrite.harness import inspect_logs_module
from sciwrite.leaderboard.app import launch
from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.hub_results import import_hub_repos
from sciwrite.leaderboard.mirror import mirror_from_env
from sciwrite.leaderboard.runs import add_evaluation, import_evaluations, import_quickstart, read_evaluation
from sciwrite.leaderboard.service import BoardSettings, open_board
from sciwrite.leaderboard.store import STALE_AFTER_S

_split_pair = key_value("BENCHMARK=SPLIT", "sciig=sample")


def benchmark_split(text: str) -> tuple[str, str]:
    """``--split BENCHMARK=SPLIT``: a benchmark and one of its splits."""
    name, split = _split_pair(text)
    known_benchmark(name, text)
    if split not in BENCHMARKS[name].data.splits:
        raise argparse.ArgumentTypeError(f"{BENCHMARKS[name].title} has no split {split!r}; choose one of "
                                         f"{', '.join(BENCHMARKS[name].data.splits)}")
    return name, split


def board_splits(args: argparse.Namespace) -> dict[str, str]:
    """Each benchmark's split: its ``--split`` (the last one given), else its offline config."""
    return {**{name: bench.data.offline_config for name, bench in BENCHMARKS.items()}, **dict(args.split or [])}


def board_sources(args: argparse.Namespace) -> dict[str, str | None]:
    """Each benchmark's dataset: its ``--source`` (the last one given), else None (the sample folder / the Hub)."""
    return {**{name: None for name in BENCHMARKS}, **dict(args.source or [])}


def board_settings(args: argparse.Namespace) -> BoardSettings:
    return BoardSettings(splits=board_splits(args), sources=board_sources(args), rate_limit=args.rate_limit)


def _evaluator(args: argparse.Namespace) -> SuiteEvaluator:
    return SuiteEvaluator(sources=board_sources(args), profile=args.profile)


def cmd_serve(args: argparse.Namespace) -> None:
    board = open_board(args.store, board_settings(args), mirror_from_env())
    print(f"leaderboard store: {board.store.path}; open http://{args.host}:{args.port}/")
    launch(board, host=args.host, port=args.port, worker=not args.no_worker, evaluator=_evaluator(args),
           poll_s=args.poll, heartbeat_s=args.heartbeat, stale_after_s=args.stale_after)


def cmd_worker(args: argparse.Namespace) -> None:
    board = open_board(args.store, board_settings(args), mirror_from_env())
    worker = board.make_worker(_evaluator(args), heartbeat_s=args.heartbeat, stale_after_s=args.stale_after)
    print(f"worker {worker.name} on {board.store.path}")
    done = worker.run(poll_s=args.poll, once=args.once)
    print(f"scored {done} submission(s)")


def _check_ledger_use(args: argparse.Namespace) -> None:
    """``--ledger`` goes with one evaluation folder (`--benchmark` and one folder), and names a file."""
    if args.ledger is None:
        return
    if args.hub_eval_results or args.inspect_log or args.quickstart or not args.benchmark or len(args.evaluation) != 1:
        raise InputError("goes with one evaluation folder (--benchmark and one folder): an Inspect log, a quick "
                         "start or several folders find each run's own ledger", Where(field="--ledger"),
                         hint="import that folder on its own with --ledger, or leave --ledger out")
    if not Path(args.ledger).is_file():
        raise InputError("no such file (the usage ledger)", Where(path=args.ledger),
                         hint="give --ledger the usage.jsonl `sciwrite generate` wrote for these predictions")
    ledger_from_bytes(Path(args.ledger).read_bytes(), GENERATOR, args.ledger)  # not UTF-8: its file and line


def cmd_import(args: argparse.Namespace) -> None:
    _check_ledger_use(args)
    board = open_board(args.store, mirror=mirror_from_env())
    if args.hub_eval_results:
        if args.dataset_id and not args.benchmark and len(BENCHMARKS) > 1:
            # the benchmarks share task ids (sample_rouge_l, ...): another dataset's entry would go on every board
            raise InputError("--dataset-id names a dataset sciwrite does not know, so which benchmark its results "
                             "belong to is not known", Where(field="--dataset-id"),
                             hint=f"add --benchmark ({', '.join(BENCHMARKS)})")
        benches = [BENCHMARKS[args.benchmark]] if args.benchmark else list(BENCHMARKS.values())
        # every repo read and every value checked before the first is added: all or nothing
        for report in import_hub_repos(board.store, benches, args.hub_eval_results, dataset_ids=args.dataset_id or ()):
            print("\n".join(report.lines([bench.title for bench in benches])))
        board.sync_mirror()
        return
    if args.inspect_log:
        # every log read and checked before the first is added: all or nothing
        results = inspect_logs_module().import_inspect_logs(board.store, args.inspect_log)
    elif args.quickstart:
        if not Path(args.quickstart).is_dir():
            raise InputError("is not a folder", Where(path=args.quickstart),
                             hint="give --quickstart the --out folder of `sciwrite quickstart`")
        results = import_quickstart(board.store, args.quickstart)
        if not results:
            raise InputError(f"holds no scored run ({', '.join(f'{name}/<system>/summary.json' for name in BENCHMARKS)})",
                             Where(path=args.quickstart), hint="give --quickstart the --out folder of "
                             "`sciwrite quickstart`, or import evaluation folders with --benchmark")
    else:
        if not args.benchmark or not args.evaluation:
            raise ValueError("give --quickstart DIR, --inspect-log LOG, or --benchmark and one or more evaluation "
                             "folders")
        if args.ledger is not None:  # the one folder, with the generator ledger given (checked as a found one)
            run = read_evaluation(args.benchmark, args.evaluation[0], generator_ledger=args.ledger)
            results = [add_evaluation(board.store, run)]
        else:
            results = import_evaluations(board.store, [(args.benchmark, folder) for folder in args.evaluation])
    for submission, added in results:
        print(f"{'added' if added else 'already there'}: {submission.benchmark} {submission.system} ({submission.id})")
    board.sync_mirror()


def _board_options(p: argparse.ArgumentParser) -> None:
    STORE.add(p, "SQLite results store (default: $SCIWRITE_LEADERBOARD_STORE or "
                 "<data root>/leaderboard/leaderboard.sqlite)")
    defaults = ", ".join(f"{name}={bench.data.offline_config}" for name, bench in BENCHMARKS.items())
    SPLITS.add(p, f"a benchmark's split or config scored (default: {defaults}); repeatable", type=benchmark_split)
    SOURCES.add(p, "a benchmark's dataset folder or Hub id (default: the sample folder / Hub); repeatable")
    PROFILE.add(p, "model profile (default: paper on a GPU, else lite)")
    p.add_argument("--rate-limit", type=int, default=10, help="submissions per submitter per day (default: 10)")


def _worker_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--poll", type=float, default=2.0, help="seconds between looks at an empty queue")
    p.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats")
    p.add_argument("--stale-after", type=float, default=STALE_AFTER_S,
                   help=f"a RUNNING submission without a heartbeat for this long is retried (default: {STALE_AFTER_S:g})")


def add_leaderboard_commands(sub: argparse._SubParsersAction) -> None:
    """The `leaderboard` group."""
    group = sub.add_parser("leaderboard", help="the leaderboard Space: serve it, run its worker, import runs")
    commands = group.add_subparsers(dest="what", required=True)
    p = commands.add_parser("serve", help="serve the leaderboard app (with its evaluation worker)")
    _board_options(p)
    HOST.add(p)
    PORT.add(p, default=7860)
    p.add_argument("--no-worker", action="store_true", help="do not score submissions in this process")
    _worker_options(p)
    p.set_defaults(func=cmd_serve)
    p = commands.add_parser("worker", help="score queued submissions (retries those whose worker died)")
    _board_options(p)
    p.add_argument("--once", action="store_true", help="stop when the queue is empty")
    _worker_options(p)
    p.set_defaults(func=cmd_worker)
    p = commands.add_parser("import", help="put runs scored with `sciwrite evaluate` or `inspect eval` on the board (no "
                                           "rescoring), or a model's self-reported Hub results")
    STORE.add(p, "SQLite results store (default: as for serve)")
    p.add_argument("--quickstart", help="a quick-start output folder: import every run it scored")
    BENCHMARK.add(p, "benchmark of the evaluation folders", choices=sorted(BENCHMARKS))
    p.add_argument("evaluation", nargs="*", help="folders holding summary.json and per_paper.jsonl")
    LEDGER.add(p, "with one evaluation folder: the generator's usage ledger of its predictions, where it is not the "
                  "usage.jsonl beside them (its lines of this run are kept, checked against the predictions)")
    INSPECT_LOG.add(p, "logs of `inspect eval sciwrite/rwgbench` or `sciwrite/sciig` runs: import each with its "
                       "per-paper rows (the inspect extra)")
    p.add_argument("--hub-eval-results", nargs="+", metavar="MODEL_REPO",
                   help="model repos (Hub ids or local folders) whose .eval_results/*.yaml to show, marked "
                        "self-reported (no per-paper rows: no intervals, no drill-down)")
    DATASET_ID.add(p, "with --hub-eval-results: also accept entries for this dataset repo (a copy of the "
                      "benchmark); repeatable", action="append")
    p.set_defaults(func=cmd_import)
