"""`sciwrite evaluate sciig`: score generated introductions against a SciIG config and write the paper's tables.

Predictions are JSON Lines ``{"paper_id": ..., "text": <generated introduction>}`` (other fields ignored), or
with `upstream` the upstream ``pred/label/desc`` format, joined to the papers by label = introduction. A malformed line is
handled as for RWGBench, by one policy (`sciwrite.core.predictions.BAD_RECORDS`, ``--bad-records``): ``error``
(the command's default) refuses the file naming every bad line; ``skip`` (`evaluate_sciig_file`'s default) reports
it with its line number, writes it to ``rejected.jsonl`` (so it can be fixed and rerun) and scores the other
lines. `evaluate_sciig_files` scores several files, one system each, with the models loaded once. Only the
``test`` split is
scored; predictions for ``holdout`` papers (the few-shot exemplar pool) are reported and left out. For
``naacl_2025`` / ``iclr_2025`` the holdout is the paper's: the first 52 papers of the data file (its README: "The
first 52 generations are treated as the holdout split and excluded"), so an upstream prediction file, joined by
label, loses exactly its rows for those papers; ``summary["join"]["holdout_rule"]`` says which rule applied.
SciIG Table 3 (several levels' summaries side by side) is `sciwrite.sciig.metrics.tables.format_table3`.

Outputs in `out_dir`: ``per_paper.jsonl`` (every metric, diagnostic and per-scorer error per paper, without the
keyphrase logs), ``keyphrase_outputs/<paper_id>.json`` (phrase lists and matching log per paper),
``summary.json`` (means, join report, not-computed reasons, models, timings, scoring errors), ``summary.csv``
(category, metric, value: the Table 2 layout), ``metric_timings.json`` and, when lines were rejected,
``rejected.jsonl``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmark import table_labels
from sciwrite.core.coverage import coverage_of
from sciwrite.core.engine import LOCAL, ray_engine
from sciwrite.core.predictions import (
    join_by_paper_id,
    read_prediction_records,
    reject_or_keep,
    rejected_lines_text,
)
from sciwrite.core.results import SideFiles
from sciwrite.core.tables import cell, format_table
from sciwrite.metrics.judge import llm_record
from sciwrite.metrics.runner import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, evaluate_files
from sciwrite.sciig.data.configs import ALL_CONFIGS, holdout_rule
from sciwrite.sciig.data.llm_map import TABLE8_HEAD, TABLE8_RECORD, TABLE8_TASK
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.data.upstream import import_upstream_predictions
from sciwrite.sciig.metrics.judge import JUDGE_TEMPLATES
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.suite import (
    SUITE_METRICS,
    TABLE2,
    TABLE2_GROUPS,
    SciIGModels,
    load_sciig_models,
    score_sciig,
    summarize_sciig,
    table2_rows,
)
from sciwrite.stats import format_intervals, summary_intervals

logger = logging.getLogger(__name__)

#: Per-paper keys written to keyphrase_outputs/<paper_id>.json instead of per_paper.jsonl.
KEYPHRASE_KEYS = ("generated_keyphrases", "reference_keyphrases", "source_keyphrases", "keyphrase_log")


def read_sciig_predictions(path: str | Path, bad_records: str = "skip"
                           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(records, rejected) of a JSON Lines file; each rejected line is ``{line, problem, content}``.

    A paper_id seen again with a different text is rejected too (the first record is the one scored); a repeat
    with the same text is counted once. `bad_records` ``error`` raises instead, naming every bad line.
    """
    return read_prediction_records(path, text_is="the generated introduction", candidates=False,
                                   bad_records=bad_records)


