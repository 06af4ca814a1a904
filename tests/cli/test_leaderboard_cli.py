"""`sciwrite leaderboard import|worker` and the command the quick start prints."""

from __future__ import annotations

import json

from sciwrite.cli import main
from sciwrite.leaderboard.runs import import_evaluation, serve_command
from sciwrite.leaderboard.store import FINISHED, PENDING, ResultsStore, default_store_path


def _evaluation(tmp_path, name="rag-bm25"):
    """An evaluation folder as `sciwrite evaluate rwgbench` writes it, with its predictions file."""
    predictions = tmp_path / f"{name}.jsonl"
    predictions.write_text("\n".join(json.dumps({"paper_id": p, "pred": "See [1].", "candidates": ["d1"],
                                                 "model": "gpt-4o", "method": "rag", "retriever": "bm25",
                                                 "oracle": False}) for p in ("p1", "p2")), encoding="utf-8")
    folder = tmp_path / "eval" / name
    folder.mkdir(parents=True)
    summary = {"system": name, "split": "sample", "predictions": str(predictions), "precision": 0.5,
               "n_papers": 2, "profile": "lite", "intervals": {"precision": [0.0, 1.0]}}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (folder / "per_paper.jsonl").write_text("\n".join(json.dumps({"system": name, "paper_id": p, "precision": v})
                                                      for p, v in (("p1", 0.0), ("p2", 1.0))), encoding="utf-8")
    return folder


def test_import_puts_a_scored_run_on_the_board_once(tmp_path, capsys):
    folder = _evaluation(tmp_path)
    store = tmp_path / "lb.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench", str(folder)]) == 0
    assert "added: rwgbench rag-bm25" in capsys.readouterr().out
    (submission, summary), = ResultsStore(store).finished("rwgbench", "sample")
    assert (submission.model, submission.method, submission.retriever, submission.status) == (
        "gpt-4o", "rag", "bm25", FINISHED)
    assert summary.value("precision") == 0.5 and submission.profile == "lite" and submission.n_predictions == 2
    assert [row.to_json() for row in ResultsStore(store).paper_rows(submission.id)] == [
        {"paper_id": "p1", "precision": 0.0}, {"paper_id": "p2", "precision": 1.0}]
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench", str(folder)]) == 0
    assert "already there: rwgbench rag-bm25" in capsys.readouterr().out
    assert main(["leaderboard", "import", "--store", str(store)]) == 2


def test_an_oracle_run_is_shown_with_the_oracle_retriever(tmp_path):
    folder = _evaluation(tmp_path, "oracle")
    path = folder.parent.parent / "oracle.jsonl"
    path.write_text(json.dumps({"paper_id": "p1", "pred": "x", "candidates": [], "model": "extractive",
                                "method": "rag", "oracle": True}), encoding="utf-8")
    submission, added = import_evaluation(ResultsStore(tmp_path / "lb.sqlite"), "rwgbench", folder)
    assert added and submission.retriever == "oracle" and submission.weights == "open"
    # the digest is the upload check's: the same predictions uploaded are seen as a copy of the imported run
    from sciwrite.leaderboard.submission import content_digest

    assert submission.sha256 == content_digest([{"paper_id": "p1", "text": "x", "candidates": []}], candidates=True)


def test_worker_once_scores_the_queue(mini_sample_folder, tmp_path, capsys):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    store = ResultsStore(tmp_path / "lb.sqlite")
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    text = "\n".join(json.dumps({"paper_id": p["paper_id"], "text": "As [1] shows.", "candidates": p["citations"]})
                     for p in papers)
    queued = store.add_submission(benchmark="rwgbench", split="sample", system="mine", submitter="ann",
                                  predictions_jsonl=text, sha256="x", n_predictions=len(papers))
    assert queued.status == PENDING
    argv = ["leaderboard", "worker", "--store", str(store.path), "--once", "--profile", "lite",
            "--source", f"rwgbench={mini_sample_folder}"]
    assert main(argv) == 0
    assert "scored 1 submission(s)" in capsys.readouterr().out
    done = store.get(queued.id)
    assert done.status == FINISHED and done.profile == "lite"
    assert store.summary(queued.id).value("precision") == 1.0  # every candidate is a gold citation


def test_serve_command_leaves_defaults_out(tmp_path):
    assert serve_command(default_store_path()).endswith("leaderboard serve")
    line = serve_command(tmp_path / "my store.sqlite", {"rwgbench": "/data/rwg", "sciig": None})
    assert line.endswith(f"leaderboard serve --store '{tmp_path / 'my store.sqlite'}' --source rwgbench=/data/rwg")
