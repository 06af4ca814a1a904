"""`sciwrite evaluate surge` end to end on the offline sample: the three prediction layouts give one summary,
Coverage and citation precision by hand, the grounding block, bad records, a survey the lexical scorer cannot
score, what the lite profile leaves out and why, the relevance stage on a tiny random NLI model, the summary's
checks, and the evaluate module."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import sciwrite
from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.core.metric_scales import check_result
from sciwrite.core.predictions import SystemPredictions
from sciwrite.scoring.checks import result_rules
from sciwrite.scoring.core import score_systems
from sciwrite.scoring.request import ScoringRequest
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.metrics.coverage import surge_normalize
from sciwrite.surge.metrics.suite import SCORING_ERRORS
from tests.cli.error_line import error_line

BENCH = get_benchmark("surge")
INVENTED = "A Theory of Everything That Nobody Has Written"
#: A paragraph of well over 100 characters, citing all four references.
PARAGRAPH = ("Neural sequence models have replaced phrase tables in translation [1], first with recurrent encoders [2] "
             "and later with attention alone [3]; a unified theory remains open [4].")


@pytest.fixture(scope="module")
def sample(surge_sample_folder) -> Path:
    return surge_sample_folder


@pytest.fixture(scope="module")
def chosen(sample) -> dict[str, Any]:
    """Survey A (the first whose all_cites has no repeat and three cited titles no other corpus title resembles:
    a unique normalised title and unique first three words) with those three titles; survey B, the next one."""
    surveys, corpus = load_surge("sample", source=sample), load_surge("sample_corpus", source=sample)
    title = dict(zip(corpus["doc_id"], corpus["title"], strict=True))
    exact = Counter(surge_normalize(t) for t in title.values())
    start = Counter(" ".join(t.lower().split()[:3]) for t in title.values())
    for n, survey in enumerate(surveys):
        cites = survey["all_cites"]
        if len(set(cites)) != len(cites) or len(cites) < 5:
            continue
        clear = [d for d in cites if exact[surge_normalize(title[d])] == 1 and len(title[d].split()) >= 4
                 and start[" ".join(title[d].lower().split()[:3])] == 1]
        if len(clear) >= 3:
            return {"a": survey, "b": surveys[n + 1], "titles": [title[d] for d in clear[:3]]}
    raise AssertionError("no survey of the sample fits")


def survey_a_text(chosen) -> str:
    references = [*chosen["titles"], INVENTED]
    return (f"# {chosen['a']['title']}\n\n## Introduction\n\n{PARAGRAPH}\n\n## Neural models\n\n{PARAGRAPH}\n\n"
            "## References\n\n" + "\n".join(f"[{i}] {t}" for i, t in enumerate(references, 1)) + "\n")


#: Survey B: no paragraph of 100 characters, one invented reference.
SURVEY_B = "# A short one\n\n## Only\n\nToo short to score [1].\n\n## References\n\n[1] Nothing Like This Exists Anywhere\n"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def three_layouts(tmp_path: Path, chosen) -> list[Path]:
    a, b = chosen["a"]["paper_id"], chosen["b"]["paper_id"]
    texts = {a: survey_a_text(chosen), b: SURVEY_B}
    by_survey = write_jsonl(tmp_path / "by_survey_id.jsonl", [{"survey_id": k, "text": v} for k, v in texts.items()])
    by_paper = write_jsonl(tmp_path / "by_paper_id.jsonl", [{"paper_id": k, "text": v} for k, v in texts.items()])
    folder = tmp_path / "output"  # SurGE's layout: output/<survey_id>/<one file>
    for survey_id, text in texts.items():
        (folder / survey_id).mkdir(parents=True)
        (folder / survey_id / "survey").write_text(text, encoding="utf-8")
    (folder / "log.json").write_text("{}", encoding="utf-8")  # upstream's own log: no survey
    return [by_survey, by_paper, folder]


def request(sample: Path, **kwargs: Any) -> ScoringRequest:
    return ScoringRequest(**{"split": "sample", "source": str(sample), "profile": "lite", "bootstrap": 200,
                             "show_progress": False, **kwargs})


@pytest.fixture(scope="module")
def results(sample, chosen, tmp_path_factory):
    paths = three_layouts(tmp_path_factory.mktemp("predictions"), chosen)
    return score_systems(BENCH, [SystemPredictions.from_file(p) for p in paths], request(sample))


def test_the_three_layouts_give_one_summary(results):
    by_survey, by_paper, folder = results
    for other in (by_paper, folder):
        assert other.summary.metrics == by_survey.summary.metrics
        assert other.summary.grounding == by_survey.summary.grounding
        assert other.summary.intervals == by_survey.summary.intervals
        assert [r.to_json() for r in other.rows] == [r.to_json() for r in by_survey.rows]
    assert by_survey.summary.n_papers == 2 and by_survey.summary.join.n_matched == 2


def test_coverage_and_citation_precision_by_hand(results, chosen):
    result = results[0]
    rows = {row.paper_id: row for row in result.rows}
    a, b = rows[chosen["a"]["paper_id"]], rows[chosen["b"]["paper_id"]]
    n_gold = len(chosen["a"]["all_cites"])
    # A lists 3 of its all_cites by their exact corpus titles and one invented title
    assert a.value("reference_coverage") == pytest.approx(3 / n_gold)
    assert a.value("citation_precision") == pytest.approx(3 / 4)
    assert a.to_json()["n_references"] == 4 and a.to_json()["n_references_resolved"] == 3
    # B lists one invented title
    assert b.value("reference_coverage") == 0.0 and b.value("citation_precision") == 0.0
    summary = result.summary
    assert summary.value("reference_coverage") == pytest.approx((3 / n_gold + 0.0) / 2)
    assert summary.value("citation_precision") == pytest.approx((0.75 + 0.0) / 2)


def test_grounding_block_counts_found_and_not_found(results, chosen):
    result = results[0]
    rows = {row.paper_id: row.to_json() for row in result.rows}
    a, b = rows[chosen["a"]["paper_id"]], rows[chosen["b"]["paper_id"]]
    assert (a["grounding_n_found"], a["grounding_n_not_found"], a["grounding_n_references"]) == (3, 1, 4)
    assert [ref["verdict"] for ref in a["grounding_references"]] == ["found", "found", "found", "not_found"]
    assert all(ref["gold"] for ref in a["grounding_references"][:3])
    assert (b["grounding_n_found"], b["grounding_n_not_found"]) == (0, 1)
    grounding = result.summary.grounding
    assert grounding is not None
    # the fuzzy resolver finds what the exact titles find here: recall 3/n for A, 0 for B
    n_gold = len(chosen["a"]["all_cites"])
    assert grounding.reported("grounded_recall") == pytest.approx((3 / n_gold) / 2)
    assert grounding.reported("grounding_found_rate") == pytest.approx((3 / 4 + 0) / 2)


def test_a_survey_without_a_100_character_passage_gets_a_lexical_error_not_a_crash(results, chosen):
    result = results[0]
    rows = {row.paper_id: row for row in result.rows}
    a, b = rows[chosen["a"]["paper_id"]], rows[chosen["b"]["paper_id"]]
    assert b.errors == {"lexical": "no paragraph of 100 characters or more in the generated or the expert survey"}
    assert [b.value(m) for m in ("rouge1", "rouge2", "rougeL", "bleu")] == [None] * 4
    assert all(0.0 < a.value(m) <= 1.0 for m in ("rouge1", "rouge2", "rougeL", "bleu"))
    summary = result.summary
    assert summary.value("rouge1") == pytest.approx(a.value("rouge1"))  # the mean over the surveys it scored
    assert summary.details[SCORING_ERRORS] == {"lexical": {chosen["b"]["paper_id"]: b.errors["lexical"]}}
    assert summary.value("sh_recall") is not None


def test_the_lite_profile_names_the_models_it_lacks(results):
    summary = results[0].summary
    not_computed = summary.not_computed
    assert set(not_computed) == {"relevance_paper", "relevance_section", "relevance_sentence", "structure_quality",
                                 "logic"}
    for key in ("relevance_paper", "relevance_section", "relevance_sentence"):
        assert "cross-encoder/nli-deberta-v3-base" in not_computed[key] and summary.value(key) is None
    for key in ("structure_quality", "logic"):
        assert "gpt-4o" in not_computed[key] and summary.value(key) is None
    assert summary.models == {"heading_encoder": "packaged:all-MiniLM-L6-v2"}


def test_the_summary_passes_the_result_check(results):
    for result in results:
        check_result(result.summary, result.rows, result_rules(BENCH), summary_path="run/summary.json",
                     rows_path="run/per_paper.jsonl")


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory) -> str:
    """A tiny random BERT three-way classifier labelled as cross-encoder/nli-deberta-v3-base is (contradiction,
    entailment, neutral), with the packaged MiniLM's tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    labels = {0: "contradiction", 1: "entailment", 2: "neutral"}
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512, id2label=labels,
                        label2id={v: k for k, v in labels.items()})
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-surge-nli")
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_the_relevance_stage_runs_on_a_tiny_nli_model(sample, chosen, tiny_nli, tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"survey_id": chosen["a"]["paper_id"], "text": survey_a_text(chosen)}])
    [result] = score_systems(BENCH, [SystemPredictions.from_file(path)],
                             request(sample, models={"surge_nli": tiny_nli}, metrics=("relevance",), bootstrap=0))
    summary = result.summary
    assert summary.models == {"surge_nli": tiny_nli}
    assert not {"relevance_paper", "relevance_section", "relevance_sentence"} & set(summary.not_computed)
    [row] = result.rows
    assert row.errors == {}
    for key in ("relevance_paper", "relevance_section", "relevance_sentence"):
        assert 0.0 <= row.value(key) <= 1.0 and summary.value(key) == row.value(key)
    assert summary.value("reference_coverage") is None  # not requested
    check_result(summary, result.rows, result_rules(BENCH), summary_path="run/summary.json")


