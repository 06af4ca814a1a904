"""SurGE's part of the judge check (`sciwrite.meta_eval.judge_pairs`): a side is a survey text (the expert's
Markdown, `sciwrite.surge.data.expert`, or a damaged copy), judged by SurGE's own two judges as `sciwrite evaluate
surge` asks them (`judge_surveys`: the side's heading outline against the paper's expert tree for Structure Quality,
up to 20 sampled passages for Logic); the check compares the mean of the two 0-5 scores.

A survey's citations are its ``[n]`` markers and its ``## References`` list: removing them deletes both, swapping
gives the side the other survey's reference list, each of its cited works (by first appearance) becoming one of the
other's (in order, cycling when the other lists fewer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.core.paper_row import typed_rows
from sciwrite.meta_eval.judge_pairs import JudgeCheck, JudgedText, Judgement
from sciwrite.sources.markers import order_of_first_appearance, renumber_markers
from sciwrite.surge.data.expert import join_references, split_references
from sciwrite.surge.metrics.judge import JUDGE_ERRORS, judge_input, judge_surveys
from sciwrite.surge.metrics.specs import LOGIC, STRUCTURE_QUALITY
from sciwrite.surge.survey_markdown import HEADER, parse_survey

#: The kinds of damage SurGE's judges are not asked to see, and why.
OUTSIDE_RUBRIC = {
    "citations_swapped": "neither judge reads citations: Structure Quality compares the heading outlines, Logic "
                         "judges a passage's reasoning; a marker or a reference line is text to them, never checked "
                         "against the work it names",
    "citations_removed": "neither judge reads citations: Structure Quality compares the heading outlines, Logic "
                         "judges a passage's reasoning; neither rubric asks for citations",
    "claim_contradicted": "the rubrics judge the outline's likeness to the expert's and a passage's coherence, not "
                          "whether a claim is true",
}
#: The judges' scores a side gets, averaged into the one a pair compares.
CRITERIA = (STRUCTURE_QUALITY.key, LOGIC.key)

_BLANK_RUN = re.compile(r"\n{3,}")


def side(paper: Mapping[str, Any], text: str) -> JudgedText:
    return JudgedText(text)


def _body_lines(body: str, rewrite: Callable[[str], str]) -> str:
    """`rewrite` applied to every line of `body` but its headings (a line left empty goes, with its blank line)."""
    lines = (line if HEADER.match(line.rstrip()) else rewrite(line) for line in body.split("\n"))
    return _BLANK_RUN.sub("\n\n", "\n".join(lines))


def remove_citations(good: JudgedText) -> JudgedText:
    """Every ``[n]`` marker and the reference list removed."""
    body, _ = split_references(good.text)
    return JudgedText(join_references(_body_lines(body, lambda line: renumber_markers(line, {})), []))


def swap_citations(good: JudgedText, other: JudgedText) -> JudgedText | None:
    """The text citing the other survey's works: its markers renumbered onto the other's reference list, which
    replaces its own; None when either lists no reference."""
    body, ours = split_references(good.text)
    theirs = split_references(other.text)[1]
    if not ours or not theirs:
        return None
    cited = order_of_first_appearance(body)
    numbers = list(dict.fromkeys([*cited, *(n for n, _ in ours)]))
    mapping: dict[int, int | None] = {n: theirs[i % len(theirs)][0] for i, n in enumerate(numbers)}
    return JudgedText(join_references(_body_lines(body, lambda line: renumber_markers(line, mapping)), theirs))


def score(sides: Sequence[JudgedText], papers: Sequence[Mapping[str, Any]], client: Any, *,
          show_progress: bool = True) -> list[Judgement]:
    """SurGE's two judges on each side: its outline against its paper's expert tree, its sampled passages."""
    inputs = []
    for text, paper in zip((s.text for s in sides), papers, strict=True):
        document = parse_survey(text)
        inputs.append(judge_input(paper["structure"], document.outline(), document.paragraphs()))
    rows = typed_rows(judge_surveys(inputs, client, show_progress=show_progress))
    return [Judgement({key: row.value(key) for key in CRITERIA},
                      "; ".join(f"{prompt}: {why}" for prompt, why in (row.details.get(JUDGE_ERRORS) or {}).items())
                      or None)
            for row in rows]


JUDGE_CHECK = JudgeCheck(side=side, remove_citations=remove_citations, swap_citations=swap_citations, score=score,
                         criteria=CRITERIA, outside_rubric=OUTSIDE_RUBRIC)

__all__ = ["CRITERIA", "JUDGE_CHECK", "OUTSIDE_RUBRIC", "remove_citations", "score", "side", "swap_citations"]
