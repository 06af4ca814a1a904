"""The `sciwrite` command, run in-process: build, index, retrieve, quickstart, and its error exits."""

from __future__ import annotations

import csv
import json
import re
import shutil

import pytest

from sciwrite.cli import _one_line, main
from sciwrite.retrieval import BM25Retriever, build_query
from sciwrite.retrieval.base import CONFIG_FILE
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation.records import prepare_records


@pytest.fixture
def sample_copy(sample_folder, tmp_path):
    """A writable copy of the full aclsum sample (indexes get written next to the data)."""
    return shutil.copytree(sample_folder, tmp_path / "sample_copy")


def table_rows(text):
    """The data rows of a format_table printout, split on runs of spaces, keyed by the header."""
    lines = [line for line in text.splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.startswith("---"))
    header = lines[start - 1].split()
    return [dict(zip(header, line.split())) for line in lines[start + 1:]]


def test_build_sample(tmp_path, capsys, sample_folder):
    out = tmp_path / "built"
    assert main(["build", "sample", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert f"RWGBench sample written to {out}" in stdout
    stats = json.loads((sample_folder / "build_report.json").read_text(encoding="utf-8"))["statistics"]
    printed = {row["statistic"]: row["value"] for row in table_rows(stdout)}
    assert printed["target_papers"] == str(stats["target_papers"])
    assert printed["corpus_documents"] == str(stats["corpus_documents"])
    assert (out / "README.md").exists() and (out / "build_report.json").exists()
    assert len(load_rwgbench("sample", source=out)) == stats["target_papers"]


def test_index_bm25_then_retrieve(sample_copy, tmp_path, capsys):
    folder = sample_copy
    assert main(["index", "build", "--kind", "bm25", "--corpus", "sample_corpus", "--source", str(folder)]) == 0
    index = folder / "bm25" / "sample_corpus"
    n_docs = len(load_rwgbench("sample_corpus", source=folder))
    assert f"bm25 index of {n_docs} documents from 'sample_corpus' written to {index}" in capsys.readouterr().out
    assert json.loads((index / CONFIG_FILE).read_text())["kind"] == "bm25"

    hits = tmp_path / "out" / "hits.jsonl"
    assert main(["retrieve", "--index", str(index), "--split", "sample", "--source", str(folder),
                 "--out", str(hits), "--limit", "5"]) == 0
    stdout = capsys.readouterr().out
    lines = [json.loads(line) for line in hits.read_text(encoding="utf-8").splitlines()]
    papers = load_rwgbench("sample", source=folder).select(range(5))
    assert [line["paper_id"] for line in lines] == papers["paper_id"]
    retriever = BM25Retriever.load(index)
    expected = retriever.search([build_query(p) for p in papers], k=51, show_progress=False)
    corpus = load_rwgbench("sample_corpus", source=folder)
    generation = prepare_records(papers, corpus, retriever, k=50)  # what `generate` gives a method as candidates
    for line, result, record in zip(lines, expected, generation):
        # the query is the paper's own title + abstract: its own corpus record ranks first, and is left out, as the
        # generation's candidates and the retrieval scores leave it out
        assert result.doc_ids[0] == line["paper_id"] and line["paper_id"] not in line["candidates"]
        assert line["candidates"] == result.doc_ids[1:] == [doc["doc_id"] for doc in record["candidate_docs"]]
        assert line["scores"] == result.scores[1:] == sorted(line["scores"], reverse=True)
    assert f"top-50 candidates for 5 papers (each without itself) written to {hits}" in stdout
    [row] = table_rows(stdout)
    assert row["retriever"] == "sample_corpus" and row["papers"] == "5"
    for key in ("recall@10", "recall@20", "recall@50", "ndcg@10"):
        assert 0.0 <= float(row[key]) <= 1.0
    assert float(row["recall@10"]) <= float(row["recall@20"]) <= float(row["recall@50"])


def test_index_dense_then_retrieve(mini_sample_copy, capsys, patch_encoder):
    folder = mini_sample_copy
    assert main(["index", "build", "--kind", "dense", "--profile", "lite", "--corpus", "sample_corpus",
                 "--source", str(folder), "--batch-size", "8"]) == 0
    index = folder / "faiss" / "sample_corpus"
    assert f"dense index of 26 documents from 'sample_corpus' written to {index}" in capsys.readouterr().out
    config = json.loads((index / CONFIG_FILE).read_text())
    assert (config["kind"], config["encoder"], config["factory"]) == ("dense", "packaged:all-MiniLM-L6-v2", "Flat")
    assert len(json.loads((index / "doc_ids.json").read_text())) == 26
    assert (index / "index.faiss").stat().st_size > 26 * 384 * 4

    assert main(["retrieve", "--index", str(index), "--split", "sample", "--source", str(folder),
                 "--recall-at", "5", "10"]) == 0
    [row] = table_rows(capsys.readouterr().out)
    assert row["papers"] == "2"
    assert set(row) == {"retriever", "papers", "recall@5", "recall@10", "ndcg@10"}
    assert 0.0 < float(row["recall@10"]) <= 1.0
    assert patch_encoder == ["packaged:all-MiniLM-L6-v2"] * 2  # built, then loaded from the saved config


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["index", "build", "--kind", "bm25", "--source", "/nonexistent/sciwrite-data"], "is not a directory"),
        (["index", "build", "--kind", "bm25", "--corpus", "nope", "--source", "/tmp"], "unknown RWGBench config 'nope'"),
        (["retrieve", "--index", "{tmp}", "--source", "{tmp}"], "holds no saved sciwrite retriever"),
        (["index", "build", "--kind", "bm25", "--source", "{tmp}"], "is not an RWGBench dataset folder"),
    ],
)
def test_errors_exit_2_with_message(argv, needle, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("sciwrite: error: ")
    assert needle in captured.err
    assert captured.out == ""


def test_unloadable_encoder_exits_2_naming_it(mini_sample_copy, tmp_path, capsys):
    missing = str(tmp_path / "no-such-encoder")
    assert main(["index", "build", "--kind", "dense", "--encoder", missing, "--source", str(mini_sample_copy)]) == 2
    err = capsys.readouterr().err
    assert "cannot load the dense encoder" in err and missing in err
    assert not (mini_sample_copy / "faiss").exists()


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["index", "build"])
    assert exit_info.value.code == 2
    assert "--kind" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["index", "build", "--kind", "sparse"])
    assert exit_info.value.code == 2


