"""`sciwrite evaluate rwgbench|sciig`: every metric of a benchmark for prediction files, in the paper's table layout."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli.engine_options import add_engine_options
from sciwrite.cli.generate_common import LEDGER_NAME, model_option
from sciwrite.core.tables import write_table
from sciwrite.llm.ledger import PriceTable, UsageLedger
from sciwrite.rwgbench.metrics.report import evaluate_prediction_files, format_table2
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.report import evaluate_sciig_file, format_sciig_table
from sciwrite.sciig.metrics.tables import format_table3, table3_from_summary_files, table3_rows
from sciwrite.stats import format_intervals


def metric_labels(benchmark: str) -> dict[str, str]:
    """Short metric labels of a benchmark's results table (the column label, prefixed by its group where two
    groups share a label, as SciIG's "Faithfulness")."""
    groups = get_benchmark(benchmark).table_groups
    counts: dict[str, int] = {}
    for columns in groups.values():
        for _, label in columns:
            counts[label] = counts.get(label, 0) + 1
    labels = {key: label if counts[label] == 1 else f"{group} {label}"
              for group, columns in groups.items() for key, label in columns}
    return {**labels, "sentence_bleu": "sentence BLEU"}


def llm_options(args: argparse.Namespace, out: Path) -> dict[str, object]:
    """The judge's (and SciIG's citation extractor's) client options: endpoint, cache, model options, and the usage
    ledger under the evaluation folder, its lines tagged with this evaluation's run id."""
    run = f"evaluate-{datetime.datetime.now(datetime.UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
    options: dict[str, object] = {k: v for k, v in (("base_url", args.judge_base_url),
                                                    ("cache_path", args.judge_cache)) if v}
    if args.judge_option:
        options["options"] = dict(args.judge_option)
    options["ledger"] = UsageLedger(out / LEDGER_NAME, prices=PriceTable.load(args.prices), tags={"run": run})
    return options


def print_llm_record(summary: dict) -> None:
    """The evaluation's LLM spend, the judge's snapshots (a warning when several answered) and what was not applied."""
    snapshots = summary.get("judge_snapshots") or {}
    if len(snapshots) > 1:
        print(f"warning: {summary['system']}: the judge answered from {len(snapshots)} snapshots "
              f"({', '.join(f'{k}: {v}' for k, v in snapshots.items())}); scores may not be comparable")
    for role, described in (summary.get("llm_requests") or {}).items():
        for item in described.get("adjustments", []):
            sent = f"sent as {item['sent_as']}={item['sent']!r}" if item["sent_as"] else "not sent"
            print(f"{role}: not applied as asked: {item['parameter']}={item['requested']!r} {sent} ({item['reason']})")


def print_usage(summary: dict) -> None:
    usage = summary.get("llm_usage")
    if usage and usage.get("requests"):
        unpriced = f" ({usage['unpriced_requests']} unpriced)" if usage["unpriced_requests"] else ""
        print(f"LLM usage: {usage['requests']} requests, {usage['prompt_tokens']} prompt + {usage['completion_tokens']} "
              f"completion tokens ({usage['reasoning_tokens']} reasoning), ${usage['cost_usd']:.4f}{unpriced} -> "
              f"{usage['ledger']}")


def cmd_evaluate_rwgbench(args: argparse.Namespace) -> None:
    systems = args.system or [Path(p).stem for p in args.predictions]
    out = Path(args.out or Path("outputs") / "rwgbench")
    judge_options = llm_options(args, out)
    metrics = get_benchmark("rwgbench").metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    summaries = evaluate_prediction_files(args.predictions, args.split, source=args.source, out_dir=out,
                                          systems=systems, profile=args.profile, models=dict(args.model or []),
                                          metrics=metrics, judge_options=judge_options,
                                          missing_as_empty=args.missing_as_empty, batch_size=args.batch_size,
                                          bootstrap=args.bootstrap, seed=args.seed, engine=args.engine,
                                          ray_address=args.ray_address, ray_actors=args.ray_actors)
    print()
    for summary in summaries:
        join = summary["join"]
        print(f"{summary['system']}: {summary['n_papers']} papers of RWGBench {args.split} scored ({join['n_missing']} "
              f"missing, {join['n_extra']} extra, {join['n_duplicates']} duplicate ids); empty-citation outputs "
              f"{summary['empty_citation_rate']:.1%}, unresolved markers {summary['unresolved_markers']}")
    print(f"profile {summaries[0]['profile']}\n")
    print(format_table2(summaries))
    labels = metric_labels("rwgbench")
    for summary in summaries:
        if format_intervals(summary, labels):
            print(f"{summary['system']}: {format_intervals(summary, labels)}")
    for metric, why in summaries[0]["not_computed"].items():
        print(f"not computed: {metric}: {why}")
    for summary in summaries:
        print_llm_record(summary)
    print_usage(summaries[0])
    print(f"\nwrote per_paper.jsonl, summary.json and summary.csv for each system under {out}/<system>/")


