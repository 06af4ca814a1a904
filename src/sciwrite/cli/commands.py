"""The `sciwrite` command: build datasets, build and query retrieval indexes, generate, evaluate, publish
predictions, run the quick start."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from sciwrite.cli.build_sciig import add_build_arguments, run_build
from sciwrite.cli.generate_rwgbench import add_generate_rwgbench_arguments, run_generate_rwgbench
from sciwrite.cli.generate_sciig import add_generate_sciig_arguments, run_generate_sciig
from sciwrite.core.hub import push_predictions, run_card_fields
from sciwrite.core.tables import format_table
from sciwrite.quickstart import run_quickstart
from sciwrite.retrieval import BM25Retriever, DenseRetriever, build_query, evaluate_retrieval, load_retriever
from sciwrite.rwgbench.data.builder import build_rwgbench_folder
from sciwrite.rwgbench.data.configs import SAMPLE_CONFIGS, default_data_dir
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.metrics import suite as rwgbench_suite
from sciwrite.rwgbench.metrics.report import evaluate_prediction_files, format_table2
from sciwrite.sciig.metrics import suite as sciig_suite
from sciwrite.sciig.metrics.report import evaluate_sciig_file, format_sciig_table


def _local_source(source: str | None, config: str) -> Path | None:
    """The local folder a config is read from (None for a Hub repo)."""

    if source is None:
        return default_data_dir() if config in SAMPLE_CONFIGS else None
    path = Path(source).expanduser()
    return path if path.exists() else None


def cmd_build_sample(args: argparse.Namespace) -> None:

    out = Path(args.out or default_data_dir())
    stats = write_sample_folder(out, paper_dir=args.paper_dir)
    print(f"RWGBench sample written to {out}")
    print(format_table([{"statistic": k, "value": v} for k, v in stats.items()]))


def cmd_build_rwgbench(args: argparse.Namespace) -> None:

    summary = build_rwgbench_folder(html_dir=args.html_dir, surge_corpus=args.surge_corpus, out=args.out,
                                    arxiv_records=args.arxiv_records, accepted_titles=args.accepted_titles)
    print(format_table([{"statistic": k, "value": v} for k, v in summary.items()]))


def cmd_build_sciig(args: argparse.Namespace) -> None:

    summary = run_build(args)
    print(f"SciIG config {summary['config']!r} written to {summary['out']}")
    print(format_table([{"statistic": k, "value": v} for k, v in summary.items() if k not in ("out", "config")]))


def cmd_index_build(args: argparse.Namespace) -> None:

    corpus = load_rwgbench(args.config, source=args.source)
    if args.kind == "bm25":
        retriever = BM25Retriever.from_corpus(corpus)
    else:
        retriever = DenseRetriever.from_corpus(corpus, encoder=args.encoder, factory=args.factory, profile=args.profile,
                                               batch_size=args.batch_size, nprobe=args.nprobe,
                                               ef_construction=args.ef_construction)
    local = _local_source(args.source, args.config)
    default = (local / ("faiss" if args.kind == "dense" else "bm25") / args.config) if local else Path("indexes") / args.config / args.kind
    out = Path(args.out or default)
    retriever.save(out)
    print(f"{args.kind} index of {len(corpus)} documents from {args.config!r} written to {out}")


def cmd_retrieve(args: argparse.Namespace) -> None:

    retriever = load_retriever(args.index)
    papers = load_rwgbench(args.config, source=args.source)
    if args.limit:
        papers = papers.select(range(min(args.limit, len(papers))))
    if args.out:
        queries = [build_query(p, args.with_introduction) for p in papers]
        results = retriever.search(queries, k=args.k)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for paper, result in zip(papers, results):
                f.write(json.dumps({"paper_id": paper["paper_id"], "candidates": result.doc_ids, "scores": result.scores}) + "\n")
        print(f"top-{args.k} candidates for {len(papers)} papers written to {out}")
    report = evaluate_retrieval(retriever, papers, name=Path(args.index).name, ks=args.ks,
                                include_introduction=args.with_introduction)
    print(format_table([report.summary_row()]))


def cmd_quickstart(args: argparse.Namespace) -> None:

    run_quickstart(out_dir=args.out, data_dir=args.data_dir, profile=args.profile, rebuild=args.rebuild,
                   model=args.model, limit=args.limit, base_url=args.base_url, sciig_dir=args.sciig_dir)


def cmd_generate_sciig(args: argparse.Namespace) -> None:

    run_generate_sciig(args)


def cmd_generate_rwgbench(args: argparse.Namespace) -> None:

    run_generate_rwgbench(args)


def cmd_push(args: argparse.Namespace) -> None:

    fields = run_card_fields(args.predictions)
    url = push_predictions(args.predictions, args.repo_id, fields, config_name=args.config, private=args.private)
    config = args.config or Path(args.predictions).stem
    print(f"pushed {args.predictions} to {url} as config {config!r} ({fields['benchmark']}, {fields['model']}, "
          f"{fields['method']}); evaluate it with --predictions {args.repo_id}:{config}")


def cmd_evaluate_rwgbench(args: argparse.Namespace) -> None:

    systems = args.system or [Path(p).stem for p in args.predictions]
    out = Path(args.out or Path("outputs") / "rwgbench")
    judge_options = {k: v for k, v in (("base_url", args.judge_base_url), ("cache_path", args.judge_cache)) if v}
    metrics = rwgbench_suite.metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    summaries = evaluate_prediction_files(args.predictions, args.split, source=args.source, out_dir=out,
                                          systems=systems, profile=args.profile, models=dict(args.model or []),
                                          metrics=metrics, judge_options=judge_options,
                                          missing_as_empty=args.missing_as_empty, batch_size=args.batch_size)
    print()
    for summary in summaries:
        join = summary["join"]
        print(f"{summary['system']}: {summary['n_papers']} papers of RWGBench {args.split} scored ({join['n_missing']} "
              f"missing, {join['n_extra']} extra, {join['n_duplicates']} duplicate ids); empty-citation outputs "
              f"{summary['empty_citation_rate']:.1%}, unresolved markers {summary['unresolved_markers']}")
    print(f"profile {summaries[0]['profile']}\n")
    print(format_table2(summaries))
    for metric, why in summaries[0]["not_computed"].items():
        print(f"not computed: {metric}: {why}")
    print(f"\nwrote per_paper.jsonl, summary.json and summary.csv for each system under {out}/<system>/")


def cmd_evaluate_sciig(args: argparse.Namespace) -> None:

    system = args.system or Path(args.predictions).stem
    out = Path(args.out or Path("outputs") / "sciig" / system)
    judge_options = {k: v for k, v in (("base_url", args.judge_base_url), ("cache_path", args.judge_cache)) if v}
    metrics = sciig_suite.metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    summary = evaluate_sciig_file(args.predictions, args.dataset, source=args.source, out_dir=out, system=system,
                                  profile=args.profile, models=dict(args.model or []), metrics=metrics,
                                  judge_options=judge_options, upstream=args.upstream, batch_size=args.batch_size)
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
    for stage, errors in summary["scoring_errors"].items():
        first = next(iter(errors.items()))
        print(f"scoring error: {stage}: {len(errors)} paper(s) not scored, e.g. {first[0]}: {first[1]}")
    print(f"\nwrote {out / 'per_paper.jsonl'}, {out / 'summary.json'}, {out / 'summary.csv'}, "
          f"{out / 'metric_timings.json'} and {out / 'keyphrase_outputs'}"
          + (f"; rejected lines in {out / 'rejected.jsonl'}" if join["n_rejected_lines"] else ""))


def _role_model(value: str) -> tuple[str, str]:
    role, sep, model = value.partition("=")
    if not sep or not role or not model:
        raise argparse.ArgumentTypeError(f"expected ROLE=MODEL (e.g. nli=path/to/model), got {value!r}")
    return role, model


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sciwrite", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build a dataset").add_subparsers(dest="what", required=True)
    p = build.add_parser("sample", help="the offline RWGBench sample from the packaged ACL papers")
    p.add_argument("--out", help="folder to write (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)")
    p.add_argument("--paper-dir", help="folder of grobid2json papers (default: the aclsum package's)")
    p.set_defaults(func=cmd_build_sample)
    p = build.add_parser("rwgbench", help="RWGBench from arXiv HTML pages and the SurGE corpus")
    p.add_argument("--html-dir", required=True, help="folder of LaTeXML arXiv HTML pages (<arxiv id>.html)")
    p.add_argument("--surge-corpus", required=True, help="SurGE corpus.json")
    p.add_argument("--arxiv-records", help="JSON Lines of extra arXiv records for cited papers missing from SurGE")
    p.add_argument("--accepted-titles", help="CSV/TSV/JSONL/txt of accepted ICLR/NeurIPS/ICML titles (for `test`)")
    p.add_argument("--out", required=True, help="dataset folder to write")
    p.set_defaults(func=cmd_build_rwgbench)

    p = add_build_arguments(build.add_parser("sciig", help="SciIG from grobid2json papers (default: the offline sample)"))
    p.set_defaults(func=cmd_build_sciig)

    index = sub.add_parser("index", help="retrieval indexes").add_subparsers(dest="what", required=True)
    p = index.add_parser("build", help="index a corpus config with BM25 or a dense encoder")
    p.add_argument("--corpus", "--config", dest="config", default="sample_corpus", help="corpus config (corpus, sample_corpus)")
    p.add_argument("--source", help="local dataset folder or Hub repo id")
    p.add_argument("--kind", choices=["bm25", "dense"], required=True)
    p.add_argument("--out", help="index folder (default: next to a local dataset, faiss/<config> or bm25/<config>)")
    p.add_argument("--encoder", help="dense encoder id or path (default: the profile's dense_encoder)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--factory", default="Flat", help="FAISS factory string: Flat (exact), IVF4096,Flat, HNSW32 ...")
    p.add_argument("--nprobe", type=int, default=16, help="IVF lists searched per query")
    p.add_argument("--ef-construction", type=int, default=40, help="HNSW graph-building beam")
    p.add_argument("--batch-size", type=int, default=64, help="encoder batch size")
    p.set_defaults(func=cmd_index_build)

    p = sub.add_parser("retrieve", help="retrieve candidates for a split and report retrieval quality")
    p.add_argument("--index", required=True, help="folder written by `sciwrite index build`")
    p.add_argument("--config", default="sample", help="paper config (sample, test, papers)")
    p.add_argument("--source", help="local dataset folder or Hub repo id")
    p.add_argument("--k", type=int, default=50, help="candidates per paper")
    p.add_argument("--ks", type=int, nargs="+", default=[10, 20, 50], help="recall cut-offs to report")
    p.add_argument("--with-introduction", action="store_true", help="append the introduction to the query")
    p.add_argument("--limit", type=int, help="only the first N papers")
    p.add_argument("--out", help="write the candidates as JSON Lines")
    p.set_defaults(func=cmd_retrieve)

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
    p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge (default: $SCIWRITE_LLM_BASE_URL)")
    p.add_argument("--judge-cache", help="JSON Lines cache of judge replies, so a rerun resumes")
    p.add_argument("--missing-as-empty", action="store_true", help="score papers without a prediction as empty sections")
    p.add_argument("--system", nargs="+", help="system names in the tables (default: the prediction files' stems)")
    p.add_argument("--out", help="output folder; each system writes to <out>/<system>/ (default: outputs/rwgbench)")
    p.add_argument("--batch-size", type=int, default=64, help="model batch size")
    p.set_defaults(func=cmd_evaluate_rwgbench)
    p = evaluate.add_parser("sciig", help="every SciIG metric for generated introductions (Table 2 layout)")
    p.add_argument("--predictions", required=True,
                   help='JSON Lines: {"paper_id", "text" (or "pred")} per paper; or a dataset folder / Hub dataset '
                        'id[:config] pushed by `sciwrite push`')
    p.add_argument("--dataset", default="sample", choices=["naacl_2025", "iclr_2025", "sample"],
                   help="SciIG config; its test split is scored (holdout papers are excluded)")
    p.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder / the Hub)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--model", action="append", type=_role_model, metavar="ROLE=MODEL",
                   help="override one model role (scibert, bleurt, contextual_encoder, keyphrase_encoder, "
                        "summac_nli, gpt2, judge); repeatable")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="only these metrics or scorers (rouge, bleu, meteor, bertscore, bleurt, contextual_relevance, "
                        "keyphrases, summac, citations, perplexity, judge; default: all)")
    p.add_argument("--no-judge", action="store_true", help="skip the LLM judge")
    p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge (default: $SCIWRITE_LLM_BASE_URL)")
    p.add_argument("--judge-cache", help="JSON Lines cache of judge replies, so a rerun resumes")
    p.add_argument("--upstream", action="store_true",
                   help="the prediction file is in the upstream SciIG pred/label/desc format (joined by label)")
    p.add_argument("--system", help="system name in the tables (default: the prediction file's stem)")
    p.add_argument("--out", help="output folder (default: outputs/sciig/<system>)")
    p.add_argument("--batch-size", type=int, default=64, help="model batch size")
    p.set_defaults(func=cmd_evaluate_sciig)

    generate = sub.add_parser("generate", help="generate predictions with a method and a model").add_subparsers(
        dest="what", required=True)

    p = add_generate_sciig_arguments(generate.add_parser(
        "sciig", help="SciIG introductions with one or more of the seven prompting regimes"))
    p.set_defaults(func=cmd_generate_sciig)
    p = add_generate_rwgbench_arguments(generate.add_parser(
        "rwgbench", help="RWGBench related-work sections: Direct, RAG, ALCE, TAG, Workflow (+ Oracle)"))
    p.set_defaults(func=cmd_generate_rwgbench)

    p = sub.add_parser("push", help="upload a prediction file to the Hub as a dataset config, with a card")
    p.add_argument("predictions", help="JSON Lines written by `sciwrite generate`")
    p.add_argument("--repo-id", required=True, help="Hub dataset repo, e.g. user/sciwrite-predictions")
    p.add_argument("--config", help="config name (default: the file's stem)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.set_defaults(func=cmd_push)

    p = sub.add_parser("quickstart", help="the main job on the offline embedded default")
    p.add_argument("--out", default="outputs/quickstart", help="folder for the result tables and plot")
    p.add_argument("--data-dir", help="dataset folder (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)")
    p.add_argument("--sciig-dir", help="SciIG sample folder (default: $SCIWRITE_SCIIG_DIR or <data dir>/../sciig)")
    p.add_argument("--profile", default="lite", choices=["paper", "lite"])
    p.add_argument("--rebuild", action="store_true", help="rebuild the sample even if it exists")
    p.add_argument("--model", help="generate with this model (openrouter:, openai:, hf:, or an id with --base-url) "
                                   "instead of the extractive floor")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for a bare --model id")
    p.add_argument("--limit", type=int, help="generate and score only the first N papers of each benchmark")
    p.set_defaults(func=cmd_quickstart)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as err:
        print(f"sciwrite: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
