"""SciIG citation correctness, checked by hand."""

from __future__ import annotations

import json

import pytest

import sciwrite
from sciwrite.core.paper_row import typed_rows
from sciwrite.llm.client import ChatClient
from sciwrite.sciig.metrics.citations import (
    OFFLINE_EXTRACTOR,
    citation_correctness,
    score_citation_correctness,
    summarize_citation_correctness,
)
from sciwrite.sciig.metrics.suite import load_sciig_models, score_sciig, summarize_sciig
from sciwrite.sources.apa import find_yearless_keys
from tests.fakes.openai_server import chat_server, isolate_from_real_endpoints

NEIGHBORS = ["Li et al., 2022", "Smith and Jones, 2020", "Chen et al., 2021a", "Chen et al., 2021b"]


def test_precision_and_recall_by_hand():
    text = ("Parsers improved (Li et al., 2022b; Smith & Jones, 2020), as Brown (2019) showed; "
            "Li et al. (2022) agree.")
    row = citation_correctness(text, NEIGHBORS)
    # cited {li et al 2022, smith and jones 2020, brown 2019}; neighbors {li.., smith.., chen et al 2021} (a/b merge)
    assert row["n_cited"] == 3 and row["n_correct"] == 2 and row["n_neighbors"] == 3
    assert row["precision"] == pytest.approx(2 / 3) and row["recall"] == pytest.approx(2 / 3)
    assert row["not_in_neighbors"] == ["Brown, 2019"] and row["no_citation"] is False


def test_unmatched_citations_are_reported_with_their_text_apart_from_precision():
    text = ("Parsers improved (Li et al., 2019; Smith & Jones, 2020), as Brown (2019) showed.\n"
            "Graph methods (García et al.) followed, and Chen et al. (2021) agree.")
    row = citation_correctness(text, NEIGHBORS)
    # cited: li 2019 (near miss of Li et al., 2022), smith and jones 2020 (a neighbor), brown 2019 (no Brown),
    # garcia et al (no year, no Garcia), chen et al 2021 (a neighbor): 5 works, 2 correct
    assert row["precision"] == pytest.approx(2 / 5)
    assert [u["citation"] for u in row["unmatched_citations"]] == ["Brown, 2019", "García et al."]
    assert row["unmatched_citations"][1]["text"].startswith("…") and "(García et al.) followed" in \
        row["unmatched_citations"][1]["text"] and "\n" not in row["unmatched_citations"][1]["text"]
    assert row["near_miss_citations"] == [{"citation": "Li et al., 2019", "neighbors": ["Li et al., 2022"],
                                           "text": row["near_miss_citations"][0]["text"]}]
    assert "(Li et al., 2019;" in row["near_miss_citations"][0]["text"]
    assert row["unmatched_citation_rate"] == pytest.approx(2 / 5)
    assert 1 - row["precision"] == pytest.approx(row["unmatched_citation_rate"] + 1 / 5)  # + the near miss
    assert citation_correctness("Nothing cited.", NEIGHBORS)["unmatched_citation_rate"] is None


def test_an_unmatched_citation_is_counted_once_per_work_and_tails_of_surnames_are_near():
    row = citation_correctness("(Wu, 2020a) and (Wu, 2020b); Berg et al. (2018).", ["van der Berg et al., 2019"])
    assert [u["citation"] for u in row["unmatched_citations"]] == ["Wu, 2020a"]  # a and b: one work, as cited
    assert [n["citation"] for n in row["near_miss_citations"]] == ["Berg et al., 2018"]
    assert row["unmatched_citation_rate"] == pytest.approx(1 / 2)


def test_neighbor_records_and_normalisation():
    records = [{"key": "LI ET AL.  2022"}, {"key": "Smith & Jones, 2020"}]
    row = citation_correctness("See (Li et al., 2022) and Smith and Jones (2020).", records)
    assert row["precision"] == row["recall"] == 1.0


def test_no_citation_scores_zero_and_is_flagged():
    row = citation_correctness("An introduction that cites nothing (see Section 3).", NEIGHBORS)
    assert row["precision"] == row["recall"] == 0.0 and row["no_citation"] is True