def cmd_evaluate_sciig(args: argparse.Namespace) -> None:
    system = args.system or Path(args.predictions).stem
    out = Path(args.out or Path("outputs") / "sciig" / system)
    judge_options = llm_options(args, out)
    metrics = get_benchmark("sciig").metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    summary = evaluate_sciig_file(args.predictions, args.dataset, source=args.source, out_dir=out, system=system,
                                  profile=args.profile, models=dict(args.model or []), metrics=metrics,
                                  judge_options=judge_options, upstream=args.upstream, batch_size=args.batch_size,
                                  bootstrap=args.bootstrap, seed=args.seed, engine=args.engine,
                                  ray_address=args.ray_address, ray_actors=args.ray_actors)
    join = summary["join"]
    print(f"\nSciIG {args.dataset} (test split; holdout papers are never scored): {summary['n_papers']} papers scored "
          f"({join['n_missing']} missing, {join['n_extra']} extra, {join['n_holdout']} holdout, "
          f"{join['n_rejected_lines']} rejected lines); profile {summary['profile']}")
    for item in join["rejected_lines"]:
        print(f"rejected: line {item['line']}: {item['problem']}")
    if join["missing"]:
        print(f"missing: {len(join['missing'])} test papers have no prediction, e.g. {join['missing'][:5]}")
    if join["extra"]:
        print(f"extra: {len(join['extra'])} predictions name unknown papers, e.g. {join['extra'][:5]}")
    print(format_sciig_table(summary))
    if format_intervals(summary, metric_labels("sciig")):
        print(f"\n{system}: {format_intervals(summary, metric_labels('sciig'))} (BLEU is corpus BLEU: no interval; "
              "sentence BLEU's is the mean per-paper sentence BLEU's)")
    if format_model_line(summary):
        print(format_model_line(summary))
    for stage, errors in summary["scoring_errors"].items():
        first = next(iter(errors.items()))
        print(f"scoring error: {stage}: {len(errors)} paper(s) not scored, e.g. {first[0]}: {first[1]}")
    print_llm_record(summary)
    print_usage(summary)
    print(f"\nwrote {out / 'per_paper.jsonl'}, {out / 'summary.json'}, {out / 'summary.csv'}, "
          f"{out / 'metric_timings.json'} and {out / 'keyphrase_outputs'}"
          + (f"; rejected lines in {out / 'rejected.jsonl'}" if join["n_rejected_lines"] else ""))


def cmd_evaluate_sciig_table3(args: argparse.Namespace) -> None:
    summaries = table3_from_summary_files(dict(args.summary))
    print(format_table3(summaries))
    if args.out:
        json_path, csv_path = write_table(table3_rows(summaries), args.out)
        print(f"\nwrote {json_path} and {csv_path}")


def _level_file(value: str) -> tuple[str, str]:
    level, sep, path = value.partition("=")
    if not sep or not level or not path:
        raise argparse.ArgumentTypeError(f"expected LEVEL=SUMMARY_JSON (e.g. SHORT=outputs/sciig/short/summary.json), "
                                         f"got {value!r}")
    return level, path


def _role_model(value: str) -> tuple[str, str]:
    role, sep, model = value.partition("=")
    if not sep or not role or not model:
        raise argparse.ArgumentTypeError(f"expected ROLE=MODEL (e.g. nli=path/to/model), got {value!r}")
    return role, model


