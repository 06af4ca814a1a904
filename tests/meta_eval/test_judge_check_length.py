"""The judge check's length-matched damage (`sciwrite.meta_eval.damage`), on hand-made texts worked out by hand: the
sentences reversed and one sentence replaced keep every character and word count, headings and lists are never
touched, the partner order is by word overlap, and a pair of a length-matched kind that breaks the length raises.
The length-only scripted judge (`tests.fakes.scripted_judges.LengthJudge`) read on hand-made requests."""

from __future__ import annotations

import json

import pytest

from sciwrite.meta_eval.damage import (
    dissimilar_order,
    least_similar,
    paragraph_sentences,
    replace_sentence,
    reverse_sentences,
    same_length,
    sentence_shapes,
)
from sciwrite.meta_eval.judge_pairs import LENGTH_MATCHED, JudgeCheck, JudgedText, build_pairs
from sciwrite.surge.metrics.judge_prompts import logic_prompt, structure_prompt
from tests.fakes.scripted_judges import LengthJudge

TEXT = ("# Survey\n\n"
        "Graphs help parsing a lot. Li et al. (2020) agree with this [1]. Trees are slower!\n\n"
        "One sentence alone here.\n\n"
        "[1] Paper X.\n[2] Paper Y.\n")


def test_sentences_are_split_at_capitals_and_brackets_not_after_abbreviations():
    spans = paragraph_sentences(TEXT)
    assert [[TEXT[a:b] for a, b in para] for para in spans] == [
        ["Graphs help parsing a lot.", "Li et al. (2020) agree with this [1].", "Trees are slower!"],
        ["One sentence alone here."]]  # the heading and the reference list are not prose
    text = "See e.g. Smith here. [3] shows it."
    assert [text[a:b] for a, b in paragraph_sentences(text)[0]] == ["See e.g. Smith here.", "[3] shows it."]


def test_reverse_sentences_keeps_every_character_and_the_white_space_in_place():
    reversed_ = reverse_sentences(TEXT)
    assert reversed_ == ("# Survey\n\n"
                         "Trees are slower! Li et al. (2020) agree with this [1]. Graphs help parsing a lot.\n\n"
                         "One sentence alone here.\n\n"
                         "[1] Paper X.\n[2] Paper Y.\n")
    assert same_length(TEXT, reversed_) and sorted(TEXT) == sorted(reversed_)
    assert reverse_sentences("A first one.\tB second.") == "B second.\tA first one."
    assert reverse_sentences("# Title\n\nOnly one sentence.\n\n[1] A.\n[2] B.") is None
    assert reverse_sentences("Same here. Same here.") is None  # reversing changes nothing


def test_replace_sentence_takes_the_first_of_ours_that_a_partner_matches_exactly():
    ours = "Alpha beta gamma delta epsilon zeta eta. Short one. Theta iota kappa lambda mu nu xi omicron."
    # ours: 40 characters / 7 words, 10 / 2 (under 40 characters: never replaced), 41 / 8
    first = sentence_shapes("Penguins swim far under the ice sheet ok. Nothing else of note is here, right?")
    second = sentence_shapes("Weather is sunny and warm in spain today. Protein folds in cells of mice and rats too.")
    third = sentence_shapes("Penguins dive far below the ice shelves. And more.")
    assert set(first) == {(41, 8)} and set(second) == {(41, 8), (44, 9)} and set(third) == {(40, 7)}
    # no partner matches our first sentence; both match the third: the first partner gives it
    assert replace_sentence(ours, [first, second]) == (
        "Alpha beta gamma delta epsilon zeta eta. Short one. Penguins swim far under the ice sheet ok.", 0)
    # our first sentence goes as soon as any partner matches it, even a later one
    replaced = replace_sentence(ours, [first, third])
    assert replaced == ("Penguins dive far below the ice shelves. Short one. Theta iota kappa lambda mu nu xi omicron.", 1)
    assert same_length(ours, replaced[0])
    assert replace_sentence(ours, [sentence_shapes("Nothing fits here at all, not a single one.")]) is None
    # a paragraph of one sentence is never replaced: it would be the other text's sentence, not an intruder in ours
    assert replace_sentence("Theta iota kappa lambda mu nu xi omicron.", [first]) is None


