"""SurGE's sensitivity analysis (`sciwrite.surge.metrics.sensitivity`): each perturbation of a hand-made expert survey
worked out by hand (headings and the reference list stay where they are unless the damage is about them), the
declared directions, and the analysis on the two-survey mini sample, its figures checked by hand, and through
``sciwrite meta-eval sensitivity``."""

from __future__ import annotations

import json
import math
import random

import pytest

from sciwrite.cli import main
from sciwrite.metrics.sensitivity import PERTURBATIONS, expectation_in, failures
from sciwrite.surge.benchmark import SURGE
from sciwrite.surge.data.expert import expert_markdown, split_references
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.metrics.sensitivity import (
    drop_half_citations,
    drop_last_paragraph,
    perturb_surge,
    random_citations,
    shift_markers,
    shuffle_paragraphs,
    surge_sensitivity,
)
from sciwrite.surge.metrics.specs import BLEU, COVERAGE, RELEVANCE_SECTION, ROUGE1, SH_RECALL
from sciwrite.surge.metrics.suite import load_surge_models
from sciwrite.surge.survey_markdown import parse_survey

STRUCTURE = [
    {"id": "0", "parent_id": "", "title": "root", "content": ""},
    {"id": "a", "parent_id": "0", "title": "Intro", "content": "Alpha works well. Beta follows it."},
    {"id": "b", "parent_id": "0", "title": "Methods", "content": "Gamma is used. Delta ends here."},
    {"id": "c", "parent_id": "b", "title": "Results", "content": "Epsilon is high."},
]
TITLES = {"x": "Paper X", "y": "Paper Y", "z": "Paper Z", "w": "Paper W"}
TEXT = expert_markdown("Survey", STRUCTURE, {"a": ["x", "y"], "b": ["z"], "c": ["w"]}, TITLES)
REFERENCES = "## References\n\n[1] Paper X\n[2] Paper Y\n[3] Paper Z\n[4] Paper W\n"


def test_the_hand_made_survey():
    assert TEXT == ("# Survey\n\n## Intro\n\nAlpha works well. Beta follows it [1][2].\n\n## Methods\n\n"
                    "Gamma is used. Delta ends here [3].\n\n### Results\n\nEpsilon is high [4].\n\n" + REFERENCES)


def test_drop_half_removes_every_second_work_its_markers_and_its_reference():
    assert drop_half_citations(TEXT) == (
        "# Survey\n\n## Intro\n\nAlpha works well. Beta follows it [1].\n\n## Methods\n\n"
        "Gamma is used. Delta ends here [3].\n\n### Results\n\nEpsilon is high.\n\n"
        "## References\n\n[1] Paper X\n[3] Paper Z\n")


def test_shift_moves_markers_to_the_next_sentence_across_headings():
    # [1][2] close Intro's last sentence and move into Methods' first; [3] moves into Results; the last sentence's
    # [4] goes to sentence random.Random(0).randrange(4), the fourth: "Delta ends here"
    assert random.Random(0).randrange(4) == 3
    assert shift_markers(TEXT, 0) == (
        "# Survey\n\n## Intro\n\nAlpha works well. Beta follows it.\n\n## Methods\n\n"
        "Gamma is used [1][2]. Delta ends here [4].\n\n### Results\n\nEpsilon is high [3].\n\n" + REFERENCES)
    markers = parse_survey(shift_markers(TEXT, 0)).markers(upstream=False)
    assert [(m.number, m.heading) for m in markers] == [(1, "Methods"), (2, "Methods"), (4, "Methods"),
                                                         (3, "Results")]


def test_shuffle_keeps_headings_and_references_in_place_and_moves_the_paragraphs():
    lines = TEXT.split("\n")
    for seed in range(5):
        shuffled = shuffle_paragraphs(TEXT, seed).split("\n")
        assert len(shuffled) == len(lines)
        assert [a for a, b in zip(shuffled, lines) if a != b]  # never the original order
        for before, after in zip(lines, shuffled):
            if before.startswith(("#", "[")) or not before:
                assert after == before
        assert sorted(shuffled) == sorted(lines)


def test_drop_last_paragraph_keeps_the_reference_list():
    assert drop_last_paragraph(TEXT) == (
        "# Survey\n\n## Intro\n\nAlpha works well. Beta follows it [1][2].\n\n## Methods\n\n"
        "Gamma is used. Delta ends here [3].\n\n### Results\n\n" + REFERENCES)


def test_random_citations_draws_titles_that_resolve_to_none_of_the_surveys_works():
    # "paper-x!" has Paper X's letters (SurGE resolves it to Paper X) and "123" none at all: neither is drawn
    pool = ["Paper X", "Paper Q", "paper-x!", "Paper R", "123", "Paper S", "Paper T"]
    body, references = split_references(random_citations(TEXT, pool, random.Random(0)))
    assert body == split_references(TEXT)[0]  # the markers stay
    assert [n for n, _ in references] == [1, 2, 3, 4]
    assert sorted(title for _, title in references) == ["Paper Q", "Paper R", "Paper S", "Paper T"]


