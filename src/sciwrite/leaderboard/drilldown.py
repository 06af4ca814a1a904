"""One submission, paper by paper: its per-paper scores, and for one paper the generated text beside the
reference with what its citations point to.

RWGBench: each distinct marker [i] resolves to ``candidates[i-1]`` (`sciwrite.rwgbench.metrics.formulas`), shown
with the cited paper's title and whether it is one of the published section's citations (the gold set); a
number outside the candidate list is flagged; the gold papers the generation did not cite are listed apart,
with their place in the candidate list if they were there. SciIG: the paper's cited works, each marked cited or
not by the generation as the citation-correctness scorer read it (its ``cited_keys`` on the per-paper row), and
the citations it makes outside them.

The split's paper records are loaded once per benchmark and split (`BenchmarkPapers.load`); RWGBench corpus titles
are looked up on demand in the memory-mapped corpus (one vectorised Arrow pass per paper view, no index of the
whole corpus in memory).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.tables import MISSING, as_benchmark, metric_columns, number
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.formulas import parse_citation_markers
from sciwrite.rwgbench.metrics.report import SPLITS
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.citations import resolve_keys
from sciwrite.sources.apa import comparison_key

#: What the citation table says of a marker whose number is outside the candidate list.
OUT_OF_RANGE = "not in the candidate list"
CITATION_COLUMNS = ("Marker", "doc_id", "Cited title", "In gold set")
UNCITED_GOLD_COLUMNS = ("doc_id", "Title", "In candidate list")
NEIGHBOR_COLUMNS = ("Key", "Title", "Cited by the generation")


def paper_scores_frame(store: ResultsStore, submission_id: str) -> pd.DataFrame:
    """One row per scored paper of the submission (paper order): paper_id, then each metric of its benchmark's
    results table (column labels of `metric_columns`) rounded to 3 decimals, NaN where it has no value."""
    submission = store.get(submission_id)
    columns = metric_columns(submission.benchmark)
    records = [{"paper_id": row["paper_id"],
                **{label: None if (v := number(row.get(key))) is None else round(v, 3) for _, key, label in columns}}
               for row in store.paper_rows(submission_id)]
    return pd.DataFrame(records, columns=["paper_id", *(label for _, _, label in columns)])


class BenchmarkPapers:
    """A split's paper records by paper_id and, for RWGBench, its corpus (for cited titles), loaded once.

    `papers` maps paper_id -> record (`sciwrite.rwgbench.data.schema.PAPER_FEATURES` or
    `sciwrite.sciig.data.schema.SCIIG_FEATURES`); `corpus` is a `datasets.Dataset` of the RWGBench corpus or a
    mapping doc_id -> title (or None: titles unknown)."""

    def __init__(self, benchmark: str, split: str, papers: Iterable[Mapping[str, Any]],
                 corpus: Any = None):
        self.benchmark = as_benchmark(benchmark).name
        self.split = split
        self.papers: dict[str, Mapping[str, Any]] = {}
        for record in papers:
            self.papers.setdefault(str(record["paper_id"]), record)
        self._corpus = corpus
        self._titles: dict[str, str] = {}

    @classmethod
    def load(cls, benchmark: str, split: str, source: str | Path | None = None) -> BenchmarkPapers:
        """The papers of `split` as the leaderboard scores it: RWGBench ``sample`` / ``test`` (papers and corpus
        configs of `sciwrite.rwgbench.metrics.report.SPLITS`), SciIG a config's ``test`` split (the submission's
        split names the config: ``sample``, ``naacl_2025``, ...). `source`: a local folder or Hub repo."""
        name = as_benchmark(benchmark).name
        if name == "rwgbench":
            if split not in SPLITS:
                raise ValueError(f"unknown RWGBench split {split!r}; choose one of {list(SPLITS)}")
            paper_config, corpus_config = SPLITS[split]
            return cls(name, split, load_rwgbench(paper_config, source=source).to_list(),
                       load_rwgbench(corpus_config, source=source))
        return cls(name, split, load_sciig(split, source=source, split="test").to_list())

    def paper(self, paper_id: str) -> Mapping[str, Any]:
        """The record of `paper_id`; `KeyError` naming it when the split has no such paper."""
        if paper_id not in self.papers:
            raise KeyError(f"paper {paper_id!r} is not in the {self.benchmark} {self.split!r} split")
        return self.papers[paper_id]

    def titles(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """doc_id -> corpus title for the `doc_ids` the corpus holds (remembered once looked up)."""
        wanted = {d for d in doc_ids if d not in self._titles}
        if wanted and self._corpus is not None:
            if isinstance(self._corpus, Mapping):
                found = {d: str(self._corpus[d]) for d in wanted if d in self._corpus}
            else:
                found = _corpus_titles(self._corpus, wanted)
            self._titles.update(found)
        return {d: self._titles[d] for d in doc_ids if d in self._titles}


def _corpus_titles(corpus: Any, doc_ids: set[str]) -> dict[str, str]:
    """Titles of `doc_ids` in a corpus `datasets.Dataset`, in one vectorised pass over its memory-mapped columns."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if getattr(corpus, "_indices", None) is not None:  # a selection: materialise its rows once
        corpus = corpus.flatten_indices()
    table = corpus.data.table
    mask = pc.is_in(table.column("doc_id"), value_set=pa.array(sorted(doc_ids), pa.string()))
    picked = table.filter(mask).select(["doc_id", "title"]).to_pylist()
    return {r["doc_id"]: r["title"] or "" for r in picked}


