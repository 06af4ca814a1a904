"""SurGE's two LLM judges (`sciwrite.surge.metrics.judge`) through the judge machinery, against the fake
OpenAI-compatible server (tests/fakes/openai_server.py): SurGE's system message and prompts go out, a score is read
only as SurGE reads it (one digit 0-5), an unreadable reply is asked again with the follow-up, a survey whose reply
stays unreadable gets None with the reason (never 0), a generated outline under 5 characters scores 0 unasked, and
Logic is the mean of the sampled paragraphs' scores."""

from __future__ import annotations

import re
import threading

import pytest

from sciwrite.llm.client import ChatClient
from sciwrite.surge.metrics.judge import (
    JUDGE_ERRORS,
    JUDGE_REPLIES,
    JUDGE_SNAPSHOTS,
    JudgeInput,
    judge_input,
    judge_surveys,
)
from tests.fakes.openai_server import chat_server, isolate_from_real_endpoints

#: SurGE's ``chat_openai`` system message (oneal2000/SurGE src/structureFuncs.py and src/informationFuncs.py).
SYSTEM = "You are a helpful assistant"
#: sciwrite's follow-up to an unreadable reply.
FOLLOW_UP = "Provide only the score as a single number (0-5), without any additional explanation or comments."
TARGET = "# Background\n## Message passing\n\n\n"


@pytest.fixture(autouse=True)
def _no_endpoint(monkeypatch):
    isolate_from_real_endpoints(monkeypatch)