def test_same_length_counts_characters_and_words():
    assert same_length("ab cd", "ef gh") and not same_length("ab cd", "abcde") and not same_length("ab", "abc")


def test_dissimilar_order_is_by_increasing_word_overlap():
    texts = ["graph parsing with neural networks", "neural graph parsing", "protein folding in cells",
             "graph protein"]
    # overlaps with text 0: 3/5 (text 1), 0 (text 2), 1/6 (text 3: {graph} of graph, parsing, with, neural,
    # networks, protein)
    assert dissimilar_order(texts)[0] == [2, 3, 1]
    assert [order[0] for order in dissimilar_order(texts)] == least_similar(texts)
    assert dissimilar_order(["alone"]) == [[]]


def _check(side=lambda paper, text: JudgedText(text)) -> JudgeCheck:
    return JudgeCheck(side=side, remove_citations=lambda s: s, swap_citations=lambda s, o: None,
                      score=lambda *a, **k: [], criteria=("x",))


PAPERS = [{"paper_id": "a", "text": "Alpha beta gamma delta epsilon zeta eta. Theta iota kappa lambda mu nu xi omicron."},
          {"paper_id": "b", "text": "Penguins swim far under the ice sheet ok.\n\nNothing else of note is here, right? Yes."}]


def test_the_length_matched_pairs_and_a_pair_that_breaks_the_length_raises():
    pairs = build_pairs(PAPERS, "text", _check(), LENGTH_MATCHED)
    assert [(p.paper_id, p.kind, p.note) for p in pairs] == [
        ("a", "sentences_reversed", ""), ("a", "sentence_off_topic", "sentence of b"),
        ("b", "sentences_reversed", "")]  # b's one long sentence stands alone in its paragraph
    assert pairs[1].damaged.text == "Alpha beta gamma delta epsilon zeta eta. Penguins swim far under the ice sheet ok."
    assert all(same_length(p.good.text, p.damaged.text) for p in pairs)
    # a benchmark whose side rewrites the text (here: one character more) breaks the length: one clear line
    padded = _check(lambda paper, text: JudgedText(text if text == paper["text"] else text + "!"))
    with pytest.raises(ValueError, match=r"^judge check: paper a, kind sentences_reversed: the damaged side has 83 "
                                         r"characters and 15 words, the reference 82 and 15; a length-matched kind "
                                         r"must keep both exactly$"):
        build_pairs(PAPERS, "text", padded, LENGTH_MATCHED)


def _request(content: str) -> dict:
    return {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": content}]}


def test_the_length_only_judge_reads_only_the_number_of_words():
    judge = LengthJudge()
    section = "<title-x>\nT\n</title-x>\n<section-x>\n{}\n</section-x>"
    # RWGBench: 1 + round(words / 50) / 2, capped at 5: 120 words -> 1 + 2 / 2 = 2.0; 1000 words -> 5
    assert json.loads(judge(_request(section.format(" ".join(["w"] * 120)))))["score"] == 2.0
    assert json.loads(judge(_request(section.format(" ".join(["w"] * 1000)))))["score"] == 5.0
    # SciIG: the same score mapped onto 0-1 for every named score: 230 words -> 1 + 5 / 2 = 3.5 -> 0.625
    sciig = json.loads(judge(_request('Generated Introduction:\n"""\n' + " ".join(["w"] * 230) + '\n"""')))
    assert sciig["score"] == 3.5 and {v for k, v in sciig.items() if k not in ("score", "rationale")} == {0.625}
    # SurGE: min(5, words // 25), one digit: 60 words of outline -> 2; 200 words of passage -> 5
    assert judge(_request(structure_prompt("# A\n", "# " + " ".join(["w"] * 59) + "\n"))) == "2"
    assert judge(_request(logic_prompt(" ".join(["w"] * 200)))) == "5"