@dataclass
class PaperView:
    """One paper of one submission, for the drill-down page."""

    submission_id: str
    benchmark: str
    paper_id: str
    title: str  # the target paper's title
    generated: str  # the submission's text
    reference: str  # RWGBench: the published related work; SciIG: the published introduction
    scores: pd.DataFrame  # Metric, Score (3 decimals; MISSING without a value)
    citations: pd.DataFrame  # RWGBench: CITATION_COLUMNS; SciIG: NEIGHBOR_COLUMNS
    extra: pd.DataFrame  # RWGBench: gold papers not cited (UNCITED_GOLD_COLUMNS); SciIG: citations outside the works
    extra_caption: str
    notes: list[str] = field(default_factory=list)


def _prediction(store: ResultsStore, submission_id: str, paper_id: str) -> dict[str, Any]:
    """The submission's (first) prediction record for `paper_id`; `KeyError` naming it when there is none."""
    for line in store.predictions(submission_id).splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("paper_id") == paper_id:
            return record
    raise KeyError(f"submission {submission_id!r} has no prediction for paper {paper_id!r}")


def _scores(row: Mapping[str, Any] | None, benchmark: str) -> pd.DataFrame:
    values = [(label, number((row or {}).get(key))) for _, key, label in metric_columns(benchmark)]
    return pd.DataFrame([{"Metric": label, "Score": MISSING if v is None else f"{v:.3f}"} for label, v in values],
                        columns=["Metric", "Score"])