def test_paper_without_neighbors_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"paper 'p2': `neighbors` has no citation key"):
        score_citation_correctness(["(Li, 2020)", "(Li, 2020)"], [["Li, 2020"], []], paper_ids=["p1", "p2"])
    with pytest.raises(TypeError, match=r"record 0: the prediction must be a string"):
        score_citation_correctness([None], [["Li, 2020"]])
    with pytest.raises(ValueError, match=r"predictions \(1\) and neighbors \(2\)"):
        score_citation_correctness(["x"], [["a"], ["b"]])


def test_summary_is_a_macro_mean():
    rows = score_citation_correctness(["(Li, 2020)", "Nothing cited."], [["Li, 2020", "Wu, 2019"], ["Li, 2020"]])
    summary = summarize_citation_correctness(rows)
    assert summary == {"precision": 0.5, "recall": 0.25, "no_citation_rate": 0.5, "unmatched_citation_rate": 0.0,
                       "n_unmatched_citations": 0, "n_near_miss_citations": 0, "n_papers_citing": 1}


def test_evaluate_module():
    metric = sciwrite.load_metric("citation_correctness")
    result = metric.compute(predictions=["(Li, 2020) and Wu (2019).", "none"], references=[["Li, 2020"], ["Wu, 2019"]])
    assert result == {"precision": 0.25, "recall": 0.5, "no_citation_rate": 0.5, "unmatched_citation_rate": 0.5,
                      "n_unmatched_citations": 1, "n_near_miss_citations": 0, "n_papers_citing": 1}
    assert "arXiv:2508.14273" in metric.citation


def test_a_multi_word_surname_matches_its_neighbor_key_only_when_unambiguous():
    """Extraction keeps the last word of "Kumar Bodigutla"; the neighbor key has both (a real aclsum case)."""
    text = "Satisfaction can be estimated per turn (Kumar Bodigutla et al., 2020) or per dialogue (Liu et al., 2021)."
    row = citation_correctness(text, ["Kumar Bodigutla et al., 2020", "Liu et al., 2021"])
    assert (row["precision"], row["recall"], row["not_in_neighbors"]) == (1.0, 1.0, [])
    # two gold keys end with the cited one: no guess, the citation is not counted as correct
    row = citation_correctness(text, ["Kumar Bodigutla et al., 2020", "Raj Bodigutla et al., 2020", "Liu et al., 2021"])
    assert row["n_correct"] == 1 and row["not_in_neighbors"] == ["Bodigutla et al., 2020"]
    # a different year never matches
    assert citation_correctness("(Bodigutla et al., 2019)", ["Kumar Bodigutla et al., 2020"])["n_correct"] == 0


def test_a_one_word_surname_is_not_taken_for_the_tail_of_a_longer_one():
    assert citation_correctness("(Li et al., 2020)", ["Zhuli et al., 2020"])["n_correct"] == 0
    assert citation_correctness("(Li et al., 2020)", ["Zhu Li et al., 2020"])["n_correct"] == 1


# --- year-less citations and the extractors ------------------------------------------------------------------------

YEARLESS_NEIGHBORS = ["Smith et al., 2020", "Lee and Kim, 2019", "Chen et al., 2021", "Chen et al., 2022",
                      "Jones, 2018", "Kumar Bodigutla et al., 2020"]


def test_yearless_keys_are_found_by_hand():
    text = ("Prior work (Smith et al.) and (e.g., Lee & Kim; Chen et al.) shows it. Smith et al. (2020) and Wang "
            "et al. propose more (BERT). See (Section 3). Li et al., 2021 did. (Jones)")
    assert find_yearless_keys(text) == ["Smith et al.", "Lee and Kim", "Chen et al.", "Wang et al.", "Jones"]


