"""`sciwrite evaluate rwgbench`: score a prediction file against a split and write the tables a paper reports.

Outputs in `out_dir`: ``per_paper.jsonl`` (every metric and diagnostic per paper), ``summary.json`` (means,
not-computed reasons, models, how predictions joined the split) and ``summary.csv`` (the Table 2 row).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from sciwrite.benchmark import table_labels
from sciwrite.core.coverage import coverage_of, with_coverage
from sciwrite.core.engine import LOCAL, ray_engine
from sciwrite.core.paper_tables import TableData, TableRow, render_body
from sciwrite.core.predictions import (
    JoinReport,
    RecordCheck,
    join_by_paper_id,
    json_lines,
    read_prediction_records,
    read_predictions,
    rejected_lines_text,
)
from sciwrite.core.tables import MISSING_CELL, format_table
from sciwrite.grounding.online import ONLINE_OPTIONS, OnlineLookup, lookups_note
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, lazy_resolver
from sciwrite.grounding.scoring import GROUNDING_KEYS, summarize_grounding
from sciwrite.metrics.judge import llm_record
from sciwrite.metrics.runner import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, evaluate_files
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.formulas import resolve_citations
from sciwrite.rwgbench.metrics.grounding import (
    CANDIDATES,
    GROUNDING_COLUMNS,
    listed_references,
    score_reference_grounding,
)
from sciwrite.rwgbench.metrics.judge import JUDGE_TEMPLATES
from sciwrite.rwgbench.metrics.scorers import corpus_abstracts, corpus_titles
from sciwrite.rwgbench.metrics.suite import (
    PAPER_LABELS,
    SUITE_METRICS,
    TABLE2_GROUPS,
    SuiteModels,
    load_suite_models,
    score_rwgbench,
    summarize_rwgbench,
    table2_row,
)
from sciwrite.stats import format_intervals, summary_intervals

logger = logging.getLogger(__name__)

#: The fields of a prediction line that say which run produced it.
RUN_FIELDS = ("model", "method", "retriever", "oracle")
#: Table 2's blocks, in the paper's order, and its method names in its row order.
PAPER_BLOCKS = ("BM25 (Sparse Retrieval)", "Dense (Semantic Retrieval)", "Oracle (Ground-Truth Citations)", "Baselines",
                "Other")
PAPER_METHODS = {"rag": "RAG", "alce": "ALCE", "tag": "TAG", "workflow": "Workflow", "direct": "Direct", "gt": "GT"}
#: What `sciwrite evaluate rwgbench` takes besides the shared options: the grounding's second opinion online.
EVALUATE_OPTIONS = ONLINE_OPTIONS
#: split name -> (paper config, corpus config) of RWGBench.
SPLITS: dict[str, tuple[str, str]] = {"test": ("test", "corpus"), "sample": ("sample", "sample_corpus")}


def evaluate_prediction_files(predictions: Sequence[str | Path], split: str = "sample", *,
                              source: str | Path | None = None, out_dir: str | Path | None = None,
                              systems: Sequence[str] | None = None, profile: str | None = None,
                              models: Mapping[str, str] | None = None, metrics: Sequence[str] | None = None,
                              judge_options: Mapping[str, Any] | None = None, missing_as_empty: bool = False,
                              batch_size: int = 64, show_progress: bool = True, bootstrap: int = 1000,
                              seed: int = 0, engine: str = LOCAL, ray_address: str | None = None,
                              ray_actors: int | None = None, bad_records: str = "error",
                              require_complete: bool = False, verify_online: str | None = None,
                              online_cache: str | Path | None = None, cutoff: date | None = None
                              ) -> list[dict[str, Any]]:
    """Score each prediction file (JSON Lines) on `split`; returns one summary per file (system) and writes
    each system's tables to ``out_dir/<system>/``. The shared runner (`sciwrite.metrics.runner`) does it with
    RWGBench's steps (`EVALUATION`).

    The split, the corpus and the models are loaded once for all files, and the models remember what they
    computed, so the reference side is computed once however many systems are scored. Predictions join the
    split by paper_id. Papers without a prediction are left out (and listed), or scored as empty sections with
    `missing_as_empty`; predictions for unknown papers are listed and ignored; a malformed line, or a paper_id
    predicted twice with different content, is an error naming every such line (`bad_records` ``error``), or is
    left out, counted in the join report and written to ``rejected.jsonl`` (``skip``). Every file is read and
    joined before any model runs; `require_complete` makes a file that leaves papers of the split out an error
    (every summary records its ``coverage``). Each summary carries a
    95% bootstrap interval of every Table 2 metric's mean over papers (``intervals``; `bootstrap` resamples,
    seeded by `seed`; 0 turns them off; see `sciwrite.stats`).

    `engine` ``"ray"`` scores the papers on Ray Data (`sciwrite.scale`; ``sciwrite[scale]``): on a local Ray, or the
    cluster at `ray_address`, over `ray_actors` actors that each load the models once; the rows and summaries
    are the ones ``"local"`` (one process, the default) gives.

    Each summary's ``grounding`` resolves the references a prediction lists against the corpus's titles, offline
    by default; `verify_online` (``semantic_scholar`` or ``openalex``) asks that service about the ones the corpus
    lacks (`sciwrite.grounding.online`), its answers cached at `online_cache` (default: `default_cache_path`).
    Each row and summary carries the memorisation signal (`memorisation_texts`); `cutoff` splits every metric into
    papers before and after that date (`sciwrite.metrics.cutoff`).
    """
    online = OnlineLookup.for_service(verify_online, cache_path=online_cache) if verify_online else None
    steps = EVALUATION if online is None else replace(EVALUATION, open_split=partial(open_split, online=online))
    return evaluate_files(steps, predictions, split, source=source, out_dir=out_dir, systems=systems,
                          profile=profile, models=models, metrics=metrics, judge_options=judge_options,
                          batch_size=batch_size, show_progress=show_progress, bootstrap=bootstrap, seed=seed,
                          engine=engine, ray_address=ray_address, ray_actors=ray_actors, bad_records=bad_records,
                          require_complete=require_complete, cutoff=cutoff, missing_as_empty=missing_as_empty)


def open_split(split: str, source: str | Path | None, online: OnlineLookup | None = None) -> OpenSplit:
    """The split's papers, its corpus, the corpus's doc_ids (a prediction citing another is refused as read), the
    resolver over its titles and the optional second opinion `online`."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
    paper_config, corpus_config = SPLITS[split]
    corpus = load_rwgbench(corpus_config, source=source)
    return OpenSplit(paper_config, load_rwgbench(paper_config, source=source),
                     {"corpus": corpus, "doc_ids": frozenset(corpus["doc_id"]),
                      "resolver": lazy_resolver(corpus, show_progress=True), "online": online})


