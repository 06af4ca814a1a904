"""The leaderboard's view layer (tables, plots, comparison, drill-down, About) on hand-made stores."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import math
import shutil

import numpy as np
import pytest
import scipy.stats
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.text import Text

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.conditions import Condition, condition_order, provenance_text, summary_condition
from sciwrite.core.costs import RunCost, SideCost
from sciwrite.core.metric_modules import available_metrics
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.about import about_markdown
from sciwrite.leaderboard.compare import compare_submissions
from sciwrite.leaderboard.cost_plot import cost_chart
from sciwrite.leaderboard.drilldown import BenchmarkPapers, paper_scores_frame, paper_view
from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.plots import category_bars, metric_chart
from sciwrite.leaderboard.store import FINISHED, PENDING, ResultsStore
from sciwrite.leaderboard.tables import (
    INFO_WIDTHS,
    MISSING,
    board_columns,
    column_widths,
    filter_choices,
    leaderboard_frame,
    leaderboard_rows,
    metric_columns,
    not_computed_note,
)
from sciwrite.leaderboard.worker import Worker
from sciwrite.rwgbench.metrics.drilldown import OUT_OF_RANGE, listed_references_view
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.drilldown import UNMATCHED, outside_citations

RWG = get_benchmark("rwgbench")
SCIIG = get_benchmark("sciig")
XSS = "<img src=x onerror=alert(1)>"
#: The columns before the scores (the system, placed by its rank, and its dollars per paper: issue 51), and the
#: identity and provenance columns after them.
LEAD = ["Rank", "System", "$/paper"]
TRAIL = ["Scored under", "Model", "Method", "Retriever", "Weights", "Profile", "Judge", "Papers", "Price table"]
#: The cost columns, between the scores and the identity columns (issue 51).
COSTS = ["$/paper (gen)", "$/paper (judge)", "$ total", "Tokens/paper in (gen)", "Tokens/paper out (gen)",
         "Tokens/paper reasoning (gen)"]
SCIIG_MINI_PAPERS = ("2020.aacl-main.67", "2020.acl-main.547", "2020.acl-main.443", "2020.acl-main.573")


@pytest.fixture
def store(tmp_path):
    return ResultsStore(tmp_path / "lb.sqlite")


def add(store, system, *, benchmark="rwgbench", split="sample", means=None, intervals=None, rows=(), status=FINISHED,
        predictions="", profile="lite", not_computed=None, interval_notes=None, provenance=None, summary_profile=None,
        **form):
    """A submission with a summary holding `means` (other metrics None), `intervals` and `provenance`; the summary's
    ``profile`` is `summary_profile` when given, else `profile`."""
    bench = get_benchmark(benchmark)
    summary = {"n_papers": len(rows) or 3, "profile": profile if summary_profile is None else summary_profile, **{m: None for m in bench.suite.metrics}, **(means or {}),
               "intervals": intervals or {}, "not_computed": not_computed or {}, "n_resamples": 1000,
               "confidence": 0.95}
    if interval_notes:
        summary["interval_notes"] = interval_notes
    if provenance:
        summary["provenance"] = provenance
    digest = hashlib.sha256(f"{benchmark}{split}{system}{predictions}".encode()).hexdigest()
    return store.add_submission(benchmark=benchmark, split=split, system=system, submitter="tester",
                                predictions_jsonl=predictions, sha256=digest, n_predictions=len(rows),
                                status=status, summary=Summary.from_json(summary) if status == FINISHED else None, rows=rows,
                                profile=profile, **form)


def bars(fig):
    """Number of bars per bar container of a figure's first axes."""
    return [len(c) for c in fig.axes[0].containers if isinstance(c, BarContainer)]


# -- tables ---------------------------------------------------------------------------------------------------------


def test_metric_columns_follow_the_papers_groups():
    cols = metric_columns("rwgbench")
    assert [g for g, _, _ in cols] == ["CQ"] * 5 + ["CO"] * 2 + ["CF"] * 2 + ["TQ"] * 3
    assert [k for _, k, _ in cols] == list(RWG.suite.metrics)
    assert [label for _, _, label in cols][:3] == ["CQ \u00b7 Prec.", "CQ \u00b7 Rec.", "CQ \u00b7 Soft Rec."]
    assert cols[-1][2] == "TQ \u00b7 LLM"
    sciig = metric_columns(SCIIG)
    assert [k for _, k, _ in sciig] == list(SCIIG.suite.metrics)
    assert list(dict.fromkeys(g for g, _, _ in sciig)) == list(SCIIG.suite.table_groups)
    assert sciig[0][2] == "Lexical \u00b7 ROUGE-1" and sciig[-1][2] == "LLM judge \u00b7 Narrative quality"


def test_rows_hold_finished_submissions_only_with_their_intervals(store):
    a = add(store, "sys-a", model="m1", means={"precision": 0.412, "recall": 0.5},
            intervals={"precision": [0.38, 0.44], "recall": [None, None]})
    add(store, "queued", status=PENDING)
    add(store, "other split", split="test", means={"precision": 0.1})
    rows = leaderboard_rows(store, "rwgbench", split="sample")
    assert [r["id"] for r in rows] == [a.id]
    row = rows[0]
    assert (row["precision"], row["precision_low"], row["precision_high"]) == (0.412, 0.38, 0.44)
    assert (row["recall"], row["recall_low"], row["recall_high"]) == (0.5, None, None)
    assert row["llm_judge"] is None and row["profile"] == "lite" and row["n_papers"] == 3 and row["model"] == "m1"
    assert len(leaderboard_rows(store, "rwgbench")) == 2  # every split


def test_frame_layout_and_interval_text(store):
    add(store, "sys-a", model="m1", method="rag", retriever="bm25", weights="open",
        means={"precision": 0.412, "recall": 0.5, "rougeL": 0.25},
        intervals={"precision": [0.38, 0.44], "recall": [0.4996, 0.5004]})
    frame = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench")
    assert list(frame.columns) == LEAD + [label for _, _, label in board_columns("rwgbench")] + COSTS + TRAIL
    row = frame.iloc[0]
    assert row["CQ \u00b7 Prec."] == "0.412 [0.380, 0.440]"
    assert row["CQ \u00b7 Rec."] == "0.500 [0.500, 0.500]"
    assert row["TQ \u00b7 R-L"] == "0.250"  # a value without an interval
    assert row["TQ \u00b7 LLM"] == MISSING == "\u2013"
    assert (frame.attrs["ranks"][0], row["System"], row["Model"], row["Method"], row["Retriever"], row["Weights"],
            row["Profile"], row["Papers"]) == (1, "sys-a", "m1", "rag", "bm25", "open", "lite", "3")
    assert row["Scored under"] == "lite \u00b7 judge unknown"  # a summary without provenance
    empty = leaderboard_frame([], "sciig")
    assert empty.empty and list(empty.columns)[:len(LEAD)] == LEAD and list(empty.columns)[-len(TRAIL):] == TRAIL


