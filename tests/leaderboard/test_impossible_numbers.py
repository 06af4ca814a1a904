"""Nothing impossible reaches a table, the board or the Hub: `push results`, `leaderboard import --hub-eval-results`,
`leaderboard import` of evaluation folders, the Space's worker and the summary writer all check each value against
its metric's declared scale, and a summary with its rows, nested blocks included, with the one check of a result
(`check_result`: counts, intervals, finite numbers); they say which file, line, record and field is wrong, and
import a batch all or nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import sacrebleu
import yaml
from huggingface_hub import parse_eval_result_entries

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.runs import import_evaluation
from sciwrite.leaderboard.store import FAILED, ResultsStore
from sciwrite.leaderboard.worker import Worker
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.scoring.core import SystemResult
from sciwrite.scoring.files import write_system
from sciwrite.scoring.steps import ResultFiles

PAPERS = ("p1", "p2")


def _predictions(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"paper_id": p, "pred": f"See [1] for {p}.", "candidates": ["d1"],
                                        "model": "m", "method": "RAG", "retriever": "bm25"}) + "\n"
                            for p in PAPERS), encoding="utf-8")
    return path


def _folder(base: Path, name: str = "run", *, precision=0.5, rows=(0.0, 1.0), predictions: str | None = None,
            row_fields=({}, {}), **summary_fields) -> Path:
    """An RWGBench evaluation folder as `sciwrite evaluate` writes it (precision per paper given by `rows`, each
    row's other fields by `row_fields`)."""
    folder = base / "out" / name
    folder.mkdir(parents=True)
    recorded = predictions or str(_predictions(base / f"{name}.jsonl"))
    summary = {"system": name, "split": "sample", "predictions": recorded, "precision": precision, "n_papers": 2,
               "profile": "lite", "provenance": {"benchmark": "rwgbench", "profile": "lite",
                                                 "dataset": {"config": "sample"}}, **summary_fields}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (folder / "per_paper.jsonl").write_text("".join(json.dumps({"system": name, "paper_id": p, "precision": v, **more})
                                                    + "\n" for p, v, more in zip(PAPERS, rows, row_fields)),
                                            encoding="utf-8")
    return folder


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("sciwrite: error: ") and "\n" not in err and "Traceback" not in err
    return err


# push results -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "expected"), [
    ({"precision": 1.7}, "field 'precision': precision is 1.7, outside its range 0-1"),
    ({"recall": -0.2}, "field 'recall': recall is -0.2, outside its range 0-1"),
    ({"precision": math.nan}, "field 'precision': precision is nan, not a finite number"),
    ({"recall": math.inf}, "field 'recall': recall is inf, not a finite number"),
    ({"precision": "high"}, "field 'precision': precision is the text 'high', not a number"),
])
def test_push_results_refuses_an_impossible_value_naming_metric_and_file(tmp_path, capsys, fields, expected):
    folder = _folder(tmp_path, **{"precision": 0.5, **fields})
    out = tmp_path / "dry"
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(out)]) == 2
    err = _error(capsys)
    assert f"{folder / 'summary.json'}, record 'run', {expected}" in err
    assert not out.exists()  # nothing written, nothing sent


def test_push_results_says_what_it_left_out(tmp_path, capsys):
    folder = _folder(tmp_path, precision=0.5, recall=None)
    out = tmp_path / "dry"
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    [path] = (out / ".eval_results").glob("*.yaml")
    [entry] = parse_eval_result_entries(yaml.safe_load(path.read_text()))
    assert (entry.task_id, entry.value) == ("sample_citation_precision", 0.5)
    assert "left out (not computed in" in printed and "recall, soft_citation_recall" in printed


# leaderboard import --hub-eval-results ----------------------------------------------------------------------------


def _repo(base: Path, name: str, text: str | bytes, file: str = "rwgbench.yaml") -> Path:
    folder = base / name / ".eval_results"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return base / name


def _entry(task: str, value: str, dataset: str = "sciwrite/rwgbench") -> str:
    return f"- dataset:\n    id: {dataset}\n    task_id: {task}\n  value: {value}\n"


def _hub_import(store: Path, *repos: Path, benchmark: str = "rwgbench") -> int:
    return main(["leaderboard", "import", "--store", str(store), "--benchmark", benchmark,
                 "--hub-eval-results", *map(str, repos)])


@pytest.mark.parametrize(("value", "problem"), [("1.7", "1.7, outside its range 0-1"),
                                                (".nan", "nan, not a finite number"),
                                                (".inf", "inf, not a finite number"),
                                                ("1e308", "1e+308, outside its range 0-1")])
