"""The RWGBench suite and `sciwrite evaluate rwgbench`: joining by paper_id, the reference-as-prediction
property, outputs, and bad input."""

from __future__ import annotations

import csv
import json

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.predictions import join_by_paper_id, read_predictions
from sciwrite.core.summary import Summary
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.report import format_table2
from sciwrite.rwgbench.metrics.suite import (
    SUITE_METRICS,
    TABLE2_GROUPS,
    load_rwgbench_models,
    score_rwgbench,
    summarize_rwgbench,
)


def write_jsonl(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def lite_suite():
    return load_rwgbench_models("lite")


# --- prediction files and the join ----------------------------------------------------------------------


def test_read_predictions_lists_every_bad_line(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [
        {"paper_id": "a", "text": "ok [1]", "candidates": ["d1"]},
        "{not json",
        {"paper_id": "b", "candidates": []},
        {"paper_id": "c", "text": "x", "candidates": "d1"},
        {"paper_id": "", "text": "x", "candidates": []},
        ["a list"],
    ])
    with pytest.raises(ValueError, match=r"p\.jsonl: 5 malformed prediction record\(s\)") as err:
        read_predictions(path)
    message = str(err.value)
    assert "5 malformed prediction record(s)" in message
    assert "p.jsonl:2: not valid JSON" in message
    assert "p.jsonl:3: (paper_id 'b') field 'text' (or 'pred') must be a string" in message
    assert "p.jsonl:4: (paper_id 'c') field 'candidates' must be a list of doc_id strings" in message
    assert "p.jsonl:5: field 'paper_id' must be a non-empty string" in message
    assert "p.jsonl:6: expected a JSON object, got list" in message
    with pytest.raises(FileNotFoundError, match="no prediction file"):
        read_predictions(tmp_path / "missing.jsonl")


def test_join_reports_missing_extra_and_duplicate_ids():
    join = join_by_paper_id(["p3", "x", "p1", "p3"], ["p1", "p2", "p3"])
    assert join.matched == [(2, 0), (0, 2)]  # in the split's order, first prediction of a duplicate
    assert (join.missing, join.extra, join.duplicates) == (["p2"], ["x"], ["p3"])
    assert join.summary() == {"n_matched": 2, "n_missing": 1, "n_extra": 1, "n_duplicates": 1}


# --- the reference-as-prediction property ------------------------------------------------------------------


#: Every twelfth paper of the sample (12 of 144, spread over it): the property holds paper by paper, and scoring all
#: 144 took 70-100 s of the test run on 2 cores, 24 of them 13 s (the quick start and scripts/bench/ray_scale.py
#: score them all).
REFERENCE_PAPERS_STEP = 12


def test_reference_sections_as_predictions_score_perfectly(sample_folder, lite_suite):
    """Scored as predictions with the gold citations as candidates, the references give P = R = PSS = CFA = 1."""
    papers = load_rwgbench("sample", source=sample_folder).to_list()[::REFERENCE_PAPERS_STEP]
    corpus = load_rwgbench("sample_corpus", source=sample_folder)
    rows, _ = score_rwgbench([p["related_work"] for p in papers], papers, lite_suite,
                             candidates=[p["citations"] for p in papers], corpus=corpus, show_progress=False)
    summary = summarize_rwgbench(typed_rows(rows), lite_suite)
    for metric in ("precision", "recall", "positioning_structure_similarity", "citation_frame_alignment",
                   "rougeL", "bertscore_f1"):
        assert summary.value(metric) == pytest.approx(1.0, abs=1e-6), metric
        assert all(r[metric] == pytest.approx(1.0, abs=1e-6) for r in rows), metric
    assert summary.value("empty_citation_rate") == 0 and summary.value("unresolved_markers") == 0
    assert 0 < (summary.value("topical_relevance") or 0) < 1 and 0 < (summary.value("citation_density") or 0)
    # lite has no NLI model and no LLM endpoint: reported, with the model they need, never substituted
    for metric in ("soft_citation_recall", "claim_support_consistency", "llm_judge"):
        assert metric in summary.metrics and summary.value(metric) is None and metric in summary.not_computed
    assert "DeBERTa-v3-large-mnli" in summary.not_computed["claim_support_consistency"]
    assert rows[0]["generated_frames"] == rows[0]["reference_frames"]
    assert summary.models["scibert"] == "packaged:all-MiniLM-L6-v2"


# --- bad input -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mini(mini_sample_folder):
    papers = [p for p in load_rwgbench("sample", source=mini_sample_folder).to_list()]
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder)
    return papers, corpus