def test_dollars_per_paper_sits_beside_the_rank_unknown_never_zero_and_sorts_last(store):
    """Issue 51: "$/paper" (generator + judge over the run's papers) comes right after Rank and System, before the
    headline score, so it shows in the first screen; a cost sort puts the unknown ones last either way."""
    def cost(gen, judge):
        return RunCost(4, SideCost(cost_usd=gen) if gen is not None else SideCost.unknown("no ledger"),
                       SideCost(cost_usd=judge) if judge is not None else SideCost.unknown("no judge ledger"))

    add(store, "no ledger", means={"precision": 0.9})
    add(store, "judge unknown", means={"precision": 0.7}, cost=cost(0.01, None))
    add(store, "dear", means={"precision": 0.8}, cost=cost(0.1, 0.02))  # (0.1 + 0.02) / 4 papers = $0.03
    add(store, "cheap", means={"precision": 0.6}, cost=cost(0.02, 0.004))  # (0.02 + 0.004) / 4 = $0.006
    rows = leaderboard_rows(store, "rwgbench")
    assert {r["system"]: r["cost_per_paper"] for r in rows} == {
        "no ledger": None, "judge unknown": None, "dear": pytest.approx(0.03), "cheap": pytest.approx(0.006)}
    frame = leaderboard_frame(rows, "rwgbench")
    assert list(frame.columns)[:4] == ["Rank", "System", "$/paper", "CQ \u00b7 Prec."]
    assert list(zip(frame["System"], frame["$/paper"])) == [
        ("no ledger", "unknown"), ("dear", "$0.03"), ("judge unknown", "unknown"), ("cheap", "$0.006")]
    assert frame.set_index("System").loc["judge unknown", "$/paper (gen)"] == "$0.0025"  # the known part stays
    assert list(leaderboard_frame(rows, "rwgbench", sort_by="cost_per_paper")["System"]) == [
        "cheap", "dear", "no ledger", "judge unknown"]  # cheapest first; unknown is missing, never $0
    assert list(leaderboard_frame(rows, "rwgbench", sort_by="cost_per_paper", descending=True)["System"]) == [
        "dear", "cheap", "no ledger", "judge unknown"]
    assert column_widths("rwgbench")[:3] == [f"{INFO_WIDTHS[c]}px" for c in LEAD]


def test_the_cost_plots_names_never_overlap_and_a_name_without_room_is_named_in_the_note():
    """Issue 51: thirty systems within a few pixels of one another on the plot, and one far from them at its right
    edge. No name covers another name or a point; those that find no room are named in the note, with their cost
    and score; the far one, with no room to its right, is named to its left."""
    headline = metric_columns("rwgbench")[0][1]

    def row(n, system, score, dollars):
        return {"id": f"s{n}", "system": system, headline: score, "cost_gen_per_paper": dollars,
                "cost_judge_per_paper": 0.0, "profile": "lite", "judge_model": ""}

    rows = [row(n, f"crowded system {n:02d}", 0.5 + 0.0005 * n, 0.010 + 0.00002 * n) for n in range(30)]
    rows.append(row(99, "far away", 0.9, 0.05))
    chart = cost_chart(rows, "rwgbench")
    ax = chart.figure.axes[0]
    renderer = chart.figure.canvas.get_renderer()
    names = {t.get_text(): t for t in ax.texts}
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]
    assert not [(a, b) for (a, x), (b, y) in itertools.combinations(zip(names, boxes), 2) if x.overlaps(y)]
    for x, y in (ax.transData.transform((r["cost_gen_per_paper"], r[headline])) for r in rows):
        assert not any(box.contains(x, y) for box in boxes)
    unnamed = {p.system for p in chart.unlabelled}
    assert unnamed and set(names) | unnamed == {r["system"] for r in rows} and not set(names) & unnamed
    for point in chart.unlabelled:
        assert f"{point.system} (${point.dollars:.4g}/paper, {point.score:.3f})" in chart.note
    assert names["far away"].get_horizontalalignment() == "right"
    assert names["far away"].arrow_patch is not None and not names["far away"].arrow_patch.get_visible()


@pytest.mark.parametrize("benchmark", ["rwgbench", "sciig", "surge"])
def test_the_system_and_the_papers_headline_metrics_lead_the_table(store, benchmark):
    """Issue 37: the scores come right after the system (the paper's headline metrics, its Hub tasks, in its
    table's order, then the board's own columns); the identity and provenance columns follow, each still a column
    of the frame (sortable in the page, and the filters still read them)."""
    bench = get_benchmark(benchmark)
    add(store, "sys", benchmark=benchmark, model="m1", method="rag", retriever="bm25", weights="open",
        means={bench.suite.metrics[0]: 0.5}, intervals={bench.suite.metrics[0]: [0.25, 0.75]})
    rows = leaderboard_rows(store, benchmark)
    frame = leaderboard_frame(rows, benchmark, models=["m1"], methods=["rag"], retrievers=["bm25"],
                              conditions=filter_choices(rows)["condition"])
    headline = [label for key, label in zip(bench.board_metrics, (label for _, _, label in board_columns(bench)))
                if key in {task.key for task in bench.hub.tasks}]
    columns = list(frame.columns)
    assert columns[:len(LEAD) + len(headline)] == LEAD + headline
    assert columns[-len(TRAIL):] == TRAIL
    first = frame.iloc[0]
    assert (first["System"], first[headline[0]]) == ("sys", "0.500 [0.250, 0.750]")
    assert (first["Model"], first["Method"], first["Retriever"], first["Weights"]) == ("m1", "rag", "bm25", "open")
    widths = column_widths(benchmark)
    assert [int(w[:-2]) for w in widths[:len(LEAD)]] == [INFO_WIDTHS[c] for c in LEAD]


def test_grounding_columns_follow_the_papers_table_and_rank_lower_hallucination_first(store):
    assert [label for _, _, label in board_columns("rwgbench")][len(RWG.suite.metrics):] == [
        "Grounding \u00b7 Found", "Grounding \u00b7 Not found", "Grounding \u00b7 G-Prec.", "Grounding \u00b7 G-Rec.",
        "Grounding \u00b7 Fabricated", "Grounding \u00b7 Meta. mismatch"]
    assert [label for _, _, label in board_columns("sciig")][len(SCIIG.suite.metrics):] == ["Grounding \u00b7 Unmatched cit."]
    grounding = {"grounding_found_rate": 0.75, "grounding_hallucination_rate": 0.25, "grounded_precision": 0.5,
                 "grounded_recall": 0.125, "intervals": {"grounding_found_rate": [0.6, 0.9]}}
    add(store, "direct-a", means={"grounding": grounding})
    add(store, "direct-b", means={"grounding": {**grounding, "grounding_hallucination_rate": 0.05}})
    add(store, "rag", means={"precision": 0.4})  # scored before grounding: its cells are empty, never an error
    rows = leaderboard_rows(store, "rwgbench")
    assert (rows[0]["grounding_found_rate"], rows[0]["grounding_found_rate_low"]) == (0.75, 0.6)
    frame = leaderboard_frame(rows, "rwgbench", sort_by="grounding_hallucination_rate")
    assert list(frame["System"]) == ["direct-b", "direct-a", "rag"]  # less hallucination first, no value last
    assert frame.iloc[1]["Grounding \u00b7 Found"] == "0.750 [0.600, 0.900]"
    assert frame.iloc[2]["Grounding \u00b7 Not found"] == MISSING
    assert frame.iloc[2]["Grounding \u00b7 Fabricated"] == MISSING  # scored before the checker: no value


