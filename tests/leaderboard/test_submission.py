"""Checking a submission: the form, the file, the split's paper_ids, duplicates, the rate limit, the Hub path and
the admin's actions."""

from __future__ import annotations

import json

import pytest

from sciwrite.leaderboard import service as service_module
from sciwrite.leaderboard.service import ADMIN_TOKEN_ENV, BoardSettings, Leaderboard
from sciwrite.leaderboard.store import PENDING, ResultsStore
from sciwrite.leaderboard.submission import SubmissionForm, check_predictions, content_digest, form_problems

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
    assert checked.sha256 == content_digest(checked.records, candidates=True)


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
    assert check_predictions(b"x" * (2**20 + 1), "sciig", IDS, candidates=False, max_bytes=2**20).problems == [
        "file: 1.01 MiB; the limit is 1 MiB"]
    assert check_predictions(b"\xff\xfe\x00", "sciig", IDS, candidates=False).problems[0].startswith(
        "line 1: not UTF-8 text (byte 0xff at offset 0)")
    assert check_predictions(b'{"a": 1}\n{"b": "caf\xe9"}', "sciig", IDS, candidates=False).problems == [
        "line 2: not UTF-8 text (byte 0xe9 at offset 19); save the file as UTF-8"]
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


# --- issue 23: guards that a user cannot get around ----------------------------------------------------------


def test_the_same_predictions_reformatted_are_a_duplicate(board):
    records = [_rwg(p, f"Prior work on {p} [1].") for p in IDS]
    first = board.submit(_form(system="orig"), _lines(*records))
    assert first.accepted
    variants = {
        "a trailing newline": _lines(*records) + b"\n",
        "CRLF line endings and a BOM": b"\xef\xbb\xbf" + _lines(*records).replace(b"\n", b"\r\n"),
        "the lines reordered": _lines(*reversed(records)),
        "white space in the text": _lines(*({**r, "text": "  " + r["text"].replace(" ", "   ") + "\n"}
                                            for r in records)),
        "keys reordered, an unscored field": "\n".join(json.dumps({"candidates": r["candidates"], "note": "x",
                                                                    "text": r["text"], "paper_id": r["paper_id"]})
                                                         for r in records).encode(),
    }
    for why, content in variants.items():
        outcome = board.submit(_form(system=why), content)
        assert not outcome.accepted, why
        assert outcome.problems == [f"these predictions were already submitted as 'orig' (submission "
                                    f"{first.submission.id}, PENDING)"], why
    changed = [{**records[0], "text": records[0]["text"] + " More."}, *records[1:]]
    assert board.submit(_form(system="changed text"), _lines(*changed)).accepted
    other_candidates = [{**records[0], "candidates": ["d2", "d1"]}, *records[1:]]
    assert board.submit(_form(system="changed candidates"), _lines(*other_candidates)).accepted


def test_content_digest_ignores_the_form_not_the_content():
    a = [{"paper_id": "p1", "text": "A  b", "candidates": ["x"]}, {"paper_id": "p2", "text": "c", "candidates": []}]
    b = [{"paper_id": "p2", "text": "c\n", "candidates": []}, {"paper_id": "p1", "text": "A b", "candidates": ["x"]}]
    assert content_digest(a, candidates=True) == content_digest(b, candidates=True)
    assert content_digest(a, candidates=True) != content_digest([{**a[0], "text": "A c"}, a[1]], candidates=True)
    # SciIG scores no candidates: a stray candidates field does not make a new submission
    assert content_digest(a, candidates=False) == content_digest([{**a[0], "candidates": ["y"]}, a[1]],
                                                                  candidates=False)


def test_the_rate_limit_counts_the_address_whatever_name_is_typed(board):
    def content(k):
        return _lines(*(_rwg(p, f"v{k} [1]") for p in IDS))

    for k in range(3):
        assert board.submit(_form(system=f"s{k}", submitter=f"name{k}"), content(k), address="10.0.0.1").accepted
    refused = board.submit(_form(system="s3", submitter="fresh-name"), content(3), address="10.0.0.1")
    assert refused.problems == ["this address has made 3 submissions in the last 24 h; the limit is 3. Please try "
                                "again later."]
    assert board.submit(_form(system="s3", submitter="fresh-name"), content(3), address="10.0.0.2").accepted
    # the typed name still counts on its own: name0 from another address is not yet at its limit, ann is
    assert board.submit(_form(system="s4", submitter="name0"), content(4), address="10.0.0.3").accepted


