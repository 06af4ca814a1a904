"""RWGBench's part of the quick start (`sciwrite.quickstart`): build the sample when missing, index its corpus
with BM25 and the profile's dense encoder and report retrieval quality of the gold citations, generate RAG over
BM25, RAG over dense retrieval and Oracle candidates (the extractive floor without a model), score the three
systems and print Table 2, and plot them side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.core.coverage import with_coverage
from sciwrite.core.summary import Summary
from sciwrite.core.tables import format_table, plot_metric_bars, write_table
from sciwrite.generation.quickstart_run import QuickstartRun, say, scorer
from sciwrite.metrics.memorisation import print_memorisation
from sciwrite.retrieval import BM25Retriever, DenseRetriever, Retriever, evaluate_retrieval
from sciwrite.rwgbench.data.configs import default_rwgbench_dir
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.metrics.report import format_table2
from sciwrite.rwgbench.metrics.specs import METRICS
from sciwrite.rwgbench.metrics.suite import TABLE2_GROUPS, table2_row

#: RWGBench systems of the quick start: name -> where its candidates come from.
RWGBENCH_SYSTEMS = {"rag-bm25": "bm25", "rag-dense": "dense", "oracle": "oracle"}
#: The run metadata the quick start's lines carry (the plan's, less its k and oracle; the runner adds the seed).
META_KEYS = ("benchmark", "split", "model", "method", "retriever")
#: Metrics drawn in the comparison plot (RWGBench Table 2 keys that the lite profile computes), as their specs say.
PLOT_METRICS = tuple(spec.key for spec in METRICS if spec.plotted)


def run_rwgbench_quickstart(run: QuickstartRun) -> dict[str, Any]:
    """{"rwgbench": the three systems' summaries, "retrieval": the retrieval report rows}; tables under
    ``<out>/rwgbench/<system>/``, ``<out>/retrieval.*``, ``<out>/rwgbench_table2.*`` and the plot."""
    data_dir, out_dir = Path(run.source or default_rwgbench_dir()), run.out_dir
    if run.rebuild or not (data_dir / "README.md").exists():
        stats = write_sample_folder(data_dir, show_progress=run.show_progress)
        print(f"built the RWGBench sample in {data_dir}:")
        print(format_table([{"statistic": k, "value": v} for k, v in stats.items()]))
    papers = load_rwgbench("sample", source=data_dir)
    corpus = load_rwgbench("sample_corpus", source=data_dir)
    print(f"\nRWGBench sample: {len(papers)} target papers, {len(corpus)} corpus documents")
    bm25 = BM25Retriever.from_corpus(corpus, show_progress=run.show_progress)
    dense = DenseRetriever.from_corpus(corpus, profile=run.profile, show_progress=run.show_progress)
    bm25.save(index_folder(data_dir, "bm25"))
    dense.save(index_folder(data_dir, "dense"))
    labelled: dict[str, Retriever] = {"bm25": bm25, f"dense ({dense.encoder_name.removeprefix('packaged:')})": dense}
    retrieval_rows = _retrieval_report(labelled, papers, out_dir, run.show_progress)

    files = _generate(data_dir, out_dir / "generations" / "rwgbench", run)
    summaries = scorer(run)(list(files.values()), list(files), out_dir / "rwgbench", data_dir)
    print(f"\nRWGBench sample, {summaries[0].n_papers} papers, {run.writer} writer, profile {run.profile}:")
    print(format_table2(summaries))
    print_memorisation(summaries)
    for metric, why in summaries[0].not_computed.items():
        print(f"  not computed: {metric}: {why.splitlines()[0][:160]}")
    write_table([table2_row(s, str(s.system)) for s in summaries], out_dir / "rwgbench_table2")
    plot = _plot_systems(summaries, out_dir / "rwgbench_systems.png",
                         f"RWGBench sample: {run.writer} writer over three candidate lists "
                         f"({summaries[0].n_papers} papers)")
    print(f"\nwrote {out_dir / 'retrieval.csv'}, {out_dir / 'rwgbench_table2.csv'} (+ .json), "
          f"{out_dir / 'rwgbench'}/<system>/, the generations under {out_dir / 'generations' / 'rwgbench'} and the "
          f"plot {plot}")
    return {"rwgbench": summaries, "retrieval": retrieval_rows}


def _retrieval_report(retrievers: dict[str, Retriever], papers: Any, out_dir: Path,
                      show_progress: bool) -> list[dict[str, Any]]:
    """Each retriever's recall and nDCG of the gold citations (label -> retriever), printed, written and plotted."""
    rows, per_paper = [], []
    for label, retriever in retrievers.items():
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


def index_folder(data_dir: Path, kind: str) -> Path:
    """Where the quick start saves the sample corpus's retriever of `kind` (bm25, dense), which generation loads."""
    return data_dir / ("faiss" if kind == "dense" else kind) / "sample_corpus"


def _generate(data_dir: Path, out: Path, run: QuickstartRun) -> dict[str, Path]:
    """One prediction file per quick-start system (resumable), each generated as ``sciwrite generate rwgbench
    --split sample --source <sample> --index <its saved retriever>`` (or ``--oracle``) would, with the extractive
    floor, or ``--method rag`` with a model."""
    files = {}
    for system, source in RWGBENCH_SYSTEMS.items():
        oracle = source == "oracle"
        options = {"split": "sample", "source": str(data_dir), "method": None if run.model is None else ["rag"],
                   "oracle": oracle,
                   **({} if oracle else {"retriever": source, "index": str(index_folder(data_dir, source))})}
        report = run.generate_system(out, f"{system}.jsonl", META_KEYS, options)
        say(f"RWGBench {system}", report)
        files[system] = report.out_path
    return files


def _plot_systems(summaries: list[Summary], path: Path, title: str) -> Path:
    """Grouped bars, one group per computed 0-1 metric (Table 2 labels), one bar per system."""
    labels = {key: label for columns in TABLE2_GROUPS.values() for key, label in columns}
    metrics = [k for k in PLOT_METRICS if summaries[0].value(k) is not None]
    rows = [{"system": with_coverage(str(s.system), s.scored), **{labels[k]: s.value(k) for k in metrics}}
            for s in summaries]
    return plot_metric_bars(rows, "system", [labels[k] for k in metrics], path, title=title)


__all__ = ["PLOT_METRICS", "RWGBENCH_SYSTEMS", "run_rwgbench_quickstart"]