def evaluate_sciig_file(predictions: str | Path, dataset: str = "sample", *, source: str | Path | None = None,
                        out_dir: str | Path | None = None, system: str | None = None, profile: str | None = None,
                        models: Mapping[str, str] | None = None, metrics: Sequence[str] | None = None,
                        judge_options: Mapping[str, Any] | None = None, upstream: bool = False,
                        show_progress: bool = True, batch_size: int = 64, bootstrap: int = 1000,
                        seed: int = 0, engine: str = LOCAL, ray_address: str | None = None,
                        ray_actors: int | None = None, bad_records: str = "skip",
                        suite: SciIGModels | None = None, require_complete: bool = False) -> dict[str, Any]:
    """Score `predictions` on the ``test`` split of SciIG config `dataset`; returns the summary and writes the
    outputs to `out_dir` (see the module docstring). `batch_size` is the models' batch size (`score_sciig`).
    The summary carries a 95% bootstrap interval of each Table 2 metric's mean over papers (``intervals``;
    `bootstrap` resamples seeded by `seed`, 0 turns them off; see `sciwrite.stats`). `engine` ``"ray"`` scores the
    papers on Ray Data (`sciwrite.scale`; ``sciwrite[scale]``), on a local Ray or the cluster at `ray_address`, over
    `ray_actors` actors that each load the models once: the same rows and summary (``metric_timings`` then sums
    the actors' seconds). `bad_records` (``skip``, or ``error``: see `sciwrite.core.predictions.BAD_RECORDS`) says
    what a bad line does; `suite`, models already loaded (several files scored with one load); `require_complete`
    refuses a file that leaves test papers out (the summary's ``coverage`` says how many it scored)."""
    [summary] = evaluate_files(EVALUATION, [predictions], dataset, systems=[system or Path(predictions).stem],
                               out_dir=out_dir, system_folders=False, source=source, profile=profile, models=models,
                               metrics=metrics, judge_options=judge_options, batch_size=batch_size,
                               show_progress=show_progress, bootstrap=bootstrap, seed=seed, engine=engine,
                               ray_address=ray_address, ray_actors=ray_actors, bad_records=bad_records, suite=suite,
                               require_complete=require_complete, upstream=upstream)
    return summary


def evaluate_sciig_files(predictions: Sequence[str | Path], split: str = "sample", *,
                         systems: Sequence[str] | None = None, out_dir: str | Path | None = None,
                         bad_records: str = "error", engine: str = LOCAL, profile: str | None = None,
                         models: Mapping[str, str] | None = None, metrics: Sequence[str] | None = None,
                         judge_options: Mapping[str, Any] | None = None, **options: Any) -> list[dict[str, Any]]:
    """`evaluate_sciig_file` for each prediction file (one system each, written to ``out_dir/<system>/``), every
    file read before any model loads and the models loaded once: the shared runner (`sciwrite.metrics.runner`)
    with SciIG's steps (`EVALUATION`), the same arguments and return shape as RWGBench's
    `evaluate_prediction_files`."""
    return evaluate_files(EVALUATION, predictions, split, systems=systems, out_dir=out_dir, bad_records=bad_records,
                          engine=engine, profile=profile, models=models, metrics=metrics,
                          judge_options=judge_options, **options)


def open_split(dataset: str, source: str | Path | None) -> OpenSplit:
    """The config's test papers (the ones scored) and its holdout split."""
    if dataset not in ALL_CONFIGS:
        raise ValueError(f"unknown SciIG config {dataset!r}; choose one of {list(ALL_CONFIGS)}")
    splits = load_sciig(dataset, source=source, split="all")
    return OpenSplit(dataset, splits["test"], {"holdout": splits["holdout"]})


