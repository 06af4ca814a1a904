"""Checking a submission: the form, the file, the split's paper_ids, duplicates, the rate limit, the Hub path and
the admin's actions."""

from __future__ import annotations

import json

import pytest

from sciwrite.leaderboard import service as service_module
from sciwrite.leaderboard.service import ADMIN_TOKEN_ENV, BoardSettings, Leaderboard
from sciwrite.leaderboard.store import PENDING, ResultsStore
from sciwrite.leaderboard.submission import SubmissionForm, check_predictions, form_problems

IDS = ("p1", "p2", "p3")


def _lines(*records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def _rwg(pid: str, text: str = "See [1].") -> dict:
    return {"paper_id": pid, "text": text, "candidates": ["d1", "d2"]}


def test_form_problems_name_each_field():
    bad = SubmissionForm(benchmark="nope", system="", submitter="x" * 65, weights="half", url="javascript:alert(1)",
                         model="a\nb").cleaned()
    problems = form_problems(bad, ["rwgbench", "sciig"])
    assert any(p.startswith("benchmark: choose one of ['rwgbench', 'sciig']") for p in problems)
    assert "system: required" in problems
    assert "submitter: at most 64 characters (got 65)" in problems
    assert "weights: 'open' or 'closed', got 'half'" in problems
    assert "url: only http:// or https:// addresses are accepted" in problems
    assert "model: control characters (such as newlines) are not allowed" in problems
    good = SubmissionForm(benchmark="rwgbench", system="<img src=x onerror=alert(1)>", submitter="ann",
                          url="https://example.org/paper", weights="open")
    assert form_problems(good, ["rwgbench"]) == []
    assert form_problems(SubmissionForm("rwgbench", "s", "ann", url="ftp://x.org"), ["rwgbench"]) == [
        "url: only http:// or https:// addresses are accepted"]


def test_a_good_file_passes_with_its_digest():
    content = _lines(*(_rwg(p) for p in IDS))
    checked = check_predictions(content, "rwgbench", IDS, candidates=True)
    assert checked.problems == [] and [r["paper_id"] for r in checked.records] == list(IDS)
    import hashlib

    assert checked.sha256 == hashlib.sha256(content).hexdigest()


def test_every_problem_of_a_file_is_listed_at_once():
    content = b"\n".join([
        json.dumps(_rwg("p1")).encode(),
        b"{not json",
        json.dumps({"paper_id": "p2", "text": 3, "candidates": []}).encode(),
        json.dumps(_rwg("p1", "other")).encode(),
        json.dumps(_rwg("zz")).encode(),
        json.dumps({"paper_id": "p3", "pred": "uses pred [1]", "candidates": ["d"]}).encode(),
    ])
    problems = check_predictions(content, "rwgbench", IDS, candidates=True).problems
    assert problems[0].startswith("line 2: not valid JSON")
    assert problems[1] == "line 3: (paper_id 'p2') field 'text' (or 'pred') must be a string (the generated " \
                          "related-work section)"
    assert "line 4: paper_id 'p1' already on line 1" in problems
    assert "line 5: paper_id 'zz' is not in the rwgbench split" in problems
    assert any(p.startswith("papers: 1 of the split's 3 papers have no prediction, e.g. 'p2'") for p in problems)


def test_candidates_are_required_for_rwgbench_only():
    content = _lines(*({"paper_id": p, "text": "intro"} for p in IDS))
    assert "field 'candidates'" in check_predictions(content, "rwgbench", IDS, candidates=True).problems[0]
    assert check_predictions(content, "sciig", IDS, candidates=False).problems == []


def test_size_encoding_empty_and_excluded():
    assert check_predictions(b"x" * 11, "sciig", IDS, candidates=False, max_bytes=10).problems == [
        "file: 0.0 MB; the limit is 0.0 MB"]
    assert check_predictions(b"\xff\xfe\x00", "sciig", IDS, candidates=False).problems[0].startswith("file: not UTF-8")
    assert check_predictions(b"\n\n", "sciig", IDS, candidates=False).problems == ["file: no predictions (an empty file)"]
    content = _lines(*({"paper_id": p, "text": "t"} for p in (*IDS, "h1")))
    problems = check_predictions(content, "sciig", IDS, candidates=False, excluded={"h1": "a holdout paper"}).problems
    assert problems == ["line 4: paper_id 'h1': a holdout paper"]


def test_many_problems_of_one_kind_are_counted():
    content = _lines(*({"paper_id": f"x{i}", "text": "t"} for i in range(9)))
    problems = check_predictions(content, "sciig", ["x0"], candidates=False).problems
    assert problems[-1] == "... and 3 more like the above" and len(problems) == 6


@pytest.fixture
def board(tmp_path, monkeypatch):
    b = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"), BoardSettings(rate_limit=3))
    monkeypatch.setattr(b, "split_ids", lambda benchmark: (IDS, {}))
    return b


def _form(system="mine", submitter="ann", **extra) -> SubmissionForm:
    return SubmissionForm(benchmark="rwgbench", system=system, submitter=submitter, **extra)


def test_submit_queues_an_accepted_file_and_refuses_duplicates(board):
    content = _lines(*(_rwg(p) for p in IDS))
    outcome = board.submit(_form(system="  <img src=x onerror=alert(1)>  ", model="m", weights="closed"), content)
    assert outcome.accepted and outcome.problems == []
    s = outcome.submission
    assert s.status == PENDING and s.system == "<img src=x onerror=alert(1)>" and s.n_predictions == 3
    assert s.split == "sample" and s.source == "upload" and s.weights == "closed"
    assert board.store.predictions(s.id) == content.decode()
    again = board.submit(_form(system="copy"), content)
    assert not again.accepted and again.problems == [
        f"these predictions were already submitted as '<img src=x onerror=alert(1)>' (submission {s.id}, PENDING)"]


def test_submit_needs_exactly_one_source_and_rate_limits(board):
    assert board.submit(_form(), None).problems == [
        "predictions: upload a JSON Lines file or give a Hub dataset id (one of the two)"]
    assert board.submit(_form(), b"{}", hub_id="a/b").problems[0].startswith("predictions:")
    assert board.submit(_form(), None, hub_id="../etc/passwd").problems == [
        "hub id: expected org/name or org/name:config, got '../etc/passwd'"]
    for k in range(3):
        assert board.submit(_form(system=f"s{k}"), _lines(*(_rwg(p, f"v{k} [1]") for p in IDS))).accepted
    refused = board.submit(_form(system="s4"), _lines(*(_rwg(p, "v4 [1]") for p in IDS)))
    assert "the limit is 3" in refused.problems[0]
    assert board.submit(_form(system="s4", submitter="bob"), _lines(*(_rwg(p, "v4 [1]") for p in IDS))).accepted


def test_submit_by_hub_id_reads_the_pushed_run(board, tmp_path, monkeypatch):
    """The Hub path as `sciwrite push` leaves it: a dataset loaded by `prediction_file` (here from a folder)."""
    from datasets import Dataset

    folder = tmp_path / "pushed"
    Dataset.from_list([{**_rwg(p), "model": "m", "method": "rag"} for p in IDS]).to_json(folder / "test.jsonl")
    asked = []
    real = service_module.prediction_file

    def from_folder(source):
        asked.append(source)
        return real(folder)

    monkeypatch.setattr(service_module, "prediction_file", from_folder)
    outcome = board.submit(_form(), None, hub_id="me/preds:rag-bm25")
    assert outcome.accepted, outcome.problems
    assert asked == ["me/preds:rag-bm25"] and outcome.submission.source == "me/preds:rag-bm25"
    assert len(board.store.predictions(outcome.submission.id).splitlines()) == 3

    def missing(source):
        raise FileNotFoundError("no such dataset")

    monkeypatch.setattr(service_module, "prediction_file", missing)
    assert board.submit(_form(), None, hub_id="me/gone").problems == [
        "hub id: could not load 'me/gone': no such dataset"]


def test_admin_actions_need_the_token(board, monkeypatch):
    s = board.submit(_form(), _lines(*(_rwg(p) for p in IDS))).submission
    monkeypatch.delenv(ADMIN_TOKEN_ENV, raising=False)
    with pytest.raises(PermissionError, match="disabled"):
        board.delete(s.id, "anything")
    monkeypatch.setenv(ADMIN_TOKEN_ENV, "s3cret")
    with pytest.raises(PermissionError, match="wrong admin token"):
        board.delete(s.id, "guess")
    board.delete(s.id, "s3cret")
    assert board.store.submissions() == []


def test_split_ids_come_from_the_split(mini_sample_folder, sciig_mini_folder, tmp_path):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    board = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"),
                        BoardSettings(sources={"rwgbench": str(mini_sample_folder), "sciig": str(sciig_mini_folder)}))
    ids, excluded = board.split_ids("rwgbench")
    assert ids == tuple(load_rwgbench("sample", source=mini_sample_folder)["paper_id"]) and excluded == {}
    ids, excluded = board.split_ids("sciig")
    assert len(ids) == 3 and len(excluded) == 1 and "holdout" in next(iter(excluded.values()))