def test_a_line_without_text_is_refused_or_skipped_as_asked(sample, chosen, tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [{"survey_id": chosen["a"]["paper_id"], "text": survey_a_text(chosen)},
                                              {"survey_id": chosen["b"]["paper_id"]}])
    argv = ["evaluate", "surge", "--predictions", str(path), "--source", str(sample), "--profile", "lite",
            "--metrics", "reference_coverage", "--bootstrap", "0"]
    line = error_line([*argv, "--out", str(tmp_path / "refused")], capsys)
    assert f"{path}:2" in line
    assert not (tmp_path / "refused" / "p" / "summary.json").exists()
    out = tmp_path / "skipped"
    assert main([*argv, "--bad-records", "skip", "--out", str(out)]) == 0
    summary = json.loads((out / "p" / "summary.json").read_text())
    assert summary["n_papers"] == 1 and summary["join"]["n_rejected_lines"] == 1
    assert summary["reference_coverage"] == pytest.approx(3 / len(chosen["a"]["all_cites"]))
    [rejected] = [json.loads(line) for line in (out / "p" / "rejected.jsonl").read_text().splitlines()]
    assert rejected["line"] == 2
    assert "1 rejected lines" in capsys.readouterr().out


def test_predictions_that_match_no_survey_are_refused(sample, tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [{"survey_id": "no-such-survey", "text": SURVEY_B}])
    line = error_line(["evaluate", "surge", "--predictions", str(path), "--source", str(sample), "--profile", "lite",
                       "--bootstrap", "0"], capsys)
    assert "no prediction in" in line and "matches a survey of SurGE 'sample'" in line


