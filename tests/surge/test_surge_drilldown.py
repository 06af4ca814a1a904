"""SurGE's drill-down (`sciwrite.surge.metrics.drilldown`) on a hand-made survey, and SurGE on the board: a run
written by ``sciwrite generate surge --model extractive`` and scored by ``sciwrite evaluate surge`` on the offline
sample (built from two aclsum papers), imported into a store, in the board's table and its drill-down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from datasets import Dataset

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.core.costs import COST_COLUMNS
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.tables import MISSING_CELL
from sciwrite.grounding.check_cells import verdict_text
from sciwrite.leaderboard.drilldown import BenchmarkPapers, paper_view
from sciwrite.leaderboard.runs import import_evaluation
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.tables import MISSING, board_columns, leaderboard_frame, leaderboard_rows
from sciwrite.sources.corpus import CORPUS_FEATURES
from sciwrite.surge.metrics.drilldown import (
    EXACT_TITLES,
    FUZZY_ONLY,
    NO_EXACT_MATCH,
    REFERENCE_COLUMNS,
    UNLISTED_CAPTION,
    ExactTitles,
    citation_view,
    heading_outline,
)

XSS = "<b>Invented</b> Llama Parsing <img src=y onerror=alert(3)>"
#: A tiny corpus in corpus order: d3 and d4 share a normalised title ("graphnetworks"), so SurGE's exact match is
#: the later one, d4; d7's accented letter is dropped by the normalisation ("berattention").
CORPUS = {"d1": "Attention Is All You Need", "d2": "Deep Residual Learning", "d3": "Graph Networks",
          "d4": "Graph-Networks!", "d5": "A Gold Paper Nobody Lists", "d6": "Unrelated Work", "d7": "Über Attention"}
#: The expert survey's citations as a list: d1 twice (SurGE counts a cite as often as it is listed).
GOLD = ["d1", "d4", "d5", "d1"]
#: The generated survey: references [1], [2], [5], [7], [9] (the numbers need not be consecutive).
TEXT = """# A survey of attention

## Attention

Attention [1] and graphs [2] help; see also [5], [7] and [9].

## References

[1] A. Vaswani et al. (2017). Attention is all you need.
[2] *Graph networks*
[5] {xss}
[7] Unrelated work.
[9] A gold paper nobody list
""".format(xss=XSS)
STRUCTURE = [{"id": "0", "parent_id": "", "title": "root", "content": ""},
             {"id": "s1", "parent_id": "0", "title": "Introduction", "content": "..."},
             {"id": "s3", "parent_id": "s2", "title": "Deep <i>section</i>", "content": "..."},
             {"id": "s2", "parent_id": "s1", "title": "Background", "content": "..."},
             {"id": "s4", "parent_id": "0", "title": "Methods", "content": "..."},
             {"id": "s5", "parent_id": "gone", "title": "Orphan", "content": "..."}]


def _grounding(n: int, verdict: str, doc_id: str | None = None, why: str = "") -> dict:
    """One reference's grounding record as the evaluation writes it (numbered by position)."""
    return {"n": n, "title": "", "verdict": verdict, "doc_id": doc_id, "score": None, "why": why,
            "corpus_title": CORPUS.get(doc_id or ""), "gold": verdict == "found" and doc_id in GOLD}


GROUNDED = [_grounding(1, "found", "d1", "title similarity 1.000"),
            _grounding(2, "ambiguous", why="2 corpus papers score within 0.02 of each other"),
            _grounding(3, "not_found"), _grounding(4, "found", "d6"),
            _grounding(5, "found", "d5", "title similarity 0.980")]


def _survey(corpus=CORPUS) -> dict:
    return {"paper_id": "s", "title": "A survey", "all_cites": GOLD, "structure": STRUCTURE,
            EXACT_TITLES: ExactTitles(corpus)}


def _row(**values) -> PaperRow:
    return PaperRow.from_json({"paper_id": "s", "reference_coverage": 0.75, "citation_precision": 0.4,
                               "grounding_source": "references", "grounding_references": GROUNDED, **values})