def test_hub_import_refuses_an_impossible_value_and_adds_nothing(tmp_path, capsys, value, problem):
    repo = _repo(tmp_path, "org-model", _entry("sample_citation_recall", "0.4")
                 + _entry("sample_citation_precision", value))
    store = tmp_path / "board.sqlite"
    assert _hub_import(store, repo) == 2
    err = _error(capsys)
    path = repo / ".eval_results" / "rwgbench.yaml"
    assert (f"{path}:5, record 'sample_citation_precision', field 'value': precision is {problem}") in err
    assert ResultsStore(store).submissions() == []


def test_hub_import_stores_1e308_as_a_number_where_the_range_allows_it(tmp_path):
    repo = _repo(tmp_path, "org-model", _entry("sample_perplexity", "1e308", "sciwrite/sciig"), "sciig.yaml")
    store = tmp_path / "board.sqlite"
    assert _hub_import(store, repo, benchmark="sciig") == 0
    [(_, summary)] = ResultsStore(store).finished("sciig", "sample")
    assert summary.value("perplexity") == 1e308 and isinstance(summary.value("perplexity"), float)


def test_hub_import_says_which_entries_it_left_out(tmp_path, capsys):
    repo = _repo(tmp_path, "org-model", _entry("sample_citation_recall", "0.4")
                 + _entry("sample_citation_precison", "0.3") + _entry("default", "20.9", "cais/hle"))
    assert _hub_import(tmp_path / "board.sqlite", repo) == 0
    out = capsys.readouterr().out
    path = repo / ".eval_results" / "rwgbench.yaml"
    assert "added (self-reported): rwgbench sample org-model (rwgbench)" in out
    assert (f"left out: {path}:5: sciwrite/rwgbench / sample_citation_precison is not a RWGBench task (no such "
            "task id") in out
    assert f"left out: {path}:9: cais/hle / default is not a RWGBench task (another dataset)" in out


def test_hub_import_of_a_batch_with_malformed_yaml_imports_no_repo(tmp_path, capsys):
    good = _repo(tmp_path, "good-model", _entry("sample_citation_recall", "0.4"))
    bad = _repo(tmp_path, "bad-model", _entry("sample_citation_recall", "0.4") + "- dataset: {id: [unclosed\n")
    store = tmp_path / "board.sqlite"
    assert _hub_import(store, good, bad) == 2
    err = _error(capsys)
    assert f"{bad / '.eval_results' / 'rwgbench.yaml'}:" in err and "not valid YAML" in err
    assert ResultsStore(store).submissions() == []  # the good repo listed first is not imported either


def test_hub_import_names_the_entry_without_a_dataset_id(tmp_path, capsys):
    repo = _repo(tmp_path, "org-model", _entry("sample_citation_recall", "0.4")
                 + "- dataset:\n    task_id: sample_citation_precision\n  value: 0.3\n")
    assert _hub_import(tmp_path / "board.sqlite", repo) == 2
    assert f"{repo / '.eval_results' / 'rwgbench.yaml'}:5, field 'dataset.id': a result without dataset.id" in \
        _error(capsys)


def test_hub_import_names_the_file_that_is_not_utf8(tmp_path, capsys):
    repo = _repo(tmp_path, "org-model", _entry("sample_citation_recall", "0.4").encode() + b"# caf\xe9\n")
    assert _hub_import(tmp_path / "board.sqlite", repo) == 2
    assert f"{repo / '.eval_results' / 'rwgbench.yaml'}:5: not UTF-8 text (byte 0xe9" in _error(capsys)


def test_hub_import_refuses_a_task_given_twice_in_one_file(tmp_path, capsys):
    repo = _repo(tmp_path, "org-model", _entry("sample_citation_recall", "0.4") + _entry("sample_citation_recall", "0.9"))
    assert _hub_import(tmp_path / "board.sqlite", repo) == 2
    assert "task sample_citation_recall is given twice (lines 1 and 5)" in _error(capsys)


# leaderboard import of evaluation folders ------------------------------------------------------------------------


def _import(store: Path, *folders: Path) -> int:
    return main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench", *map(str, folders)])


def test_a_summary_out_of_range_is_refused(tmp_path, capsys):
    folder = _folder(tmp_path, precision=1.7, rows=(1.0, 1.0))
    assert _import(tmp_path / "board.sqlite", folder) == 2
    assert "field 'precision': precision is 1.7, outside its range 0-1" in _error(capsys)
    assert ResultsStore(tmp_path / "board.sqlite").submissions() == []