def test_what_each_metric_reads_decides_its_expected_direction():
    sensitivity = SURGE.studies.sensitivity
    expected = lambda metric, perturbation: expectation_in(sensitivity.expected, sensitivity.reasons,  # noqa: E731
                                                           metric, perturbation)
    for perturbation in ("shift_markers", "shuffle_paragraphs", "drop_last_paragraph", "duplicate_text"):
        direction, reason = expected(COVERAGE.key, perturbation)
        assert direction == "any" and "reference list" in reason
    assert expected(COVERAGE.key, "drop_half_citations") == ("down", "")
    assert expected(RELEVANCE_SECTION.key, "shift_markers")[0] == "down"
    assert expected(SH_RECALL.key, "shuffle_paragraphs")[0] == "any"
    assert expected(ROUGE1.key, "shuffle_paragraphs") == ("down", "")
    assert expected(BLEU.key, "empty_text")[0] == "any"


@pytest.fixture(scope="module")
def mini(surge_mini_folder):
    return (load_surge("sample", source=str(surge_mini_folder)).to_list(),
            load_surge("sample_corpus", source=str(surge_mini_folder)))


def test_perturb_surge_gives_every_perturbation_per_survey(mini):
    surveys, corpus = mini
    batches = perturb_surge(surveys, list(corpus["title"]))
    assert list(batches) == ["reference", *PERTURBATIONS]
    assert batches["reference"] == [s["text"] for s in surveys]
    assert batches["abstract_as_text"] == [s["abstract"] for s in surveys]
    assert batches["empty_text"] == ["", ""]
    assert all(len(texts) == 2 for texts in batches.values())


def test_the_analysis_on_the_mini_sample(mini):
    surveys, corpus = mini
    models = load_surge_models("lite", metrics=[COVERAGE.key, SH_RECALL.key, "lexical"])
    rows = surge_sensitivity(surveys, corpus, models, n_resamples=200)
    assert {r["metric"] for r in rows} == {COVERAGE.key, SH_RECALL.key, "rouge1", "rouge2", "rougeL", BLEU.key}
    by = {(r["metric"], r["perturbation"]): r for r in rows}
    # every cited work of the two surveys resolves: the expert's Coverage is 1; half of n works kept: ceil(n/2)/n
    n_cites = [len(s["all_cites"]) for s in surveys]
    assert n_cites == [11, 10]
    assert by[COVERAGE.key, "drop_half_citations"]["reference"] == 1.0
    assert by[COVERAGE.key, "drop_half_citations"]["perturbed"] == pytest.approx((6 / 11 + 5 / 10) / 2)
    for perturbation in ("random_citations", "abstract_as_text", "empty_text"):
        assert by[COVERAGE.key, perturbation]["perturbed"] == 0.0
        assert by[COVERAGE.key, perturbation]["moved_as_expected"] is True
    for perturbation in ("shift_markers", "shuffle_paragraphs", "drop_last_paragraph", "duplicate_text"):
        assert by[COVERAGE.key, perturbation]["difference"] == 0.0
        assert by[SH_RECALL.key, perturbation]["difference"] == pytest.approx(0.0, abs=1e-9)
        assert by[COVERAGE.key, perturbation]["moved_as_expected"] is None
    assert by[SH_RECALL.key, "empty_text"]["perturbed"] == 0.0  # no heading: SurGE's 0
    assert by["rouge1", "duplicate_text"]["difference"] == pytest.approx(0.0, abs=1e-12)  # a mean over passages
    assert by["rouge1", "empty_text"]["n_papers"] == 0 and by["rouge1", "empty_text"]["moved_as_expected"] is None
    assert by["rouge2", "shuffle_paragraphs"]["moved_as_expected"] is True
    assert failures(rows) == []


def test_the_command_on_the_mini_sample(surge_mini_folder, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SCIWRITE_SURGE_DIR", str(surge_mini_folder))
    stem = tmp_path / "sens"
    assert main(["meta-eval", "sensitivity", "--benchmark", "surge", "--profile", "lite", "--metrics",
                 COVERAGE.key, "--bootstrap", "50", "--out", str(stem)]) == 0
    out = capsys.readouterr().out
    assert "surge sensitivity" in out and "2 papers" in out and "fails to move as expected: none" in out
    rows = json.loads(stem.with_suffix(".json").read_text())
    assert [r["perturbation"] for r in rows] == list(PERTURBATIONS)
    drop = rows[0]
    assert drop["difference"] == pytest.approx((6 / 11 + 5 / 10) / 2 - 1.0)
    assert math.isclose(drop["reference"], 1.0)