def rwgbench_citations(text: str, candidates: Sequence[str], gold: Sequence[str],
                       titles: Mapping[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per distinct marker in order of first appearance: Marker, doc_id, Cited title, In gold set — "yes",
    "no" or `OUT_OF_RANGE`; the gold papers no marker resolves to: doc_id, Title, In candidate list — "[k]" or
    "no")."""
    gold_set, cited, rows = set(gold), set(), []
    for n in dict.fromkeys(parse_citation_markers(text)):
        if 1 <= n <= len(candidates):
            doc_id = candidates[n - 1]
            cited.add(doc_id)
            rows.append({"Marker": f"[{n}]", "doc_id": doc_id, "Cited title": titles.get(doc_id, ""),
                         "In gold set": "yes" if doc_id in gold_set else "no"})
        else:
            rows.append({"Marker": f"[{n}]", "doc_id": "", "Cited title": "", "In gold set": OUT_OF_RANGE})
    position = {doc_id: i for i, doc_id in reversed(list(enumerate(candidates, 1)))}
    uncited = [{"doc_id": d, "Title": titles.get(d, ""), "In candidate list": f"[{position[d]}]" if d in position
                else "no"} for d in dict.fromkeys(gold) if d not in cited]
    return pd.DataFrame(rows, columns=list(CITATION_COLUMNS)), pd.DataFrame(uncited, columns=list(UNCITED_GOLD_COLUMNS))


def sciig_citations(neighbors: Sequence[Mapping[str, Any]], row: Mapping[str, Any] | None
                    ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(the paper's cited works: Key, Title, Cited by the generation — "yes" / "no" from the row's ``cited_keys``,
    `MISSING` when the row holds none; the generation's citations outside them; notes)."""
    keys = (row or {}).get("cited_keys")
    notes: list[str] = []
    cited: set[str] | None = None
    outside: list[str] = []
    if isinstance(keys, list):
        cited, outside, _ = resolve_keys([str(k) for k in keys], neighbors)
    else:
        notes.append("the per-paper row holds no extracted citations (citation correctness was not computed), "
                     "so only the cited works are listed")
    table = [{"Key": n.get("key", ""), "Title": n.get("title", ""),
              "Cited by the generation": MISSING if cited is None else
              ("yes" if comparison_key(str(n.get("key", ""))) in cited else "no")} for n in neighbors]
    extra = pd.DataFrame([{"Citation": k} for k in (row or {}).get("not_in_neighbors", outside)], columns=["Citation"])
    return pd.DataFrame(table, columns=list(NEIGHBOR_COLUMNS)), extra, notes


def paper_view(store: ResultsStore, submission_id: str, paper_id: str, papers: BenchmarkPapers) -> PaperView:
    """The drill-down of `paper_id` in submission `submission_id`; `KeyError` naming the paper when the split or the
    submission has no such paper, `ValueError` when `papers` belongs to another benchmark or split."""
    submission = store.get(submission_id)
    if (papers.benchmark, papers.split) != (submission.benchmark, submission.split):
        raise ValueError(f"submission {submission_id!r} is scored on {submission.benchmark}/{submission.split}, "
                         f"the papers given are {papers.benchmark}/{papers.split}")
    paper = papers.paper(paper_id)
    record = _prediction(store, submission_id, paper_id)
    text = str(record.get("text", record.get("pred", "")) or "")
    row = next((r for r in store.paper_rows(submission_id) if str(r.get("paper_id")) == paper_id), None)
    notes = [] if row is not None else ["this paper has no per-paper scores (not scored)"]
    if submission.benchmark == "rwgbench":
        candidates = [str(c) for c in record.get("candidates") or []]
        gold = [str(g) for g in paper.get("citations") or []]
        titles = papers.titles([*candidates, *gold])
        citations, extra = rwgbench_citations(text, candidates, gold, titles)
        caption = "Gold papers (cited by the published section) the generation does not cite"
        reference = str(paper.get("related_work") or "")
        if not candidates:
            notes.append("the prediction has no candidate list (Direct): no marker resolves to a paper")
    else:
        citations, extra, more = sciig_citations(list(paper.get("neighbors") or []), row)
        notes += more
        caption = "Citations in the generation that are not among the paper's cited works"
        reference = str(paper.get("introduction") or "")
    return PaperView(submission_id=submission_id, benchmark=submission.benchmark, paper_id=paper_id,
                     title=str(paper.get("title") or ""), generated=text, reference=reference,
                     scores=_scores(row, submission.benchmark), citations=citations, extra=extra,
                     extra_caption=caption, notes=notes)


__all__ = ["BenchmarkPapers", "OUT_OF_RANGE", "PaperView", "paper_scores_frame", "paper_view", "rwgbench_citations",
           "sciig_citations"]
