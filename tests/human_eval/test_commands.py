"""`sciwrite human-eval tasks` and `analyze`, and `sciwrite paper-table rwgbench-table5|sciig-table5`, end to end on
the offline mini samples."""

from __future__ import annotations

import json

from sciwrite.cli import main
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