def test_the_checkers_fabricated_and_metadata_mismatch_rates_follow_the_scores(store):
    """The board shows two of the checker's six verdict rates, after the grounding scores, for both benchmarks that
    ground listed references; a lower fabricated rate ranks first."""
    for name, bench in (("rwgbench", RWG), ("surge", get_benchmark("surge"))):
        labels = [label for _, _, label in board_columns(name)][len(bench.suite.metrics):]
        assert labels[-2:] == ["Grounding \u00b7 Fabricated", "Grounding \u00b7 Meta. mismatch"], name
    grounding = {"grounding_found_rate": 0.5, "grounding_verdict_verified_rate": 0.4,
                 "grounding_verdict_fabricated_rate": 0.3, "grounding_verdict_metadata_mismatch_rate": 0.2,
                 "grounding_verdict_title_mismatch_rate": 0.1, "grounding_verdict_anachronistic_rate": 0.0,
                 "grounding_verdict_unresolved_rate": 0.0,
                 "intervals": {"grounding_verdict_fabricated_rate": [0.1, 0.5]}}
    add(store, "direct-a", means={"grounding": grounding})
    add(store, "direct-b", means={"grounding": {**grounding, "grounding_verdict_fabricated_rate": 0.05,
                                                "grounding_verdict_metadata_mismatch_rate": 0.25, "intervals": {}}})
    rows = leaderboard_rows(store, "rwgbench")
    assert (rows[0]["grounding_verdict_fabricated_rate"], rows[0]["grounding_verdict_fabricated_rate_low"],
            rows[0]["grounding_verdict_fabricated_rate_high"]) == (0.3, 0.1, 0.5)
    frame = leaderboard_frame(rows, "rwgbench", sort_by="grounding_verdict_fabricated_rate")
    assert list(frame["System"]) == ["direct-b", "direct-a"]
    assert list(frame["Grounding \u00b7 Fabricated"]) == ["0.050", "0.300 [0.100, 0.500]"]
    assert list(frame["Grounding \u00b7 Meta. mismatch"]) == ["0.250", "0.200"]
    assert "Grounding \u00b7 Title mismatch" not in frame.columns  # declared, kept off the board
    add(store, "intro", benchmark="sciig", means={"unmatched_citation_rate": 0.2,
                                                   "unmatched_citation_interval": [0.1, 0.3]})
    sciig = leaderboard_frame(leaderboard_rows(store, "sciig"), "sciig", sort_by="unmatched_citation_rate")
    assert sciig.iloc[0]["Grounding \u00b7 Unmatched cit."] == "0.200 [0.100, 0.300]"


@pytest.mark.parametrize("benchmark", ["rwgbench", "sciig", "surge"])
def test_every_column_has_a_width_wide_enough_for_its_header_words(benchmark):
    """One width per column of the frame, and none narrower than the longest word of its header (about 9 px a
    character of the table's monospace font), so the browser never splits a word such as "Retriever"."""
    frame = leaderboard_frame([], benchmark)
    widths = column_widths(benchmark)
    assert len(widths) == len(frame.columns)
    for header, width in zip(frame.columns, widths):
        assert width.endswith("px")
        longest = max(len(word) for word in str(header).split())
        assert int(width[:-2]) >= 9 * longest + 24, header
    metrics = [label for _, _, label in board_columns(benchmark)]
    assert all(int(w[:-2]) >= 9 * len("0.412 [0.380, 0.440]")
               for header, w in zip(frame.columns, widths) if header in metrics)


@pytest.fixture
def four(store):
    """Four SciIG systems with numeric values whose text order differs from their numeric order."""
    specs = [("alpha", "gpt-4o", "level1", 9.75, 0.9), ("Beta", "GPT-4o-mini", "level2", 12.5, 0.15),
             ("a.c-system", "llama", "level1", None, None), ("abc", "llama", "level3", 30.0, 0.5)]
    for system, model, method, ppl, rouge in specs:
        add(store, system, benchmark="sciig", model=model, method=method,
            means={"perplexity": ppl, "rouge1": rouge})
    return leaderboard_rows(store, "sciig")


def test_search_is_a_case_insensitive_plain_substring(four):
    systems = lambda **kw: list(leaderboard_frame(four, "sciig", sort_by="rouge1", **kw)["System"])  # noqa: E731
    assert sorted(systems(search="gpt-4O")) == ["Beta", "alpha"]
    assert systems(search="a.c") == ["a.c-system"]  # "." is a dot, not "any character": "abc" stays out
    assert systems(search="  LEVEL3 ") == ["abc"]  # method, trimmed
    assert systems(search="(") == []  # not a pattern, so no error either
    assert systems(models=["llama"]) == ["abc", "a.c-system"]
    assert systems(models=["llama"], methods=["level1"]) == ["a.c-system"]
    assert systems(methods=["level1", "level2"], search="beta") == ["Beta"]
    assert systems(retrievers=["bm25"]) == []


def test_sort_is_numeric_with_missing_values_last(four):
    frame = leaderboard_frame(four, "sciig", sort_by="rouge1")
    assert list(frame["System"]) == ["alpha", "abc", "Beta", "a.c-system"]  # 0.9, 0.5, 0.15, None
    assert frame.attrs["ranks"] == [1, 2, 3, 4]
    assert list(frame["Rank"]) == ["1 (no per-paper scores)", *(f"{n} (no per-paper scores)" for n in (2, 3, 4))]
    ascending = leaderboard_frame(four, "sciig", sort_by="rouge1", descending=False)
    assert list(ascending["System"]) == ["Beta", "abc", "alpha", "a.c-system"]  # None still last
    # perplexity: lower is better, so ascending by default; 9.75 < 12.5 < 30 numerically (not as text)
    assert list(leaderboard_frame(four, "sciig", sort_by="perplexity")["System"]) == ["alpha", "Beta", "abc",
                                                                                      "a.c-system"]
    # the default sort is the benchmark's first metric (ROUGE-1)
    default = leaderboard_frame(four, "sciig")
    assert list(default["System"]) == list(frame["System"])
    assert default.attrs["ids"] == [next(r["id"] for r in four if r["system"] == s) for s in default["System"]]
    with pytest.raises(ValueError, match="not a SciIG metric"):
        leaderboard_frame(four, "sciig", sort_by="precision")


def test_user_strings_are_returned_verbatim(store):
    add(store, XSS, model="a & b", method="<b>x</b>", retriever="$x$", means={"precision": 0.3})
    rows = leaderboard_rows(store, "rwgbench")
    frame = leaderboard_frame(rows, "rwgbench", search="<IMG")
    assert frame.iloc[0]["System"] == XSS and frame.iloc[0]["Model"] == "a & b"
    assert frame.iloc[0]["Method"] == "<b>x</b>" and frame.iloc[0]["Retriever"] == "$x$"
    assert filter_choices(rows) == {"model": ["a & b"], "method": ["<b>x</b>"], "retriever": ["$x$"],
                                    "condition": ["lite \u00b7 judge unknown"]}
    fig = category_bars(rows, "rwgbench", "CQ")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == [XSS]
    fig.savefig(io.BytesIO(), format="png")  # draws: a "$" in a name is plain text, not TeX


