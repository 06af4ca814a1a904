"""The SciIG suite and `sciwrite evaluate sciig`: the reference-as-prediction property, lite's not-computed
metrics, bad records that must not abort a batch, and the command end to end (outputs, lenient reader, join)."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.metrics.judge_config import JudgeConfig
from sciwrite.sciig import load_sciig
from sciwrite.sciig.metrics.lexical import score_bleu
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.suite import (
    STAGES,
    SUITE_METRICS,
    TABLE2,
    load_sciig_models,
    score_sciig,
    summarize_sciig,
)
from sciwrite.sciig.metrics.wordnet import wordnet_or_reason
from sciwrite.sources.aclsum import aclsum_paper_dir

WORDNET_MISSING = wordnet_or_reason()[1]  # None when Debian's wordnet-base is installed, else why not
# Three test papers and one holdout paper (by the builder's hash split), with short introductions.
PAPERS = ("2020.aacl-main.67", "2020.acl-main.547", "2020.acl-main.443", "2020.acl-main.573")


@pytest.fixture(scope="module")
def sciig_folder(tmp_path_factory):
    from sciwrite.sciig.data.builder import write_sciig_sample

    papers = tmp_path_factory.mktemp("sciig_papers")
    for stem in PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    folder = tmp_path_factory.mktemp("sciig_sample")
    write_sciig_sample(folder, paper_dir=papers)
    return folder


@pytest.fixture(scope="module")
def papers(sciig_folder):
    return load_sciig("sample", source=sciig_folder).to_list()


@pytest.fixture(scope="module")
def lite():
    return load_sciig_models("lite")


def test_table2_layout():
    categories = list(dict.fromkeys(c for c, _, _ in TABLE2))
    assert categories == ["Lexical", "Semantic", "Keyphrase", "Entailment", "QA", "Citation", "Fluency",
                          "LLM judge"]
    assert sorted(SUITE_METRICS) == sorted(m for metrics in (stage.metrics for stage in STAGES) for m in metrics)


def test_references_as_predictions_and_lite_not_computed(papers, lite):
    references = [p["introduction"] for p in papers]
    rows, timings = score_sciig(references, papers, lite, show_progress=False)
    summary = summarize_sciig(typed_rows(rows), lite)
    assert summary.n_papers == len(papers) == 3 and summary.reported("scoring_errors") == {}
    for metric in ("rougeL", "bertscore_f1", "keyphrase_consistency"):
        assert summary.value(metric) == pytest.approx(1.0, abs=1e-6), metric
        assert all(r[metric] == pytest.approx(1.0, abs=1e-6) for r in rows), metric
    # BLEU is corpus BLEU, from the summed statistics: the same number sacrebleu's corpus score gives
    assert summary.value("bleu") == pytest.approx(score_bleu(references, references)[0] / 100)  # the paper's 0-1 scale
    assert 0 < (summary.value("contextual_relevance") or 0) < 1 and summary.value("citation_recall") == 1.0
    # lite has no BLEURT, GPT-2, SummaC NLI or judge: not computed, with the model each needs
    not_computed = summary.not_computed
    without_wordnet = ["meteor"] if WORDNET_MISSING else []  # Debian's wordnet-base is optional
    assert sorted(not_computed) == sorted(["bleurt", "perplexity", *STAGES["summac"].metrics, *STAGES["qa"].metrics, *STAGES["judge"].metrics,
                                           *without_wordnet])
    assert "bleurt" in not_computed["bleurt"] and "gpt2" in not_computed["perplexity"]
    assert "summac_nli" in not_computed["summac_faithfulness"] and "judge" in not_computed["judge_coverage"]
    assert "mrm8488/t5-base-finetuned-question-generation-ap" in not_computed["qa_faithfulness"]
    assert "deepset/roberta-base-squad2" in not_computed["qa_consistency"]
    assert all(m in summary.metrics and summary.value(m) is None for m in not_computed)
    assert set(timings) == {"rouge", "bleu", "meteor", "bertscore", "contextual_relevance", "keyphrases",
                            "citations"} - set(without_wordnet)
    assert summary.models["keyphrase_encoder"] == "packaged:all-MiniLM-L6-v2"


@pytest.mark.skipif(bool(WORDNET_MISSING), reason=str(WORDNET_MISSING))
def test_meteor_of_the_references_themselves_is_one(papers, lite):
    references = [p["introduction"] for p in papers]
    rows, _ = score_sciig(references, papers, lite, show_progress=False)
    assert "meteor" not in summarize_sciig(typed_rows(rows), lite).not_computed
    assert all(r["meteor"] == pytest.approx(1.0, abs=1e-3) for r in rows)


def test_empty_and_runaway_generations_do_not_abort_the_batch(papers):
    suite = load_sciig_models("lite", metrics=["rouge", "bleu", "keyphrases", "citations"])
    runaway = " ".join(["Graph models are widely studied here (Li et al., 2020)."] * 3000)  # 30,000 words
    texts = ["", runaway, papers[2]["introduction"]]
    rows, _ = score_sciig(texts, papers, suite, show_progress=False)
    assert "field 'predictions' is empty" in rows[0]["errors"]["keyphrases"]
    assert "30000 words" in rows[1]["errors"]["keyphrases"]
    for row in rows[:2]:
        assert set(row["errors"]) == {"keyphrases"} and row["keyphrase_consistency"] is None
        assert row["rougeL"] is not None and row["citation_recall"] is not None
    assert rows[0]["rougeL"] == 0 and 0 < rows[1]["rougeL"] < 1
    assert rows[2]["errors"] == {} and rows[2]["keyphrase_consistency"] == 1.0
    summary = summarize_sciig(typed_rows(rows), suite)
    assert summary.value("keyphrase_consistency") == 1.0  # the mean of the one paper it scored...
    assert sorted(summary.reported("scoring_errors")["keyphrases"]) == sorted(p["paper_id"] for p in papers[:2])  # ...and why


def test_bad_input_names_the_record(papers, lite):
    with pytest.raises(ValueError, match=r"predictions \(1\) and papers \(3\)"):
        score_sciig(["x"], papers, lite, show_progress=False)
    with pytest.raises(ValueError, match="record 0: field 'text' must be a string, got NoneType"):
        score_sciig([None], papers[:1], lite, show_progress=False)
    with pytest.raises(ValueError, match="unknown SciIG metric 'nope'"):
        load_sciig_models("lite", metrics=["nope"])


def test_evaluate_sciig_command(sciig_folder, papers, tmp_path, capsys):
    holdout = load_sciig("sample", source=sciig_folder, split="holdout")[0]["paper_id"]
    lines = [json.dumps({"paper_id": papers[0]["paper_id"], "text": papers[0]["introduction"]}),
             "{not json",
             json.dumps({"paper_id": papers[1]["paper_id"], "text": "A short generated introduction (Li, 2020)."}),
             json.dumps({"paper_id": "unknown-paper", "text": "x"}),
             json.dumps({"paper_id": holdout, "text": "x"}),
             json.dumps({"paper_id": papers[1]["paper_id"], "text": "a different text"}),
             json.dumps({"paper_id": papers[0]["paper_id"]})]
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["evaluate", "sciig", "--predictions", str(predictions), "--split", "sample", "--source",
            str(sciig_folder), "--profile", "lite", "--metrics", "rouge", "bleu", "keyphrases", "citations",
            "bleurt", "--out", str(tmp_path / "out")]
    assert main(argv) == 2  # by default a file with bad lines is refused, every one named, before any model runs
    refused = capsys.readouterr().err
    assert "3 malformed prediction record(s)" in refused and "preds.jsonl:2: not valid JSON" in refused
    assert "preds.jsonl:6:" in refused and "preds.jsonl:7:" in refused and "--bad-records skip" in refused
    code = main([*argv, "--bad-records", "skip"])
    out = tmp_path / "out" / "preds"  # <out>/<system>/, as for every benchmark
    printed = capsys.readouterr().out
    assert code == 0
    assert "2/3 papers scored (1 missing, 1 extra, 1 holdout, 3 rejected lines)" in printed
    assert "partial: preds covers 2/3 papers of the test split" in printed
    assert f"rejected: {predictions}:2: not valid JSON" in printed
    assert f"rejected: {predictions}:6:" in printed and "already predicted on line 3" in printed
    assert f"rejected: {predictions}:7:" in printed and "field 'text' (or 'pred') must be a string" in printed
    assert f"missing: 1 test papers have no prediction, e.g. ['{papers[2]['paper_id']}']" in printed
    assert "extra: 1 predictions name unknown papers, e.g. ['unknown-paper']" in printed
    assert "Lexical" in printed and "ROUGE-L" in printed and "not computed: Semantic BLEURT:" in printed
    for name in ("per_paper.jsonl", "summary.json", "summary.csv", "metric_timings.json", "rejected.jsonl"):
        assert (out / name).exists(), name
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [2, 6, 7] and rejected[0]["content"] == "{not json"
    rows = [json.loads(line) for line in (out / "per_paper.jsonl").read_text().splitlines()]
    assert [r["paper_id"] for r in rows] == [papers[0]["paper_id"], papers[1]["paper_id"]]
    assert rows[0]["rougeL"] == pytest.approx(1.0) and "keyphrase_log" not in rows[0]
    for row in rows:
        log = json.loads((out / "keyphrase_outputs" / f"{row['paper_id']}.json").read_text())
        assert log["paper_id"] == row["paper_id"] and log["keyphrase_log"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["join"]["missing"] == [papers[2]["paper_id"]] and summary["join"]["holdout_excluded"] == [holdout]
    assert (summary["split"], summary["scored_split"]) == ("sample", "test")
    assert set(summary["metric_timings"]) == {"rouge", "bleu", "keyphrases", "citations"}
    assert json.loads((out / "metric_timings.json").read_text()) == summary["metric_timings"]
    with (out / "summary.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [(r["category"], r["metric"]) for r in table] == [(c, label) for c, _, label in TABLE2] + [
        ("Grounding", "Unmatched citation rate")]  # apart from Table 2, as printed
    assert float(table[-1]["value"]) == pytest.approx(summary["unmatched_citation_rate"])
    assert next(r for r in table if r["metric"] == "BLEURT")["value"] == ""
    # 95% bootstrap intervals over the 2 papers; BLEU (corpus BLEU) has none, sentence BLEU has
    assert summary["n_resamples"] == 1000 and summary["confidence"] == 0.95 and summary["interval_method"]
    low, high = summary["intervals"]["rougeL"]
    assert min(r["rougeL"] for r in rows) <= low <= summary["rougeL"] <= high <= max(r["rougeL"] for r in rows)
    assert summary["intervals"]["bleu"] == [None, None] and summary["intervals"]["bleurt"] == [None, None]
    assert summary["intervals"]["sentence_bleu"][0] is not None and "bleu" in summary["interval_notes"]
    assert "95% CI (bootstrap over papers, 1000 resamples): ROUGE-1 [" in printed


def test_evaluate_sciig_upstream_format(sciig_folder, papers, tmp_path, capsys):
    rows = [{"pred": papers[1]["introduction"], "label": papers[1]["introduction"], "desc": "p1"},
            {"pred": "x", "label": "an introduction of no paper", "desc": "p?"}]
    predictions = tmp_path / "upstream.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["evaluate", "sciig", "--predictions", str(predictions), "--source", str(sciig_folder),
                 "--upstream", "--profile", "lite", "--metrics", "rouge", "--out", str(out),
                 "--bad-records", "skip"]) == 0
    out = out / "upstream"
    printed = capsys.readouterr().out
    assert "1/3 papers scored (2 missing, 0 extra, 0 holdout, 1 rejected lines)" in printed
    assert f"rejected: {predictions}:2: label matches no paper's introduction" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rougeL"] == pytest.approx(1.0) and summary["upstream"]["matched"] == 1


def test_a_second_system_embeds_only_its_own_texts(papers, monkeypatch):
    """The encoders remember the references', sources' and keyphrase candidates' embeddings across systems."""
    suite = load_sciig_models("lite", metrics=["keyphrases", "contextual_relevance", "bertscore"])
    inner = suite.keyphrase_encoder.inner
    assert inner is suite.contextual_encoder.inner  # one MiniLM instance serves both roles
    encoded: list[str] = []
    real_encode = inner.encode

    def counting_encode(texts, **kwargs):
        encoded.extend(texts)
        return real_encode(texts, **kwargs)

    monkeypatch.setattr(inner, "encode", counting_encode)
    score_sciig(["Graph parsers are widely studied (Smith et al., 2020)."] * len(papers), papers, suite,
                show_progress=False)
    first = len(encoded)
    encoded.clear()
    windows = len(suite.token_encoder.memo)
    score_sciig(["Neural parsers of graphs are studied (Smith et al., 2020)."] * len(papers), papers, suite,
                show_progress=False)
    assert 0 < len(encoded) < first / 5  # the new generation and its new n-grams only
    assert not any(paper["introduction"] in encoded or paper["abstract"] in encoded for paper in papers)
    assert len(suite.token_encoder.memo) == windows + 1


