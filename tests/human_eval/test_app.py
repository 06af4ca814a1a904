"""The annotation app's session (seeded orders, resuming, the stored answers shown again) and its place in the
leaderboard: a tab behind a setting."""

from __future__ import annotations

import json

from sciwrite.human_eval.app import AnnotationSession, build_annotation_app, folder_session, task_order
from sciwrite.human_eval.store import AnswerStore
from sciwrite.leaderboard.app import build_app
from sciwrite.leaderboard.service import BoardSettings, Leaderboard
from sciwrite.leaderboard.store import ResultsStore

TASKS = [{"task_id": f"t{i}", "paper_id": f"p{i}", "title": f"T{i}", "abstract": "A.", "text": f"intro {i}"}
         for i in range(5)]
STUDY = {"benchmark": "sciig", "design": "rating", "seed": 3, "text_label": "introduction",
         "dimensions": [{"key": "faithfulness", "name": "Faithfulness", "question": "Q?"},
                        {"key": "coverage", "name": "Coverage", "question": "Q2?"}]}


def session_at(tmp_path):
    store = AnswerStore(tmp_path / "a.sqlite", "rating", [t["task_id"] for t in TASKS], ["faithfulness", "coverage"])
    return AnnotationSession(TASKS, STUDY, store), store


def test_orders_are_seeded_per_annotator_and_sessions_resume(tmp_path):
    session, store = session_at(tmp_path)
    ids = [t["task_id"] for t in TASKS]
    assert task_order(ids, 3, "ada") == task_order(ids, 3, "ada") != task_order(ids, 3, "bob")
    assert sorted(task_order(ids, 3, "ada")) == ids
    store.add_annotator("ada")
    first = session.order("ada")[0]
    store.record("ada", first, "faithfulness", rating=4, comment="fine")
    assert session.first_open("ada") == 0  # one criterion of two: not finished
    store.record("ada", first, "coverage", rating=2)
    assert session.first_open("ada") == 1
    view = session.view("ada", 0)
    assert view[0] == "ada: 1/5 tasks answered on every question; this is task 1 of 5"
    assert view[3] == next(t["text"] for t in TASKS if t["task_id"] == first)
    assert view[4:] == ["4", "fine", "2", ""]  # each criterion's stars and comment, as given


def test_the_leaderboard_gets_a_human_evaluation_tab_behind_a_setting(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    (folder / "study.json").write_text(json.dumps(STUDY))  # no key.jsonl: the server never needs it

    def element_ids(app):
        return {getattr(block, "elem_id", None) for block in app.blocks.values()}

    assert "he-token" in element_ids(build_annotation_app(folder_session(folder, tmp_path / "a.sqlite")))
    plain = build_app(Leaderboard(ResultsStore(tmp_path / "lb.sqlite")))
    assert "he-token" not in element_ids(plain)
    with_study = build_app(Leaderboard(ResultsStore(tmp_path / "lb2.sqlite"), BoardSettings(
        human_eval_tasks=str(folder), human_eval_store=str(tmp_path / "answers.sqlite"))))
    assert {"he-token", "he-faithfulness", "he-coverage-comment"} <= element_ids(with_study)
