"""RWGBench's part of the judge check (`sciwrite.meta_eval.judge_pairs`): a side is a related-work section with
its candidate list (the reference's: the paper's gold citations, so marker [i] is ``citations[i-1]``), and it is
judged by RWGBench's own judge (`judge_sections`: the paper's title and the section, one 1-5 publication-readiness
score normalised to [0, 1])."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.core.paper_row import typed_rows
from sciwrite.meta_eval.damage import remove_markers
from sciwrite.meta_eval.judge_pairs import JudgeCheck, JudgedText, Judgement
from sciwrite.rwgbench.metrics.judge import judge_sections
from sciwrite.rwgbench.metrics.row_fields import JUDGE_ERROR
from sciwrite.rwgbench.metrics.specs import LLM_JUDGE

#: Kinds of damage RWGBench's judge is not asked to see, and why.
OUTSIDE_RUBRIC = {
    "citations_swapped": "the judge reads the title and the text, which a swapped candidate list leaves unchanged "
                         "(the rubric excludes citation correctness): the two requests are the same, so a tie",
    "citations_removed": "the rubric excludes citation coverage and the marker format",
    "claim_contradicted": "the rubric judges the writing, not whether a claim about cited work is true",
}


def side(paper: Mapping[str, Any], text: str) -> JudgedText:
    """`text` with the paper's gold citations as its candidates."""
    return JudgedText(text, {"candidates": list(paper.get("citations") or [])})


def remove_citations(good: JudgedText) -> JudgedText:
    """Every marker (and author-year citation) removed; no candidates."""
    return JudgedText(remove_markers(good.text), {"candidates": []})


def swap_citations(good: JudgedText, other: JudgedText) -> JudgedText | None:
    """The same text with the other paper's candidates; None when either has none."""
    ours, theirs = list(good.fields.get("candidates") or []), list(other.fields.get("candidates") or [])
    return JudgedText(good.text, {"candidates": theirs}) if ours and theirs and ours != theirs else None


def score(sides: Sequence[JudgedText], papers: Sequence[Mapping[str, Any]], client: Any, *,
          show_progress: bool = True) -> list[Judgement]:
    """RWGBench's judge on each side, with its paper's title."""
    rows = typed_rows(judge_sections([s.text for s in sides], client, titles=[p.get("title") or "" for p in papers],
                                     show_progress=show_progress))
    return [Judgement({LLM_JUDGE.key: row.value(LLM_JUDGE.key)}, row.details.get(JUDGE_ERROR)) for row in rows]


JUDGE_CHECK = JudgeCheck(side=side, remove_citations=remove_citations, swap_citations=swap_citations, score=score,
                         criteria=(LLM_JUDGE.key,), outside_rubric=OUTSIDE_RUBRIC)

__all__ = ["JUDGE_CHECK", "OUTSIDE_RUBRIC", "remove_citations", "score", "side", "swap_citations"]