def read_file(path: str | Path, split: OpenSplit, bad_records: str, missing_as_empty: bool = False) -> PredictionFile:
    """One prediction file joined to the split (`_joined`): texts, candidate lists and papers, in the split's order."""
    pairs, join, rejected = _joined(path, split.papers, split.config, missing_as_empty, bad_records,
                                    check=cites_the_corpus(split.extra["doc_ids"], set(split.papers["paper_id"])))
    return PredictionFile(path, [r["text"] for r, _ in pairs], split.papers.select([j for _, j in pairs]).to_list(),
                          rejected, context={"pairs": pairs, "join": join,
                                             "candidates": [r.get("candidates") or [] for r, _ in pairs],
                                             "references": [listed_references(r) for r, _ in pairs]})


def score_file(file: PredictionFile, split: OpenSplit, suite: SuiteModels, batch_size: int,
               show_progress: bool) -> tuple[list[dict[str, Any]], dict[str, float]]:
    online = split.extra.get("online")
    before = online.counters() if online else None
    scored = score_rwgbench(file.texts, file.targets, suite, candidates=file.context["candidates"],
                            corpus=split.extra["corpus"], batch_size=batch_size, show_progress=show_progress,
                            references=file.context["references"], resolver=split.extra.get("resolver"),
                            online=online)
    if online:  # this system's lookups (one lookup, and its cache, serves every file of the run)
        file.context["online"] = online.report(since=before)
    return scored


