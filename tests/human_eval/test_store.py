"""The answer store: tokens stored hashed, every answer written at once, idempotent, kept across a reopening (a
restart) and a killed process, two annotators writing at once, bad answers refused; and the CLI's annotators and
export."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading

import pytest

from sciwrite.cli import main
from sciwrite.human_eval.store import AnswerStore, token_digest

TASKS = [f"t{i}" for i in range(4)]
DIMENSIONS = ["writing_quality", "scholarly_positioning"]


def store_at(path):
    return AnswerStore(path, "pairwise", TASKS, DIMENSIONS)


def test_tokens_are_hashed_and_sign_in(tmp_path):
    store = store_at(tmp_path / "answers.sqlite")
    token = store.add_annotator("ada")
    assert store.annotator(token) == "ada" and store.annotator("wrong") is None
    assert store.annotator(f"  {token}\n") == "ada"  # pasted with whitespace
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in raw and token_digest(token).encode() in raw
    with pytest.raises(ValueError, match="exists already"):
        store.add_annotator("ada")


def test_answers_are_idempotent_replaced_and_kept_across_a_restart(tmp_path):
    path = tmp_path / "answers.sqlite"
    store = store_at(path)
    store.add_annotator("ada")
    store.record("ada", "t0", "writing_quality", choice="A", now=1.0)
    store.record("ada", "t0", "writing_quality", choice="A", now=2.0)  # a double click: nothing changes
    store.record("ada", "t0", "scholarly_positioning", choice="tie", now=3.0)
    store.record("ada", "t1", "writing_quality", choice="B", now=4.0)
    store.record("ada", "t1", "writing_quality", choice="A", now=5.0)  # changed her mind: replaced
    again = store_at(path)  # a restarted server
    answers = again.answers("ada")
    assert [(a["task_id"], a["dimension"], a["choice"]) for a in answers] == [
        ("t0", "writing_quality", "A"), ("t0", "scholarly_positioning", "tie"), ("t1", "writing_quality", "A")]
    assert (answers[0]["answered_at"], answers[0]["changed_at"]) == (1.0, 1.0)
    assert (answers[2]["answered_at"], answers[2]["changed_at"]) == (4.0, 5.0)
    assert again.done_tasks("ada") == {"t0"}  # t1 lacks a dimension
    for bad, message in ((dict(choice="C"), "must be one of"), (dict(choice=None), "must be one of")):
        with pytest.raises(ValueError, match=message):
            again.record("ada", "t2", "writing_quality", **bad)
    with pytest.raises(ValueError, match="unknown task_id 'nope'"):
        again.record("ada", "nope", "writing_quality", choice="A")
    with pytest.raises(ValueError, match="unknown annotator 'bob'"):
        again.record("bob", "t2", "writing_quality", choice="A")
    ratings = AnswerStore(tmp_path / "ratings.sqlite", "rating", TASKS, ["faithfulness"])
    ratings.add_annotator("ada")
    with pytest.raises(ValueError, match="from 1 to 5, got 6"):
        ratings.record("ada", "t0", "faithfulness", rating=6)
    ratings.record("ada", "t0", "faithfulness", rating=4, comment="<script>x</script>")
    assert ratings.answers()[0]["comment"] == "<script>x</script>"  # text, kept as given


def _answer_then_die(path, name):
    store = store_at(path)
    store.record(name, "t3", "writing_quality", choice="B")
    os._exit(1)  # no clean shutdown: the answer must already be on disk


def test_an_answer_survives_a_killed_process_and_two_annotators_write_at_once(tmp_path):
    path = tmp_path / "answers.sqlite"
    store = store_at(path)
    for name in ("ada", "bob"):
        store.add_annotator(name)
    process = multiprocessing.get_context("spawn").Process(target=_answer_then_die, args=(path, "ada"))
    process.start()
    process.join(60)
    assert process.exitcode == 1 and [a["task_id"] for a in store_at(path).answers("ada")] == ["t3"]

    def answer_all(name):
        mine = store_at(path)
        for task in TASKS:
            for dimension in DIMENSIONS:
                mine.record(name, task, dimension, choice="A" if name == "ada" else "B")

    threads = [threading.Thread(target=answer_all, args=(name,)) for name in ("ada", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = store_at(path)
    assert final.done_tasks("ada") == final.done_tasks("bob") == set(TASKS)
    assert len(final.answers()) == 2 * len(TASKS) * len(DIMENSIONS)


def test_the_cli_adds_annotators_and_exports(tmp_path, capsys):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "tasks.jsonl").write_text("".join(json.dumps({"task_id": t, "paper_id": "p"}) + "\n" for t in TASKS))
    (folder / "key.jsonl").write_text("")
    (folder / "study.json").write_text(json.dumps({"benchmark": "rwgbench", "design": "pairwise",
                                                   "dimensions": [{"key": d} for d in DIMENSIONS]}))
    db = tmp_path / "answers.sqlite"
    assert main(["human-eval", "annotators", "add", "ada", "--tasks", str(folder), "--store", str(db)]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    store = store_at(db)
    assert store.annotator(token) == "ada"
    store.record("ada", "t0", "writing_quality", choice="tie")
    votes = tmp_path / "votes.jsonl"
    assert main(["human-eval", "export", "--tasks", str(folder), "--store", str(db), "--out", str(votes)]) == 0
    exported = [json.loads(line) for line in votes.read_text().splitlines()]
    assert [(a["task_id"], a["annotator"], a["choice"]) for a in exported] == [("t0", "ada", "tie")]
    assert main(["human-eval", "annotators", "list", "--tasks", str(folder), "--store", str(db)]) == 0
    assert "ada" in capsys.readouterr().out
    # a person may not take a model's name: the agreement report would count them as a model
    assert main(["human-eval", "annotators", "add", "llm:gpt", "--tasks", str(folder), "--store", str(db)]) == 2
    assert "'llm:' are models'" in capsys.readouterr().err
    assert "llm:gpt" not in store.annotators()


def test_export_pushes_the_answers_with_a_card(tmp_path, monkeypatch, capsys):
    """The push, with the Hub calls replaced (no network)."""
    import datasets
    import huggingface_hub

    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "tasks.jsonl").write_text("".join(json.dumps({"task_id": t, "paper_id": "p"}) + "\n" for t in TASKS))
    (folder / "study.json").write_text(json.dumps({"benchmark": "rwgbench", "design": "pairwise", "seed": 0,
                                                   "attribution": "RWGBench §5.6",
                                                   "dimensions": [{"key": d, "name": d, "question": f"{d}?"}
                                                                  for d in DIMENSIONS]}))
    db = tmp_path / "answers.sqlite"
    store = store_at(db)
    store.add_annotator("ada")
    store.record("ada", "t0", "writing_quality", choice="A")
    calls = {}
    monkeypatch.setattr(datasets.Dataset, "push_to_hub",
                        lambda self, repo_id, **kw: calls.setdefault("dataset", (repo_id, self.to_list(), kw)))
    monkeypatch.setattr(huggingface_hub.DatasetCard, "push_to_hub",
                        lambda self, repo_id, **kw: calls.setdefault("card", (repo_id, self.content)))
    assert main(["human-eval", "export", "--tasks", str(folder), "--store", str(db), "--out",
                 str(tmp_path / "votes.jsonl"), "--push-to-hub", "me/study", "--hub-config", "round1"]) == 0
    assert "pushed them to https://huggingface.co/datasets/me/study as config 'round1'" in capsys.readouterr().out
    repo, rows, options = calls["dataset"]
    assert repo == "me/study" and options["config_name"] == "round1" and rows[0]["choice"] == "A"
    assert "| `writing_quality` | writing_quality | writing_quality? |" in calls["card"][1]
    assert "1 answers from 1 annotator(s)" in calls["card"][1] and "human-evaluation" in calls["card"][1]