def _titles(doc_ids):
    return {d: CORPUS[d] for d in doc_ids if d in CORPUS}


def test_exact_titles_resolve_as_surge_does_from_a_mapping_and_from_a_dataset():
    """By hand: "graph networks" normalises to "graphnetworks", which d3 and d4 share (the later, d4, wins);
    "ber attention" to "berattention", d7's "Über Attention" with its Ü dropped; "nothing" matches no title."""
    expected = {"graphnetworks": ("d4", "Graph-Networks!"), "berattention": ("d7", "Über Attention")}
    asked = ["graph networks", "ber attention", "nothing"]
    assert ExactTitles(CORPUS).resolve(asked) == expected
    dataset = Dataset.from_list([{"doc_id": d, "title": t, "abstract": "", "authors": [], "year": 2020, "source": ""}
                                 for d, t in CORPUS.items()], features=CORPUS_FEATURES)
    assert ExactTitles(dataset).resolve(asked) == expected
    assert ExactTitles(dataset.select([6, 2, 3])).resolve(asked) == expected  # a selection keeps its own order
    assert ExactTitles(dataset.select([3, 2])).resolve(["graph networks"]) == {"graphnetworks": ("d3", "Graph Networks")}
    assert ExactTitles(dataset).resolve([]) == {}


def test_each_reference_with_its_exact_and_fuzzy_resolution():
    view = citation_view({"paper_id": "s", "text": TEXT}, _survey(), _row(), _titles)
    assert list(view.citations.columns) == list(REFERENCE_COLUMNS)
    table = view.citations.to_dict("records")
    assert [r["Ref"] for r in table] == ["[1]", "[2]", "[5]", "[7]", "[9]"]
    assert [r["Title as read"] for r in table] == ["Attention is all you need", "Graph networks", XSS,
                                                  "Unrelated work", "A gold paper nobody list"]
    assert [r["Exact doc_id"] for r in table] == ["d1", "d4", "", "d6", ""]
    assert [r["Exact corpus title"] for r in table] == [CORPUS["d1"], CORPUS["d4"], NO_EXACT_MATCH, CORPUS["d6"],
                                                       NO_EXACT_MATCH]
    assert [r["Fuzzy verdict"] for r in table] == ["found", "ambiguous", "not found", "found", "found"]
    assert [r["Fuzzy doc_id"] for r in table] == ["d1", "", "", "d6", "d5"]
    assert table[4]["Fuzzy corpus title"] == CORPUS["d5"] and table[4]["Evidence"] == "title similarity 0.980"
    # [2] names gold d4 exactly though the fuzzy resolver found it ambiguous; [9] names gold d5 only fuzzily
    assert [r["Cited by the expert survey"] for r in table] == ["yes", "yes", "no", "no", FUZZY_ONLY]
    # the gold papers once each, less those named exactly (d1, d4): d5, which the fuzzy resolver matched to [9]
    assert view.extra.to_dict("records") == [{"Title": CORPUS["d5"], "doc_id": "d5", "Fuzzy match": "[9]"}]
    assert view.extra_caption == UNLISTED_CAPTION
    assert view.reference == "Introduction\n  Background\n    Deep <i>section</i>\nMethods\nOrphan"
    # By hand: Coverage counts the gold list [d1, d4, d5, d1] against the exact set {d1, d4, d6}: 3 of 4 = 0.75;
    # precision: [d1, d4, -, d6, -] has 2 gold of 5 = 0.4; fuzzy: found {d1, d6, d5} hit {d1, d5} of the 3 gold.
    assert view.notes == [
        "Coverage 0.750: 3 of the expert survey's 4 citations are listed (exact title, as SurGE resolves)",
        "Citation precision 0.400: 2 of the 5 references are cited papers of the expert survey",
        "By the fuzzy resolver: 2 of the 3 cited papers found (grounded recall 0.667)"]