def score_files_on_ray(files: Sequence[PredictionFile], split: OpenSplit, suite_options: Mapping[str, Any],
                       batch_size: int, address: str | None, actors: int | None,
                       show_progress: bool) -> tuple[list[tuple[list[dict[str, Any]], dict[str, float]]], Any]:
    """Every file's papers in one Ray Data run (`sciwrite.scale.ray_evaluate.score_rwgbench`); the reference
    grounding then here, against the split's one title index (an actor holds only its papers' corpus records)."""
    jobs = [(file.texts, file.context["candidates"], file.targets) for file in files]
    rows_per_file, suite = ray_engine().score_rwgbench(jobs, split.extra["corpus"], suite_options,
                                                       batch_size=batch_size, address=address, actors=actors,
                                                       show_progress=show_progress)
    online = split.extra.get("online")
    for file, rows in zip(files, rows_per_file):
        before = online.counters() if online else None
        grounding = score_reference_grounding(
            file.texts, file.context["candidates"], file.context["references"],
            [t["citations"] for t in file.targets], [t["paper_id"] for t in file.targets],
            lambda ids: corpus_titles(split.extra["corpus"], ids), split.extra["resolver"], online, show_progress)
        for row, extra in zip(rows, grounding):
            row.update(extra)
        if online:
            file.context["online"] = online.report(since=before)
    return [(rows, {}) for rows in rows_per_file], suite


def summarize_file(file: PredictionFile, rows: Sequence[Mapping[str, Any]], timings: Mapping[str, float],
                   suite: SuiteModels, *, system: str, split_name: str, split: OpenSplit, bootstrap: int, seed: int,
                   judge_options: Mapping[str, Any] | None, missing_as_empty: bool = False) -> dict[str, Any]:
    """A system's summary: its run, the Table 2 means and intervals, the join report and the LLM record."""
    pairs, join, rejected = file.context["pairs"], file.context["join"], file.rejected
    run = run_metadata([record for record, _ in pairs if "model" in record or "method" in record])
    means = summarize_rwgbench(rows, suite)
    return {"system": system, "split": split_name, "predictions": str(file.path), "run": run, **means,
            **summary_intervals(rows, SUITE_METRICS, bootstrap, seed=seed, means=means),
            "grounding": grounding_summary(rows, bootstrap, seed, split.extra.get("online"),
                                           file.context.get("online")),
            "join": {**join.summary(), "missing": join.missing, "extra": join.extra,
                     "duplicates": join.duplicates, "missing_scored_as_empty": missing_as_empty,
                     **({"n_rejected_lines": len(rejected),
                         "rejected_lines": [{"line": r["line"], "problem": r["problem"]} for r in rejected]}
                        if rejected else {})},
            **llm_record({"judge": getattr(suite, "judge", None)}, judge_options)}