def test_yearless_citations_match_a_unique_neighbor_by_surname():
    text = ("Graphs help (Smith et al.; Lee and Kim). Chen et al. study it, as Bodigutla et al. do "
            "(Jones). Wang et al. disagree (Transformer).")
    row = citation_correctness(text, YEARLESS_NEIGHBORS)
    # Smith, Lee and Kim, Jones, Bodigutla (tail of Kumar Bodigutla): unique -> correct; 'Chen et al.' stands for two
    # neighbors and 'Wang et al.' for none: both cited outside the neighbors; '(Transformer)' is dropped
    assert (row["n_correct"], row["n_cited"]) == (4, 6)
    assert row["precision"] == pytest.approx(4 / 6) and row["recall"] == pytest.approx(4 / 6)
    assert row["not_in_neighbors"] == ["Chen et al.", "Wang et al."]
    assert row["dropped_single_surnames"] == ["Transformer"]


def test_llm_extractor_with_the_table8_prompt(tmp_path, monkeypatch):
    """The LLM path over a fake server: the Table 8 prompt with the high-confidence list, titles matched to
    neighbors, identifiers otherwise, an unusable answer falling back to the offline extractor, cached."""
    isolate_from_real_endpoints(monkeypatch)
    neighbors = [{"key": "Smith et al., 2020", "title": "Graph parsing", "authors": ["A Smith"]},
                 {"key": "Lee and Kim, 2019", "title": "Tree models", "authors": ["B Lee", "C Kim"]}]

    def answer(request):
        [message] = request["messages"]
        user = message["content"]
        assert user.startswith("Objective: Extract citations from paper introductions using LLaMA 4-Maverick")
        if "BROKEN" in user:
            return "I cannot."
        # the high-confidence list is what the offline extractor found: Smith et al. only
        assert "- Citation Smith et al., 2020:\n- Title: Graph parsing" in user and "Tree models" not in user
        return json.dumps({"neighbors": [
            {"Smith et al.": {"title": "Graph parsing", "reason": "This citation is present in high-confidence list"}},
            {"Lee & Kim": {"title": "Tree Models", "reason": "Not included in the high-confidence list ..."}},
            {"Doe et al., 2001": {"title": "Unrelated", "reason": "Not included ..."}}]})

    texts = ["We parse graphs (Smith et al.), as trees did in the work of Lee & Kim and Doe et al., 2001.",
             "BROKEN (Smith et al.)."]
    with chat_server(answer) as server:
        client = ChatClient("maverick", base_url=server.base_url, api_key="k", max_retries=0,
                            cache_path=tmp_path / "c.jsonl")
        rows = score_citation_correctness(texts, [neighbors, neighbors], ["p1", "p2"], client)
        again = score_citation_correctness(texts, [neighbors, neighbors], ["p1", "p2"], client)
    assert len(server.requests) == 2  # the second pass is served by the JSONL cache
    assert rows[0] == again[0]
    assert rows[0]["citation_extractor"] == "maverick"
    assert (rows[0]["n_correct"], rows[0]["n_cited"], rows[0]["recall"]) == (2, 3, 1.0)
    assert rows[0]["not_in_neighbors"] == ["Doe et al., 2001"]
    assert rows[1]["citation_extractor"] == OFFLINE_EXTRACTOR and "neighbors" in rows[1]["citation_extractor_error"]
    assert rows[1]["n_correct"] == 1


def test_suite_names_the_offline_fallback():
    suite = load_sciig_models("lite", metrics=["citations"])
    paper = {"paper_id": "p", "title": "T", "abstract": "A.", "introduction": "R.",
             "neighbors": [{"key": "Smith et al., 2020", "title": "X", "authors": [], "abstract": ""}]}
    rows, _ = score_sciig(["Graphs (Smith et al.)."], [paper], suite, show_progress=False)
    summary = summarize_sciig(typed_rows(rows), suite)
    assert summary.reported("citation_extractor") == "regex (offline fallback)" == summary.models["citation_extractor"]
    assert summary.value("citation_precision") == 1.0 and summary.value("citation_recall") == 1.0
    assert summary.value("unmatched_citation_rate") == 0.0 and summary.value("n_papers_citing") == 1
