"""SurGE judge prompts and inputs: the verbatim templates, the score parser, the outlines and the logic sample."""

from __future__ import annotations

import re
import string

import numpy as np
import pytest

from sciwrite.surge.metrics.judge_prompts import (
    JUDGE_MODEL,
    LOGIC_PROMPT,
    MAX_TOKENS,
    MAX_TRIES,
    STRUCTURE_PROMPT,
    SYSTEM_MESSAGE,
    generated_outline,
    logic_paragraphs,
    logic_prompt,
    parse_score,
    structure_prompt,
    structure_quality_applies,
    target_outline,
    truncate_paragraph,
)


def _fields(template):
    return [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]


def test_templates_have_only_upstreams_fields():
    assert _fields(STRUCTURE_PROMPT) == ["target_titles", "generated_titles"]
    assert _fields(LOGIC_PROMPT) == ["sentence"]


def test_structure_prompt_is_upstreams_text():
    assert STRUCTURE_PROMPT.startswith(
        "You are an AI evaluator. Your task is to compare the generated titles with the target titles and assign a "
        "score from 0 to 5 based on their similarity in structure, meaning, and wording.\n\n### Target Titles:\n"
        "{target_titles}\n\n### Generated Titles:\n{generated_titles}\n\n## **Scoring Criteria:**\n\n"
    )
    assert "- **0 \u2013 Completely Different:**  \n  - Nearly no words in common.  \n" in STRUCTURE_PROMPT
    assert STRUCTURE_PROMPT.endswith(
        "### **Instructions:**  \nAnalyze the generated titles based on the criteria above and provide a single score "
        "between 0 and 5.  \n**Output only the score as a number, without any additional explanation or comments.**\n"
    )
    # Counted in upstream's text: six score blocks of a heading and three bullets, each ending in two spaces,
    # plus the two instruction lines; one en dash per score heading.
    assert sum(line.endswith("  ") for line in STRUCTURE_PROMPT.split("\n")) == 6 * 4 + 2
    assert STRUCTURE_PROMPT.count("\u2013") == 6
    assert len(re.findall(r"^- \*\*[0-5] \u2013 ", STRUCTURE_PROMPT, flags=re.M)) == 6


def test_logic_prompt_is_upstreams_text():
    assert LOGIC_PROMPT.startswith(
        "You are an advanced AI language evaluator. Your task is to assess the logical coherence and clarity of text "
        "based on the following criteria:\n\n1. **Fluency & Coherence** \u2013 Does the text flow naturally?"
    )
    assert ("**Example (0/5):**\n\"AI good. Many AI. Business AI. Finance hospital AI. More AI need. AI problem bad. "
            "Future AI better. AI help. Risk AI.\"\n\n---\n### **Instruction**  \n") in LOGIC_PROMPT
    assert LOGIC_PROMPT.endswith(
        "### **Paragraph:**  \n{sentence}  \n\n### **Output Format:**  \nProvide only the score as a single number "
        "(0-5), without any additional explanation or comments.\n"
    )
    # Counted in upstream's text: the five lines of the closing instruction block end in two spaces; en dashes:
    # five criteria and six score headings.
    assert sum(line.endswith("  ") for line in LOGIC_PROMPT.split("\n")) == 5
    assert LOGIC_PROMPT.count("\u2013") == 5 + 6
    assert LOGIC_PROMPT.count("**Example (") == 6


def test_prompts_fill_in_values_with_braces():
    prompt = structure_prompt("# A {x}\n", "## B\n")
    assert "### Target Titles:\n# A {x}\n\n\n### Generated Titles:\n## B\n\n\n## **Scoring" in prompt
    assert "### **Paragraph:**  \nSome {text}.  \n\n" in logic_prompt("Some {text}.")


def test_call_settings_are_upstreams():
    assert (SYSTEM_MESSAGE, JUDGE_MODEL, MAX_TOKENS, MAX_TRIES) == ("You are a helpful assistant", "gpt-4o", 100, 5)


