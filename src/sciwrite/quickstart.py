"""The main job on the offline embedded default: build the RWGBench sample, index its corpus with BM25
and dense retrieval (the `lite` profile's packaged MiniLM), and report retrieval quality of the target
papers' gold citations as a table, JSON/CSV and a plot."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sciwrite.data.loading import default_data_dir, load_rwgbench
from sciwrite.data.sample_folder import write_sample_folder
from sciwrite.reporting import format_table, plot_metric_bars, write_table
from sciwrite.retrieval import BM25Retriever, DenseRetriever, evaluate_retrieval

logger = logging.getLogger(__name__)


def run_quickstart(out_dir: str | Path = "outputs/quickstart", data_dir: str | Path | None = None,
                   profile: str = "lite", rebuild: bool = False, show_progress: bool = True) -> list[dict[str, Any]]:
    """Run the pipeline end to end and return the summary rows (one per retriever)."""
    data_dir, out_dir = Path(data_dir or default_data_dir()), Path(out_dir)
    if rebuild or not (data_dir / "README.md").exists():
        stats = write_sample_folder(data_dir, show_progress=show_progress)
        print(f"built the RWGBench sample in {data_dir}:")
        print(format_table([{"statistic": k, "value": v} for k, v in stats.items()]))
    papers = load_rwgbench("sample", source=data_dir)
    corpus = load_rwgbench("sample_corpus", source=data_dir)
    print(f"\n{len(papers)} target papers, {len(corpus)} corpus documents")

    retrievers = {
        "bm25": BM25Retriever.from_corpus(corpus, show_progress=show_progress),
        "dense": DenseRetriever.from_corpus(corpus, profile=profile, show_progress=show_progress),
    }
    retrievers["bm25"].save(data_dir / "bm25" / "sample_corpus")
    retrievers["dense"].save(data_dir / "faiss" / "sample_corpus")
    rows, per_paper = [], []
    for name, retriever in retrievers.items():
        label = name if name == "bm25" else f"dense ({retriever.encoder_name.removeprefix('packaged:')})"
        report = evaluate_retrieval(retriever, papers, label, show_progress=show_progress)
        rows.append(report.summary_row())
        per_paper += [{"retriever": label, **row} for row in report.per_paper]
    print("\nRetrieval quality of the gold citations (query: title + abstract; target paper excluded):")
    print(format_table(rows))
    table_json, table_csv = write_table(rows, out_dir / "retrieval")
    write_table(per_paper, out_dir / "retrieval_per_paper")
    plot = plot_metric_bars(rows, "retriever", [k for k in rows[0] if k.startswith(("recall@", "ndcg@"))],
                            out_dir / "retrieval.png", title=f"RWGBench sample: retrieval of gold citations ({len(papers)} papers)")
    print(f"\nwrote {table_json}, {table_csv}, {out_dir / 'retrieval_per_paper.csv'} and {plot}")
    return rows