def test_notes_say_where_the_row_disagrees_or_holds_no_grounding():
    other = citation_view({"paper_id": "s", "pred": TEXT}, _survey(), _row(reference_coverage=0.5), _titles)
    assert other.notes[-1] == "the per-survey row holds Coverage 0.500: it was scored against other data"
    plain = PaperRow.from_json({"paper_id": "s", "reference_coverage": 0.75})
    view = citation_view({"paper_id": "s", "text": TEXT}, _survey(), plain, _titles)
    assert list(view.citations["Fuzzy verdict"]) == [MISSING_CELL] * 5
    assert list(view.citations["Cited by the expert survey"]) == ["yes", "yes", "no", "no", "no"]
    assert list(view.extra["Fuzzy match"]) == [MISSING_CELL]
    assert view.notes[-1] == ("the per-survey row holds the grounding of 0 references, the survey lists 5: the "
                              "fuzzy columns are empty")
    failed = PaperRow.from_json({"paper_id": "s", "grounding_source": "references", "grounding_error": "not a list",
                                 "grounding_references": []})
    assert citation_view({"text": TEXT}, _survey(), failed, _titles).notes[-1] == "not a list"


def test_a_survey_without_references_or_gold_and_a_record_without_a_corpus():
    empty = {**_survey(), "all_cites": []}
    view = citation_view({"text": "# Title\n\nNo references here."}, empty, None, _titles)
    assert view.citations.empty and view.extra.empty
    assert view.notes == ["Coverage: undefined (the expert survey cites no corpus paper)",
                          "Citation precision: undefined (the generated survey lists no reference)"]
    with pytest.raises(ValueError, match="carries no corpus"):
        citation_view({"text": TEXT}, {"paper_id": "s", "all_cites": GOLD}, None, _titles)


def test_the_heading_outline_walks_the_tree_and_survives_a_cycle():
    assert heading_outline([]) == ""
    cycle = [{"id": "a", "parent_id": "b", "title": "A"}, {"id": "b", "parent_id": "a", "title": ""}]
    assert heading_outline(cycle) == "A\n  (untitled)"


# -- SurGE on the board ------------------------------------------------------------------------------------------

#: The columns before the scores (the rank, the system and its dollars per paper), and the identity and provenance
#: columns after them.
LEAD = ["Rank", "System", "$/paper"]
TRAIL = ["Scored under", "Model", "Method", "Retriever", "Weights", "Profile", "Judge", "Papers", "Price table"]


def write_extractive_run(source: Path, out: Path, listed: str | None = None) -> Path:
    """The evaluation folder of the extractive floor's RAG surveys of `source`'s sample (``sciwrite generate surge
    --model extractive --method rag --limit 3``, then ``sciwrite evaluate surge --split sample``, lite, no judge);
    `listed` is appended to each survey's reference list before scoring (a title as a submitter may write it)."""
    assert main(["generate", "surge", "--model", "extractive", "--method", "rag", "--limit", "3", "--split", "sample",
                 "--source", str(source), "--out", str(out / "generated")]) == 0
    [predictions] = (out / "generated").glob("*.jsonl")
    if listed is not None:
        records = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
        predictions.write_text("".join(json.dumps({**r, "pred": f"{r['pred'].rstrip()}\n[999] {listed}\n"}) + "\n"
                                       for r in records), encoding="utf-8")
    assert main(["evaluate", "surge", "--predictions", str(predictions), "--split", "sample", "--source", str(source),
                 "--profile", "lite", "--no-judge", "--bootstrap", "200", "--out", str(out / "evaluation")]) == 0
    [summary] = (out / "evaluation").glob("*/summary.json")
    return summary.parent


@pytest.fixture(scope="module")
def extractive_run(surge_mini_folder, tmp_path_factory):
    """The extractive run's evaluation folder (scored once for this module, under a private data folder)."""
    out = tmp_path_factory.mktemp("surge_run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCIWRITE_DATA_DIR", str(out / "data"))
        patch.delenv("SCIWRITE_PROFILE", raising=False)
        return write_extractive_run(surge_mini_folder, out)