def grounding_summary(rows: Sequence[Mapping[str, Any]], bootstrap: int, seed: int,
                      online: OnlineLookup | None = None, lookups: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A system's reference grounding (`sciwrite.grounding.scoring.summarize_grounding`) with a bootstrap interval
    of each rate and score over the papers where it is defined, and what this system's `online` lookups did
    (`lookups`, `OnlineLookup.report`); ``{}`` when no prediction has references."""
    grounding = summarize_grounding(rows, online=online.client.name if online else None, threshold=DEFAULT_THRESHOLD)
    if grounding and online is not None:
        grounding["online"] = dict(lookups) if lookups is not None else online.report()
    if grounding:
        grounding.update(summary_intervals([r for r in rows if r.get("grounding_source")], GROUNDING_KEYS,
                                           bootstrap, seed=seed, means=grounding))
    return grounding


def result_files(summary: Mapping[str, Any], system: str) -> ResultFiles:
    return ResultFiles([summary_csv_row(summary, system)])


#: RWGBench's steps of the shared evaluation runner.
def memorisation_texts(file: PredictionFile, split: OpenSplit) -> list[tuple[str, list[str]]]:
    """Per paper: the reference related-work section, and what a method was given: the target's title, abstract and
    introduction, and the title and abstract of each candidate the prediction lists (retrieved or oracle)."""
    wanted = [doc_id for candidates in file.context["candidates"] for doc_id in candidates]
    titles = corpus_titles(split.extra["corpus"], wanted)
    abstracts = corpus_abstracts(split.extra["corpus"], titles)
    docs = {doc_id: f"{title}. {abstracts.get(doc_id, '')}" for doc_id, title in titles.items()}
    return [(paper["related_work"], [paper["title"], paper["abstract"], paper["introduction"],
                                     *(docs.get(doc_id, "") for doc_id in candidates)])
            for paper, candidates in zip(file.targets, file.context["candidates"])]


EVALUATION = EvaluationSteps(benchmark="rwgbench", open_split=open_split, read=read_file,
                             load_models=load_suite_models, score=score_file, score_on_ray=score_files_on_ray,
                             summarize=summarize_file, result_files=result_files, templates=JUDGE_TEMPLATES,
                             metrics=(*SUITE_METRICS, *GROUNDING_KEYS), memorisation_texts=memorisation_texts)


def run_metadata(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run a prediction file holds, as `sciwrite generate` writes it on every line: ``model``, ``method``,
    ``retriever`` and ``oracle``, each the value all lines agree on (None when absent or when lines differ)."""
    run = {}
    for key in RUN_FIELDS:
        values = {json.dumps(r.get(key)) for r in records}
        run[key] = json.loads(values.pop()) if len(values) == 1 else None
    return run


def cites_the_corpus(doc_ids: Collection[str], paper_ids: Collection[str]) -> RecordCheck:
    """A record check: the doc_ids the markers of a prediction for one of `paper_ids` (the split's; the others are
    ignored) resolve to through its candidates are all in the corpus."""

    def check(record: dict[str, Any]) -> str | None:
        if record["paper_id"] not in paper_ids:
            return None
        unknown = [d for d in resolve_citations(record["text"], record["candidates"]).unique_ids if d not in doc_ids]
        if unknown:
            return (f"(paper_id {record['paper_id']!r}) field 'candidates' cites doc_id(s) that are not in the corpus: "
                    f"{unknown[:5]}")
        return None

    return check


def _joined(path: str | Path, papers: Any, split: str, missing_as_empty: bool, bad_records: str = "error",
            check: RecordCheck | None = None) -> tuple[list[tuple[dict, int]], JoinReport, list[dict[str, Any]]]:
    """(prediction record, paper row) pairs of one file in the split's order, how the file joined, and the lines
    rejected under `bad_records` ``skip`` (under ``error`` a bad line, or one `check` refuses, raises, naming every
    one)."""
    if bad_records == "skip":
        records, rejected = read_prediction_records(path, bad_records="skip", check=check)
    else:
        records, rejected = read_predictions(path, check=check), []
    join = join_by_paper_id([r["paper_id"] for r in records], papers["paper_id"])
    check_duplicates(records, join, path)
    report_join(join, len(papers), missing_as_empty, path)
    pairs = [(records[i], j) for i, j in join.matched]
    if missing_as_empty:
        index_of = {pid: j for j, pid in enumerate(papers["paper_id"])}
        pairs += [({"paper_id": pid, "text": "", "candidates": []}, index_of[pid]) for pid in join.missing]
        pairs.sort(key=lambda pair: pair[1])
    if not pairs:
        raise ValueError(f"no prediction in {path} matches a paper of the {split!r} split")
    return pairs, join, rejected


def check_duplicates(records: Sequence[Mapping[str, Any]], join: JoinReport, path: str | Path | None = None) -> None:
    """A paper_id predicted twice is fine only when both records say the same; otherwise which one counts? The
    error names each such paper with the lines of `path` that predict it."""
    conflicting = []
    for pid in join.duplicates:
        versions = {json.dumps([r["text"], r["candidates"]]) for r in records if r["paper_id"] == pid}
        if len(versions) > 1:
            conflicting.append(pid)
    if conflicting:
        lines: dict[str, list[int]] = {pid: [] for pid in conflicting}
        for number, _, record, _ in (json_lines(path) if path is not None else ()):
            if isinstance(record, dict) and record.get("paper_id") in lines:
                lines[record["paper_id"]].append(number)
        where = "; ".join(f"{pid!r} on lines {', '.join(map(str, lines[pid]))}" if lines[pid] else repr(pid)
                          for pid in conflicting[:5])
        raise ValueError(f"{path}: {len(conflicting)} paper_id(s) have several different predictions: {where}; "
                         "keep one record per paper")


def report_join(join: JoinReport, n_papers: int, missing_as_empty: bool, path: str | Path) -> None:
    """Say, before any model runs, how the predictions of `path` matched the split."""
    if join.missing:
        what = "scored as empty sections" if missing_as_empty else "left out of the means"
        logger.warning("%s: %d of %d papers have no prediction (%s), e.g. %s", path, len(join.missing), n_papers,
                       what, join.missing[:5])
    if join.extra:
        logger.warning("%s: %d prediction(s) name papers the split does not hold (ignored), e.g. %s", path,
                       len(join.extra), join.extra[:5])
    if join.duplicates:
        logger.warning("%s: %d paper_id(s) appear more than once with identical predictions (counted once), e.g. %s",
                       path, len(join.duplicates), join.duplicates[:5])


def summary_csv_row(summary: Mapping[str, Any], system: str) -> dict[str, Any]:
    """The one row of ``summary.csv``: the Table 2 row plus the coverage (``n/N`` papers) and the join counts (a
    metric not computed is empty)."""
    coverage = coverage_of(summary)
    return {**table2_row(summary, system), "n_papers": summary["n_papers"], "n_split": coverage.total,
            "coverage": coverage.fraction, "empty_citation_rate": summary["empty_citation_rate"],
            "unresolved_markers": summary["unresolved_markers"],
            "n_missing": summary["join"]["n_missing"],
            **{f"Grounding {label}": (summary.get("grounding") or {}).get(key) for key, label in GROUNDING_COLUMNS}}


def table2_cell(value: Any) -> str:
    """One Table 2 cell as the paper prints it: three decimals, an en dash for no value."""
    return MISSING_CELL if value is None else f"{float(value):.3f}"


def format_table2(summaries: Sequence[Mapping[str, Any]]) -> str:
    """Table 2 as the paper prints it: the groups CQ / CO / CF / TQ over the columns Prec. Rec. Soft Rec. CSC TRT |
    CD CDB | PSS CFA | R-L BS LLM, values to three decimals and "\u2013" where a metric has no value (not computed,
    or not applicable: CSC and TRT of a Direct system). See `table2`."""
    return render_body(table2(summaries))


def table2(summaries: Sequence[Mapping[str, Any]]) -> TableData:
    """Table 2 from `evaluate rwgbench` summaries. When every system's predictions say their run (``model`` and
    ``method``, as `sciwrite generate` writes them), the rows are laid out as the paper's: Retriever / Model /
    Method columns, under the paper's block titles (BM25, Dense, Oracle, then the Baselines: Direct and the Human
    GT row), in the paper's method order. Otherwise one row per system."""
    metrics = tuple((key, PAPER_LABELS[key]) for columns in TABLE2_GROUPS.values() for key, _ in columns)
    groups = {group: tuple(key for key, _ in columns) for group, columns in TABLE2_GROUPS.items()}
    runs = [s.get("run") or {} for s in summaries]
    by_run = bool(summaries) and all(run.get("model") and run.get("method") for run in runs)
    order = (sorted(range(len(summaries)), key=lambda i: (block_rank(runs[i]), method_rank(runs[i]), i))
             if by_run else range(len(summaries)))
    rows, blocks, previous = [], {}, None
    for i in order:
        values = {key: summaries[i].get(key) for key, _ in metrics}
        if by_run:
            block = PAPER_BLOCKS[block_rank(runs[i])]
            if block != previous:
                blocks[len(rows)], previous = block, block
            method = PAPER_METHODS.get(str(runs[i]["method"]).lower(), runs[i]["method"])
            labels: tuple[str, ...] = ("", str(runs[i]["model"]), with_coverage(str(method), summaries[i]))
        else:
            labels = (with_coverage(str(summaries[i].get("system", "system")), summaries[i]),)
        rows.append(TableRow(labels, values, {key: table2_cell(v) for key, v in values.items()}))
    return TableData("Table 2. Experimental results across all models, baselines, and retrievers.",
                     ("Retriever", "Model", "Method") if by_run else ("System",), metrics, tuple(rows),
                     groups=groups, blocks=blocks,
                     notes=("Averaged over the scored papers (a row over part of the split says n/N papers); "
                            "\u2013: no value (not computed, or not applicable: CSC and TRT of a Direct system).",))


def block_rank(run: Mapping[str, Any]) -> int:
    """The paper's block of a run: 0 BM25, 1 Dense, 2 Oracle, 3 the Baselines (Direct, Human GT), 4 anything
    else."""
    if str(run.get("method", "")).lower() in ("direct", "gt"):
        return 3
    if run.get("oracle") or run.get("retriever") == "oracle":
        return 2
    return {"bm25": 0, "dense": 1}.get(str(run.get("retriever")), 4)


def method_rank(run: Mapping[str, Any]) -> int:
    methods = list(PAPER_METHODS)
    method = str(run.get("method", "")).lower()
    return methods.index(method) if method in methods else len(methods)


def report_text(summaries: Sequence[Mapping[str, Any]], out: Path) -> str:
    """What `sciwrite evaluate rwgbench` prints: each system's join and diagnostics, Table 2, the intervals, the
    metrics not computed and where the files went."""
    lines = [""]
    for summary in summaries:
        join = summary["join"]
        rejected = f", {join['n_rejected_lines']} rejected lines" if join.get("n_rejected_lines") else ""
        coverage = coverage_of(summary)
        papers = summary["n_papers"] if coverage.complete else coverage.fraction
        lines.append(f"{summary['system']}: {papers} papers of RWGBench {summary['split']} scored "
                     f"({join['n_missing']} missing, {join['n_extra']} extra, {join['n_duplicates']} duplicate ids"
                     f"{rejected}); empty-citation outputs {summary['empty_citation_rate']:.1%}, unresolved markers "
                     f"{summary['unresolved_markers']}")
        if not coverage.complete:
            lines.append(f"partial: {summary['system']} covers {coverage.text} of the split; its means are over those only "
                         "(--require-complete refuses such a file)")
        lines += rejected_lines_text(summary["predictions"], join.get("rejected_lines", []))
    lines += [f"profile {summaries[0]['profile']}", "", format_table2(summaries)]
    labels = table_labels(TABLE2_GROUPS)
    lines += [f"{s['system']}: {format_intervals(s, labels)}" for s in summaries if format_intervals(s, labels)]
    lines += [f"not computed: {metric}: {why}" for metric, why in summaries[0]["not_computed"].items()]
    grounding = format_grounding_table(summaries)
    if grounding:
        lines += ["", grounding]
    return "\n".join(lines)


def format_grounding_table(summaries: Sequence[Mapping[str, Any]]) -> str:
    """The Grounding table printed beside Table 2 (it never changes Table 2): per system, where its references
    come from and how many, the found / ambiguous / not-found (hallucinated) / outside-the-corpus rates and the
    grounded precision and recall, each with its interval; '' when no system has references."""
    rows = []
    for summary in summaries:
        grounding = summary.get("grounding") or {}
        if not grounding:
            continue
        sources = grounding.get("sources") or []
        origin = ("candidates (exact)" if sources == [CANDIDATES] else "listed" if sources == ["references"]
                  else "+".join(sources) or "none")
        row = {"System": str(summary.get("system", "system")),
               "References": f"{grounding['n_references']} {origin}"}
        for key, label in GROUNDING_COLUMNS:
            if key == "grounding_outside_rate" and grounding.get(key) is None:
                continue
            row[label] = interval_cell(grounding.get(key), (grounding.get("intervals") or {}).get(key))
        rows.append(row)
    if not rows:
        return ""
    columns = ["System", "References", *(label for key, label in GROUNDING_COLUMNS if any(label in r for r in rows))]
    first = next(s["grounding"] for s in summaries if s.get("grounding"))
    notes = ["Grounding (beside Table 2; it never changes Table 2, where Direct keeps its 0.000 and \u2013): each "
             "system's references resolved against the corpus's titles "
             f"({first.get('lookup')}; threshold {first.get('threshold')}).",
             "Found / Ambig. / Not found (hallucinated): shares of each paper's readable references, averaged over "
             "the papers that list any; G-Prec. / G-Rec.: found doc_ids against the gold citations, every unfound "
             "reference counted as a wrong citation.",
             "candidates (exact): a RAG-style method's references are the candidates its markers resolve to, corpus "
             "papers by construction, so its Found is 1 and G-Prec. / G-Rec. are Table 2's P / R."]
    entries = sum((s.get("grounding") or {}).get("counts", {}).get("invalid", 0) for s in summaries)
    lists = sum((s.get("grounding") or {}).get("n_invalid_lists", 0) for s in summaries)
    if entries or lists:
        notes.append(f"could not be read: {entries} reference(s) and {lists} reference list(s) (invalid: each named, "
                     "with its paper and reference, in per_paper.jsonl and the summary's grounding.problems); left "
                     "out of the rates.")
    lookups = [s["grounding"]["online"] for s in summaries if (s.get("grounding") or {}).get("online")]
    if lookups:
        notes.append(lookups_note(lookups, "each summary's grounding.online.failures"))
    return "\n".join([notes[0], "", format_table(rows, columns, left=2), *notes[1:]])


def interval_cell(value: Any, interval: Sequence[Any] | None) -> str:
    """A mean to three decimals with its interval, ``0.712 [0.650, 0.770]``; an en dash for no value."""
    if value is None:
        return MISSING_CELL
    if interval and interval[0] is not None and interval[1] is not None:
        return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"
    return f"{value:.3f}"



def scored_papers(split: str, source: Any = None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The paper_ids of `split` a submission is scored on (every one), and none excluded."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
    return tuple(load_rwgbench(SPLITS[split][0], source=source)["paper_id"]), {}