def test_evaluate_sciig_passes_the_batch_size(sciig_folder, papers, tmp_path, capsys, monkeypatch):
    from sciwrite.sciig.metrics import evaluation as sciig_report

    seen = []
    real_score = sciig_report.score_sciig

    def spy(*args, **kwargs):
        seen.append(kwargs.get("batch_size"))
        return real_score(*args, **kwargs)

    monkeypatch.setattr(sciig_report, "score_sciig", spy)
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(json.dumps({"paper_id": papers[0]["paper_id"], "text": papers[0]["introduction"]}) + "\n",
                           encoding="utf-8")
    argv = ["evaluate", "sciig", "--predictions", str(predictions), "--source", str(sciig_folder), "--profile", "lite",
            "--metrics", "rouge"]
    assert main([*argv, "--batch-size", "7", "--out", str(tmp_path / "a")]) == 0
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    assert seen == [7, 64]  # the option, then the default
    assert json.loads((tmp_path / "a" / "preds" / "summary.json").read_text())["rougeL"] == pytest.approx(1.0)


def _judge_answer(request):
    """Every score of the Table 6 prompt at WANT<x> (ZZWANT1.0 -> 1.0); ZZGARBAGE: prose, never a readable score."""
    import re

    [message] = request["messages"]
    user = message["content"]
    names = [n for n in re.findall(r'"([A-Z][\w ]+)": "?float', user)]
    if "ZZGARBAGE" in user:
        return "I would rather not grade this."
    want = float(re.search(r"ZZWANT([\d.]*\d)", user).group(1))
    return json.dumps({**{name: want for name in names}, "rationale": "ok"})