def test_filter_choices_are_distinct_sorted_non_empty(four):
    assert filter_choices(four) == {"model": ["GPT-4o-mini", "gpt-4o", "llama"],
                                    "method": ["level1", "level2", "level3"], "retriever": [],
                                    "condition": ["lite \u00b7 judge unknown"]}


def test_not_computed_note_lists_reasons_per_profile(store):
    add(store, "a", profile="lite", not_computed={"soft_citation_recall": "no NLI model in lite",
                                                  "llm_judge": "no LLM endpoint"})
    add(store, "b", profile="lite", not_computed={"llm_judge": "no LLM endpoint"})
    add(store, "c", profile="paper")
    note = not_computed_note(leaderboard_rows(store, "rwgbench"), "rwgbench")
    assert note == ("Not computed under profile 'lite' (shown as \u2013): CQ \u00b7 Soft Rec.: no NLI model in lite; "
                    "TQ \u00b7 LLM: no LLM endpoint")
    add(store, "s", benchmark="sciig", interval_notes={"bleu": "corpus BLEU is not a mean over papers"})
    assert not_computed_note(leaderboard_rows(store, "sciig"), "sciig") == (
        "No interval: Lexical \u00b7 BLEU: corpus BLEU is not a mean over papers")
    assert not_computed_note([], "sciig") == ""


# -- comparison -----------------------------------------------------------------------------------------------------


def paper_row(pid, **values):
    """A per-paper row as the board keeps it, typed."""
    return PaperRow.from_json({"paper_id": pid, **values})


@pytest.fixture
def pair(store):
    """A and B on 3 shared papers (A also has a 4th); B's rows in another order."""
    a = add(store, "A", rows=[paper_row("p1", precision=0.1, recall=0.5), paper_row("p2", precision=0.2, recall=0.5),
                              paper_row("p3", precision=0.3, recall=0.5), paper_row("p4", precision=0.9, recall=0.1)])
    b = add(store, "B", rows=[paper_row("p3", precision=0.6, recall=0.5), paper_row("p1", precision=0.2, recall=0.5),
                              paper_row("p2", precision=0.4, recall=0.5)])
    return a, b


def test_compare_submissions_by_hand(store, pair):
    a, b = pair
    frame = compare_submissions(store, a.id, b.id, n_resamples=1000, seed=0)
    assert list(frame.columns) == ["Metric", "A", "B", "B \u2212 A", "95% CI", "p (permutation)", "p (Holm)",
                                   "Papers"]
    assert list(frame["Metric"]) == [label for _, _, label in metric_columns("rwgbench")]
    prec = frame.set_index("Metric").loc["CQ \u00b7 Prec."]
    # differences 0.1, 0.2, 0.3: mean 0.2; of the 2^3 sign flips only all-plus and all-minus reach |0.2|: p = 2/8
    assert (prec["A"], prec["B"], prec["B \u2212 A"], prec["Papers"]) == ("0.200", "0.400", "0.200", 3)
    assert prec["p (permutation)"] == "0.250"
    # Holm over the two metrics with a p-value (precision 0.25, recall 1.0): min(1, 2 * 0.25) = 0.5
    assert prec["p (Holm)"] == "0.500"
    # the paired differences 0.1, 0.2, 0.3: the exact 95% percentile interval of their mean (every resample
    # enumerated, `exact_percentile_interval`) is [0.1, 0.3]
    assert prec["95% CI"] == "[0.100, 0.300]"
    rec = frame.set_index("Metric").loc["CQ \u00b7 Rec."]
    assert (rec["B \u2212 A"], rec["95% CI"], rec["p (permutation)"], rec["p (Holm)"]) == ("0.000", "[0.000, 0.000]",
                                                                                          "1.000", "1.000")
    judge = frame.set_index("Metric").loc["TQ \u00b7 LLM"]
    assert (judge["A"], judge["B \u2212 A"], judge["p (permutation)"], judge["Papers"]) == (MISSING, MISSING,
                                                                                          MISSING, 0)


# -- intervals: checked against an exact enumeration and against scipy.stats.bootstrap --------------------------


#: The level the page names for every interval ("95% CI", "95% bootstrap intervals").
LEVEL = 0.95
#: Resamples for the checks: the board's own code with more resamples than it uses by default (so that its Monte
#: Carlo error is small), and scipy's reference distribution.
BOARD_RESAMPLES, SCIPY_RESAMPLES = 20_000, 100_000


def exact_percentile_interval(values, confidence=LEVEL):
    """The percentile bootstrap interval of the mean of `values`, exactly: every one of the n**n equally likely
    resamples (with replacement, order kept) enumerated, and the interval the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles (inverse distribution function) of their means."""
    means = sorted(sum(resample) / len(values) for resample in itertools.product(values, repeat=len(values)))
    alpha = (1 - confidence) / 2

    def quantile(q):
        return means[math.ceil(q * len(means)) - 1]  # the smallest mean with P(mean <= it) >= q

    return quantile(alpha), quantile(1 - alpha)


def assert_scipys_interval(values, low, high, board_resamples=BOARD_RESAMPLES):
    """(`low`, `high`) is scipy.stats.bootstrap's 95% percentile interval of the mean of `values`, within Monte
    Carlo error: each end may move by the spread of scipy's bootstrap distribution between the quantiles
    p -/+ 4 binomial standard errors of an estimate of p from `board_resamples` and from scipy's resamples."""
    found = scipy.stats.bootstrap((np.asarray(values, dtype=float),), np.mean, method="percentile",
                                  confidence_level=LEVEL, n_resamples=SCIPY_RESAMPLES, rng=np.random.default_rng(1))
    distribution = found.bootstrap_distribution
    for p, reference, board in (((1 - LEVEL) / 2, found.confidence_interval.low, low),
                                ((1 + LEVEL) / 2, found.confidence_interval.high, high)):
        spread = 4 * (math.sqrt(p * (1 - p) / board_resamples) + math.sqrt(p * (1 - p) / SCIPY_RESAMPLES))
        lower, upper = np.quantile(distribution, [p - spread, p + spread])
        assert board == pytest.approx(reference, abs=upper - lower + 1e-12), (p, board, reference, (lower, upper))


def test_the_exact_interval_of_three_papers_tells_95_from_90_percent():
    """The enumeration is sharp enough to catch a change of level: for three distinct values, 95% keeps the
    extreme resamples (probability 1/27 each > 2.5%), 90% drops them."""
    assert exact_percentile_interval([0.1, 0.2, 0.3]) == pytest.approx((0.1, 0.3))
    assert exact_percentile_interval([0.1, 0.2, 0.3], 0.90) == pytest.approx((0.4 / 3, 0.8 / 3))


@pytest.fixture
def thirty(store):
    """A and B on 30 shared papers, B's precision A's plus a noisy gain."""
    rng = np.random.default_rng(7)
    base, gain = rng.uniform(0.2, 0.6, 30), rng.normal(0.05, 0.1, 30)
    a = add(store, "A30", predictions="a30", rows=[paper_row(f"p{i}", precision=float(x)) for i, x in enumerate(base)])
    b = add(store, "B30", predictions="b30",
            rows=[paper_row(f"p{i}", precision=float(x + g)) for i, (x, g) in enumerate(zip(base, gain))])
    return a, b, gain


