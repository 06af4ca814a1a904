"""The served leaderboard through its public API (gradio_client), as a submitter's script would use it: submit a
file, watch it on /submissions, find it on the leaderboard, compare two systems, drill down to a paper; a refused
file, a duplicate, a failing evaluation, and twenty submitters at once."""

from __future__ import annotations

import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from sciwrite.leaderboard.store import FAILED, FINISHED
from tests.leaderboard.conftest import FINAL, rwgbench_lines, sciig_lines

CI_CELL = re.compile(r"-?\d+\.\d{3} \[-?\d+\.\d{3}, -?\d+\.\d{3}\]")
ACCEPTED = re.compile(r"Accepted: .* is queued as PENDING \(submission ([0-9a-f]{32}), (\d+) predictions\)")


def _client(served) -> Client:
    return Client(served.url, verbose=False)


def _write(tmp_path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _submit(client: Client, path: str, system: str, *, benchmark: str = "rwgbench", submitter: str = "ann",
            model: str = "gpt-4o", method: str = "zero-shot", retriever: str = "bm25", weights: str = "closed",
            url: str = "https://example.org/paper") -> str:
    return client.predict(benchmark, handle_file(path), "", system, model, method, retriever, weights, url,
                          submitter, api_name="/submit")


def _accepted_id(message: str) -> str:
    found = ACCEPTED.match(message)
    assert found, message
    return found.group(1)


def _table(value: dict) -> list[dict]:
    """A Dataframe the API returned, as one dict per row."""
    return [dict(zip(value["headers"], row)) for row in value["data"]]


def _listing(client: Client) -> dict[str, dict]:
    """/submissions by submission id."""
    return {row["Id"]: row for row in _table(client.predict(api_name="/submissions"))}


def _poll_final(client: Client, submission_id: str) -> dict:
    """The submission's /submissions row once it is FINISHED or FAILED (however long a loaded machine takes: the
    suite's per-test timeout ends a worker that never gets there)."""
    while (row := _listing(client)[submission_id])["Status"] not in FINAL:
        time.sleep(0.25)
    return row


def _leaderboard(client: Client, benchmark: str, sort_by: str, search: str = "",
                 conditions: tuple[str, ...] = ()) -> tuple[list[dict], str]:
    table, _, _, _, note, _ = client.predict(search, [], [], [], sort_by, "best first", list(conditions),
                                             api_name=f"/leaderboard_{benchmark}")
    return _table(table), note


def test_submit_score_rank_compare_and_drill_down(served_board, tmp_path, mini_sample_folder, sciig_mini_folder):
    client = _client(served_board)
    first = _accepted_id(_submit(client, _write(tmp_path, "a.jsonl", rwgbench_lines(mini_sample_folder, 0)),
                                 "Alpha <i>RAG</i>"))
    second = _accepted_id(_submit(client, _write(tmp_path, "b.jsonl", rwgbench_lines(mini_sample_folder, 1)),
                                  "Beta", model="llama-3-8b", weights="open", submitter="bob"))
    intro = _accepted_id(_submit(client, _write(tmp_path, "s.jsonl", sciig_lines(sciig_mini_folder)), "Gamma",
                                 benchmark="sciig"))
    rows = {sid: _poll_final(client, sid) for sid in (first, second, intro)}
    for sid, row in rows.items():
        assert row["Status"] == FINISHED, row
        assert row["Reason"] == "" and row["Profile"] == "lite" and row["Attempts"] == 1 and row["Finished (UTC)"]
    assert rows[first]["System"] == "Alpha <i>RAG</i>" and rows[first]["Benchmark"] == "RWGBench"
    assert rows[intro]["Benchmark"] == "SciIG"

    table, note = _leaderboard(client, "rwgbench", "recall")
    assert [r["System"] for r in table] == ["Beta", "Alpha <i>RAG</i>"]  # Beta's candidates hold more gold papers
    assert [r["Rank"].split(" (")[0] for r in table] == ["1", "2"]  # then the rank interval: test_rank_intervals
    assert {r["Scored under"] for r in table} == {"lite \u00b7 no judge"}  # scored here, without an LLM judge
    other_group, _ = _leaderboard(client, "rwgbench", "recall", conditions=("paper \u00b7 no judge",))
    assert other_group == []
    alpha = table[1]
    assert (alpha["Model"], alpha["Method"], alpha["Retriever"], alpha["Weights"], alpha["Profile"],
            alpha["Papers"]) == ("gpt-4o", "zero-shot", "bm25", "closed", "lite", "2")
    for label in ("CQ · Prec.", "CQ · Rec.", "CO · CD", "TQ · R-L", "TQ · BS"):
        assert CI_CELL.fullmatch(alpha[label]), (label, alpha[label])
    assert alpha["TQ · LLM"] == "\u2013" and "LLM" in note and "not run on this board" in note
    assert [r["System"] for r in _leaderboard(client, "rwgbench", "recall", search="alpha")[0]] == ["Alpha <i>RAG</i>"]
    filtered, *_ = client.predict("", ["llama-3-8b"], [], [], "precision", "worst first", [],
                                  api_name="/leaderboard_rwgbench")
    assert [r["System"] for r in _table(filtered)] == ["Beta"]
    sciig_table, _ = _leaderboard(client, "sciig", "rougeL")
    assert [r["System"] for r in sciig_table] == ["Gamma"]
    rouge = next(v for k, v in sciig_table[0].items() if k.endswith("ROUGE-L"))
    assert rouge.startswith("1.000 [1.000, 1.000]")  # each paper's own introduction

    bars, chart = client.predict("rwgbench", "CQ", "recall", [], api_name="/plots")
    assert bars["type"] == chart["type"] == "matplotlib" and bars["plot"] and chart["plot"]
    bars, chart = client.predict("rwgbench", "CQ", "recall", ["lite \u00b7 no judge"], api_name="/plots")
    assert bars["plot"] and chart["plot"]
    bars, chart = client.predict("sciig", "Lexical", "rougeL", [], api_name="/plots")
    assert bars["plot"] and chart["plot"]
    with pytest.raises(AppError, match="SciIG has no category 'CQ'"):
        client.predict("sciig", "CQ", "rougeL", [], api_name="/plots")

    provenance = client.predict(first, api_name="/provenance")
    assert provenance.startswith(f"Alpha <i>RAG</i> (submission {first})\n")
    assert provenance.split("\n")[1] == "Trust card"  # the row's trust card, then the provenance block
    block = json.loads(provenance[provenance.index("\n{") + 1:])
    assert block["scored under"] == "lite \u00b7 no judge" and block["schema_version"] == 2
    assert block["provenance"]["profile"] == "lite" and block["provenance"]["judge"] is None
    assert block["provenance"]["dataset"]["config"] == "sample"
    assert "no submission" in client.predict("0" * 32, api_name="/provenance")

    compared, message = client.predict(first, second, api_name="/compare")
    assert message == ""
    by_metric = {r["Metric"]: r for r in _table(compared)}
    assert by_metric["CQ · Rec."]["Papers"] == 2
    assert float(by_metric["CQ · Rec."]["B \u2212 A"]) > 0
    assert re.fullmatch(r"\[-?\d\.\d{3}, -?\d\.\d{3}\]", by_metric["CQ · Rec."]["95% CI"])
    _, message = client.predict(first, intro, api_name="/compare")
    assert "same benchmark and split" in message
    _, message = client.predict(first, "0" * 32, api_name="/compare")
    assert "no submission" in message

    paper = json.loads(rwgbench_lines(mini_sample_folder, 0)[0])
    generated, reference, citations, extra, trace, notes = client.predict("rwgbench", first, paper["paper_id"],
                                                                          api_name="/paper")
    assert generated == paper["text"] and len(reference) > 100
    cited = _table(citations)
    assert [c["Marker"] for c in cited] == ["[1]", "[2]"]
    assert cited[0]["doc_id"] == paper["candidates"][0] and cited[0]["In gold set"] == "yes" and cited[0]["Cited title"]
    assert "Gold papers" in extra["label"]
    assert trace["visible"] is False and trace["value"]["data"] == []  # not an agent: no trace, the table hidden
    *_, notes = client.predict("rwgbench", first, "no-such-paper", api_name="/paper")
    assert "no-such-paper" in notes


def test_refused_files_record_nothing(launch_board, cheap_evaluator, tmp_path, mini_sample_folder):
    served = launch_board(cheap_evaluator)
    client = _client(served)
    good = rwgbench_lines(mini_sample_folder)
    first_id = json.loads(good[0])["paper_id"]
    bad = [good[0], "{not json", json.dumps({"paper_id": "nope", "text": "x", "candidates": []}),
           json.dumps({"paper_id": first_id, "text": "again", "candidates": []})]
    message = _submit(client, _write(tmp_path, "bad.jsonl", bad), "Bad")
    assert message.startswith("Not accepted:\n"), message
    problems = message.splitlines()[1:]
    assert any(p.startswith("- line 2: ") for p in problems), problems
    assert any("line 3: paper_id 'nope' is not in the rwgbench split" in p for p in problems), problems
    assert any(f"line 4: paper_id {first_id!r} already on line 1" in p for p in problems), problems
    assert any("papers: 1 of the split's 2 papers have no prediction" in p for p in problems), problems
    message = _submit(client, _write(tmp_path, "form.jsonl", good), " ", url="ftp://example.org", weights="open")
    assert "- system: required" in message and "- url: only http:// or https://" in message
    assert served.store.submissions() == [] and _table(client.predict(api_name="/submissions")) == []

    path = _write(tmp_path, "good.jsonl", good)
    sid = _accepted_id(_submit(client, path, "Original"))
    again = _submit(client, path, "Copy", submitter="someone else")
    assert again.startswith("Not accepted:") and "already submitted as 'Original'" in again and sid in again
    assert [s.id for s in served.store.submissions()] == [sid]
    assert served.wait_final(sid).status == FINISHED


def _raw_call(url: str, api_name: str, data: list) -> tuple[str, dict]:
    """(event, payload) of one call to the app's HTTP API as any client (curl, another language) makes it."""
    import urllib.request

    request = urllib.request.Request(f"{url.rstrip('/')}/gradio_api/call/{api_name}",
                                     data=json.dumps({"data": data}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        event_id = json.loads(reply.read())["event_id"]
    with urllib.request.urlopen(f"{url.rstrip('/')}/gradio_api/call/{api_name}/{event_id}", timeout=30) as reply:
        lines = reply.read().decode().splitlines()
    event = next(line.removeprefix("event: ") for line in lines if line.startswith("event: "))
    payload = next(line.removeprefix("data: ") for line in lines if line.startswith("data: "))
    return event, json.loads(payload)


def test_every_refused_api_call_gets_a_reason(launch_board, cheap_evaluator):
    """A file field Gradio itself refuses (a path on the server, a value that is not a file) is refused before the
    app sees it; the API client still gets the reason, never {"error": null}, and nothing is recorded."""
    served = launch_board(cheap_evaluator)
    form = ["", "System", "", "", "", None, "", "ann", None]  # a raw HTTP call gives every field: no usage ledger
    server_file = {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}}
    for file_field, reason in [(server_file, "not uploaded by a user"), ("not-a-file", "FileData")]:
        event, payload = _raw_call(served.url, "submit", ["rwgbench", file_field, *form])
        assert event == "error" and payload.get("error"), payload
        assert reason in payload["error"], payload
    assert served.store.submissions() == []


def test_a_failing_evaluation_shows_failed_with_its_reason(launch_board, tmp_path, mini_sample_folder):
    def broken(submission, predictions):
        raise RuntimeError(f"the scorer crashed on {len(predictions.splitlines())} predictions")

    served = launch_board(broken)
    client = _client(served)
    sid = _accepted_id(_submit(client, _write(tmp_path, "a.jsonl", rwgbench_lines(mini_sample_folder)), "Doomed"))
    row = _poll_final(client, sid)
    assert row["Status"] == FAILED and row["System"] == "Doomed"
    assert row["Reason"] == "RuntimeError: the scorer crashed on 2 predictions"
    assert row["Finished (UTC)"] and row["Attempts"] == 1
    assert _leaderboard(client, "rwgbench", "precision")[0] == []  # a failed run is never ranked


def test_twenty_concurrent_submitters(launch_board, cheap_evaluator, tmp_path, mini_sample_folder):
    """Twenty clients submit distinct files at the same moment: every one is accepted, stored once and scored."""
    n = 20
    served = launch_board(cheap_evaluator, rate_limit=n)
    paths = [_write(tmp_path, f"run-{i}.jsonl", rwgbench_lines(mini_sample_folder, i)) for i in range(n)]
    start = threading.Barrier(n)

    def one(i: int) -> str:
        client = _client(served)  # each submitter has its own client (and session)
        start.wait()
        return _submit(client, paths[i], f"Load {i}", submitter="load tester")

    with ThreadPoolExecutor(n) as pool:
        messages = list(pool.map(one, range(n)))
    ids = [_accepted_id(m) for m in messages]
    assert len(set(ids)) == n
    stored = {s.id: s for s in served.store.submissions()}
    assert set(stored) == set(ids)
    assert sorted(s.system for s in stored.values()) == sorted(f"Load {i}" for i in range(n))
    final = {sid: served.wait_final(sid) for sid in ids}
    assert all(s.status == FINISHED for s in final.values()), [(s.system, s.status, s.error) for s in final.values()]

    client = _client(served)
    assert {sid: row["Status"] for sid, row in _listing(client).items()} == {sid: FINISHED for sid in ids}
    table, _ = _leaderboard(client, "rwgbench", "precision")
    assert sorted(r["System"] for r in table) == sorted(f"Load {i}" for i in range(n))
    over = _submit(client, _write(tmp_path, "one-more.jsonl", rwgbench_lines(mini_sample_folder, n)), "One more",
                   submitter="load tester")
    assert over.startswith("Not accepted:") and "the limit is 20" in over


def test_launch_returns_the_app_and_the_worker_it_configured(tmp_path, monkeypatch, cheap_evaluator):
    """`launch` hands back what it started, with the worker settings it was given, and `close` stops both."""
    from sciwrite.leaderboard.app import launch
    from sciwrite.leaderboard.service import Leaderboard
    from sciwrite.leaderboard.store import ResultsStore

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    board = Leaderboard(ResultsStore(tmp_path / "board.sqlite"))
    served = launch(board, evaluator=cheap_evaluator, poll_s=0.1, heartbeat_s=0.25, stale_after_s=5,
                    prevent_thread_lock=True, quiet=True)
    try:
        assert served.url.startswith("http://127.0.0.1:")
        assert (served.worker.heartbeat_s, served.worker.stale_after_s) == (0.25, 5)
        assert served.worker._thread.is_alive()
        assert Client(served.url, verbose=False).predict(api_name="/submissions") is not None
    finally:
        served.close(timeout=None)
    assert not served.worker._thread.is_alive()
    alone = launch(Leaderboard(ResultsStore(tmp_path / "other.sqlite")), worker=False, prevent_thread_lock=True,
                   quiet=True)
    alone.close()
    assert alone.worker is None


def test_a_board_with_the_hub_login_shows_the_login_button_and_hides_the_typed_name(tmp_path, monkeypatch):
    from sciwrite.leaderboard.app import build_app
    from sciwrite.leaderboard.service import BoardSettings, Leaderboard, space_has_login
    from sciwrite.leaderboard.store import ResultsStore

    def submitter_box(app):
        return next(b for b in app.blocks.values() if getattr(b, "elem_id", None) == "submit-submitter")

    local = build_app(Leaderboard(ResultsStore(tmp_path / "a.sqlite")))
    assert not local.expects_oauth and submitter_box(local).visible
    assert not space_has_login()
    # What a Space with `hf_oauth: true` sets (gradio reads it when imported, so its copies are set too).
    import gradio.oauth

    space_env = {"SPACE_ID": "org/board", "OAUTH_CLIENT_ID": "id", "OAUTH_CLIENT_SECRET": "secret",
                 "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "https://huggingface.co"}
    for name, value in space_env.items():
        monkeypatch.setenv(name, value)
        if hasattr(gradio.oauth, name):
            monkeypatch.setattr(gradio.oauth, name, value)
    monkeypatch.setattr(gradio.oauth, "get_space", lambda: "org/board")  # gradio's test of SYSTEM=spaces
    assert space_has_login()
    space = build_app(Leaderboard(ResultsStore(tmp_path / "b.sqlite"), BoardSettings(hub_login=True)))
    assert space.expects_oauth and not submitter_box(space).visible