def test_judge_through_the_suite(papers, monkeypatch):
    """The SciIG suite's judge over a local OpenAI-compatible server: the five judge_* scores on each row and their
    means in the summary, an unreadable reply counted as a failure and left out of the means, the judge model
    override sent to the server and reported."""
    from tests.fakes.openai_server import chat_server

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    texts = [f"Our introduction ZZWANT1.0 (Li, 2020). {papers[0]['title']}", "An introduction ZZGARBAGE.",
             "Another introduction ZZWANT0.25 here."]
    judge_scores = STAGES["judge"].metrics
    assert len(judge_scores) == 5
    with chat_server(_judge_answer) as server:
        suite = load_sciig_models("lite", models={"judge": "judge-override"}, metrics=["judge", "rouge"],
                                  judge=JudgeConfig(base_url=server.base_url, api_key="k", max_retries=0))
        rows, timings = score_sciig(texts, papers, suite, show_progress=False)
        summary = summarize_sciig(typed_rows(rows), suite)
        suite.judge.close()
    assert {r["model"] for r in server.requests} == {"judge-override"}
    assert summary.models["judge"] == "judge-override" and set(timings) == {"rouge", "judge"}
    assert [rows[0][m] for m in judge_scores] == [1.0] * 5  # the judge's 0.0-1.0 float as given
    assert [rows[2][m] for m in judge_scores] == [0.25] * 5
    assert all(rows[1][m] is None for m in judge_scores) and rows[1]["judge_errors"]
    assert not rows[0]["judge_errors"] and not rows[2]["judge_errors"]
    for metric in judge_scores:
        assert summary.value(metric) == pytest.approx((1.0 + 0.25) / 2), metric  # the failed paper is left out
    assert summary.value("judge_failures") == 1
    assert all(r["rougeL"] is not None for r in rows) and summary.value("rougeL") is not None
    assert "judge_coverage" not in summary.not_computed


def test_model_line_under_the_table():
    line = format_model_line(Summary.from_json({"models": {
        "judge": "gpt-4o", "bertscore": "roberta-large", "citation_extractor": "regex (offline fallback)", "extra": "x"}}))
    assert line == ("models: BERTScore / QA sim_k = roberta-large; citation extraction = regex "
                    "(offline fallback); LLM judge = gpt-4o; extra = x")
    assert format_model_line(Summary.from_json({"models": {}})) == ""
