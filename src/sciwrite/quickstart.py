"""The main job, end to end, on the offline embedded default (the `lite` profile):

1. build the RWGBench and SciIG samples (from the aclsum package's 250 GROBID-parsed ACL papers);
2. index the RWGBench corpus with BM25 and the packaged MiniLM (dense), retrieve for every target paper and
   report retrieval quality of the gold citations;
3. generate: RWGBench with RAG over BM25, RAG over dense retrieval and Oracle (the gold citations), SciIG from
   each paper's title, abstract and cited works — with the extractive floor (no model) by default, or with a
   language model (`model`, e.g. ``openai:gpt-4o`` or ``hf:<path>``) through the same resumable runner;
4. evaluate both benchmarks with every metric the profile can compute;
5. print the tables and write them as JSON/CSV, with one plot comparing the systems.

Every step keeps its outputs under `out_dir`; generation resumes, so a rerun only does what is missing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sciwrite.core.tables import format_table, plot_metric_bars, write_table
from sciwrite.generation.extractive import ExtractiveRWGBench, ExtractiveSciIG
from sciwrite.generation.runner import run_generation
from sciwrite.leaderboard.runs import import_quickstart, serve_command
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.llm.backends import make_backend
from sciwrite.llm.ledger import UsageLedger
from sciwrite.retrieval import BM25Retriever, DenseRetriever, evaluate_retrieval
from sciwrite.rwgbench.benchmark import RWGBENCH
from sciwrite.rwgbench.data.configs import default_data_dir
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.generation.methods import RAG, CorpusLookup, prepare_records
from sciwrite.rwgbench.metrics.report import evaluate_prediction_files, format_table2
from sciwrite.rwgbench.metrics.suite import table2_row
from sciwrite.sciig.benchmark import SCIIG
from sciwrite.sciig.data.builder import write_sciig_sample
from sciwrite.sciig.data.configs import default_sciig_dir
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.report import evaluate_sciig_file, format_sciig_table

logger = logging.getLogger(__name__)

#: RWGBench systems of the quick start: name -> where its candidates come from.
RWGBENCH_SYSTEMS = {"rag-bm25": "bm25", "rag-dense": "dense", "oracle": "oracle"}
#: Metrics drawn in the comparison plot (RWGBench Table 2 keys that the lite profile computes).
PLOT_METRICS = ("precision", "recall", "topical_relevance", "citation_density", "citation_distribution_balance",
                "positioning_structure_similarity", "citation_frame_alignment", "rougeL", "bertscore_f1")


def run_quickstart(out_dir: str | Path = "outputs/quickstart", data_dir: str | Path | None = None,
                   profile: str = "lite", rebuild: bool = False, show_progress: bool = True,
                   model: str | None = None, limit: int | None = None, base_url: str | None = None,
                   sciig_dir: str | Path | None = None, store: str | Path | None = None) -> dict[str, Any]:
    """Run the pipeline; returns {"retrieval": rows, "rwgbench": summaries, "sciig": summary}.

    `data_dir` holds the RWGBench sample, `sciig_dir` the SciIG sample (defaults: `default_data_dir()`,
    `default_sciig_dir()`; each is built there when missing). `model` None uses the extractive floor; `limit`
    generates and scores only the first N papers of each benchmark (retrieval quality is always reported on
    every paper). The scored systems are then put on the leaderboard's store (`store`, default: the default
    store), and the command that opens the leaderboard is printed.
    """

    data_dir, out_dir = Path(data_dir or default_data_dir()), Path(out_dir)
    sciig_dir = Path(sciig_dir or default_sciig_dir())
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    if rebuild or not (data_dir / "README.md").exists():
        stats = write_sample_folder(data_dir, show_progress=show_progress)
        print(f"built the RWGBench sample in {data_dir}:")
        print(format_table([{"statistic": k, "value": v} for k, v in stats.items()]))
    papers = load_rwgbench("sample", source=data_dir)
    corpus = load_rwgbench("sample_corpus", source=data_dir)
    if rebuild or not (sciig_dir / "README.md").exists():
        stats = write_sciig_sample(sciig_dir)
        papers_per_split = ", ".join(f"{n} {split}" for split, n in stats["papers"].items())
        print(f"built the SciIG sample in {sciig_dir}: {papers_per_split} papers")
    print(f"\nRWGBench sample: {len(papers)} target papers, {len(corpus)} corpus documents")

    retrievers = {
        "bm25": BM25Retriever.from_corpus(corpus, show_progress=show_progress),
        "dense": DenseRetriever.from_corpus(corpus, profile=profile, show_progress=show_progress),
    }
    retrievers["bm25"].save(data_dir / "bm25" / "sample_corpus")
    retrievers["dense"].save(data_dir / "faiss" / "sample_corpus")
    retrieval_rows = _retrieval_report(retrievers, papers, out_dir, show_progress)

    targets = papers.to_list()[:limit] if limit else papers.to_list()
    rwg_files = _generate_rwgbench(targets, corpus, retrievers, out_dir / "generations" / "rwgbench", model,
                                   base_url, show_progress)
    sciig_file = _generate_sciig(sciig_dir, out_dir / "generations" / "sciig", model, base_url, limit, show_progress)

    rwg = evaluate_prediction_files(list(rwg_files.values()), "sample", source=data_dir,
                                    out_dir=out_dir / "rwgbench", systems=list(rwg_files), profile=profile,
                                    metrics=None if model else RWGBENCH.metrics_without_judge(None), show_progress=show_progress)
    print(f"\nRWGBench sample, {rwg[0]['n_papers']} papers, {_writer(model)} writer, profile {profile}:")
    print(format_table2(rwg))
    for metric, why in rwg[0]["not_computed"].items():
        print(f"  not computed: {metric}: {why.splitlines()[0][:160]}")
    rwg_rows = [table2_row(s, s["system"]) for s in rwg]
    write_table(rwg_rows, out_dir / "rwgbench_table2")

    sciig_system = Path(sciig_file).stem
    sciig = evaluate_sciig_file(sciig_file, "sample", source=sciig_dir, out_dir=out_dir / "sciig" / sciig_system, system=sciig_system,
                                profile=profile, metrics=None if model else SCIIG.metrics_without_judge(None),
                                show_progress=show_progress)
    print(f"\nSciIG sample, {sciig['n_papers']} papers, {_writer(model)} writer, profile {profile}:")
    print(format_sciig_table(sciig))
    if format_model_line(sciig):
        print(format_model_line(sciig))

    plot = _plot_systems(rwg, out_dir / "rwgbench_systems.png",
                         f"RWGBench sample: {_writer(model)} writer over three candidate lists ({rwg[0]['n_papers']} papers)")
    print(f"\nwrote {out_dir / 'retrieval.csv'}, {out_dir / 'rwgbench_table2.csv'} (+ .json), "
          f"{out_dir / 'rwgbench'}/<system>/, {out_dir / 'sciig' / sciig_system}/, the generations under "
          f"{out_dir / 'generations'} and the plot {plot}")
    board = ResultsStore(store)
    added = sum(new for _, new in import_quickstart(board, out_dir))
    print(f"\nput {added} new system(s) on the leaderboard store {board.path}; open the leaderboard with:\n  "
          + serve_command(board.path, data_dir if data_dir != Path(default_data_dir()) else None,
                          sciig_dir if sciig_dir != Path(default_sciig_dir()) else None))
    return {"retrieval": retrieval_rows, "rwgbench": rwg, "sciig": sciig}


def _plot_systems(summaries: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Grouped bars, one group per computed 0-1 metric (Table 2 labels), one bar per system."""

    labels = {key: label for columns in RWGBENCH.table_groups.values() for key, label in columns}
    metrics = [k for k in PLOT_METRICS if summaries[0].get(k) is not None]
    rows = [{"system": s["system"], **{labels[k]: s[k] for k in metrics}} for s in summaries]
    return plot_metric_bars(rows, "system", [labels[k] for k in metrics], path, title=title)