class Script:
    """Answers each request from a token in the judged text: ``WANT=n`` -> "n"; ``FLAKY`` -> "Score: n" first and
    "n" after the follow-up; ``GARBAGE`` -> prose every time; ``DOWN`` -> a 500 the first time, then "2"."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_seen: set[str] = set()

    def __call__(self, body):
        judged = judged_text(body["messages"][1]["content"])
        want = re.search(r"WANT=(\d)", judged)
        score = want.group(1) if want else "3"
        if "GARBAGE" in judged:
            return f"It is quite good ({judged[:20]})."
        if "FLAKY" in judged and len(body["messages"]) == 2:
            return f"Score: {score}"
        if "DOWN" in judged:
            with self.lock:
                first = judged not in self.down_seen
                self.down_seen.add(judged)
            if first:
                return 500, {"error": {"message": "overloaded", "type": "server_error"}}
            return "2"
        return score


def judged_text(prompt: str) -> str:
    """The generated outline of a structure prompt, or the paragraph of a logic prompt."""
    if "### Generated Titles:\n" in prompt:
        return prompt.split("### Generated Titles:\n", 1)[1].split("\n\n## **Scoring Criteria:**", 1)[0]
    return prompt.split("### **Paragraph:**  \n", 1)[1].split("  \n\n### **Output Format:**", 1)[0]


def run(inputs, **kwargs):
    with chat_server(Script()) as server:
        client = ChatClient("judge-model", base_url=server.base_url, api_key="test-key", max_retries=0)
        rows = judge_surveys(inputs, client, **kwargs)
    return rows, server.requests


def outline(*titles: str) -> str:
    return "".join(f"## {title}\n" for title in titles)


def test_structure_quality_is_read_from_the_single_digit_reply_with_surges_messages():
    rows, requests = run([JudgeInput(TARGET, outline("Background WANT=4"), ())], logic=False)
    [row] = rows
    assert row["structure_quality"] == 4.0 and row[JUDGE_ERRORS] == {}
    assert row[JUDGE_REPLIES] == {"structure_quality": "4"}
    assert row[JUDGE_SNAPSHOTS] == {"structure_quality": "judge-model"}  # the fake answers with the requested id
    assert "logic" not in row
    [request] = requests
    system, user = request["messages"]
    assert system == {"role": "system", "content": SYSTEM}
    # SurGE's gen_title_structure_compare_prompt, with the two outlines in its slots
    assert user["role"] == "user" and user["content"].startswith(
        "You are an AI evaluator. Your task is to compare the generated titles with the target titles and assign a "
        "score from 0 to 5 based on their similarity in structure, meaning, and wording.\n\n### Target Titles:\n"
        f"{TARGET}\n\n### Generated Titles:\n## Background WANT=4\n\n\n## **Scoring Criteria:**")
    assert user["content"].rstrip().endswith(
        "**Output only the score as a number, without any additional explanation or comments.**")
    assert request["max_tokens"] == 100 and request["temperature"] == 0.0  # SurGE's chat_openai settings


def test_a_score_in_prose_is_asked_again_with_the_follow_up_and_then_read():
    [row], requests = run([JudgeInput(TARGET, outline("Intro FLAKY WANT=4"), ())], logic=False)
    assert row["structure_quality"] == 4.0 and row[JUDGE_ERRORS] == {}
    assert row[JUDGE_REPLIES] == {"structure_quality": "4"}  # the reply that was read
    first, second = requests
    assert len(first["messages"]) == 2
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2:] == [{"role": "assistant", "content": "Score: 4"},
                                      {"role": "user", "content": FOLLOW_UP}]


def test_an_unreadable_reply_after_the_retries_is_none_with_the_reason_never_zero():
    [row], requests = run([JudgeInput(TARGET, outline("Intro GARBAGE"), ())], logic=False, retries=2)
    assert row["structure_quality"] is None
    assert row[JUDGE_ERRORS]["structure_quality"] == "not a single 0-5 score: 'It is quite good (## Intro GARBAGE\\n).'"
    assert len(requests) == 3  # the first try and two retries, each with the conversation so far
    assert [len(r["messages"]) for r in requests] == [2, 4, 6]


def test_surges_five_tries_by_default_and_an_api_error_is_resent():
    [garbage, down], requests = run([JudgeInput(TARGET, outline("Intro GARBAGE"), ()),
                                     JudgeInput(TARGET, outline("Intro DOWN"), ())], logic=False)
    assert sum("GARBAGE" in r["messages"][1]["content"] for r in requests) == 5
    assert garbage["structure_quality"] is None
    assert down["structure_quality"] == 2.0 and down[JUDGE_ERRORS] == {}  # the 500 resent as it was, then read
    down_requests = [r for r in requests if "DOWN" in r["messages"][1]["content"]]
    assert [len(r["messages"]) for r in down_requests] == [2, 2]


def test_an_outline_under_five_characters_scores_zero_without_a_request():
    assert len(outline("A")) == 5 and len("## A") == 4
    rows, requests = run([JudgeInput(TARGET, "## A", ()), JudgeInput(TARGET, "", ()),
                          JudgeInput(TARGET, outline("A"), ())], logic=False)
    assert [row["structure_quality"] for row in rows] == [0.0, 0.0, 3.0]  # the five-character one is asked
    assert rows[0][JUDGE_ERRORS] == {} and rows[0][JUDGE_REPLIES] == {}
    assert len(requests) == 1 and "### Generated Titles:\n## A\n" in requests[0]["messages"][1]["content"]


def paragraph(tag: str) -> str:
    return f"A paragraph about graph learning that the judge reads closely ({tag})."


def test_logic_averages_the_sampled_paragraphs_and_is_none_when_one_stays_unreadable():
    inputs = [JudgeInput(TARGET, outline("Intro"), (paragraph("WANT=3"), paragraph("WANT=5"), paragraph("WANT=1"))),
              JudgeInput(TARGET, outline("Intro"), (paragraph("WANT=4"), paragraph("GARBAGE"))),
              JudgeInput(TARGET, outline("Intro"), (paragraph("FLAKY WANT=2"),)),
              JudgeInput(TARGET, outline("Intro"), ())]
    rows, requests = run(inputs, structure=False, retries=1)
    mean, broken, flaky, empty = rows
    assert mean["logic"] == pytest.approx((3 + 5 + 1) / 3) and mean[JUDGE_ERRORS] == {}
    assert mean[JUDGE_REPLIES] == {"logic[0]": "3", "logic[1]": "5", "logic[2]": "1"}
    assert "structure_quality" not in mean
    assert broken["logic"] is None  # one readable 4 is not averaged on its own
    assert broken[JUDGE_ERRORS]["logic"] == "1 of 2 sampled paragraphs got no readable score"
    assert broken[JUDGE_ERRORS]["logic[1]"].startswith("not a single 0-5 score")
    assert flaky["logic"] == 2.0 and flaky[JUDGE_ERRORS] == {}
    assert empty["logic"] is None
    assert empty[JUDGE_ERRORS] == {"logic": "no paragraph of 100 characters or more to judge"}
    # 3 + 2 + 1 first requests, then GARBAGE and FLAKY once more
    assert len(requests) == 8
    # requests go out concurrently, so the one carrying WANT=3 is found by its text, not by its position
    [first] = [r for r in requests if "(WANT=3)" in r["messages"][1]["content"]]
    user = first["messages"][1]["content"]
    assert first["messages"][0] == {"role": "system", "content": SYSTEM}
    assert user.startswith("You are an advanced AI language evaluator. Your task is to assess the logical coherence "
                           "and clarity of text based on the following criteria:")
    assert "### **Paragraph:**  \n" + paragraph("WANT=3") + "  \n\n### **Output Format:**" in user


def test_both_judges_in_one_pass():
    [row], requests = run([JudgeInput(TARGET, outline("Intro WANT=5"), (paragraph("WANT=1"),))])
    assert (row["structure_quality"], row["logic"]) == (5.0, 1.0)
    assert set(row[JUDGE_REPLIES]) == {"structure_quality", "logic[0]"} and len(requests) == 2


def test_judge_input_builds_the_expert_outline_and_samples_twenty_cut_paragraphs():
    structure = [{"id": "r", "parent_id": "", "title": "root", "content": ""},
                 {"id": "a", "parent_id": "r", "title": "Background", "content": "x"},
                 {"id": "b", "parent_id": "a", "title": "Message passing", "content": "y"},
                 {"id": "c", "parent_id": "r", "title": "Outlook", "content": "z"}]
    paragraphs = [f"Paragraph {i}. " + "word " * 300 for i in range(25)]
    made = judge_input(structure, "## Gen\n", paragraphs)
    # SurGE's get_target_title_structure: each child at its level, a blank line after each subtree
    assert made.target_outline == "# Background\n## Message passing\n\n\n# Outlook\n\n"
    assert made.generated_outline == "## Gen\n"
    assert len(made.paragraphs) == 20 and len(set(made.paragraphs)) == 20
    # each cut to 1000 characters, then before its last period (SurGE's slice): "Paragraph i"
    assert all(re.fullmatch(r"Paragraph \d+", p) for p in made.paragraphs)