def test_the_default_sample_folder_is_built_on_first_use(tmp_path, monkeypatch):
    folder = tmp_path / "surge-here"
    monkeypatch.setenv("SCIWRITE_SURGE_DIR", str(folder))
    with pytest.raises(FileNotFoundError):  # not built, and not asked to
        load_surge("sample", build_if_missing=False)
    corpus = load_surge("sample_corpus")
    assert (folder / "README.md").is_file() and len(corpus) > 0
    written = (folder / "README.md").stat().st_mtime_ns
    assert len(load_surge("sample")) > 0 and (folder / "README.md").stat().st_mtime_ns == written


def test_the_evaluate_module_scores_as_the_core_does(sample, chosen):
    metric = sciwrite.load_metric("surge")
    surveys, corpus = load_surge("sample", source=sample), load_surge("sample_corpus", source=sample)
    result = metric.compute(predictions=[survey_a_text(chosen)], references=[chosen["a"]["paper_id"]],
                            surveys=surveys, corpus=corpus, profile="lite", metrics=["reference_coverage"],
                            bootstrap=0, return_per_paper=True)
    assert result["reference_coverage"] == pytest.approx(3 / len(chosen["a"]["all_cites"]))
    assert result["citation_precision"] == pytest.approx(0.75)
    assert result["n_papers"] == 1 and result["per_paper"][0]["paper_id"] == chosen["a"]["paper_id"]
    with pytest.raises(ValueError, match="`surveys` .* and `corpus` .* are required"):
        metric.compute(predictions=["x"], references=["y"])