def _writer(model: str | None) -> str:
    return model or "extractive (floor, no model)"


def _retrieval_report(retrievers: dict[str, Any], papers: Any, out_dir: Path, show_progress: bool) -> list[dict[str, Any]]:
    rows, per_paper = [], []
    for name, retriever in retrievers.items():
        label = name if name == "bm25" else f"dense ({retriever.encoder_name.removeprefix('packaged:')})"
        report = evaluate_retrieval(retriever, papers, label, show_progress=show_progress)
        rows.append(report.summary_row())
        per_paper += [{"retriever": label, **row} for row in report.per_paper]
    print("\nRetrieval quality of the gold citations (query: title + abstract; target paper excluded):")
    print(format_table(rows))
    write_table(rows, out_dir / "retrieval")
    write_table(per_paper, out_dir / "retrieval_per_paper")
    plot_metric_bars(rows, "retriever", [k for k in rows[0] if k.startswith(("recall@", "ndcg@"))],
                     out_dir / "retrieval.png", title=f"RWGBench sample: retrieval of gold citations ({len(papers)} papers)")
    return rows


def _backend(model: str | None, base_url: str | None) -> Any:
    if model is None:
        return None

    return make_backend(model, base_url=base_url)


def _ledger(model: str | None, out: Path) -> UsageLedger | None:
    """With a language model, its usage and cost go to ``<out>/usage.jsonl``."""
    return None if model is None else UsageLedger(out / "usage.jsonl")


