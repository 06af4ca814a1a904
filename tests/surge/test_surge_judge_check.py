"""SurGE's part of the judge check (`sciwrite.surge.metrics.judge_check`): citations removed and swapped on a
hand-made survey, worked out by hand; the pairs on the two-survey mini sample (every kind, the same twice); SurGE's own
two judges asked through the fake OpenAI server (tests/fakes/openai_server.py); and ``sciwrite meta-eval
judge-check --benchmark surge`` against it, with a scripted judge that, like SurGE's, reads outlines and passages but
not citations."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.llm.client import ChatClient
from sciwrite.meta_eval.damage import same_length
from sciwrite.meta_eval.judge_check import sample_pairs, sample_papers
from sciwrite.meta_eval.judge_pairs import KINDS, LENGTH_MATCHED, JudgedText, pairs_digest
from sciwrite.sources.markers import MARKER_GROUP
from sciwrite.surge.benchmark import SURGE
from sciwrite.surge.data.expert import expert_markdown
from sciwrite.surge.metrics.judge_check import CRITERIA, OUTSIDE_RUBRIC, remove_citations, score, swap_citations
from sciwrite.surge.metrics.judge_prompts import target_outline
from sciwrite.surge.metrics.specs import LOGIC, STRUCTURE_QUALITY
from sciwrite.surge.survey_markdown import parse_survey
from tests.fakes.openai_server import ChatServer, chat_server, isolate_from_real_endpoints, like_real_endpoints
from tests.fakes.scripted_judges import CitationBlindJudge

STRUCTURE = [
    {"id": "0", "parent_id": "", "title": "root", "content": ""},
    {"id": "a", "parent_id": "0", "title": "Intro", "content": "Alpha works well. Beta follows it."},
    {"id": "b", "parent_id": "0", "title": "Methods", "content": "Gamma is used. Delta ends here."},
]
TEXT = expert_markdown("Survey", STRUCTURE, {"a": ["x", "y"], "b": ["z"]},
                       {"x": "Paper X", "y": "Paper Y", "z": "Paper Z"})
OTHER = expert_markdown("Other", STRUCTURE[:2], {"a": ["p", "q"]}, {"p": "Paper P", "q": "Paper Q"})


@pytest.fixture(autouse=True)
def _no_endpoint(monkeypatch):
    isolate_from_real_endpoints(monkeypatch)


def test_removing_citations_deletes_the_markers_and_the_reference_list():
    assert TEXT.endswith("## References\n\n[1] Paper X\n[2] Paper Y\n[3] Paper Z\n")
    assert remove_citations(JudgedText(TEXT)) == JudgedText(
        "# Survey\n\n## Intro\n\nAlpha works well. Beta follows it.\n\n## Methods\n\n"
        "Gamma is used. Delta ends here.\n")


def test_swapping_gives_the_other_surveys_reference_list_its_works_cycling():
    # our works 1, 2, 3 (first appearance) become the other's 1, 2 and then 1 again; its list replaces ours
    assert swap_citations(JudgedText(TEXT), JudgedText(OTHER)) == JudgedText(
        "# Survey\n\n## Intro\n\nAlpha works well. Beta follows it [1][2].\n\n## Methods\n\n"
        "Gamma is used. Delta ends here [1].\n\n## References\n\n[1] Paper P\n[2] Paper Q\n")
    no_references = remove_citations(JudgedText(TEXT))
    assert swap_citations(no_references, JudgedText(OTHER)) is None
    assert swap_citations(JudgedText(OTHER), no_references) is None


def test_the_kinds_outside_the_rubric_and_the_criteria():
    assert set(OUTSIDE_RUBRIC) == {"citations_swapped", "citations_removed", "claim_contradicted"}
    assert all("neither judge reads citations" in OUTSIDE_RUBRIC[k] for k in ("citations_swapped", "citations_removed"))
    assert CRITERIA == (STRUCTURE_QUALITY.key, LOGIC.key)
    assert SURGE.studies.judge_check.criteria == CRITERIA


def test_every_kind_on_the_mini_sample_and_the_same_pairs_twice(surge_mini_folder):
    papers = sample_papers(SURGE, str(surge_mini_folder))
    pairs = sample_pairs(SURGE, papers)
    assert {p.kind for p in pairs} == set(KINDS) and len(pairs) == 2 * len(KINDS)
    assert all(same_length(p.good.text, p.damaged.text) for p in pairs if p.kind in LENGTH_MATCHED)
    again = sample_pairs(SURGE, sample_papers(SURGE, str(surge_mini_folder)))
    assert pairs_digest(again) == pairs_digest(pairs)
    by_id = {p["paper_id"]: p for p in papers}
    for pair in pairs:
        assert pair.good.text == by_id[pair.paper_id]["text"]
    removed = [p.damaged.text for p in pairs if p.kind == "citations_removed"]
    assert all("## References" not in text and not MARKER_GROUP.search(text) for text in removed)
    swapped = {p.paper_id: p for p in pairs if p.kind == "citations_swapped"}
    first, second = papers
    assert swapped[first["paper_id"]].damaged.text.split("## References")[1] == \
        second["text"].split("## References")[1]


# --- SurGE's judges, through the fake server -------------------------------------------------------------------

def test_score_asks_surges_two_judges_with_the_papers_expert_tree(surge_mini_folder):
    papers = sample_papers(SURGE, str(surge_mini_folder))
    paper = papers[0]
    sides = [JudgedText(paper["text"]), JudgedText(papers[1]["text"]), JudgedText(paper["abstract"])]
    with chat_server(CitationBlindJudge(papers)) as server:
        client = ChatClient("judge-model", base_url=server.base_url, api_key="test-key", max_retries=0)
        judged = score(sides, [paper, paper, paper], client, show_progress=False)
    own, other, abstract = judged
    assert own.scores == {STRUCTURE_QUALITY.key: 5.0, LOGIC.key: 5.0} and own.error is None
    # the other survey's outline is not this paper's; its passages are an expert's
    assert other.scores == {STRUCTURE_QUALITY.key: 1.0, LOGIC.key: 5.0} and other.overall == 3.0
    # the abstract has no heading: SurGE scores an outline under 5 characters 0 without asking
    assert abstract.scores == {STRUCTURE_QUALITY.key: 0.0, LOGIC.key: 1.0}
    structure = [r for r in server.requests if "### Generated Titles:\n" in r["messages"][1]["content"]]
    assert len(structure) == 2
    assert all(f"### Target Titles:\n{target_outline(paper['structure'])}\n" in r["messages"][1]["content"]
               for r in structure)
    n_logic = len(server.requests) - 2
    assert n_logic == sum(min(len(parse_survey(s.text).paragraphs()), 20) for s in sides)


def test_the_command_against_the_fake_server(surge_mini_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers = sample_papers(SURGE, str(surge_mini_folder))
    with ChatServer(like_real_endpoints(CitationBlindJudge(papers))) as server:
        status = main(["meta-eval", "judge-check", "--benchmark", "surge", "--judge", "acme/judge",
                       "--source", str(surge_mini_folder), "--judge-base-url", server.base_url,
                       "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert status == 0 and "SurGE judge check" in printed
    rows = {r["kind"]: r for r in json.loads((tmp_path / "judge_check.json").read_text())
            if r["criterion"] == "overall"}
    for kind in ("truncated_half", "abstract", "off_topic", "sentences_reversed"):  # outline or passages change
        assert (rows[kind]["n_pairs"], rows[kind]["passed"], rows[kind]["in_rubric"]) == (2, 2, True)
    # two surveys share a sentence of the same shape only past the first 1,000 characters of a section, which is
    # all Logic reads of it: the judge does not see the intruder (on the whole sample it does, 244 of 246)
    assert (rows["sentence_off_topic"]["n_pairs"], rows["sentence_off_topic"]["ties"]) == (2, 2)
    for kind in ("citations_swapped", "citations_removed"):  # a judge blind to citations ties
        assert (rows[kind]["n_pairs"], rows[kind]["ties"], rows[kind]["in_rubric"]) == (2, 2, False)
    assert rows["claim_contradicted"]["in_rubric"] is False and rows["claim_contradicted"]["unjudged"] == 0
    # two papers cannot put a Wilson interval above chance
    assert rows["in rubric"]["pass_rate"] == 0.8 and "verdict: fails" in printed