def add_llm_options(p: argparse.ArgumentParser) -> None:
    """The judge's endpoint, cache, model options and price table."""
    p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge (default: $SCIWRITE_LLM_BASE_URL)")
    p.add_argument("--judge-cache", help="JSON Lines cache of judge replies, so a rerun resumes")
    p.add_argument("--judge-option", action="append", type=model_option, metavar="KEY=VALUE",
                   help="a request parameter of every judge call, over the model-family table (VALUE is YAML), "
                        "e.g. reasoning_effort=low; repeatable")
    p.add_argument("--prices", metavar="FILE",
                   help="price table (YAML, USD per million tokens) for the usage ledger <out>/usage.jsonl "
                        "(default: $SCIWRITE_PRICES over the packaged table)")


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    """--bootstrap N and --seed, shared by the commands that report intervals."""
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the 95%% intervals over papers (default: 1000; 0: no intervals)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default: 0)")


def add_evaluate_commands(sub: argparse._SubParsersAction) -> None:
    """The `evaluate` group."""
    evaluate = sub.add_parser("evaluate", help="score predictions").add_subparsers(dest="what", required=True)
    p = evaluate.add_parser("rwgbench", help="every RWGBench metric for a prediction file (Table 2 layout)")
    p.add_argument("--predictions", required=True, nargs="+",
                   help='JSON Lines files, one per system: {"paper_id", "text" (or "pred"), "candidates"} per paper; '
                        'or a dataset folder / Hub dataset id[:config] pushed by `sciwrite push`')
    p.add_argument("--split", default="sample", choices=["sample", "test"], help="RWGBench split to score against")
    p.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder / the Hub)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--model", action="append", type=_role_model, metavar="ROLE=MODEL",
                   help="override one model role (scibert, nli, citation_frame, judge); repeatable")
    p.add_argument("--metrics", nargs="+", metavar="METRIC", help="only these metrics (default: all)")
    p.add_argument("--no-judge", action="store_true", help="skip the LLM judge")
    add_llm_options(p)
    p.add_argument("--missing-as-empty", action="store_true", help="score papers without a prediction as empty sections")
    p.add_argument("--system", nargs="+", help="system names in the tables (default: the prediction files' stems)")
    p.add_argument("--out", help="output folder; each system writes to <out>/<system>/ (default: outputs/rwgbench)")
    p.add_argument("--batch-size", type=int, default=64, help="model batch size")
    add_bootstrap_options(p)
    add_engine_options(p, "scoring")
    p.set_defaults(func=cmd_evaluate_rwgbench)
    p = evaluate.add_parser("sciig", help="every SciIG metric for generated introductions (Table 2 layout)")
    p.add_argument("--predictions", required=True,
                   help='JSON Lines: {"paper_id", "text" (or "pred")} per paper; or a dataset folder / Hub dataset '
                        'id[:config] pushed by `sciwrite push`')
    p.add_argument("--dataset", default="sample", choices=get_benchmark("sciig").configs,
                   help="SciIG config; its test split is scored (holdout papers are excluded)")
    p.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder / the Hub)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--model", action="append", type=_role_model, metavar="ROLE=MODEL",
                   help="override one model role (scibert, bleurt, contextual_encoder, keyphrase_encoder, "
                        "summac_nli, question_generation, question_answering, gpt2, citation_extractor, sciig_judge); "
                        "repeatable")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="only these metrics or scorers (rouge, bleu, meteor, bertscore, bleurt, contextual_relevance, "
                        "keyphrases, summac, citations, perplexity, judge; default: all)")
    p.add_argument("--no-judge", action="store_true", help="skip the LLM judge")
    add_llm_options(p)
    p.add_argument("--upstream", action="store_true",
                   help="the prediction file is in the upstream SciIG pred/label/desc format (joined by label)")
    p.add_argument("--system", help="system name in the tables (default: the prediction file's stem)")
    p.add_argument("--out", help="output folder (default: outputs/sciig/<system>)")
    p.add_argument("--batch-size", type=int, default=64, help="model batch size")
    add_bootstrap_options(p)
    add_engine_options(p, "scoring")
    p.set_defaults(func=cmd_evaluate_sciig)
    p = evaluate.add_parser("sciig-table3", help="the SciIG paper's Table 3 (prompt levels side by side) from the "
                                                 "summary.json of each level's `sciwrite evaluate sciig` run")
    p.add_argument("--summary", action="append", required=True, type=_level_file, metavar="LEVEL=SUMMARY_JSON",
                   help="one level's summary (SHORT, MEDIUM, ELABORATE, AUTOCOT, ZERO_SHOT, ONE_SHOT, TWO_SHOT, "
                        "THREE_SHOT); repeatable")
    p.add_argument("--out", help="also write the table as <out>.json and <out>.csv")
    p.set_defaults(func=cmd_evaluate_sciig_table3)