def _generate_rwgbench(targets: list[dict[str, Any]], corpus: Any, retrievers: dict[str, Any], out: Path,
                       model: str | None, base_url: str | None, show_progress: bool) -> dict[str, Path]:
    """One prediction file per quick-start system (resumable); the writer is the extractive floor or RAG."""

    lookup = CorpusLookup(corpus)
    writer: Any
    if model is None:
        writer = ExtractiveRWGBench()
    files = {}
    for system, source in RWGBENCH_SYSTEMS.items():
        records = prepare_records(targets, lookup, None if source == "oracle" else retrievers[source],
                                  oracle=source == "oracle")
        if model is not None:
            writer = RAG(retriever=source, k=None if source == "oracle" else 50)
        path = out / f"{system}.jsonl"
        report = run_generation(records, writer, _backend(model, base_url), path, show_progress=show_progress,
                                ledger=_ledger(model, out),
                                meta={"benchmark": "rwgbench", "split": "sample", "model": model or "extractive",
                                      "method": writer.name, "retriever": source})
        _say(f"RWGBench {system}", report)
        files[system] = path
    return files


def _generate_sciig(sciig_dir: Path, out: Path, model: str | None, base_url: str | None, limit: int | None,
                    show_progress: bool) -> Path:
    test = load_sciig("sample", source=sciig_dir, split="test").to_list()
    if model is None:
        method: Any = ExtractiveSciIG()
    else:
        method = SciIGMethod("THREE_SHOT", holdout=load_sciig("sample", source=sciig_dir, split="holdout").to_list(), dataset="sample")
    path = out / f"{'extractive' if model is None else 'three_shot'}.jsonl"
    report = run_generation(test[:limit] if limit else test, method, _backend(model, base_url), path,
                            show_progress=show_progress, ledger=_ledger(model, out),
                            meta={"benchmark": "sciig", "dataset": "sample", "model": model or "extractive",
                                  "method": method.name, "retriever": None})
    _say("SciIG", report)
    return path


def _say(what: str, report: Any) -> None:
    failed = f", {report.n_failed} failed (see {report.failures_path})" if report.n_failed else ""
    print(f"{what}: {report.n_written} generated, {report.n_already_done} already there{failed}")
