"""An agent's trace on the board: `leaderboard import` keeps each paper's trace from the ``<run>.traces.jsonl``
beside the predictions, the drill-down shows it as a table of tool calls, a bad traces line adds nothing, an upload
may carry the trace in its records, and a run without traces is stored exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.leaderboard.drilldown import TRACE_COLUMNS, BenchmarkPapers, paper_view, trace_frame
from sciwrite.leaderboard.runs import import_evaluation
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.submission import check_predictions, content_digest

PAPERS = ("p1", "p2")
XSS = "<img src=x onerror=alert(1)>"
#: p1's trace as the agent writes it: a search, a malformed read and a call over the budget, then a forced answer.
TRACE = [
    {"turn": 1, "reasoning": "Look for " + XSS, "text": "Searching first.",
     "calls": [{"id": "c1", "tool": "search", "arguments": {"query": "parsing", "k": 2}, "doc_ids": ["d1", "d2"]},
               {"id": "c2", "tool": "read", "arguments": "{not json", "doc_ids": [],
                "error": "the arguments are not valid JSON"}]},
    {"turn": 2, "reasoning": None,
     "calls": [{"id": "c3", "tool": "read", "arguments": {"doc_id": "d1"}, "doc_ids": [],
                "not_run": "over the tool-call budget"}]},
    {"turn": 3, "reasoning": "Write now.", "answer": "See [1].", "forced": True, "ignored_calls": 1},
]
#: TRACE as the drill-down's rows, worked out by hand.
ROWS = [
    {"Turn": "1", "Tool": "search", "Arguments": '{"query": "parsing", "k": 2}', "Result": "d1, d2",
     "Reasoning": "Look for " + XSS, "Text": "Searching first."},
    {"Turn": "1", "Tool": "read", "Arguments": "{not json", "Result": "error: the arguments are not valid JSON",
     "Reasoning": "", "Text": ""},
    {"Turn": "2", "Tool": "read", "Arguments": '{"doc_id": "d1"}', "Result": "not run: over the tool-call budget",
     "Reasoning": "", "Text": ""},
    {"Turn": "3", "Tool": "answer", "Arguments": "",
     "Result": "forced to write: the tool-call budget ran out; 1 tool call(s) ignored", "Reasoning": "Write now.",
     "Text": ""},
]


def _lines() -> list[str]:
    return [json.dumps({"paper_id": p, "pred": f"See [1] for {p}.", "candidates": ["d1"], "model": "m",
                        "method": "agent", "retriever": "bm25"}) for p in PAPERS]


def _folder(base: Path, traces: list[str] | None = None) -> Path:
    """An RWGBench evaluation folder as `sciwrite evaluate` writes it, its predictions ``run.jsonl`` beside it and,
    with `traces`, ``run.traces.jsonl`` holding those lines."""
    predictions = base / "run.jsonl"
    base.mkdir(parents=True, exist_ok=True)
    predictions.write_text("\n".join(_lines()) + "\n", encoding="utf-8")
    if traces is not None:
        (base / "run.traces.jsonl").write_text("".join(line + "\n" for line in traces), encoding="utf-8")
    folder = base / "out" / "run"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"system": "run", "split": "sample", "predictions": str(predictions),
                                                     "precision": 0.5, "n_papers": 2, "profile": "lite"}))
    (folder / "per_paper.jsonl").write_text("".join(json.dumps({"paper_id": p, "precision": v}) + "\n"
                                                    for p, v in zip(PAPERS, (0.0, 1.0))))
    return folder


@pytest.fixture
def papers() -> BenchmarkPapers:
    return BenchmarkPapers("rwgbench", "sample", [{"paper_id": p, "title": f"Paper {p}", "related_work": "Gold [1].",
                                                   "citations": ["d1"]} for p in PAPERS], corpus={"d1": "Doc one"})


def test_an_agent_runs_traces_are_kept_and_shown_and_a_second_import_adds_nothing(tmp_path, papers):
    folder = _folder(tmp_path, [json.dumps({"paper_id": "p1", "trace": TRACE})])
    path = tmp_path / "board.sqlite"
    submission, added = import_evaluation(ResultsStore(path), "rwgbench", folder)
    assert added
    store = ResultsStore(path)  # a reopened store (a restart) still has it
    view = paper_view(store, submission.id, "p1", papers)
    assert view.trace.to_dict("records") == ROWS
    assert view.generated == "See [1] for p1."
    assert list(view.trace.columns) == TRACE_COLUMNS and view.trace.empty is False
    untraced = paper_view(store, submission.id, "p2", papers).trace
    assert untraced.empty and list(untraced.columns) == TRACE_COLUMNS
    stored = store.predictions(submission.id).splitlines()
    assert stored[1] == _lines()[1]  # the paper without a trace keeps its line as it was
    assert json.loads(stored[0]) == {**json.loads(_lines()[0]), "trace": TRACE}
    # the trace is not scored: the digest is that of the predictions alone, so importing again adds nothing
    assert submission.sha256 == content_digest([{"paper_id": p, "text": f"See [1] for {p}.", "candidates": ["d1"]}
                                                for p in PAPERS], candidates=True)
    again, added = import_evaluation(store, "rwgbench", folder)
    assert not added and again.id == submission.id and len(store.submissions()) == 1


def test_without_a_traces_file_nothing_changes(tmp_path, papers):
    folder = _folder(tmp_path)
    store = ResultsStore(tmp_path / "board.sqlite")
    submission, added = import_evaluation(store, "rwgbench", folder)
    assert added and store.predictions(submission.id) == (tmp_path / "run.jsonl").read_text(encoding="utf-8")
    trace = paper_view(store, submission.id, "p1", papers).trace
    assert trace.empty and list(trace.columns) == TRACE_COLUMNS


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "not valid JSON"),
    (json.dumps({"paper_id": "p9", "trace": TRACE}), "record 'p9', field 'paper_id': no prediction of this paper"),
    (json.dumps({"paper_id": "p2", "trace": "turns"}), "record 'p2', field 'trace': no list of turns"),
])
def test_a_bad_traces_line_is_named_and_adds_nothing(tmp_path, capsys, line, said):
    folder = _folder(tmp_path, [json.dumps({"paper_id": "p1", "trace": TRACE}), line])
    store = tmp_path / "board.sqlite"
    with pytest.raises(InputError, match=r"run\.traces\.jsonl:2"):
        import_evaluation(ResultsStore(store), "rwgbench", folder)
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sciwrite: error: ") and "\n" not in err and "Traceback" not in err
    assert f"{tmp_path / 'run.traces.jsonl'}:2" in err and said in err
    assert ResultsStore(store).submissions() == []


def test_an_upload_may_carry_a_trace_in_its_records():
    good = [json.dumps({"paper_id": "p1", "text": "See [1].", "candidates": ["d1"], "trace": TRACE}),
            json.dumps({"paper_id": "p2", "text": "See [1].", "candidates": ["d1"]})]
    checked = check_predictions("\n".join(good).encode(), "rwgbench", PAPERS, candidates=True)
    assert checked.problems == [] and checked.records[0]["trace"] == TRACE
    bad = [good[0], json.dumps({"paper_id": "p2", "text": "See [1].", "candidates": ["d1"], "trace": ["a turn"]})]
    checked = check_predictions("\n".join(bad).encode(), "rwgbench", PAPERS, candidates=True)
    assert checked.problems[0] == ("line 2: (paper_id 'p2') field 'trace' must be a list of the agent's turns (JSON "
                                   "objects), as in <run>.traces.jsonl")


def test_a_trace_of_any_shape_becomes_text_cells():
    """A submitter's trace is theirs: nothing in it breaks the table, and every cell is a string."""
    frame = trace_frame([{"turn": 1, "reasoning": {"summary": ["a"]}, "calls": ["odd", {"tool": "search"}]},
                         "loose", {"turn": 2}])
    assert frame.to_dict("records") == [
        {"Turn": "1", "Tool": "", "Arguments": "", "Result": "odd", "Reasoning": '{"summary": ["a"]}', "Text": ""},
        {"Turn": "1", "Tool": "search", "Arguments": "", "Result": "no papers", "Reasoning": "", "Text": ""},
        {"Turn": "", "Tool": "", "Arguments": "", "Result": "loose", "Reasoning": "", "Text": ""},
        {"Turn": "2", "Tool": "answer", "Arguments": "", "Result": "wrote the section", "Reasoning": "", "Text": ""},
    ]
    assert trace_frame(None).empty and trace_frame("not a list").empty


def test_the_trace_of_a_failed_paper_is_not_an_orphan(tmp_path):
    from sciwrite.leaderboard.runs import read_traces

    path = tmp_path / "run.traces.jsonl"
    path.write_text('{"paper_id": "p1", "trace": [{"turn": 1}]}\n'
                    '{"paper_id": "p9", "trace": [{"turn": 1}], "error": "HTTP 500"}\n', encoding="utf-8")
    assert read_traces(path, {"p1"}) == {"p1": [{"turn": 1}]}  # p9 failed: no prediction, and no error either