def test_the_compare_tabs_interval_is_scipys_percentile_bootstrap(store, thirty):
    a, b, gain = thirty
    found = compare_submissions(store, a.id, b.id, n_resamples=BOARD_RESAMPLES).attrs["comparison"]["precision"]
    assert_scipys_interval(gain, found.ci_low, found.ci_high)
    shown = compare_submissions(store, a.id, b.id).attrs["comparison"]["precision"]  # the page's call (its defaults)
    assert_scipys_interval(gain, shown.ci_low, shown.ci_high, board_resamples=1000)


def test_the_compare_tabs_interval_of_three_papers_is_exact(store, pair):
    a, b = pair
    differences = [0.1, 0.2, 0.3]  # B - A on the shared papers p1, p2, p3 (A's p4 is not shared)
    low, high = exact_percentile_interval(differences)
    for n_resamples in (BOARD_RESAMPLES, 1000):  # 1000: the page's call
        frame = compare_submissions(store, a.id, b.id, n_resamples=n_resamples)
        found = frame.attrs["comparison"]["precision"]
        assert (found.ci_low, found.ci_high) == pytest.approx((low, high), abs=1e-12)
        assert frame.set_index("Metric").loc["CQ \u00b7 Prec."]["95% CI"] == f"[{low:.3f}, {high:.3f}]"


@pytest.fixture
def scored_intros(store, sciig_mini_folder):
    """A SciIG submission scored by the board's evaluator (ROUGE-1 only) on the mini sample's three papers, each
    prediction a different share of its introduction (three distinct per-paper scores): (submission, per-paper
    ROUGE-1 values)."""
    intros = load_sciig("sample", source=sciig_mini_folder).to_list()
    lines = [json.dumps({"paper_id": p["paper_id"], "text": " ".join(p["introduction"].split()[:20 * (i + 1)])})
             for i, p in enumerate(intros)]
    sub = store.add_submission(benchmark="sciig", split="sample", system="partial intros", submitter="tester",
                               predictions_jsonl="\n".join(lines), sha256="partial", n_predictions=len(lines))
    evaluator = SuiteEvaluator(sources={"sciig": str(sciig_mini_folder)}, profile="lite",
                               metrics={"sciig": ["rouge1"]}, bootstrap=BOARD_RESAMPLES)
    assert Worker(store, evaluator, name="w").run_once().status == FINISHED
    values = [r.value("rouge1") for r in store.paper_rows(sub.id)]
    assert len(values) == 3 and len(set(values)) == 3, values
    return sub, values


def test_the_tables_interval_of_three_papers_is_exact(store, scored_intros):
    """The interval each table cell shows, as the board's evaluator computes it, against every resample of the
    three papers enumerated."""
    sub, values = scored_intros
    low, high = exact_percentile_interval(values)
    [row] = leaderboard_rows(store, "sciig")
    assert (row["rouge1_low"], row["rouge1_high"]) == pytest.approx((low, high), abs=1e-12)
    cell = leaderboard_frame([row], "sciig").iloc[0][metric_columns("sciig")[0][2]]
    assert cell == f"{sum(values) / 3:.3f} [{low:.3f}, {high:.3f}]"


def test_the_tables_interval_is_scipys_percentile_bootstrap(store, scored_intros):
    sub, values = scored_intros
    [row] = leaderboard_rows(store, "sciig")
    assert_scipys_interval(values, row["rouge1_low"], row["rouge1_high"])


def test_compare_p_values_come_from_sciwrite_stats(store, pair, monkeypatch):
    import sciwrite.stats

    monkeypatch.setattr(sciwrite.stats, "permutation_p_value", lambda a, b, n, seed: 0.0123)
    prec = compare_submissions(store, *(s.id for s in pair)).set_index("Metric").loc["CQ \u00b7 Prec."]
    assert prec["p (permutation)"] == "0.012" and prec["p (Holm)"] == "0.025"


def test_compare_needs_the_same_benchmark_and_split(store, pair):
    other_split = add(store, "C", split="test", rows=[paper_row("p1", precision=0.1)])
    other_bench = add(store, "D", benchmark="sciig", rows=[paper_row("p1", rouge1=0.1)])
    with pytest.raises(ValueError, match="same benchmark and split"):
        compare_submissions(store, pair[0].id, other_split.id)
    with pytest.raises(ValueError, match="same benchmark and split"):
        compare_submissions(store, pair[0].id, other_bench.id)
    pending = add(store, "E", status=PENDING)
    with pytest.raises(ValueError, match="no per-paper scores"):
        compare_submissions(store, pair[0].id, pending.id)


# -- drill-down -----------------------------------------------------------------------------------------------------


def test_rwgbench_drilldown_on_the_mini_sample(store, mini_sample_folder):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    papers = BenchmarkPapers.load("rwgbench", "sample", source=mini_sample_folder)
    corpus = {r["doc_id"]: r["title"] for r in load_rwgbench("sample_corpus", source=mini_sample_folder)}
    pid = "P06-1112"
    gold = list(papers.paper(pid)["citations"])
    non_gold = next(d for d in corpus if d not in gold)
    candidates = [gold[0], non_gold, gold[1]]
    text = "Earlier systems [1] used patterns; others [2, 7] did not. As [1] shows, it helps."
    prediction = json.dumps({"paper_id": pid, "text": text, "candidates": candidates})
    sub = add(store, "sys", predictions=prediction + "\n",
              rows=[paper_row(pid, precision=0.5, recall=0.123456, llm_judge=None)])

    view = paper_view(store, sub.id, pid, papers)
    assert view.generated == text and view.reference == papers.paper(pid)["related_work"]
    assert view.title == papers.paper(pid)["title"]
    assert view.citations.to_dict("records") == [
        {"Marker": "[1]", "doc_id": gold[0], "Cited title": corpus[gold[0]], "In gold set": "yes"},
        {"Marker": "[2]", "doc_id": non_gold, "Cited title": corpus[non_gold], "In gold set": "no"},
        {"Marker": "[7]", "doc_id": "", "Cited title": "", "In gold set": OUT_OF_RANGE},
    ]
    assert list(view.extra["doc_id"]) == gold[1:]
    assert list(view.extra["In candidate list"]) == ["[3]"] + ["no"] * (len(gold) - 2)
    assert list(view.extra["Title"]) == [corpus[d] for d in gold[1:]]
    scores = dict(zip(view.scores["Metric"], view.scores["Score"]))
    assert scores["CQ \u00b7 Prec."] == "0.500" and scores["CQ \u00b7 Rec."] == "0.123"
    assert scores["TQ \u00b7 LLM"] == MISSING

    frame = paper_scores_frame(store, sub.id)
    assert list(frame.columns) == ["paper_id", *(label for _, _, label in board_columns("rwgbench"))]
    assert frame.iloc[0]["paper_id"] == pid and frame.iloc[0]["CQ \u00b7 Rec."] == 0.123

    with pytest.raises(KeyError, match="no-such-paper"):
        paper_view(store, sub.id, "no-such-paper", papers)
    with pytest.raises(KeyError, match="E06-1051"):  # in the split, but the submission did not predict it
        paper_view(store, sub.id, "E06-1051", papers)
    with pytest.raises(ValueError, match="rwgbench/test"):
        paper_view(store, sub.id, pid, BenchmarkPapers("rwgbench", "test", []))