def test_bad_predictions_get_documented_scores(mini, lite_suite):
    papers, corpus = mini
    paper = papers[0]
    long_section = " ".join(["Graph models [1] are widely studied in this area."] * 1500)  # 13,500 words, ~27 windows
    texts = ["", "Nothing is cited here.", "Only out of range [99] and [0].", "Ünïcödé — 数据 [1] ✓.", long_section]
    n = len(texts)
    rows, _ = score_rwgbench(texts, [paper] * n, lite_suite, candidates=[paper["citations"]] * n, corpus=corpus,
                             show_progress=False)
    for row in rows[:3]:
        assert row["empty_citation_output"] and row["precision"] == row["recall"] == 0
        assert row["citation_frame_alignment"] == 0 and row["topical_relevance"] == 0
    assert rows[0]["rougeL"] == rows[0]["bertscore_f1"] == rows[0]["positioning_structure_similarity"] == 0
    assert rows[2]["unresolved_markers"] == 2
    assert rows[3]["precision"] == 1 and rows[3]["recall"] == pytest.approx(1 / len(set(paper["citations"])))
    assert not rows[4]["empty_citation_output"] and 0 < rows[4]["bertscore_f1"] < 1
    assert rows[4]["n_sentences"] == 1500


def test_bad_input_names_record_and_field(mini, lite_suite):
    papers, corpus = mini
    paper = papers[0]
    with pytest.raises(ValueError, match=r"record 1 \(paper_id '.+'\): field 'candidates' cites doc_id\(s\) that are not in the corpus: \['nope'\]"):
        score_rwgbench(["A [1].", "B [1]."], [paper, paper], lite_suite, candidates=[paper["citations"], ["nope"]],
                       corpus=corpus, show_progress=False)
    with pytest.raises(ValueError, match=r"predictions \(2\), candidates \(1\) and papers \(2\)"):
        score_rwgbench(["A", "B"], [paper, paper], lite_suite, candidates=[[]], corpus=corpus, show_progress=False)
    with pytest.raises(ValueError, match=r"record 0: field 'text' must be a string, got NoneType"):
        score_rwgbench([None], [paper], lite_suite, candidates=[[]], corpus=corpus, show_progress=False)
    with pytest.raises(ValueError, match=r"record 0: field 'candidates' must be a list of doc_id strings"):
        score_rwgbench(["A"], [paper], lite_suite, candidates=["d1"], corpus=corpus, show_progress=False)
    with pytest.raises(ValueError, match=r"paper 0 \(.+\): field 'citations' must be a non-empty list"):
        score_rwgbench(["A"], [{**paper, "citations": []}], lite_suite, candidates=[[]], corpus=corpus,
                       show_progress=False)
    with pytest.raises(ValueError, match="unknown RWGBench metric 'bleu'"):
        load_rwgbench_models("lite", metrics=["bleu"])


def test_metric_selection_skips_the_models_it_does_not_need(mini):
    papers, corpus = mini
    suite = load_rwgbench_models("lite", metrics=["precision", "recall", "citation_density"])
    assert suite.encoder is None and suite.token_encoder is None and suite.frame_classifier is None
    rows, _ = score_rwgbench([papers[0]["related_work"]], papers[:1], suite, candidates=[papers[0]["citations"]],
                             corpus=corpus, show_progress=False)
    summary = summarize_rwgbench(typed_rows(rows), suite)
    assert summary.value("precision") == 1 and summary.value("topical_relevance") is None
    assert "topical_relevance" not in summary.not_computed  # not requested is not a failure


@pytest.mark.parametrize("metrics", [["rougeL"], ["rougeL", "precision"]])
def test_rouge_l_alone_needs_no_token_encoder(mini, metrics):
    """Issue 23: ``--metrics rougeL`` (without bertscore_f1) crashed on the missing BERTScore encoder."""
    papers, corpus = mini
    suite = load_rwgbench_models("lite", metrics=metrics)
    assert suite.token_encoder is None
    rows, _ = score_rwgbench([papers[0]["related_work"]], papers[:1], suite, candidates=[papers[0]["citations"]],
                             corpus=corpus, show_progress=False)
    assert rows[0]["rougeL"] == pytest.approx(1.0) and "bertscore_f1" not in rows[0]
    summary = summarize_rwgbench(typed_rows(rows), suite)
    assert summary.value("rougeL") == pytest.approx(1.0) and summary.value("bertscore_f1") is None


