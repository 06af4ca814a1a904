"""`sciwrite human-eval tasks` and `analyze`, and `sciwrite paper-table rwgbench-table5|sciig-table5`, end to end on
the offline mini samples."""

from __future__ import annotations

import json
import sqlite3

from sciwrite.cli import main
from sciwrite.human_eval.store import study_store
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.sciig.data.loading import load_sciig


def write_predictions(tmp_path, papers, systems):
    paths = []
    for system in systems:
        paths.append(tmp_path / f"{system}.jsonl")
        paths[-1].write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": f"<script>{system}</script> on "
                                                 f"{p['paper_id']}", "candidates": []}) + "\n" for p in papers))
    return paths


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_rwgbench_study_from_tasks_to_table5(mini_sample_folder, tmp_path, capsys):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    paths = write_predictions(tmp_path, papers, ["good", "weak"])
    tasks_dir = tmp_path / "study"
    assert main(["human-eval", "tasks", "--benchmark", "rwgbench", "--predictions", *map(str, paths), "--papers",
                 str(len(papers)), "--seed", "3", "--source", str(mini_sample_folder), "--out", str(tasks_dir)]) == 0
    assert f"{2 * len(papers)} pairwise tasks" in capsys.readouterr().out
    tasks, key = lines(tasks_dir / "tasks.jsonl"), lines(tasks_dir / "key.jsonl")
    assert "good" not in json.dumps([{k: v for k, v in t.items() if not k.startswith("section")} for t in tasks])
    assert tasks[0]["title"] in {p["title"] for p in papers}
    study = json.loads((tasks_dir / "study.json").read_text())
    assert study["design"] == "pairwise" and [d["key"] for d in study["dimensions"]][1] == "scholarly_positioning"
    # three annotators prefer "good" on scholarly positioning in every task, whichever side it is shown on
    votes = tmp_path / "votes.jsonl"
    votes.write_text("".join(json.dumps({"task_id": k["task_id"], "annotator": f"a{i}",
                                         "dimension": "scholarly_positioning",
                                         "choice": "A" if k["system_a"] == "good" else "B"}) + "\n"
                             for k in key for i in range(3)))
    for system, pss in (("good", 0.6), ("weak", 0.2)):
        folder = tmp_path / "evals" / system
        folder.mkdir(parents=True)
        (folder / "summary.json").write_text(json.dumps({"system": system, "run": {"method": "rag"}}))
        (folder / "per_paper.jsonl").write_text("".join(json.dumps({
            "paper_id": p["paper_id"], "positioning_structure_similarity": pss}) + "\n" for p in papers))
    out = tmp_path / "analysis"
    assert main(["human-eval", "analyze", "--benchmark", "rwgbench", "--tasks", str(tasks_dir), "--ratings", str(votes),
                 "--evals", str(tmp_path / "evals" / "good"), str(tmp_path / "evals" / "weak"),
                 "--align", "scholarly_positioning=pss", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    n = len(papers)
    assert "Table 5. Human consistency and metric-human alignment" in printed
    assert "non-direct clear-margin" in printed and f"{n}/{n}; 100.0%" in printed
    assert f"{6 * n} answers to {2 * n} of {2 * n} tasks from 3 annotator(s)" in printed
    assert "Clear-margin: the metric's |difference|" in printed  # the choices, under the table
    data = json.loads((out / "table5.json").read_text())
    row = next(r for r in data["rows"] if r["protocol"] == "non-direct high-consensus")
    assert (row["target"], row["signal"], row["agree"], row["n"], row["share"]) == (
        "Scholarly positioning", "PSS", n, n, 1.0)
    assert (out / "table5.csv").read_text().splitlines()[0].startswith("target,signal,protocol,agree,n,share")
    assert main(["paper-table", "rwgbench-table5", "--analysis", str(out)]) == 0
    assert f"{n}/{n}; 100.0%" in capsys.readouterr().out
    # a second draw into the same folder would orphan the answers: refused
    assert main(["human-eval", "tasks", "--benchmark", "rwgbench", "--predictions", *map(str, paths), "--papers", "1",
                 "--source", str(mini_sample_folder), "--out", str(tasks_dir)]) == 2
    assert "answers may refer to its tasks" in capsys.readouterr().err
    assert main(["paper-table", "sciig-table5", "--analysis", str(out)]) == 2
    assert "not 'sciig'" in capsys.readouterr().err


def test_sciig_study_from_tasks_to_table5(sciig_mini_folder, tmp_path, capsys):
    papers = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    paths = write_predictions(tmp_path, papers, ["zero", "three"])
    tasks_dir = tmp_path / "study"
    assert main(["human-eval", "tasks", "--benchmark", "sciig", "--predictions", *map(str, paths), "--papers", "2",
                 "--source", str(sciig_mini_folder), "--out", str(tasks_dir)]) == 0
    key = lines(tasks_dir / "key.jsonl")
    assert len(key) == 4 and {k["system"] for k in key} == {"zero", "three"}
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text("".join(json.dumps({"task_id": k["task_id"], "annotator": "a", "dimension": "faithfulness",
                                           "rating": 5 if k["system"] == "three" else 3, "comment": ""}) + "\n"
                               for k in key))
    out = tmp_path / "analysis"
    assert main(["human-eval", "analyze", "--benchmark", "sciig", "--tasks", str(tasks_dir), "--ratings",
                 str(ratings), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Table 5: Human evaluation" in printed and "5.00 (n=2)" in printed and "3.00 (n=2)" in printed
    assert main(["paper-table", "sciig-table5", "--analysis", str(out)]) == 0
    assert "Hallucination Resistance" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": key[0]["task_id"], "annotator": "a", "dimension": "faithfulness",
                               "rating": 6}) + "\n")
    assert main(["human-eval", "analyze", "--benchmark", "sciig", "--tasks", str(tasks_dir), "--ratings",
                 str(bad)]) == 2
    assert f"{bad}:1: field 'rating' must be a whole number from 1 to 5, got 6" in capsys.readouterr().err


def draw(benchmark, folder, papers, tmp_path, out):
    paths = write_predictions(tmp_path, papers, [f"{benchmark}_x", f"{benchmark}_y"])
    assert main(["human-eval", "tasks", "--benchmark", benchmark, "--predictions", *map(str, paths), "--papers", "2",
                 "--source", str(folder), "--out", str(out)]) == 0
    return lines(out / "tasks.jsonl")


def test_export_against_another_study_is_refused_naming_both(mini_sample_folder, sciig_mini_folder, tmp_path, capsys):
    """Issue 37: a SciIG ratings store exported with an RWGBench task folder wrote `"choice": null`, exit 0."""
    sciig_tasks = draw("sciig", sciig_mini_folder, load_sciig("sample", source=sciig_mini_folder, split="test"),
                       tmp_path, tmp_path / "sciig_study")
    draw("rwgbench", mini_sample_folder, load_rwgbench("sample", source=mini_sample_folder), tmp_path,
         tmp_path / "rwg_study")
    store_path = tmp_path / "ratings.sqlite"
    store = study_store(store_path, json.loads((tmp_path / "sciig_study" / "study.json").read_text()), sciig_tasks)
    store.add_annotator("ann")
    store.record("ann", sciig_tasks[0]["task_id"], "faithfulness", rating=4, comment="fine")
    votes = tmp_path / "votes.jsonl"
    export = ["human-eval", "export", "--store", str(store_path), "--out", str(votes), "--tasks"]
    assert main([*export, str(tmp_path / "rwg_study")]) == 2
    err = capsys.readouterr().err
    assert (f"sciwrite: error: {store_path}: the store holds answers of the sciig rating study, not of the rwgbench "
            "pairwise study of the task folder") in err
    assert not votes.exists()
    with sqlite3.connect(store_path) as conn:  # a store written before stores recorded their study
        conn.execute("DELETE FROM study")
    assert main([*export, str(tmp_path / "rwg_study")]) == 2
    assert "holds answers of the rating study, not of the rwgbench pairwise study" in capsys.readouterr().err
    assert main([*export, str(tmp_path / "sciig_study")]) == 0 and len(lines(votes)) == 1
    assert lines(votes)[0]["rating"] == 4


def test_export_of_answers_to_tasks_the_folder_lacks_is_refused(sciig_mini_folder, tmp_path, capsys):
    """Same design, another draw: the answers' task ids are not the folder's."""
    papers = load_sciig("sample", source=sciig_mini_folder, split="test")
    first = draw("sciig", sciig_mini_folder, papers, tmp_path, tmp_path / "first")
    study = json.loads((tmp_path / "first" / "study.json").read_text())
    store = study_store(tmp_path / "s.sqlite", study, first)
    store.add_annotator("ann")
    store.record("ann", first[0]["task_id"], "faithfulness", rating=2)
    other = tmp_path / "other"
    other.mkdir()
    for name in ("study.json", "key.jsonl"):
        (other / name).write_text((tmp_path / "first" / name).read_text())
    (other / "tasks.jsonl").write_text("".join(json.dumps({**t, "task_id": f"new-{t['task_id']}"}) + "\n"
                                               for t in first))
    votes = tmp_path / "votes.jsonl"
    assert main(["human-eval", "export", "--store", str(tmp_path / "s.sqlite"), "--tasks", str(other), "--out",
                 str(votes)]) == 2
    err = capsys.readouterr().err
    assert f"1 of its 1 answers do not fit the task folder's study: 'ann' on task '{first[0]['task_id']}'" in err
    assert "unknown task_id" in err and not votes.exists()