def test_rwgbench_drilldown_marks_each_listed_reference(store, mini_sample_folder):
    from sciwrite.grounding.corpus_check import lazy_checker
    from sciwrite.grounding.resolver import lazy_resolver
    from sciwrite.rwgbench.data.loading import load_rwgbench
    from sciwrite.rwgbench.metrics.grounding import score_reference_grounding

    papers = BenchmarkPapers.load("rwgbench", "sample", source=mini_sample_folder)
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder)
    titles = dict(zip(corpus["doc_id"], corpus["title"]))
    pid = "P06-1112"
    gold = list(papers.paper(pid)["citations"])
    listed = [{"n": 1, "title": titles[gold[0]].lower()}, {"n": 2, "title": XSS + " Hyperbolic Llama Parsing"}]
    text = "Earlier systems [1] used patterns."
    grounded, = score_reference_grounding([text], [[]], [listed], [gold], [pid], lambda ids: {}, lazy_resolver(corpus),
                                          checker=lazy_checker(corpus), years=[papers.paper(pid)["year"]])
    prediction = json.dumps({"paper_id": pid, "text": text, "candidates": [], "references": listed})
    sub = add(store, "direct", predictions=prediction + "\n", rows=[paper_row(pid, recall=0.0, **grounded)])
    view = paper_view(store, sub.id, pid, papers)
    first, second = view.citations.to_dict("records")
    assert (first["Ref"], first["Verdict"], first["doc_id"], first["Corpus title"], first["In gold set"],
            first["Cited in text"]) == ("[1]", "found", gold[0], titles[gold[0]], "yes", "yes")
    assert "title similarity" in first["Evidence"]
    assert (second["Listed title"], second["Verdict"], second["Cited in text"]) == (
        XSS + " Hyperbolic Llama Parsing", "not found", "no")  # returned verbatim: escaping is the page's job
    # the reference checker's verdict, the fields that differ, the record matched and the evidence, as text
    assert (first["Check"], first["Fields differing"], first["Matched record"]) == (
        "verified", "", f"{titles[gold[0]]} (corpus {gold[0]})")
    assert first["Check evidence"].startswith(f"title matches corpus {gold[0]}")
    assert (second["Check"], second["Matched record"]) == ("fabricated", "")
    assert "no work in corpus has this title" in second["Check evidence"]
    assert list(view.extra["doc_id"]) == gold[1:] and list(view.extra["Title"]) == [titles[d] for d in gold[1:]]
    assert "no listed reference names" in view.extra_caption
    scores = dict(zip(view.scores["Metric"], view.scores["Score"]))
    assert scores["Grounding \u00b7 Found"] == "0.500" and scores["Grounding \u00b7 Not found"] == "0.500"

    old = add(store, "old", predictions=prediction + " \n", rows=[paper_row(pid, recall=0.0)])
    view = paper_view(store, old.id, pid, papers)
    assert list(view.citations["Verdict"]) == [MISSING, MISSING] and "shown unchecked" in view.notes[0]
    assert list(view.citations["Check"]) == [MISSING, MISSING]


def test_rwgbench_drilldown_notes_why_a_listed_reference_list_was_not_read():
    """The grounding's error on the typed row is the note (no verdicts); the gold papers are all missed."""
    row = paper_row("p1", recall=0.0, grounding_source="references", grounding_error="references: not a list",
                    grounding_references=[])
    table, uncited, notes = listed_references_view("See [1].", [{"n": 1, "title": "A"}], row, ["d1"],
                                                   lambda ids: {"d1": "Gold"})
    assert notes == ["references: not a list"] and table.empty  # no verdicts to show
    assert uncited.to_dict("records") == [{"doc_id": "d1", "Title": "Gold"}]


def test_sciig_drilldown_lists_a_row_scored_before_the_unmatched_split_unmarked():
    """A row with ``not_in_neighbors`` but no unmatched/near-miss split lists those citations, unmarked."""
    row = paper_row("p1", rouge1=0.2, cited_keys=["Nobody, 1999"], not_in_neighbors=["Nobody, 1999"])
    assert outside_citations(row, ["ignored"]).to_dict("records") == [
        {"Citation": "Nobody, 1999", "Mark": MISSING, "In the text": ""}]
    assert list(outside_citations(None, ["Else, 2000"])["Citation"]) == ["Else, 2000"]


@pytest.fixture
def sciig_mini_folder(tmp_path):
    from sciwrite.sciig.data.builder import write_sciig_sample
    from sciwrite.sources.aclsum import aclsum_paper_dir

    papers = tmp_path / "sciig_papers"
    papers.mkdir()
    for stem in SCIIG_MINI_PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    write_sciig_sample(tmp_path / "sciig", paper_dir=papers)
    return tmp_path / "sciig"


def test_sciig_drilldown_marks_the_cited_works(store, sciig_mini_folder):
    papers = BenchmarkPapers.load("sciig", "sample", source=sciig_mini_folder)
    pid = "2020.acl-main.443"
    paper = papers.paper(pid)
    keys = [n["key"] for n in paper["neighbors"]]
    text = f"Code generation ({keys[0]}) and more (Nobody et al., 1999)."
    prediction = json.dumps({"paper_id": pid, "text": text})
    row = paper_row(pid, rouge1=0.25, citation_precision=0.5, cited_keys=[keys[0], "Nobody et al., 1999"],
                    not_in_neighbors=["Nobody et al., 1999"],
                    unmatched_citations=[{"citation": "Nobody et al., 1999", "text": "and more (Nobody et al., 1999)."}],
                    near_miss_citations=[], unmatched_citation_rate=0.5)
    sub = add(store, "intro", benchmark="sciig", predictions=prediction, rows=[row])
    view = paper_view(store, sub.id, pid, papers)
    assert view.reference == paper["introduction"] and view.generated == text
    assert list(view.citations["Key"]) == keys
    assert list(view.citations["Title"]) == [n["title"] for n in paper["neighbors"]]
    assert list(view.citations["Cited by the generation"]) == ["yes"] + ["no"] * (len(keys) - 1)
    assert view.extra.to_dict("records") == [{"Citation": "Nobody et al., 1999", "Mark": UNMATCHED,
                                              "In the text": "and more (Nobody et al., 1999)."}]
    assert dict(zip(view.scores["Metric"], view.scores["Score"]))["Grounding \u00b7 Unmatched cit."] == "0.500"
    near = paper_row(pid, cited_keys=[keys[0]], not_in_neighbors=["X, 2001"], unmatched_citations=[],
                     near_miss_citations=[{"citation": "X, 2001", "text": None, "neighbors": [keys[0]]}])
    marked = paper_view(store, add(store, "near", benchmark="sciig", predictions=prediction + "  ", rows=[near]).id,
                        pid, papers).extra
    assert marked.iloc[0]["Mark"] == f"near miss: a cited work by this surname ({keys[0]})"

    bare = add(store, "bare", benchmark="sciig", predictions=prediction + " ", rows=[paper_row(pid, rouge1=0.2)])
    view = paper_view(store, bare.id, pid, papers)
    assert set(view.citations["Cited by the generation"]) == {MISSING} and view.notes