def test_a_summary_its_rows_do_not_give_is_refused(tmp_path, capsys):
    folder = _folder(tmp_path, precision=0.9, rows=(0.0, 1.0))
    assert _import(tmp_path / "board.sqlite", folder) == 2
    assert (f"{folder / 'summary.json'}, record 'run', field 'precision': precision is 0.9 in the summary, but its "
            f"per-paper rows ({folder / 'per_paper.jsonl'}) give 0.5") in _error(capsys)


def test_a_summary_value_no_row_supports_is_refused(tmp_path, capsys):
    folder = _folder(tmp_path, recall=0.5)  # the rows hold precision only
    assert _import(tmp_path / "board.sqlite", folder) == 2
    assert "recall is 0.5 in the summary, but no per-paper row" in _error(capsys)


def test_an_impossible_per_paper_value_is_refused_with_its_line_and_paper(tmp_path, capsys):
    folder = _folder(tmp_path, precision=0.5, rows=(1.0, math.nan))
    assert _import(tmp_path / "board.sqlite", folder) == 2
    assert f"{folder / 'per_paper.jsonl'}:2, record 'p2', field 'precision': precision is nan" in _error(capsys)


def test_a_batch_with_one_bad_folder_adds_none(tmp_path, capsys):
    good = _folder(tmp_path, "good")
    bad = _folder(tmp_path, "bad", precision=0.9)
    store = tmp_path / "board.sqlite"
    assert _import(store, good, bad) == 2
    assert "bad" in _error(capsys)
    assert ResultsStore(store).submissions() == []
    assert _import(store, good) == 0 and len(ResultsStore(store).submissions()) == 1


def test_a_relative_predictions_path_is_found_from_any_folder(tmp_path, monkeypatch):
    work = tmp_path / "work"  # where `evaluate` ran: --predictions preds/run.jsonl --out out
    _predictions(work / "preds" / "run.jsonl")
    folder = _folder(work, predictions="preds/run.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    submission, added = import_evaluation(ResultsStore(tmp_path / "board.sqlite"), "rwgbench", folder)
    assert added and submission.n_predictions == 2 and submission.model == "m"


def test_a_missing_predictions_file_is_named(tmp_path, capsys):
    folder = _folder(tmp_path, predictions="preds/gone.jsonl")
    assert _import(tmp_path / "board.sqlite", folder) == 2
    err = _error(capsys)
    assert f"{folder / 'summary.json'}, field 'predictions': the predictions file 'preds/gone.jsonl' it names is " \
           "missing" in err


def test_sciig_bleu_is_recomputed_as_corpus_bleu_of_the_rows(tmp_path, capsys):
    predictions = ["the model writes an introduction", "a second introduction on retrieval"]
    references = ["the model writes the introduction", "an introduction about dense retrieval"]
    stats = [[int(x) for x in sacrebleu.BLEU()._extract_corpus_statistics([p], [[r]])[0]]
             for p, r in zip(predictions, references)]
    corpus = sacrebleu.corpus_bleu(predictions, [references]).score / 100  # the reference library's corpus BLEU
    base = tmp_path / "sciig"
    preds = base / "run.jsonl"
    preds.parent.mkdir(parents=True)
    preds.write_text("".join(json.dumps({"paper_id": p, "pred": t}) + "\n" for p, t in zip(PAPERS, predictions)))

    def folder(name: str, bleu: float) -> Path:
        out = base / name
        out.mkdir()
        (out / "summary.json").write_text(json.dumps({"system": name, "split": "sample", "predictions": str(preds),
                                                      "bleu": bleu}))
        (out / "per_paper.jsonl").write_text("".join(
            json.dumps({"paper_id": p, "bleu": sacrebleu.sentence_bleu(t, [r]).score / 100, "bleu_stats": s}) + "\n"
            for p, t, r, s in zip(PAPERS, predictions, references, stats)))
        return out

    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "sciig", str(folder("ok", corpus))]) == 0
    edited = folder("edited", corpus + 0.05)
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "sciig", str(edited)]) == 2
    assert f"bleu is {corpus + 0.05:g} in the summary, but its per-paper rows" in _error(capsys)


# writing summaries ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, 1.7])
def test_the_summary_writer_refuses_an_impossible_value_and_writes_nothing(tmp_path, value):
    rows = typed_rows([{"paper_id": "p1", "precision": 1.0}])
    result = SystemResult("sys", Summary.from_json({"system": "sys", "precision": value}), rows, [], ResultFiles([]))
    with pytest.raises(InputError, match=r"summary.json, record 'sys', field 'precision': precision is"):
        write_system(get_benchmark("rwgbench"), result, tmp_path / "sys")
    assert not (tmp_path / "sys").exists()


