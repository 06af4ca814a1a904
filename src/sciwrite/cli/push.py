"""`sciwrite push predictions FILE` (a prediction file to the Hub as a dataset config, with a card) and
`sciwrite push results EVAL_DIR --model-repo ORG/MODEL` (a scored run as the Hub's ``.eval_results`` YAML on the
model's repo, as a pull request). ``sciwrite push FILE`` still means ``push predictions FILE``."""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.options import DeprecatedAlias, former_names
from sciwrite.core.eval_results import (
    push_results_files,
    result_entries,
    results_filename,
    with_run_fields,
    write_results_files,
)
from sciwrite.core.hub import push_predictions, run_card_fields
from sciwrite.core.results import read_summary

WHAT = ("predictions", "results")


def cmd_push_predictions(args: argparse.Namespace) -> None:
    fields = run_card_fields(args.predictions, {name: b.data.prediction_split for name, b in BENCHMARKS.items()})
    url = push_predictions(args.predictions, args.repo_id, fields, config_name=args.hub_config, private=args.private)
    config = args.hub_config or Path(args.predictions).stem
    print(f"pushed {args.predictions} to {url} as config {config!r} ({fields['benchmark']}, {fields['model']}, "
          f"{fields['method']}); evaluate it with --predictions {args.repo_id}:{config}")


def cmd_push_results(args: argparse.Namespace) -> None:
    path = Path(args.eval_dir) / "summary.json"
    if not path.is_file():
        raise FileNotFoundError(f"{args.eval_dir} holds no summary.json: give the folder `sciwrite evaluate` wrote "
                                "for one system (<out>/<system>/)")
    summary = with_run_fields(read_summary(path), path)
    name = (summary.get("provenance") or {}).get("benchmark") or args.benchmark
    if not name:
        raise ValueError(f"{path}: no provenance.benchmark; say which benchmark with --benchmark")
    bench = get_benchmark(name)
    dataset_id = args.dataset_id or bench.hub.repo()
    entries = result_entries(summary, bench.hub.tasks, dataset_id, source_url=args.source_url, origin=path)
    files = {results_filename(bench.name, summary): entries}
    for file, listed in files.items():
        print(f"{file}: {len(listed)} results for {dataset_id} ({', '.join(e.task_id for e in listed)})")
    left_out = [task.key for task in bench.hub.tasks if summary.get(task.key) is None]
    if left_out:
        print(f"left out (not computed in {path}): {', '.join(left_out)}")
    if args.dry_run:
        written = write_results_files(files, args.out or "eval_results_dry_run")
        print(f"dry run: wrote {', '.join(map(str, written))}; nothing was sent")
        return
    url = push_results_files(files, args.model_repo, create_pr=args.create_pr)
    print(f"{'opened a pull request' if args.create_pr else 'committed'} on {args.model_repo}: {url}")


def add_push_command(sub: argparse._SubParsersAction) -> None:
    """`push predictions` and `push results`."""
    group = sub.add_parser("push", help="publish on the Hub: predictions as a dataset, scores as .eval_results")
    commands = group.add_subparsers(dest="what", required=True)
    p = commands.add_parser("predictions", help="upload a prediction file as a dataset config, with a card")
    p.add_argument("predictions", help="JSON Lines written by `sciwrite generate`")
    p.add_argument("--repo-id", required=True, help="Hub dataset repo, e.g. user/sciwrite-predictions")
    p.add_argument("--hub-config", "--config", dest="hub_config", action=DeprecatedAlias,
                   help="the Hub dataset config to push to (default: the file's stem)" + former_names(["--config"]))
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.set_defaults(func=cmd_push_predictions)
    p = commands.add_parser("results", help="a scored run's headline metrics as .eval_results/<benchmark>*.yaml on "
                                            "a model repo (a pull request by default)")
    p.add_argument("eval_dir", help="the folder `sciwrite evaluate` wrote for one system (summary.json)")
    p.add_argument("--model-repo", required=True, help="the model's Hub repo, e.g. org/model")
    p.add_argument("--create-pr", action=argparse.BooleanOptionalAction, default=True,
                   help="open a pull request (default), or commit directly with --no-create-pr (your own repo)")
    p.add_argument("--source-url", help="where the scores can be checked: the leaderboard row or the pushed "
                                        "predictions")
    p.add_argument("--dataset-id", help="the benchmark's Hub dataset (default: the published one; give yours for a "
                                        "run on a set you built, such as a fresh arXiv split)")
    p.add_argument("--benchmark", choices=sorted(BENCHMARKS), help="for a summary without provenance")
    p.add_argument("--dry-run", action="store_true", help="write the files under --out instead of pushing")
    p.add_argument("--out", help="with --dry-run: the folder to write (default: eval_results_dry_run)")
    p.set_defaults(func=cmd_push_results)


def normalise_push_argv(argv: list[str]) -> list[str]:
    """``push FILE ...`` (the command before it had subcommands) as ``push predictions FILE ...``."""
    if len(argv) >= 2 and argv[0] == "push" and argv[1] not in (*WHAT, "-h", "--help"):
        return ["push", "predictions", *argv[1:]]
    return argv