# -- plots ----------------------------------------------------------------------------------------------------------


def test_plots_draw_one_bar_per_system_and_metric(store):
    for i, (system, p) in enumerate([("a", 0.2), ("b", None), ("c", 0.6)]):
        add(store, system, means={"precision": p, "recall": 0.1 * (i + 1)},
            intervals={"precision": [None, None] if p is None else [p - 0.05, p + 0.05]})
    rows = leaderboard_rows(store, "rwgbench")
    fig = category_bars(rows, "rwgbench", "CQ")
    assert isinstance(fig, Figure)
    assert bars(fig) == [5, 5, 5]  # one container per system, one bar per CQ metric
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["a", "b", "c"]
    chart = metric_chart(rows, "rwgbench", "precision")
    assert bars(chart) == [2]  # "b" has no precision
    labels = [t.get_text() for t in chart.axes[0].get_yticklabels()]
    ys = [t.get_position()[1] for t in chart.axes[0].get_yticklabels()]
    assert [label for _, label in sorted(zip(ys, labels), reverse=True)] == ["c", "a"]  # the best at the top
    assert "1 without a value" in chart.axes[0].get_title()
    for figure in (fig, chart):
        figure.savefig(io.BytesIO(), format="png")
    with pytest.raises(ValueError, match="no category"):
        category_bars(rows, "rwgbench", "Lexical")


def test_plots_cap_many_systems_and_say_when_empty(store):
    for i in range(15):
        add(store, f"s{i:02d}", benchmark="sciig", means={"perplexity": 10.0 + i, "rouge1": i / 20})
    rows = leaderboard_rows(store, "sciig")
    fig = category_bars(rows, "sciig", "Fluency")
    assert bars(fig) == [1] * 12 and "best 12 of 15" in fig.axes[0].get_title()
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][0] == "s00"  # lowest perplexity
    assert bars(metric_chart(rows, "sciig", "rouge1", max_systems=5)) == [5]
    for empty in (category_bars([], "sciig", "Lexical"), metric_chart([], "sciig", "bleu")):
        assert isinstance(empty, Figure) and not bars(empty)
        assert [t.get_text() for t in empty.axes[0].texts] == ["no finished submissions"]


# -- about ----------------------------------------------------------------------------------------------------------


def test_about_mentions_every_metric_module():
    text = about_markdown()
    for name in available_metrics():
        assert f"(`{name}`)" in text, name
    assert "## RWGBench" in text and "## SciIG" in text
    assert text.index("(`citation_precision_recall`)") < text.index("## SciIG") < text.index("(`sciig_rouge`)")
    assert "percentile bootstrap over papers" in text and "permutation test" in text and "Holm" in text
    assert "\ntitle:" not in text and "tags:" not in text  # front matter stripped
    assert "Lexical overlap with the reference introduction" in text  # a card's first paragraph


def test_compare_refuses_different_provenance_unless_asked(store):
    rows = [paper_row("p1", precision=0.1), paper_row("p2", precision=0.2), paper_row("p3", precision=0.3)]
    block = {"benchmark": "rwgbench", "dataset": {"config": "sample", "fingerprint": "f"}, "profile": "lite",
             "models": {"scibert": "packaged:all-MiniLM-L6-v2"}, "prompt_templates_sha256": "ab"}

    def judged(model, snapshot):
        return {**block, "judge": {"model": model, "snapshots": {snapshot: 3}}}

    a = add(store, "A", rows=rows, predictions="a", provenance=judged("gpt-5.5", "s1"))
    b = add(store, "B", rows=rows, predictions="b", provenance=judged("gpt-4o", "s1"))
    c = add(store, "C", rows=rows, predictions="c", provenance=judged("gpt-5.5", "s2"))
    with pytest.raises(ValueError, match="'B' was not scored like 'A': judge model: 'gpt-5.5' vs 'gpt-4o'"):
        compare_submissions(store, a.id, b.id)
    frame = compare_submissions(store, a.id, b.id, allow_mixed_provenance=True)
    assert frame.attrs["provenance_differences"] == ["judge model: 'gpt-5.5' vs 'gpt-4o'"]
    same_model = compare_submissions(store, a.id, c.id)  # same judge model, a newer snapshot: compared, and said
    assert same_model.attrs["provenance_differences"] == ["judge snapshots ['s1'] vs ['s2']"]


def test_rows_show_the_judge_they_were_scored_with(store):
    add(store, "judged", provenance={"judge": {"model": "gpt-5.5", "snapshots": {"gpt-5.5-2026-04-23": 3}}})
    add(store, "unjudged", predictions="x", provenance={"judge": None})
    add(store, "old", predictions="y")  # a summary from before provenance
    rows = {r["system"]: r for r in leaderboard_rows(store, "rwgbench")}
    assert rows["judged"]["judge"] == "gpt-5.5 (gpt-5.5-2026-04-23)"
    assert rows["unjudged"]["judge"] == rows["old"]["judge"] == ""
    frame = leaderboard_frame(list(rows.values()), "rwgbench")
    assert "gpt-5.5 (gpt-5.5-2026-04-23)" in set(frame["Judge"])


# -- scoring conditions ---------------------------------------------------------------------------------------------


def scored_by(profile, model, snapshot="s1"):
    """A provenance block of `profile` whose judge is `model` (answering from `snapshot`); None: no judge ran."""
    judge = {"model": model, "snapshots": {snapshot: 3}} if model else None
    return {"benchmark": "rwgbench", "profile": profile, "judge": judge, "dataset": {"config": "sample"}}


PAPER_55, PAPER_4O = "paper \u00b7 judge gpt-5.5", "paper \u00b7 judge gpt-4o"
PAPER_NONE, LITE_55 = "paper \u00b7 no judge", "lite \u00b7 judge gpt-5.5"
LITE_OLD, PAPER_OLD, UNKNOWN = "lite \u00b7 judge unknown", "paper \u00b7 judge unknown", "profile unknown \u00b7 judge unknown"


@pytest.fixture
def mixed(store):
    """Rows scored under seven conditions; A and B share one (a different judge snapshot does not split it)."""
    specs = [("A", "paper", scored_by("paper", "gpt-5.5", "s1"), {}, 0.3),
             ("B", "paper", scored_by("paper", "gpt-5.5", "s2"), {}, 0.5),
             ("C", "lite", scored_by("lite", "gpt-5.5"), {}, 0.9),
             ("D", "paper", scored_by("paper", "gpt-4o"), {}, 0.1),
             ("E", "paper", scored_by("paper", None), {}, 0.95),
             ("F", "lite", None, {}, 0.99),  # schema 0: no provenance, the submission's profile
             ("G", "", None, {"summary_profile": "paper"}, 0.2),  # schema 0: only the summary says its profile
             ("H", "", None, {}, 0.4)]  # schema 0 with no profile anywhere
    for system, profile, block, extra, value in specs:
        add(store, system, predictions=system, profile=profile, provenance=block, means={"precision": value}, **extra)
    return leaderboard_rows(store, "rwgbench")