def test_evaluate_records_the_absolute_predictions_path(mini_sample_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    records = human_gt_records(load_rwgbench("sample", source=mini_sample_copy), "sample")
    Path("run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["evaluate", "rwgbench", "--predictions", "run.jsonl", "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "recall", "--bootstrap", "0", "--out", "eval"]) == 0
    summary = json.loads((tmp_path / "eval" / "run" / "summary.json").read_text())
    assert summary["predictions"] == str(tmp_path / "run.jsonl")
    monkeypatch.chdir(mini_sample_copy)  # importing from another folder finds it
    _, added = import_evaluation(ResultsStore(tmp_path / "board.sqlite"), "rwgbench", tmp_path / "eval" / "run")
    assert added


def test_a_real_sciig_evaluation_imports_with_its_means_recomputed(sciig_mini_folder, tmp_path):
    papers = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    predictions = tmp_path / "run.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p["paper_id"], "pred": p["introduction"][:400]}) + "\n"
                                   for p in papers))
    assert main(["evaluate", "sciig", "--predictions", str(predictions), "--split", "sample", "--source",
                 str(sciig_mini_folder), "--profile", "lite", "--metrics", "rouge", "bleu", "--bootstrap", "50",
                 "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / "run" / "summary.json").read_text())
    assert summary["bleu"] is not None and summary["rougeL"] is not None
    _, added = import_evaluation(ResultsStore(tmp_path / "board.sqlite"), "sciig", tmp_path / "eval" / "run")
    assert added


def test_an_older_summary_prefers_the_predictions_beside_it_to_a_namesake_in_the_current_folder(tmp_path,
                                                                                                 monkeypatch):
    """A relative path in an old summary is looked for beside the summary first: a file of the same name in the
    folder the import runs from belongs to another run."""
    folder = _folder(tmp_path / "run", predictions="run.jsonl")
    _predictions(folder / "run.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "run.jsonl").write_text('{"paper_id": "unrelated", "pred": "x"}\n', encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    submission, added = import_evaluation(ResultsStore(tmp_path / "board.sqlite"), "rwgbench", folder)
    assert added and submission.n_predictions == 2


def test_another_datasets_results_need_the_benchmark_they_belong_to(tmp_path, capsys):
    """Both benchmarks define sample_rouge_l: an entry of a dataset sciwrite does not know would go on both boards."""
    repo = _repo(tmp_path, "org-m", "- dataset: {id: org/mirror, task_id: sample_rouge_l}\n  value: 0.3\n")
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--hub-eval-results", str(repo),
                 "--dataset-id", "org/mirror"]) == 2
    assert "add --benchmark (rwgbench, sciig, surge)" in _error(capsys)
    assert not store.exists() or ResultsStore(store).submissions() == []


def test_the_board_keeps_the_predictions_file_name_not_the_scoring_machines_folders(tmp_path):
    folder = _folder(tmp_path)
    store = ResultsStore(tmp_path / "board.sqlite")
    submission, added = import_evaluation(store, "rwgbench", folder)
    summary = store.summary(submission.id)
    assert added and summary.predictions == "run.jsonl"
    assert str(tmp_path) not in json.dumps(summary.to_json())


# every door, nested fields and rows (issue 48) -------------------------------------------------------------------

#: Summary fields a real summary may hold, each made impossible, and what the one check says.
NESTED = [
    ({"coverage": {"n_scored": -1, "n_split": 144}}, "field 'coverage.n_scored': coverage.n_scored is -1, "
                                                     "outside its range >= 0"),
    ({"coverage": {"n_scored": 500, "n_split": 144}}, "field 'coverage.n_scored': coverage.n_scored is 500, more than "
                                                      "the split's 144 papers"),
    ({"intervals": {"precision": [0.5, 0.1]}}, "field 'intervals.precision': intervals.precision is [0.5, 0.1]: its "
                                               "low bound is above its high bound"),
    ({"memorisation": {"mean": math.inf}}, "field 'memorisation.mean': memorisation.mean is inf, not a finite number"),
    ({"grounding": {"grounding_found_rate": 1.5}}, "field 'grounding.grounding_found_rate': "
                                                   "grounding.grounding_found_rate is 1.5, outside its range 0-1"),
    ({"llm_usage": {"requests": 3, "cost_usd": -2.0}}, "field 'llm_usage.cost_usd': llm_usage.cost_usd is -2.0, "
                                                       "outside its range >= 0"),
    ({"judge_panel": {"criteria": {"llm_judge": {"judges": {"j": {"mean": 3.0}}}}}},
     "field 'judge_panel.criteria.llm_judge.judges.j.mean': judge_panel.criteria.llm_judge.judges.j.mean is 3.0, "
     "outside its range 0-1"),
]
#: Per-paper rows made impossible while the summary's mean stays what it was, and what the one check says.
BAD_ROWS = [
    ({"rows": (1.7, -0.7)}, "per_paper.jsonl:1, record 'p1', field 'precision': precision is 1.7, outside its range"),
    ({"row_fields": ({}, {"generated_frames": {"uses": -1}})},
     "per_paper.jsonl:2, record 'p2', field 'generated_frames.uses': generated_frames.uses is -1, outside its range"),
]


@pytest.mark.parametrize(("fields", "expected"), NESTED)
def test_push_results_refuses_an_impossible_nested_field(tmp_path, capsys, fields, expected):
    folder = _folder(tmp_path, **fields)
    out = tmp_path / "dry"
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(out)]) == 2
    assert f"{folder / 'summary.json'}, record 'run', {expected}" in _error(capsys)
    assert not out.exists()