@pytest.mark.parametrize("reply, score", [
    ("0", 0), ("5", 5), ("3", 3),
    ("3\n", 3),  # Python's '$' matches before a final newline, so upstream accepts this
    ("6", None), ("10", None), (" 3", None), ("3 ", None), ("3.", None), ("Score: 3", None), ("", None),
    ("3\n\n", None), (None, None),
])
def test_parse_score(reply, score):
    assert parse_score(reply) == score
    if reply is not None:  # the same verdict as upstream's own check
        assert (score is not None) == bool(re.match(r"^[0-5]$", reply))


def test_target_outline_by_hand():
    # root's children A, B (structure order), A's child A1: "# A\n" + ("## A1\n" + "" + "\n") + "\n" + "# B\n" + "\n".
    structure = [
        {"id": "r", "parent_id": "", "title": "root", "content": ""},
        {"id": "a", "parent_id": "r", "title": "A", "content": ""},
        {"id": "b", "parent_id": "r", "title": "B", "content": ""},
        {"id": "a1", "parent_id": "a", "title": "A1", "content": ""},
    ]
    assert target_outline(structure) == "# A\n## A1\n\n\n# B\n\n"
    assert target_outline(structure[1:]) == ""  # no root section: upstream's target_titles stays ""


def test_target_outline_rejects_a_cycle():
    structure = [
        {"id": "r", "parent_id": "", "title": "root", "content": ""},
        {"id": "a", "parent_id": "r", "title": "A", "content": ""},
        {"id": "r", "parent_id": "a", "title": "R again", "content": ""},
    ]
    with pytest.raises(ValueError, match="own ancestor"):
        target_outline(structure)


def test_generated_outline_starts_top_level_sections_at_two_hashes():
    assert generated_outline([(1, "Intro"), (2, "Background"), (1, "Methods")]) == (
        "## Intro\n### Background\n## Methods\n"
    )
    assert generated_outline([]) == ""


def test_structure_quality_applies_from_five_characters():
    assert structure_quality_applies("## A\n")  # 5 characters
    assert not structure_quality_applies("## A")
    assert not structure_quality_applies("")


def test_truncate_paragraph_as_upstream():
    assert truncate_paragraph("x" * 1000) == "x" * 1000  # not over 1000: unchanged
    ends_with_period = "a" * 999 + "." + "b" * 5
    assert truncate_paragraph(ends_with_period) == "a" * 999 + "."  # the 1000th character is '.'
    # cut to 1000 ends in 'b': cut before the last '.', at index 500, so the '.' goes too.
    assert truncate_paragraph("a" * 500 + "." + "b" * 600) == "a" * 500
    # no '.': rfind gives -1 and the slice [:-1] drops one character.
    assert truncate_paragraph("b" * 1200) == "b" * 999


def _upstream_draw(paragraphs):
    """eval_logic_client's draw, with numpy's global generator exactly as upstream seeds it."""
    np.random.seed(42)
    return [str(p) for p in np.random.choice(paragraphs, min(len(paragraphs), 20), replace=False)]


@pytest.mark.parametrize("count", [1, 5, 20, 33])
def test_logic_paragraphs_draw_as_upstreams_global_seed(count):
    paragraphs = [f"Paragraph {i}." for i in range(count)]
    drawn = logic_paragraphs(paragraphs)
    assert drawn == _upstream_draw(paragraphs)
    assert len(drawn) == min(count, 20) and len(set(drawn)) == len(drawn)


def test_logic_paragraphs_truncate_and_leave_global_state_alone():
    paragraphs = ["p" * 1500, "Short one."]
    np.random.seed(7)
    expected_next = np.random.random()
    np.random.seed(7)
    drawn = logic_paragraphs(paragraphs)
    assert np.random.random() == expected_next
    assert sorted(drawn) == sorted(["p" * 999, "Short one."])
    assert logic_paragraphs([]) == []