def test_quickstart(mini_sample_copy, sciig_mini_folder, surge_mini_folder, tmp_path, capsys, patch_encoder):
    """The main job end to end on the mini samples: retrieval, extractive generation, every benchmark's evaluation."""
    out = tmp_path / "qs"
    surge_folder = shutil.copytree(surge_mini_folder, tmp_path / "surge_mini")
    argv = ["quickstart", "--source", f"rwgbench={mini_sample_copy}", "--source", f"sciig={sciig_mini_folder}",
            "--source", f"surge={surge_folder}", "--out", str(out)]
    assert main(argv) == 0
    stdout = capsys.readouterr().out
    assert "2 target papers, 26 corpus documents" in stdout  # the prebuilt folder was used, not rebuilt
    assert "built the RWGBench sample" not in stdout and "built the SciIG sample" not in stdout
    rows = json.loads((out / "retrieval.json").read_text(encoding="utf-8"))
    assert [r["retriever"] for r in rows] == ["bm25", "dense (all-MiniLM-L6-v2)"]
    for r in rows:
        assert r["papers"] == 2
        metrics = {k: v for k, v in r.items() if k.startswith(("recall@", "ndcg@"))}
        assert set(metrics) == {"recall@10", "recall@20", "recall@50", "ndcg@10"}
        assert all(0.0 <= v <= 1.0 for v in metrics.values())
        assert r["recall@10"] <= r["recall@20"] <= r["recall@50"]
    with (out / "retrieval.csv").open(newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [t["retriever"] for t in table] == ["bm25", "dense (all-MiniLM-L6-v2)"]
    assert float(table[0]["recall@10"]) == pytest.approx(rows[0]["recall@10"])
    assert (out / "retrieval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    per_paper = json.loads((out / "retrieval_per_paper.json").read_text(encoding="utf-8"))
    assert len(per_paper) == 4
    # the indexes are kept next to the data
    assert (mini_sample_copy / "bm25" / "sample_corpus" / CONFIG_FILE).exists()
    assert (mini_sample_copy / "faiss" / "sample_corpus" / CONFIG_FILE).exists()
    # the profile's encoder, the one instance of the process: indexing, and generation loading the saved index
    assert set(patch_encoder) == {"packaged:all-MiniLM-L6-v2"}

    # Generation: one extractive line per target paper and system, markers resolving into its candidates.
    for system in ("rag-bm25", "rag-dense", "oracle"):
        lines = [json.loads(x) for x in (out / "generations" / "rwgbench" / f"{system}.jsonl").read_text().splitlines()]
        assert len(lines) == 2 and {x["model"] for x in lines} == {"extractive"}
        for line in lines:
            markers = {int(m) for m in re.findall(r"\[(\d+)\]", line["pred"])}
            assert markers and max(markers) <= len(line["candidates"])
    # Evaluation: Table 2 of RWGBench, one row per system; the oracle writer only cites gold papers.
    table2 = {r["system"]: r for r in json.loads((out / "rwgbench_table2.json").read_text())}
    assert list(table2) == ["rag-bm25", "rag-dense", "oracle"]
    assert table2["oracle"]["CQ P"] == pytest.approx(1.0)
    assert table2["rag-bm25"]["CQ SoftR"] is None  # lite has no NLI model
    assert (out / "rwgbench_systems.png").read_bytes()[:4] == b"\x89PNG"
    sciig = json.loads((out / "sciig" / "extractive" / "summary.json").read_text())
    assert sciig["n_papers"] == 3 and sciig["citation_precision"] == pytest.approx(1.0)
    assert 0 < sciig["rougeL"] < 1 and sciig["perplexity"] is None
    assert "RWGBench sample, 2 papers" in stdout and "SciIG sample, 3 papers" in stdout
    surge = json.loads((out / "surge" / "rag_bm25" / "summary.json").read_text())
    assert surge["n_papers"] == 2 and 0 < surge["reference_coverage"] <= 1 and surge["relevance_paper"] is None
    assert "SurGE sample, 2 survey-shaped targets" in stdout and "built the SurGE sample" not in stdout
    # The scored systems are on the default leaderboard store, and the command that opens it is printed.
    from sciwrite.leaderboard.store import ResultsStore, default_store_path

    board = ResultsStore(default_store_path())
    on_board = {(s.benchmark, s.system): s for s, _ in [*board.finished("rwgbench"), *board.finished("sciig"),
                                                        *board.finished("surge")]}
    assert set(on_board) == {("rwgbench", "rag-bm25"), ("rwgbench", "rag-dense"), ("rwgbench", "oracle"),
                             ("sciig", "extractive"), ("surge", "rag_bm25")}
    assert on_board[("rwgbench", "oracle")].retriever == "oracle" and on_board[("sciig", "extractive")].model == "extractive"
    assert len(board.paper_rows(on_board[("rwgbench", "oracle")].id)) == 2
    assert "put 5 new system(s) on the leaderboard store" in stdout
    assert (f"leaderboard serve --source rwgbench={mini_sample_copy} --source sciig={sciig_mini_folder} "
            f"--source surge={surge_folder}") in stdout

    # A rerun generates nothing again (resume) and gives the same tables.
    assert main(argv) == 0
    rerun = capsys.readouterr().out
    assert "0 generated, 2 already there" in rerun and "put 0 new system(s)" in rerun
    assert "SurGE: 0 generated, 2 already there" in rerun
    assert {r["system"]: r for r in json.loads((out / "rwgbench_table2.json").read_text())} == table2


def test_evaluate_rwgbench_no_judge_keeps_the_chosen_metrics(monkeypatch, tmp_path):
    """--no-judge removes the judge from --metrics; before, it replaced --metrics by every other metric."""

    from sciwrite.cli import evaluate as evaluate_cli
    from sciwrite.rwgbench.metrics.suite import STAGES

    asked = {}

    def fake(bench, predictions, request, **kwargs):
        asked["metrics"] = request.metrics
        raise ValueError("stop here")

    monkeypatch.setattr(evaluate_cli, "evaluate_files", fake)
    argv = ["evaluate", "rwgbench", "--predictions", str(tmp_path / "p.jsonl"), "--no-judge"]
    assert main([*argv, "--metrics", "precision", "llm_judge"]) == 2
    assert asked["metrics"] == ("precision",)
    assert main([*argv, "--metrics", "citation_precision_recall", "rwg_llm_judge"]) == 2  # stage and module names
    assert asked["metrics"] == ("precision", "recall")
    assert main(argv) == 2
    assert "llm_judge" not in asked["metrics"] and "precision" in asked["metrics"]
    assert len(asked["metrics"]) == len(STAGES.metrics) - 1  # every metric but the judge's, the grounding's included


def _failing_evaluate(monkeypatch, tmp_path, err):
    """`sciwrite evaluate rwgbench` made to raise `err` where it starts its work; its argv."""
    from sciwrite.cli import evaluate as evaluate_cli

    def fail(*args, **kwargs):
        raise err

    monkeypatch.setattr(evaluate_cli, "evaluate_files", fail)
    return ["evaluate", "rwgbench", "--predictions", str(tmp_path / "p.jsonl")]


def test_debug_flag_and_variable_show_the_traceback_of_one_call(monkeypatch, tmp_path, capsys):
    argv = _failing_evaluate(monkeypatch, tmp_path, ValueError("p.jsonl:3: field 'text' is missing"))
    assert main(["--debug", *argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith("sciwrite: error: p.jsonl:3: field 'text' is missing")
    assert main(argv) == 2  # --debug is this call's only, not the next one's
    assert capsys.readouterr().err == "sciwrite: error: p.jsonl:3: field 'text' is missing\n"
    monkeypatch.setenv("SCIWRITE_DEBUG", "1")
    assert main(argv) == 2
    assert "Traceback" in capsys.readouterr().err
    monkeypatch.setenv("SCIWRITE_DEBUG", "0")
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_bug_is_one_line_exit_1_naming_how_to_see_the_traceback(monkeypatch, tmp_path, capsys):
    argv = _failing_evaluate(monkeypatch, tmp_path, KeyError("rougeL"))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("sciwrite: internal error: KeyError: 'rougeL'") and "--debug" in err
    assert main(["--debug", *argv]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_debug_works_after_the_command_too(monkeypatch, tmp_path, capsys):
    """The internal-error line says "rerun with --debug": appended to the command, it must work there too."""
    argv = _failing_evaluate(monkeypatch, tmp_path, KeyError("rougeL"))
    assert main([*argv, "--debug"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "unrecognized arguments" not in err


@pytest.mark.parametrize("bug", [NotImplementedError("a stage"), RecursionError("too deep")])
def test_failures_no_input_causes_are_internal_errors(monkeypatch, tmp_path, capsys, bug):
    argv = _failing_evaluate(monkeypatch, tmp_path, bug)
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith(f"sciwrite: internal error: {type(bug).__name__}")


def test_sciwrite_errors_keep_their_own_advice_over_the_hub_hint(monkeypatch, tmp_path, capsys):
    """A model or endpoint that cannot be reached is not the dataset Hub: its own message (which says what to do)
    stands, not the offline-samples hint."""
    from sciwrite.llm.types import GenerationError
    from sciwrite.models.registry import ModelUnavailableError

    for err in (ModelUnavailableError("cannot load model 'x/y' (Connection error); use --profile lite"),
                GenerationError("openai:gpt-4o: APIConnectionError: Connection error.")):
        assert main(_failing_evaluate(monkeypatch, tmp_path, err)) == 2
        assert capsys.readouterr().err == f"sciwrite: error: {err}\n"


def test_a_hub_error_names_what_works_offline(monkeypatch, tmp_path, capsys):
    from huggingface_hub.errors import OfflineModeIsEnabled

    try:
        try:
            raise OfflineModeIsEnabled("Cannot reach https://huggingface.co/api/datasets/x: offline mode is enabled.")
        except OfflineModeIsEnabled as cause:
            raise ConnectionError("Couldn't reach 'x' on the Hub") from cause
    except ConnectionError as err:
        wrapped = err
    assert main(_failing_evaluate(monkeypatch, tmp_path, wrapped)) == 2
    err = capsys.readouterr().err
    assert "needs the Hugging Face Hub" in err and "--split sample" in err and err.count("\n") == 1


def test_a_locked_store_is_not_called_a_broken_one(tmp_path, capsys):
    """Only a file that is no database (SQLITE_NOTADB) or a damaged one is "not a readable SQLite database"."""
    import sqlite3

    from sciwrite.core.errors import explain

    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorname = "SQLITE_BUSY"
    assert "not a readable" not in explain(locked) and "database is locked" in explain(locked)
    not_a_db = sqlite3.DatabaseError("file is not a database")
    not_a_db.sqlite_errorname = "SQLITE_NOTADB"
    assert "not a readable SQLite database" in explain(not_a_db)


def test_an_error_whose_text_fails_is_still_one_line(monkeypatch, tmp_path, capsys):
    class UnprintableError(ValueError):
        def __str__(self):
            raise RuntimeError("no text")

    assert main(_failing_evaluate(monkeypatch, tmp_path, UnprintableError())) == 1
    assert capsys.readouterr().err.startswith("sciwrite: internal error: UnprintableError")


def test_multi_line_messages_become_one_line(monkeypatch, tmp_path, capsys):
    argv = _failing_evaluate(monkeypatch, tmp_path, ValueError("p.jsonl: 2 malformed lines:\n  p.jsonl:1: x\n  p.jsonl:4: y"))
    assert main(argv) == 2
    assert capsys.readouterr().err == "sciwrite: error: p.jsonl: 2 malformed lines: p.jsonl:1: x; p.jsonl:4: y\n"


def test_a_config_yaml_error_is_one_usage_line(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("model: [extractive\nlimit: 2\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["generate", "rwgbench", "--model", "extractive", "--config", str(config)])
    assert exit_info.value.code == 2
    last = capsys.readouterr().err.rstrip("\n").splitlines()[-1]
    assert last.startswith("sciwrite generate rwgbench: error: ") and f"{config}:2:6: not valid YAML" in last


def test_paper_table1_defaults_to_the_sample_offline(monkeypatch, sample_folder, capsys):
    """Its --help promises the sample as the offline default: with the Hub off and no option, Table 1 of the sample."""
    monkeypatch.setenv("SCIWRITE_DATA_DIR", str(sample_folder))
    assert main(["paper-table", "rwgbench-table1"]) == 0
    out = capsys.readouterr().out
    papers = len(load_rwgbench("sample", source=sample_folder))
    assert re.search(rf"^Papers\s+{papers:,}\s*$", out, re.MULTILINE), out


@pytest.mark.parametrize(("argv", "offline_option"), [
    (["verify-references", "--corpus", "corpus", "{titles}"], "--corpus sample_corpus"),
    (["evaluate", "rwgbench", "--split", "test", "--predictions", "{titles}"], "--split sample"),
    (["evaluate", "sciig", "--split", "naacl_2025", "--predictions", "{titles}"], "--split sample"),
    (["paper-table", "rwgbench-table1", "--configs", "test"], "--configs sample"),
    (["paper-table", "sciig-table1", "--configs", "iclr_2025"], "--configs sample"),
])
def test_offline_hub_errors_say_which_option_works_offline(argv, offline_option, tmp_path, capsys):
    titles = tmp_path / "titles.jsonl"
    titles.write_text('"Attention is all you need"\n', encoding="utf-8")
    assert main([a.replace("{titles}", str(titles)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "Hugging Face Hub" in err and "HF_HUB_OFFLINE" in err and offline_option in err and "--source DIR" in err


def test_a_message_of_several_lines_is_one_readable_line():
    """A line ending in ':' introduces what follows (joined by a space); other lines are joined by '; '."""
    assert _one_line("2 bad lines in p.jsonl:\n  p.jsonl:3: not JSON\n  p.jsonl:5: no paper_id\nfix them") == (
        "2 bad lines in p.jsonl: p.jsonl:3: not JSON; p.jsonl:5: no paper_id; fix them")
