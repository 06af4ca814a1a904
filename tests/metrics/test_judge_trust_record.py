"""What ``sciwrite evaluate`` records for a row's trust card: every panel judge's snapshots (the reply's ``model``,
over real HTTP to the fake OpenAI server, one judge answering from two snapshots) and, with ``--judge-check DIR``,
the judge check of the run's judge (a check of another judge or benchmark is refused in one line)."""

from __future__ import annotations

import json

import pytest

from sciwrite.core.results import load_summary
from sciwrite.core.summary import JudgeRecord
from sciwrite.core.trust import FAILED_MARK
from sciwrite.leaderboard.tables import judge_text
from sciwrite.meta_eval.judge_check_file import read_judge_check
from tests.fakes.openai_server import ChatServer, Reply, like_real_endpoints
from tests.metrics.test_judge_panel import evaluate, predictions

#: judge-b's reply names a different snapshot for each paper; judge-a's the fake's dated one.
SNAPSHOT_B = {"PAPER-ONE": "judge-b-2026-01-01", "PAPER-TWO": "judge-b-2026-05-05"}


def answer(body):
    text = body["messages"][-1]["content"]
    paper = "PAPER-ONE" if "PAPER-ONE" in text else "PAPER-TWO"
    content = '{"score": 4, "rationale": "ok"}'
    return Reply(content, model=SNAPSHOT_B[paper]) if body["model"] == "judge-b" else content


def check_folder(tmp_path, judge="judge-a", benchmark="rwgbench", verdict="passes"):
    """A folder as `sciwrite meta-eval judge-check --out` writes it (its summary.json's layout)."""
    folder = tmp_path / f"check-{judge}-{benchmark}-{verdict}"
    folder.mkdir()
    rows = [{"criterion": "overall", "kind": kind, "in_rubric": True, "n_pairs": 20, "n_judged": 20, "passed": 18,
             "ties": 1, "unjudged": 0, "pass_rate": 0.9, "ci_low": 0.699, "ci_high": 0.972, "above_chance": True}
            for kind in ("shuffled", "all", "in rubric")]
    (folder / "summary.json").write_text(json.dumps({
        "benchmark": benchmark, "judge": judge, "n_papers": 10, "n_pairs": 20, "pair_set_digest": "abc123",
        "kinds": ["shuffled"], "confidence": 0.95, "verdict": verdict, "below_chance": [], "outside_rubric": {},
        "card": "card.md", "rows": rows, "date": "2026-05-01"}))
    return folder


def test_a_two_judge_panel_records_every_judges_snapshots(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    with ChatServer(like_real_endpoints(answer)) as server:
        out = evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge",
                       "judge-a", "--judge", "judge-b", "--judge-base-url", server.base_url)
    record = json.loads((out / "sys" / "summary.json").read_text())["provenance"]["judge"]
    # each paper answered once by each judge: judge-a from one snapshot, judge-b from one per paper
    assert record["snapshots_by_judge"] == {"judge-a": {"judge-a-2026-04-23": 2},
                                            "judge-b": {"judge-b-2026-01-01": 1, "judge-b-2026-05-05": 1}}
    assert record["snapshots"] == {"judge-a-2026-04-23": 2}  # the first judge's, as before
    rows = [json.loads(line) for line in (out / "sys" / "per_paper.jsonl").read_text().splitlines()]
    assert [row["judge_panel_snapshots"]["judge-b"] for row in rows] == [["judge-b-2026-01-01"],
                                                                          ["judge-b-2026-05-05"]]
    assert "check" not in record


def test_an_older_record_reads_without_every_judges_snapshots():
    older = {"model": "panel(a + b)", "snapshots": {"a-1": 2}, "system_fingerprints": {}, "panel_complete": True}
    record = JudgeRecord.from_json(older)
    assert record.snapshots_by_judge == {} and record.check is None
    assert record.to_json() == older  # written back unchanged


def test_evaluate_records_a_matching_judge_check(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    folder = check_folder(tmp_path, verdict="fails")
    with ChatServer(like_real_endpoints(answer)) as server:
        out = evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge",
                       "judge-a", "--judge-base-url", server.base_url, "--judge-check", str(folder))
    check = json.loads((out / "sys" / "summary.json").read_text())["provenance"]["judge"]["check"]
    assert check == {"judge": "judge-a", "benchmark": "rwgbench", "verdict": "fails", "pass_rate": 0.9,
                     "interval": [0.699, 0.972], "confidence": 0.95, "kinds": ["shuffled"], "n_pairs": 20,
                     "pair_set_digest": "abc123", "date": "2026-05-01", "source": str(folder)}
    summary = load_summary(out / "sys")
    assert judge_text(summary).endswith(FAILED_MARK)


@pytest.mark.parametrize(("judge", "benchmark", "says"), [
    ("judge-z", "rwgbench", "the check is of judge 'judge-z', this run's judge is 'judge-a'"),
    ("judge-a", "surge", "the check is of benchmark 'surge', this run scores 'rwgbench'"),
])
def test_evaluate_refuses_a_check_of_another_judge_or_benchmark(mini_sample_folder, tmp_path, capsys, judge,
                                                                 benchmark, says):
    folder = check_folder(tmp_path, judge, benchmark)
    evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge", "judge-a",
             "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-check", str(folder), status=2)
    err = capsys.readouterr().err.strip().splitlines()
    assert err and says in err[-1] and "Traceback" not in "\n".join(err)
    assert not (tmp_path / "out" / "sys").exists()  # refused before anything was scored


def test_a_check_folder_without_the_in_rubric_row_is_one_line(tmp_path):
    folder = check_folder(tmp_path)
    data = json.loads((folder / "summary.json").read_text())
    (folder / "summary.json").write_text(json.dumps({**data, "rows": data["rows"][:1]}))
    with pytest.raises(ValueError, match="field 'rows' has no 'in rubric' row"):
        read_judge_check(folder)