def test_rows_are_ranked_within_their_scoring_condition_only(mixed):
    frame = leaderboard_frame(mixed, "rwgbench", sort_by="precision")
    shown = list(zip(frame["Scored under"], frame["System"], frame.attrs["ranks"]))
    assert shown == [(PAPER_55, "B", 1), (PAPER_55, "A", 2),  # one judge model, two snapshots: one ranking
                     (PAPER_4O, "D", 1), (PAPER_NONE, "E", 1),  # another judge, no judge: each its own rank 1
                     (PAPER_OLD, "G", 1),  # the paper profile's groups first, unknown provenance last among them
                     (LITE_55, "C", 1), (LITE_OLD, "F", 1), (UNKNOWN, "H", 1)]
    assert frame.attrs["ids"] == [next(r["id"] for r in mixed if r["system"] == s) for s in frame["System"]]
    worst_first = leaderboard_frame(mixed, "rwgbench", sort_by="precision", descending=False)
    assert list(zip(worst_first["System"], worst_first.attrs["ranks"]))[:2] == [("A", 1), ("B", 2)]


def test_a_filter_hides_rows_but_never_reranks_them(mixed):
    only = leaderboard_frame(mixed, "rwgbench", sort_by="precision", conditions=[PAPER_55])
    assert list(zip(only["System"], only.attrs["ranks"])) == [("B", 1), ("A", 2)]
    found = leaderboard_frame(mixed, "rwgbench", sort_by="precision", search="a")  # only "A" matches
    assert list(zip(found["Scored under"], found["System"], found.attrs["ranks"])) == [(PAPER_55, "A", 2)]
    assert leaderboard_frame(mixed, "rwgbench", conditions=["no such condition"]).empty
    assert filter_choices(mixed)["condition"] == [PAPER_55, PAPER_4O, PAPER_NONE, PAPER_OLD, LITE_55, LITE_OLD,
                                                  UNKNOWN]


def test_rows_carry_their_condition_and_schema(mixed):
    rows = {r["system"]: r for r in mixed}
    assert (rows["A"]["profile"], rows["A"]["judge_model"], rows["A"]["condition"]) == ("paper", "gpt-5.5", PAPER_55)
    assert rows["A"]["judge"] == "gpt-5.5 (s1)" and rows["B"]["judge"] == "gpt-5.5 (s2)"
    assert (rows["E"]["judge_model"], rows["E"]["condition"]) == ("", PAPER_NONE)
    assert rows["F"]["schema_version"] == 0 and rows["F"]["judge_model"] is None
    assert (rows["G"]["profile"], rows["G"]["condition"]) == ("paper", PAPER_OLD)  # the summary's profile field
    assert rows["H"]["condition"] == UNKNOWN


def test_the_same_profile_and_judge_share_one_ranking(store):
    for i, value in enumerate([0.2, 0.6, 0.4]):
        add(store, f"s{i}", predictions=str(i), profile="paper", means={"precision": value},
            provenance=scored_by("paper", "gpt-5.5", f"snap-{i}"))
    frame = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench", sort_by="precision")
    assert list(zip(frame["System"], frame.attrs["ranks"])) == [("s1", 1), ("s2", 2), ("s0", 3)]
    assert set(frame["Scored under"]) == {PAPER_55}


def test_summary_condition_reads_provenance_then_the_old_profile_field():
    assert summary_condition(Summary.from_json({"provenance": scored_by("paper", "gpt-5.5")})) == Condition("paper", "gpt-5.5")
    assert summary_condition(Summary.from_json({"provenance": scored_by(None, None)}), "lite") == Condition("lite", "")
    assert summary_condition(Summary.from_json({"provenance": {"judge": {"snapshots": {"x": 1}}}})) == Condition("", None)
    assert summary_condition(Summary.from_json({"profile": "paper", "precision": 0.1})) == Condition("paper", None)  # schema 0
    assert summary_condition(Summary.from_json({"profile": "paper"}), "lite") == Condition("lite", None)  # the submission's first
    assert summary_condition(Summary.from_json({})).label == UNKNOWN
    panel = {**scored_by("paper", "panel(a + b)")}
    partial = {**panel, "judge": {**panel["judge"], "panel_complete": False}}
    assert summary_condition(Summary.from_json({"provenance": {**panel, "judge": {**panel["judge"],
                                                                                   "panel_complete": True}}})) == \
        Condition("paper", "panel(a + b)")
    assert summary_condition(Summary.from_json({"provenance": partial})) == Condition(
        "paper", "panel(a + b) (panel incomplete)")  # its own group: never ranked with the complete panels
    big, small = {"profile": "lite", "judge_model": ""}, {"profile": "lite", "judge_model": "gpt-4o"}
    assert condition_order([small, big, big]) == [Condition("lite", ""), Condition("lite", "gpt-4o")]  # by size


def test_provenance_text_is_plain_json_and_old_summaries_say_so():
    block = {**scored_by("paper", XSS), "models": {"scibert": "allenai/scibert"}}
    text = provenance_text(Summary.from_json({"schema_version": 1, "provenance": block}))
    assert json.loads(text) == {"scored under": f"paper \u00b7 judge {XSS}", "schema_version": 1,
                                "provenance": block}  # the user's text verbatim, as text
    old = provenance_text(Summary.from_json({"profile": "lite", "models": {"scibert": "packaged:all-MiniLM-L6-v2"}}))
    assert old.startswith("This summary predates provenance (schema 0)")
    assert json.loads(old.split("\n", 1)[1]) == {"scored under": LITE_OLD, "profile": "lite",
                                                 "models": {"scibert": "packaged:all-MiniLM-L6-v2"}}
    assert "not been scored" in provenance_text(None)


def test_plots_name_the_condition_when_rows_are_mixed(mixed, store):
    chart = metric_chart(mixed, "rwgbench", "precision")
    labels = {t.get_text() for t in chart.axes[0].get_yticklabels()}
    assert f"A [{PAPER_55}]" in labels and f"F [{LITE_OLD}]" in labels
    one = [r for r in mixed if r["condition"] == PAPER_55]
    legend = category_bars(one, "rwgbench", "CQ").axes[0].get_legend().get_texts()
    assert sorted(t.get_text() for t in legend) == ["A", "B"]  # one condition: the names alone


def test_a_partial_row_says_its_papers_in_the_table_and_the_plots(store):
    """Issue 23: the board scores only complete submissions, but a row over part of its split (a store filled by
    hand, a restored summary) says n/N papers in the Papers column and in every chart."""
    add(store, "whole", means={"precision": 0.4})
    part = add(store, "part", means={"precision": 0.9})
    summary = {**store.summary(part.id).to_json(), "coverage": {"n_scored": 3, "n_split": 144, "complete": False}}
    with store._write() as conn:
        conn.execute("UPDATE results SET summary=? WHERE submission_id=?", (json.dumps(summary), part.id))
    rows = leaderboard_rows(store, "rwgbench")
    frame = leaderboard_frame(rows, "rwgbench")
    assert dict(zip(frame["System"], frame["Papers"])) == {"part": "3/144", "whole": "3"}
    assert [t.get_text() for t in category_bars(rows, "rwgbench", "CQ").axes[0].get_legend().get_texts()] == [
        "whole", "part (3/144 papers)"]
    labels = [t.get_text() for t in metric_chart(rows, "rwgbench", "precision").axes[0].get_yticklabels()]
    assert sorted(labels) == ["part (3/144 papers)", "whole"]