# --- the command -----------------------------------------------------------------------------------------


def test_evaluate_command_writes_tables_and_reports_the_join(mini, mini_sample_folder, tmp_path, capsys):
    papers, _ = mini
    first, second = papers[0], papers[1]
    records = [
        {"paper_id": second["paper_id"], "text": second["related_work"], "candidates": second["citations"]},
        {"paper_id": "not-in-the-split", "text": "X [1].", "candidates": ["d"]},
        {"paper_id": second["paper_id"], "text": second["related_work"], "candidates": second["citations"]},
    ]
    preds = write_jsonl(tmp_path / "oracle.jsonl", records)
    out = tmp_path / "out"
    assert main(["evaluate", "rwgbench", "--predictions", str(preds), "--split", "sample", "--source",
                 str(mini_sample_folder), "--profile", "lite", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "oracle: 1/2 papers of RWGBench sample scored (1 missing, 1 extra, 1 duplicate ids)" in printed
    assert "partial: oracle covers 1/2 papers of the split" in printed
    assert "- CQ -" in printed and "- TQ -" in printed and "Soft Rec." in printed
    assert "not computed: soft_citation_recall:" in printed

    out = out / "oracle"
    rows = [json.loads(line) for line in (out / "per_paper.jsonl").read_text().splitlines()]
    assert [r["paper_id"] for r in rows] == [second["paper_id"]] and rows[0]["system"] == "oracle"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["join"]["missing"] == [first["paper_id"]] and summary["join"]["extra"] == ["not-in-the-split"]
    assert summary["precision"] == summary["recall"] == 1.0
    assert summary["intervals"]["precision"] == [None, None]  # one paper: no interval
    assert summary["confidence"] == 0.95 and summary["n_resamples"] == 1000
    with (out / "summary.csv").open() as f:
        table = list(csv.DictReader(f))
    assert table[0]["system"] == "oracle" and float(table[0]["CQ P"]) == 1.0 and table[0]["CQ CSC"] == ""

    # papers without a prediction can be scored as empty sections instead
    assert main(["evaluate", "rwgbench", "--predictions", str(preds), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--out", str(tmp_path / "out2"), "--missing-as-empty",
                 "--metrics", "precision", "recall"]) == 0
    summary = json.loads((tmp_path / "out2" / "oracle" / "summary.json").read_text())
    assert summary["n_papers"] == 2 and summary["precision"] == pytest.approx(0.5)
    assert summary["empty_citation_rate"] == pytest.approx(0.5)
    assert summary["intervals"]["precision"] == [0.0, 1.0] and summary["intervals"]["rougeL"] == [None, None]
    assert summary["n_resamples"] == 1000 and summary["interval_method"] == "percentile bootstrap over papers"
    assert "oracle: 95% CI (bootstrap over papers, 1000 resamples): P [0.000, 1.000]; R [0.000, 1.000]" in \
        capsys.readouterr().out


def test_evaluate_command_rejects_conflicting_duplicates(mini, mini_sample_folder, tmp_path, capsys):
    papers, _ = mini
    pid, cited = papers[0]["paper_id"], papers[0]["citations"][:1]
    preds = write_jsonl(tmp_path / "p.jsonl", [{"paper_id": pid, "text": "A [1].", "candidates": cited},
                                              {"paper_id": pid, "text": "B [1].", "candidates": cited}])
    assert main(["evaluate", "rwgbench", "--predictions", str(preds), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--out", str(tmp_path / "o")]) == 2
    assert f"{preds}: 1 paper_id(s) have several different predictions: '{pid}' on lines 1, 2" in \
        capsys.readouterr().err
    preds = write_jsonl(tmp_path / "q.jsonl", [{"paper_id": "nobody", "text": "A", "candidates": []}])
    assert main(["evaluate", "rwgbench", "--predictions", str(preds), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--out", str(tmp_path / "o")]) == 2
    assert "no prediction in" in capsys.readouterr().err


def test_table2_layout_marks_metrics_not_computed():
    text = format_table2([Summary.from_json({"system": "rag", "precision": 0.5, **{m: None for m in SUITE_METRICS if m != "precision"}})])
    lines = text.splitlines()
    assert [w for w in lines[0].split() if w.strip("-")] == ["CQ", "CO", "CF", "TQ"]
    header = lines[1]
    # the paper's Table 2: CQ = Prec. Rec. Soft Rec. CSC TRT, CO = CD CDB, CF = PSS CFA, TQ = R-L BS LLM
    assert header.split() == ["System", "Prec.", "Rec.", "Soft", "Rec.", "CSC", "TRT", "CD", "CDB", "PSS", "CFA",
                              "R-L", "BS", "LLM"]
    assert lines[0].index("CQ") < header.index("TRT") < lines[0].index("CO") < header.index("CDB") < lines[0].index("CF")
    assert lines[2].split() == ["rag", "0.500", *["\u2013"] * 11]  # three decimals, en dash for no value


def test_table2_lays_out_runs_as_the_paper_does():
    """Systems whose predictions name their run are printed under the paper's blocks, Retriever / Model / Method,
    with the paper's block and method order (BM25, Dense, Oracle, then Direct; RAG before Workflow)."""
    def system(model, method, retriever, oracle=False, precision=0.1):
        return Summary.from_json({"run": {"model": model, "method": method, "retriever": retriever, "oracle": oracle},
                                  "precision": precision, **{m: None for m in SUITE_METRICS if m != "precision"}})

    lines = format_table2([system("GPT-5.5", "direct", None, precision=0.0), system("GPT-5.5", "workflow", "dense"),
                           system("GPT-5.5", "rag", "oracle", oracle=True, precision=1.0),
                           system("GPT-5.5", "workflow", "bm25"), system("GPT-5.5", "rag", "bm25")]).splitlines()
    assert lines[1].split()[:4] == ["Retriever", "Model", "Method", "Prec."]
    assert [line.split()[:3] if line.startswith(" ") else line for line in lines[2:]] == [
        "BM25 (Sparse Retrieval)", ["GPT-5.5", "RAG", "0.100"], ["GPT-5.5", "Workflow", "0.100"],
        "Dense (Semantic Retrieval)", ["GPT-5.5", "Workflow", "0.100"],
        "Oracle (Ground-Truth Citations)", ["GPT-5.5", "RAG", "1.000"],
        "Baselines", ["GPT-5.5", "Direct", "0.000"]]
    # without the run of every system: one row per system name
    assert format_table2([system("m", "rag", "bm25"), Summary.from_json({"system": "x"})]).splitlines()[1].split()[0] == "System"


def test_table2_groups_are_the_papers():
    assert {g: [k for k, _ in cols] for g, cols in TABLE2_GROUPS.items()} == {
        "CQ": ["precision", "recall", "soft_citation_recall", "claim_support_consistency", "topical_relevance"],
        "CO": ["citation_density", "citation_distribution_balance"],
        "CF": ["positioning_structure_similarity", "citation_frame_alignment"],
        "TQ": ["rougeL", "bertscore_f1", "llm_judge"]}


def test_direct_predictions_report_csc_and_trt_as_not_applicable(mini, lite_suite):
    """Direct (no candidate list): P = R = 0, markers still count for CD, CDB and CFA, and CSC / TRT have no value."""
    papers, corpus = mini
    paper = papers[0]
    text = "Graph models [1] are studied. Parsers [2] and [1] use them. Transformers [3] help."
    rows, _ = score_rwgbench([text, text], [paper, paper], lite_suite, candidates=[[], None], corpus=corpus,
                             show_progress=False)
    for row in rows:
        assert row["precision"] == row["recall"] == 0 and row["no_candidates"] and row["empty_citation_output"]
        assert row["citation_density"] == pytest.approx(3 / 3)  # markers [1], [2], [3] over 3 sentences
        assert row["citation_distribution_balance"] == pytest.approx(2 / 3)  # [2], [3] once, [1] twice
        assert row["n_generated_contexts"] == 3 and row["citation_frame_alignment"] is not None
        assert row["topical_relevance"] is None and "Direct" in row["topical_relevance_not_applicable"]
    summary = summarize_rwgbench(typed_rows(rows), lite_suite)
    assert summary.value("topical_relevance") is None
    assert "Direct" in summary.reported("not_applicable")["topical_relevance"]
    assert summary.reported("n_not_applicable")["topical_relevance"] == 2
    assert summary.value("citation_density") == pytest.approx(1.0) and summary.value("precision") == 0
    assert "\u2013" in format_table2([summary.with_(system="direct")]).splitlines()[2]
    # a batch mixing both: TRT averages over the papers with a candidate list only
    mixed, _ = score_rwgbench([paper["related_work"], text], [paper, paper], lite_suite,
                              candidates=[paper["citations"], []], corpus=corpus, show_progress=False)
    mixed_summary = summarize_rwgbench(typed_rows(mixed), lite_suite)
    assert mixed_summary.value("topical_relevance") == pytest.approx(mixed[0]["topical_relevance"])
    assert mixed_summary.reported("n_not_applicable") == {"topical_relevance": 1}
    assert mixed_summary.reported("not_applicable") == {}


def test_evaluate_command_runs_the_judge_through_an_endpoint(mini, mini_sample_folder, tmp_path, capsys, monkeypatch):
    """With an endpoint configured, the suite's LLM judge runs (paper profile's judge model, here over a local
    server); the judge's failures are counted, and the other metrics are as without it."""
    from tests.fakes.openai_server import chat_server

    papers, _ = mini
    records = [{"paper_id": p["paper_id"], "text": p["related_work"], "candidates": p["citations"]} for p in papers[:2]]
    preds = write_jsonl(tmp_path / "sys.jsonl", records)
    replies = iter(['{"score": 4, "rationale": "fine"}', "no idea"])
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "EMPTY")
    with chat_server(lambda request: next(replies, "still no idea")) as server:
        assert main(["evaluate", "rwgbench", "--predictions", str(preds), "--source", str(mini_sample_folder),
                     "--profile", "lite", "--model-role", "judge=judge-test", "--judge-base-url", server.base_url,
                     "--metrics", "precision", "recall", "llm_judge", "--out", str(tmp_path / "out")]) == 0
        assert {r["model"] for r in server.requests} == {"judge-test"}
    summary = json.loads((tmp_path / "out" / "sys" / "summary.json").read_text())
    assert summary["llm_judge"] == pytest.approx(0.75)  # (4 - 1) / 4; the unreadable one is left out, counted
    assert summary["judge_failures"] == 1 and summary["models"]["judge"] == "judge-test"
    assert summary["precision"] == summary["recall"] == 1.0
    rows = [json.loads(line) for line in (tmp_path / "out" / "sys" / "per_paper.jsonl").read_text().splitlines()]
    assert [r["llm_judge"] for r in rows].count(None) == 1 and any(r["judge_error"] for r in rows)


def test_several_systems_share_the_reference_side(mini, mini_sample_folder, tmp_path, capsys, monkeypatch):
    """Two systems in one call: one Table 2 row each, and the second system's reference side (blocks, windows,
    contexts, abstracts, cited papers) is not computed again."""
    papers, corpus = mini
    scorable = [p for p in papers if p["citations"]]
    oracle = write_jsonl(tmp_path / "oracle.jsonl", [
        {"paper_id": p["paper_id"], "text": p["related_work"], "candidates": p["citations"]} for p in scorable])
    terse = write_jsonl(tmp_path / "terse.jsonl", [
        {"paper_id": p["paper_id"], "text": "Prior work [1] exists.", "candidates": p["citations"]} for p in scorable])
    assert main(["evaluate", "rwgbench", "--predictions", str(oracle), str(terse), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--no-judge", "--out", str(tmp_path / "out")]) == 0
    table = capsys.readouterr().out
    assert "oracle" in table and "terse" in table
    first = json.loads((tmp_path / "out" / "oracle" / "summary.json").read_text())
    second = json.loads((tmp_path / "out" / "terse" / "summary.json").read_text())
    assert first["precision"] == 1 and second["recall"] < 1 and second["positioning_structure_similarity"] < 1

    suite = load_rwgbench_models("lite", metrics=["topical_relevance", "positioning_structure_similarity", "bertscore_f1",
                                               "citation_frame_alignment"])
    encoded: list[str] = []
    real_encode = suite.encoder.inner.encode

    def counting_encode(texts, **kwargs):
        encoded.extend(texts)
        return real_encode(texts, **kwargs)

    monkeypatch.setattr(suite.encoder.inner, "encode", counting_encode)
    cands = [p["citations"] for p in scorable]
    score_rwgbench(["Prior work [1] exists."] * len(scorable), scorable, suite, candidates=cands, corpus=corpus,
                   show_progress=False)
    windows = len(suite.token_encoder.memo)
    encoded.clear()
    score_rwgbench(["Other work [1] differs."] * len(scorable), scorable, suite, candidates=cands, corpus=corpus,
                   show_progress=False)
    # only the new system's one block / context reaches the model; abstracts, cited papers, reference blocks
    # and contexts come from the memo; BERTScore encodes one new text
    assert set(encoded) == {"Other work differs."}
    assert len(suite.token_encoder.memo) == windows + 1