def test_on_a_space_the_hub_login_is_the_submitter_and_the_rate_limit(tmp_path, monkeypatch):
    board = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"), BoardSettings(rate_limit=2, hub_login=True))
    monkeypatch.setattr(board, "split_ids", lambda benchmark: (IDS, {}))

    def content(k):
        return _lines(*(_rwg(p, f"v{k} [1]") for p in IDS))

    anonymous = board.submit(_form(), content(0), address="10.0.0.1")
    assert not anonymous.accepted and anonymous.problems[0].startswith("login: sign in with your Hugging Face account")
    signed_in = board.submit(_form(submitter="someone-else"), content(0), hub_user="alice", address="10.0.0.1")
    assert signed_in.accepted and signed_in.submission.submitter == "alice"
    assert board.submit(_form(submitter="x"), content(1), hub_user="alice", address="10.0.0.2").accepted
    refused = board.submit(_form(submitter="y"), content(2), hub_user="alice", address="10.0.0.3")
    assert refused.problems[0].startswith("submitter 'alice' has made 2 submissions")
    # bob's own system: "mine" is alice's name now (a name belongs to its first submitter)
    assert board.submit(_form(system="bob's system"), content(2), hub_user="bob", address="10.0.0.1").accepted


def test_a_store_written_before_the_client_column_opens_and_gains_it(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    ResultsStore(path)
    with sqlite3.connect(path) as conn:  # the table as the first release wrote it
        conn.execute("DROP INDEX submissions_client")
        conn.execute("ALTER TABLE submissions DROP COLUMN client")
        assert "client" not in {row[1] for row in conn.execute("PRAGMA table_info(submissions)")}
    store = ResultsStore(path)
    sub = store.add_submission(benchmark="rwgbench", split="sample", system="s", submitter="ann",
                               predictions_jsonl="{}", sha256="x", n_predictions=1, client="address:10.0.0.1")
    assert store.get(sub.id).client == "address:10.0.0.1"


def test_sizes_are_said_in_one_unit():
    from sciwrite.leaderboard.submission import MAX_BYTES, mib

    assert mib(MAX_BYTES) == "20 MiB" and mib(21 * 2**20) == "21 MiB" and mib(2**20 + 1, round_up=True) == "1.01 MiB"
    too_big = check_predictions(b"x" * (MAX_BYTES + 5 * 2**20 // 100), "sciig", IDS, candidates=False).problems
    assert too_big == ["file: 20.05 MiB; the limit is 20 MiB"]


def test_a_submission_whose_split_cannot_be_loaded_ends_failed_with_the_reason(tmp_path):
    """The Hub unreachable (here: a source folder that is gone): the board still accepts and keeps the submission,
    FAILED, saying why; the next submission tries the split again."""
    from sciwrite.leaderboard.store import FAILED

    board = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"),
                        BoardSettings(sources={"rwgbench": str(tmp_path / "gone")}))
    line = json.dumps({"paper_id": "p1", "text": "A [1].", "candidates": ["d1"]}) + "\n"
    outcome = board.submit(SubmissionForm("rwgbench", "Sys", "ann"), line.encode())
    assert outcome.problems == [] and outcome.submission.status == FAILED
    stored = board.store.get(outcome.submission.id)
    assert stored.status == FAILED and "split of rwgbench could not be loaded" in stored.error
    assert str(tmp_path / "gone") in stored.error and board.store.predictions(stored.id) == line
    again = board.submit(SubmissionForm("rwgbench", "Sys 2", "ann"), (line + line.replace("p1", "p2")).encode())
    assert again.submission.status == FAILED and "rwgbench" not in board._split_ids