def read_file(predictions: str | Path, split: OpenSplit, bad_records: str, upstream: bool = False) -> PredictionFile:
    """One prediction file (or, with `upstream`, an upstream pred/label/desc file joined by label) joined to the test
    papers; predictions for holdout papers are reported and left out."""
    papers, holdout_split = split.papers, split.extra["holdout"]
    holdout_ids = set(holdout_split["paper_id"])
    trailer: dict[str, Any] = {}
    if upstream:
        records, upstream_report = import_upstream_predictions(predictions, [*papers, *holdout_split])
        upstream_report["papers_without_prediction"] = [p for p in upstream_report["papers_without_prediction"]
                                                        if p not in holdout_ids]
        rejected = [{"line": u["row"], "problem": "label matches no paper's introduction", "desc": u.get("desc")}
                    for u in upstream_report["unmatched"]]
        rejected += [{"line": a["row"], "problem": f"label matches several papers {a['paper_ids']}", "desc": a.get("desc")}
                     for a in upstream_report["ambiguous"]]
        reject_or_keep(predictions, rejected, bad_records)
        trailer["upstream"] = upstream_report
    else:
        records, rejected = read_sciig_predictions(predictions, bad_records)
    join = join_by_paper_id([r["paper_id"] for r in records], papers["paper_id"])
    holdout = [pid for pid in join.extra if pid in holdout_ids]
    extra = [pid for pid in join.extra if pid not in holdout_ids]
    _report_join(join.missing, extra, holdout, len(papers))
    if not join.matched:
        raise ValueError(f"no prediction in {predictions} matches a paper of the {split.config!r} test split")
    return PredictionFile(predictions, [records[i]["text"] for i, _ in join.matched],
                          papers.select([j for _, j in join.matched]).to_list(), rejected,
                          context={"join": join, "extra": extra, "holdout": holdout}, trailer=trailer)


def score_file(file: PredictionFile, split: OpenSplit, suite: SciIGModels, batch_size: int,
               show_progress: bool) -> tuple[list[dict[str, Any]], dict[str, float]]:
    return score_sciig(file.texts, file.targets, suite, show_progress=show_progress, batch_size=batch_size)


def score_files_on_ray(files: Sequence[PredictionFile], split: OpenSplit, suite_options: Mapping[str, Any],
                       batch_size: int, address: str | None, actors: int | None,
                       show_progress: bool) -> tuple[list[tuple[list[dict[str, Any]], dict[str, float]]], Any]:
    """Each file's papers in its own Ray Data run (`sciwrite.scale.ray_evaluate.score_sciig`)."""
    scored, suite = [], None
    for file in files:
        rows, timings, suite = ray_engine().score_sciig(file.texts, file.targets, suite_options, batch_size=batch_size,
                                                        address=address, actors=actors, show_progress=show_progress)
        scored.append((rows, timings))
    return scored, suite


def summarize_file(file: PredictionFile, rows: Sequence[Mapping[str, Any]], timings: Mapping[str, float],
                   suite: SciIGModels, *, system: str, split_name: str, split: OpenSplit, bootstrap: int, seed: int,
                   judge_options: Mapping[str, Any] | None, upstream: bool = False) -> dict[str, Any]:
    """A system's summary: the Table 2 means and intervals, the scorers' seconds, the join report and the LLM
    record."""
    dataset, join, extra, holdout, rejected = (split.config, file.context["join"], file.context["extra"],
                                               file.context["holdout"], file.rejected)
    means = summarize_sciig(rows, suite)
    # BLEU is corpus BLEU (sacrebleu over all scored papers), not a mean of per-paper values, so no interval of
    # per-paper means is an interval of it: its interval is left None and ``interval_notes`` says why. The mean
    # of the per-paper sentence BLEU (``sentence_bleu``) gets its interval instead.
    intervals = summary_intervals([{**r, "sentence_bleu": r.get("bleu")} for r in rows],
                                  [*SUITE_METRICS, "sentence_bleu"], bootstrap, seed=seed, means={**means, "bleu": None})
    if bootstrap > 0:
        intervals["interval_notes"] = {"bleu": "corpus BLEU is not a mean over papers: no interval; sentence_bleu "
                                               "holds the interval of the mean per-paper sentence BLEU"}
    if means.get("unmatched_citation_rate") is not None and bootstrap > 0:  # apart from Table 2's intervals
        means["unmatched_citation_interval"] = summary_intervals(
            rows, ["unmatched_citation_rate"], bootstrap, seed=seed)["intervals"]["unmatched_citation_rate"]
    return {"system": system, "dataset": dataset, "split": "test", "predictions": str(file.path),
            **means, **intervals, "metric_timings": timings,
            "join": {"n_matched": len(join.matched), "n_missing": len(join.missing), "n_extra": len(extra),
                     "n_holdout": len(holdout), "holdout_rule": holdout_rule(dataset),
                     "n_rejected_lines": len(rejected), "missing": join.missing,
                     "extra": extra, "holdout_excluded": holdout,
                     "rejected_lines": [{"line": r["line"], "problem": r["problem"]} for r in rejected]},
            **llm_record({"sciig_judge": getattr(suite, "judge", None),
                          "citation_extractor": getattr(suite, "citation_extractor", None)}, judge_options)}


