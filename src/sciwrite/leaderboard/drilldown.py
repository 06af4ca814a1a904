"""One submission, paper by paper: its per-paper scores, and for one paper the generated text beside the
reference with what its citations point to: what each benchmark shows is its own
(`Benchmark.presentation.drilldown`).

The split's paper records are loaded once per benchmark and split (`BenchmarkPapers.load`); RWGBench corpus titles
are looked up on demand in the memory-mapped corpus (one vectorised Arrow pass per paper view, no index of the
whole corpus in memory). A prediction record that carries a ``trace`` (an agent's turns, kept by
`sciwrite.leaderboard.runs.with_traces` or uploaded so) is shown as a table of its tool calls (`trace_frame`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sciwrite.core.paper_row import PaperRow
from sciwrite.generation.runner import TRACE
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.tables import MISSING, as_benchmark, board_columns, number


def paper_scores_frame(store: ResultsStore, submission_id: str) -> pd.DataFrame:
    """One row per scored paper of the submission (paper order): paper_id, then each metric of its benchmark's
    results table and each board column (column labels of `board_columns`) rounded to 3 decimals, NaN where it has
    no value."""
    submission = store.get(submission_id)
    columns = board_columns(submission.benchmark)
    records = [{"paper_id": row.paper_id,
                **{label: None if (v := number(row.value(key))) is None else round(v, 3) for _, key, label in columns}}
               for row in store.paper_rows(submission_id)]
    return pd.DataFrame(records, columns=["paper_id", *(label for _, _, label in columns)])


class BenchmarkPapers:
    """A split's paper records by paper_id and, for RWGBench, its corpus (for cited titles), loaded once.

    `papers` maps paper_id -> record (as the benchmark's loader gives it); `corpus` is a `datasets.Dataset` of the
    benchmark's corpus or a mapping doc_id -> title (or None: titles unknown)."""

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
        """The papers of `split` as the leaderboard scores it (`Benchmark.presentation.drilldown`: RWGBench
        ``sample`` / ``test`` with its corpus, SciIG a config's ``test`` split). `source`: a local folder or Hub
        repo."""
        bench = as_benchmark(benchmark)
        if bench.presentation.drilldown is None:
            raise ValueError(f"benchmark {bench.name!r} declares no drill-down")
        loaded = bench.presentation.drilldown.papers(split, source)
        return cls(bench.name, split, loaded.papers, loaded.corpus)

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
    # RWGBench: CITATION_COLUMNS, or REFERENCE_COLUMNS for a listed reference list (Direct); SciIG: NEIGHBOR_COLUMNS
    citations: pd.DataFrame
    # RWGBench: gold papers not cited (UNCITED_GOLD_COLUMNS); SciIG: citations outside the works, each marked
    # unmatched or near miss (OUTSIDE_COLUMNS)
    extra: pd.DataFrame
    extra_caption: str
    notes: list[str] = field(default_factory=list)
    #: an agent's tool calls (`trace_frame`, TRACE_COLUMNS); no rows for other methods
    trace: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=TRACE_COLUMNS))


#: The columns of a trace table: one row per tool call (its arguments, the doc_ids it showed, or why it failed or
#: did not run), then one for the answer; the model's reasoning summary and any text beside its calls, on the
#: first row of their turn.
TRACE_COLUMNS: list[str] = ["Turn", "Tool", "Arguments", "Result", "Reasoning", "Text"]


def _cell(value: Any) -> str:
    """A trace value as the text of one cell (never markup: the page shows cells as strings)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _call_result(call: Mapping[str, Any]) -> str:
    if call.get("not_run"):
        return f"not run: {_cell(call['not_run'])}"
    if call.get("error"):
        return f"error: {_cell(call['error'])}"
    doc_ids = call.get("doc_ids")
    return ", ".join(map(_cell, doc_ids)) if isinstance(doc_ids, list) and doc_ids else "no papers"


def _answer_result(turn: Mapping[str, Any]) -> str:
    said = "forced to write: the tool-call budget ran out" if turn.get("forced") else "wrote the section"
    ignored = turn.get("ignored_calls")
    return f"{said}; {_cell(ignored)} tool call(s) ignored" if ignored else said


def trace_frame(trace: Any) -> pd.DataFrame:
    """An agent's trace (a list of turns ``{"turn", "reasoning", "text"?, "calls": [...]}`` ending with
    ``{"turn", "reasoning", "answer", "forced"}``) as `TRACE_COLUMNS` rows, every cell text; no rows when there is
    no trace (not an agent). A submitter's trace may be anything: what is not a turn is shown as text."""
    rows: list[dict[str, str]] = []
    for turn in trace if isinstance(trace, list) else []:
        if not isinstance(turn, Mapping):
            rows.append({"Turn": "", "Tool": "", "Arguments": "", "Result": _cell(turn), "Reasoning": "", "Text": ""})
            continue
        number, said = _cell(turn.get("turn")), {"Reasoning": _cell(turn.get("reasoning")), "Text": _cell(turn.get("text"))}
        calls = turn.get("calls")
        entries = [{"Tool": _cell(c.get("tool")), "Arguments": _cell(c.get("arguments")), "Result": _call_result(c)}
                   if isinstance(c, Mapping) else {"Tool": "", "Arguments": "", "Result": _cell(c)}
                   for c in (calls if isinstance(calls, list) else [])]
        if "answer" in turn or not entries:
            entries.append({"Tool": "answer", "Arguments": "", "Result": _answer_result(turn)})
        for i, entry in enumerate(entries):
            rows.append({"Turn": number, **entry, **(said if i == 0 else {"Reasoning": "", "Text": ""})})
    return pd.DataFrame(rows, columns=TRACE_COLUMNS)


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


def _scores(row: PaperRow | None, benchmark: str) -> pd.DataFrame:
    """The paper's value of each board column (Metric, Score), `MISSING` where it has none (or no row)."""
    values = [(label, None if row is None else number(row.value(key))) for _, key, label in board_columns(benchmark)]
    return pd.DataFrame([{"Metric": label, "Score": MISSING if v is None else f"{v:.3f}"} for label, v in values],
                        columns=["Metric", "Score"])


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
    row = next((r for r in store.paper_rows(submission_id) if r.paper_id == paper_id), None)
    notes = [] if row is not None else ["this paper has no per-paper scores (not scored)"]
    bench = as_benchmark(submission.benchmark)
    if bench.presentation.drilldown is None:
        raise ValueError(f"benchmark {bench.name!r} declares no drill-down")
    view = bench.presentation.drilldown.citation_view(record, paper, row, papers.titles)
    return PaperView(submission_id=submission_id, benchmark=submission.benchmark, paper_id=paper_id,
                     title=str(paper.get("title") or ""), generated=text, reference=view.reference,
                     scores=_scores(row, submission.benchmark), citations=view.citations, extra=view.extra,
                     extra_caption=view.extra_caption, notes=[*notes, *view.notes],
                     trace=trace_frame(record.get(TRACE)))


__all__ = ["TRACE_COLUMNS", "BenchmarkPapers", "PaperView", "paper_scores_frame", "paper_view", "trace_frame"]