def test_the_board_shows_a_surge_run_with_its_scores_first(tmp_path, extractive_run):
    store = ResultsStore(tmp_path / "lb.sqlite")
    submission, added = import_evaluation(store, "surge", extractive_run)
    assert added and submission.benchmark == "surge"
    frame = leaderboard_frame(leaderboard_rows(store, "surge"), "surge")
    labels = [label for _, _, label in board_columns("surge")]
    assert list(frame.columns) == LEAD + labels + [label for _, label in COST_COLUMNS] + TRAIL
    assert labels[0] == "Information collection \u00b7 Coverage" and labels[-7] == "Citations \u00b7 Cit. prec."
    summary = json.loads((extractive_run / "summary.json").read_text(encoding="utf-8"))
    row = frame.iloc[0]
    mean, (low, high) = summary["reference_coverage"], summary["intervals"]["reference_coverage"]
    assert row["Information collection \u00b7 Coverage"] == f"{mean:.3f} [{low:.3f}, {high:.3f}]"
    assert row["Survey structure \u00b7 SH-Recall"].startswith(f"{summary['sh_recall']:.3f} [")
    assert row["Information collection \u00b7 Relevance (paper)"] == MISSING  # lite: no NLI model
    assert row["Survey content \u00b7 Logic"] == MISSING  # no judge
    assert row["Citations \u00b7 Cit. prec."].startswith(f"{summary['citation_precision']:.3f} [")
    assert row["Grounding \u00b7 G-Rec."].startswith(f"{summary['grounding']['grounded_recall']:.3f} [")
    assert row["Grounding \u00b7 Fabricated"].startswith(
        f"{summary['grounding']['grounding_verdict_fabricated_rate']:.3f} [")
    assert (row["Model"], row["Method"], row["Retriever"], row["Weights"], row["Papers"]) == (
        "extractive", "rag", "bm25", "open", "2")


def test_the_drilldown_of_an_imported_surge_run_agrees_with_its_rows(tmp_path, extractive_run, surge_mini_folder):
    """Each survey's tables, recomputed from its text against the corpus, give the counts the evaluation wrote."""
    store = ResultsStore(tmp_path / "lb.sqlite")
    submission, _ = import_evaluation(store, "surge", extractive_run)
    papers = BenchmarkPapers.load("surge", "sample", source=surge_mini_folder)
    assert get_benchmark("surge").presentation.drilldown is not None
    rows = [json.loads(line) for line in (extractive_run / "per_paper.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2
    for scored in rows:
        view = paper_view(store, submission.id, scored["paper_id"], papers)
        survey = papers.paper(scored["paper_id"])
        table = view.citations
        assert len(table) == scored["n_references"]
        assert (table["Exact doc_id"] != "").sum() == scored["n_references_resolved"]
        cited = (table["Cited by the expert survey"] == "yes").sum()
        assert cited == round(scored["citation_precision"] * scored["n_references"])
        assert list(table["Fuzzy verdict"]) == [
            {"found": "found", "ambiguous": "ambiguous", "not_found": "not found"}[g["verdict"]]
            for g in scored["grounding_references"]]
        assert list(table["Check"]) == [verdict_text(g["check"]) for g in scored["grounding_references"]]
        assert list(table["Check evidence"]) == [g["check"]["why"] for g in scored["grounding_references"]]
        named = set(table["Exact doc_id"])
        assert list(view.extra["doc_id"]) == [d for d in dict.fromkeys(survey["all_cites"]) if d not in named]
        assert all(view.extra["Title"])  # every cited paper is in the corpus
        assert view.notes[0].startswith(f"Coverage {scored['reference_coverage']:.3f}: ")
        assert view.notes[1].startswith(f"Citation precision {scored['citation_precision']:.3f}: ")
        assert not any("per-survey row holds" in note for note in view.notes)
        top = [s["title"] for s in survey["structure"] if s["parent_id"] == "0"]
        assert [line for line in view.reference.splitlines() if not line.startswith(" ")] == top
        assert view.generated.startswith("# ")