@pytest.mark.parametrize(("fields", "expected"), BAD_ROWS)
def test_push_results_reads_the_rows_behind_an_unchanged_mean(tmp_path, capsys, fields, expected):
    folder = _folder(tmp_path, **fields)
    out = tmp_path / "dry"
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(out)]) == 2
    assert f"{folder}/{expected}" in _error(capsys)
    assert not out.exists()


def test_push_results_needs_the_rows(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "per_paper.jsonl").unlink()
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out",
                 str(tmp_path / "dry")]) == 2
    assert f"{folder / 'per_paper.jsonl'}: no such file (the per-paper rows)" in _error(capsys)


@pytest.mark.parametrize(("fields", "expected"), NESTED + BAD_ROWS)
def test_import_refuses_an_impossible_nested_field_or_row(tmp_path, capsys, fields, expected):
    folder = _folder(tmp_path, **fields)
    store = tmp_path / "board.sqlite"
    assert _import(store, folder) == 2
    assert expected in _error(capsys)
    assert ResultsStore(store).submissions() == []


def test_1e309_written_in_a_summary_is_infinity_and_refused(tmp_path, capsys):
    """Python's JSON reads 1e309 as inf: no NaN or Infinity literal needed to reach the board or the Hub."""
    folder = _folder(tmp_path, llm_usage={"requests": 3, "cost_usd": 0.5})
    path = folder / "summary.json"
    path.write_text(path.read_text().replace('"cost_usd": 0.5', '"cost_usd": 1e309'), encoding="utf-8")
    assert _import(tmp_path / "board.sqlite", folder) == 2
    assert "field 'llm_usage.cost_usd': llm_usage.cost_usd is inf, not a finite number" in _error(capsys)
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out",
                 str(tmp_path / "dry")]) == 2
    assert "llm_usage.cost_usd is inf" in _error(capsys)


@pytest.mark.parametrize(("fields", "expected"), NESTED[:3])
def test_the_summary_writer_refuses_an_impossible_nested_field_and_writes_nothing(tmp_path, fields, expected):
    rows = typed_rows([{"paper_id": "p1", "precision": 0.5}])
    summary = Summary.from_json({"system": "sys", "precision": 0.5, **fields})
    result = SystemResult("sys", summary, rows, [], ResultFiles([]))
    with pytest.raises(InputError) as caught:
        write_system(get_benchmark("rwgbench"), result, tmp_path / "sys")
    assert f"summary.json, record 'sys', {expected}" in str(caught.value)
    assert not (tmp_path / "sys").exists()


@pytest.mark.parametrize(("fields", "expected"), NESTED[:2])
def test_the_spaces_worker_stores_nothing_impossible(tmp_path, fields, expected):
    store = ResultsStore(tmp_path / "board.sqlite")
    submission = store.add_submission(benchmark="rwgbench", split="sample", system="s", submitter="ann",
                                      predictions_jsonl='{"paper_id": "p1", "text": "x"}', sha256="sha",
                                      n_predictions=1)
    rows = typed_rows([{"paper_id": "p1", "precision": 0.5}])
    ended = Worker(store, lambda s, p: (Summary.from_json({"precision": 0.5, **fields}), rows), name="w").run_once()
    assert ended.status == FAILED
    assert f"submission {submission.id}, {expected}" in ended.error
    assert store.summary(submission.id) is None
