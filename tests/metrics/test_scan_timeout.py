"""nltk's regex time limit on a text far longer than a section: one error saying how long the text is, how it
begins and what to do, naming the prediction file, line and paper that hold it; never nltk's advice to its callers."""

from __future__ import annotations

import json

import pytest
from nltk import redos

from sciwrite.core.errors import explain
from sciwrite.metrics.text import ScanTimeoutError, line_of, split_sentences
from sciwrite.sciig.metrics.lexical import meteor_tokens


@pytest.fixture
def impatient_nltk(monkeypatch):
    """nltk with a limit of 0 s: its first regex gives up at once, as a 50 MB line makes it give up at 5 s."""
    monkeypatch.setattr(redos, "DEFAULT_TIMEOUT", 0.0)


@pytest.mark.parametrize(("scan", "what"), [(split_sentences, "sentence splitter"), (meteor_tokens, "word tokenizer")])
def test_every_nltk_scan_of_a_text_turns_the_timeout_into_one_clear_line(impatient_nltk, scan, what):
    text = "Prior work on parsing [1]. " * 4 + "The end."
    with pytest.raises(ScanTimeoutError) as caught:
        scan(text)
    message = explain(caught.value)
    assert message.startswith(f"a text of {len(text):,} characters ('Prior work on parsing [1]. Prior")
    assert f"ran nltk's {what} past its time limit" in message and "timeout=None" not in message
    assert message.endswith("shorten, regenerate or remove the prediction that holds it, then rerun")
    assert "\n" not in message


def test_the_error_names_the_file_line_and_paper_that_hold_the_text(tmp_path, impatient_nltk):
    path = tmp_path / "run.jsonl"
    texts = {"p1": "A short one.", "p2": "Huge. " * 1000, "p3": "Another."}
    path.write_text("".join(json.dumps({"paper_id": pid, "pred": text}) + "\n\n" for pid, text in texts.items()))
    with pytest.raises(ScanTimeoutError) as caught:
        split_sentences(texts["p2"])
    located = caught.value.located_in(path, list(texts), list(texts.values()))
    assert str(located).startswith(f"{path}:3, record 'p2', field 'text': a text of 5,999 characters ('Huge. ")
    assert located.hint == ScanTimeoutError.HINT
    # a text no prediction holds (a reference's), or predictions in memory: what is known, nothing made up
    assert caught.value.located_in(path, ["p1"], ["A short one."]) is caught.value
    assert str(caught.value.located_in("<system>", list(texts), list(texts.values()))).startswith(
        "<system>, record 'p2', field 'text': ")
    assert line_of(path, "p9") is None and line_of(tmp_path, "p1") is None


def test_scores_of_texts_that_scan_in_time_do_not_change():
    text = "Prior work studied parsing (Smith et al., 2020). Later work improved it [1].\n\nA second paragraph."
    assert split_sentences(text) == ["Prior work studied parsing (Smith et al., 2020).", "Later work improved it [1].",
                                     "A second paragraph."]