def result_files(summary: Mapping[str, Any], system: str) -> ResultFiles:
    return ResultFiles(summary_csv_rows(summary), {"metric_timings.json": summary.get("metric_timings", {})},
                       SideFiles("keyphrase_outputs", KEYPHRASE_KEYS))


def _report_join(missing: list[str], extra: list[str], holdout: list[str], n_papers: int) -> None:
    if missing:
        logger.warning("%d of %d test papers have no prediction (left out of the means), e.g. %s", len(missing),
                       n_papers, missing[:5])
    if extra:
        logger.warning("%d prediction(s) name papers the config does not hold (ignored), e.g. %s", len(extra), extra[:5])
    if holdout:
        logger.warning("%d prediction(s) are for holdout papers (the few-shot pool; not scored), e.g. %s",
                       len(holdout), holdout[:5])


def summary_csv_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``summary.csv``: one (category, metric, value) per Table 2 metric, each with the papers it is
    over (``coverage``, n/N of the test split), then the unmatched-citation rate under "Grounding" when computed
    (apart from Table 2, as the report prints it)."""
    coverage = coverage_of(summary).fraction
    rows = [{"category": row["category"], "metric": row["metric"], "value": row["value"], "coverage": coverage}
            for row in table2_rows(summary)]
    if summary.get("unmatched_citation_rate") is not None:
        rows.append({"category": "Grounding", "metric": "Unmatched citation rate",
                     "value": summary["unmatched_citation_rate"], "coverage": coverage})
    return rows


def memorisation_texts(file: PredictionFile, split: OpenSplit) -> list[tuple[str, list[str]]]:
    """Per paper: the reference introduction, and what every prompt level gives the model: the title, the abstract
    and each cited work's key, title and abstract (few-shot levels add holdout papers' introductions, other papers'
    text, which is not counted)."""
    return [(paper["introduction"], [paper["title"], paper["abstract"],
                                     *(f"{n['key']}. {n['title']}. {n['abstract']}" for n in paper["neighbors"])])
            for paper in file.targets]


#: SciIG's steps of the shared evaluation runner.
EVALUATION = EvaluationSteps(benchmark="sciig", open_split=open_split, read=read_file, load_models=load_sciig_models,
                             score=score_file, score_on_ray=score_files_on_ray, summarize=summarize_file,
                             result_files=result_files, metrics=(*SUITE_METRICS, "unmatched_citation_rate"),
                             memorisation_texts=memorisation_texts,
                             templates={**JUDGE_TEMPLATES, "table8_head": TABLE8_HEAD, "table8_record": TABLE8_RECORD,
                                        "table8_task": TABLE8_TASK})


def format_sciig_table(summary: Mapping[str, Any]) -> str:
    """Table 2 as text, one (category, metric, value) line per metric (and its papers, n/N, when the summary does
    not cover the whole test split); a metric not computed reads 'not computed', and the reasons follow the
    table."""
    rows = table2_rows(summary)
    not_computed = summary.get("not_computed", {})
    coverage = coverage_of(summary)
    lines, previous = [], None
    for r in rows:
        value = "not computed" if r["key"] in not_computed else cell(r["value"])
        lines.append({"category": r["category"] if r["category"] != previous else "", "metric": r["metric"],
                      "value": value, **({} if coverage.complete else {"papers": coverage.fraction})})
        previous = r["category"]
    lines = format_table(lines, left=2).split("\n")
    reasons: dict[str, list[str]] = {}
    labels = {key: f"{category} {label}" for category, key, label in TABLE2}
    for key, why in not_computed.items():
        reasons.setdefault(why, []).append(labels.get(key, key))
    if reasons:
        lines.append("")
        lines.extend(f"not computed: {', '.join(metrics)}: {why}" for why, metrics in reasons.items())
    return "\n".join(lines)


def report_text(summaries: Sequence[Mapping[str, Any]], out: Path) -> str:
    """What `sciwrite evaluate sciig` prints for each system: the join, rejected lines, Table 2, the intervals, the
    models, scoring errors and where the files went."""
    labels = table_labels(TABLE2_GROUPS)
    lines: list[str] = []
    for summary in summaries:
        join = summary["join"]
        coverage = coverage_of(summary)
        lines.append(f"\n{summary['system']}: SciIG {summary['dataset']} (test split; holdout papers are never scored): "
                     f"{summary['n_papers'] if coverage.complete else coverage.fraction} papers scored "
                     f"({join['n_missing']} missing, {join['n_extra']} extra, "
                     f"{join['n_holdout']} holdout, {join['n_rejected_lines']} rejected lines); profile "
                     f"{summary['profile']}")
        lines += rejected_lines_text(summary["predictions"], join["rejected_lines"])
        if not coverage.complete:
            lines.append(f"partial: {summary['system']} covers {coverage.text} of the test split; the table's means are over "
                         "those only (--require-complete refuses such a file)")
        if join["missing"]:
            lines.append(f"missing: {len(join['missing'])} test papers have no prediction, e.g. {join['missing'][:5]}")
        if join["extra"]:
            lines.append(f"extra: {len(join['extra'])} predictions name unknown papers, e.g. {join['extra'][:5]}")
        lines.append(format_sciig_table(summary))
        if format_intervals(summary, labels):
            lines.append(f"\n{summary['system']}: {format_intervals(summary, labels)} (BLEU is corpus BLEU: no "
                         "interval; sentence BLEU's is the mean per-paper sentence BLEU's)")
        if format_unmatched_line(summary):
            lines.append(format_unmatched_line(summary))
        if format_model_line(summary):
            lines.append(format_model_line(summary))
        for stage, errors in summary["scoring_errors"].items():
            first = next(iter(errors.items()))
            lines.append(f"scoring error: {stage}: {len(errors)} paper(s) not scored, e.g. {first[0]}: {first[1]}")
        folder = out / summary["system"]
        lines.append(f"wrote {folder / 'per_paper.jsonl'}, {folder / 'summary.json'}, {folder / 'summary.csv'}, "
                     f"{folder / 'metric_timings.json'} and {folder / 'keyphrase_outputs'}"
                     + (f"; rejected lines in {folder / 'rejected.jsonl'}" if join["n_rejected_lines"] else ""))
    return "\n".join(lines)


def format_unmatched_line(summary: Mapping[str, Any]) -> str:
    """The unmatched citations, printed apart from Table 2's citation precision (empty when not computed)."""
    rate = summary.get("unmatched_citation_rate")
    if "n_unmatched_citations" not in summary:
        return ""
    low, high = summary.get("unmatched_citation_interval") or (None, None)
    interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    value = f"{rate:.3f}{interval} over the {summary['n_papers_citing']} papers that cite" if rate is not None \
        else "none (no paper cites anything)"
    return (f"{summary['system']}: unmatched citations (apart from citation precision; the automatic counterpart of "
            f"the human rubric's Hallucinated Citations, Table 7): rate {value}; "
            f"{summary['n_unmatched_citations']} cite a surname no cited work has, "
            f"{summary['n_near_miss_citations']} near misses (a cited work's surname, another year or form); "
            "each with its text in per_paper.jsonl")


def scored_papers(config: str, source: Any = None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The test papers of SciIG `config` a submission is scored on, and the holdout papers, never scored."""
    splits = load_sciig(config, source=source, split="all")
    why = "a holdout paper (the few-shot exemplar pool), never scored"
    return tuple(splits["test"]["paper_id"]), {pid: why for pid in splits["holdout"]["paper_id"]}
