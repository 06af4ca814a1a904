"""SciIG's part of the judge check (`sciwrite.meta_eval.judge_pairs`): a side is an introduction with author-year
citations, judged by SciIG's own judge (`judge_sciig`: the three Table 6 prompts, verbatim, with the paper's actual
introduction, its title, abstract and cited works as `sciwrite evaluate sciig` sends them); the check compares the
mean of the five scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.core.paper_row import typed_rows
from sciwrite.meta_eval.damage import remove_author_year, swap_author_year
from sciwrite.meta_eval.judge_pairs import JudgeCheck, JudgedText, Judgement
from sciwrite.sciig.metrics.judge import SCORE_NAMES, judge_sciig
from sciwrite.sciig.metrics.row_fields import JUDGE_ERRORS, judge_score_key
from sciwrite.sciig.metrics.suite import _cited_text


def side(paper: Mapping[str, Any], text: str) -> JudgedText:
    return JudgedText(text)


def remove_citations(good: JudgedText) -> JudgedText:
    return JudgedText(remove_author_year(good.text))


def swap_citations(good: JudgedText, other: JudgedText) -> JudgedText | None:
    swapped = swap_author_year(good.text, other.text)
    return None if swapped is None else JudgedText(swapped)


def score(sides: Sequence[JudgedText], papers: Sequence[Mapping[str, Any]], client: Any, *,
          show_progress: bool = True) -> list[Judgement]:
    """SciIG's judge on each side, against its paper's introduction, title, abstract and cited works."""
    rows = typed_rows(judge_sciig([s.text for s in sides], [p["introduction"] for p in papers],
                                  [p["title"] for p in papers], [p["abstract"] for p in papers], client,
                                  [[_cited_text(n) for n in p.get("neighbors") or []] for p in papers],
                                  show_progress=show_progress))
    return [Judgement({name: row.value(judge_score_key(name)) for name in SCORE_NAMES},
                      "; ".join(f"{prompt}: {why}" for prompt, why in (row.details.get(JUDGE_ERRORS) or {}).items())
                      or None)
            for row in rows]


JUDGE_CHECK = JudgeCheck(side=side, remove_citations=remove_citations, swap_citations=swap_citations, score=score,
                         criteria=SCORE_NAMES)

__all__ = ["JUDGE_CHECK", "remove_citations", "score", "side", "swap_citations"]
