"""One survey as its scorers receive it: the generated Markdown read once (`sciwrite.surge.survey_markdown`), its
references resolved to corpus doc_ids the way SurGE resolves them (normalised exact title,
`sciwrite.surge.metrics.coverage.ExactTitleIndex`), and the title and abstract of every corpus paper it resolves to.

An item is self-contained and picklable, so the same scorers run in this process and on Ray actors: only the
driver holds the split's corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.surge.metrics.coverage import ExactTitleIndex
from sciwrite.surge.survey_markdown import SurveyDocument, parse_survey

#: doc_ids -> {doc_id: (title, abstract)} for those the corpus holds.
PaperLookup = Callable[[Sequence[str]], Mapping[str, tuple[str, str]]]


@dataclass(frozen=True)
class ResolvedReference:
    """One entry of a generated reference list: its number, the title read, what SurGE's own pattern reads, and
    the corpus doc_id its title names exactly (None: no corpus title matches)."""

    number: int
    title: str
    upstream_title: str | None
    doc_id: str | None


@dataclass(frozen=True)
class SurveyItem:
    """A generated survey joined to its expert survey, with its references resolved and their corpus papers."""

    text: str
    target: Mapping[str, Any]
    references: tuple[ResolvedReference, ...]
    papers: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # doc_id -> (title, abstract)

    @property
    def survey_id(self) -> str:
        return str(self.target["paper_id"])

    def document(self) -> SurveyDocument:
        """The generated survey's tree, markers and references (parsed again on the actor: cheaper to send)."""
        return parse_survey(self.text)

    def doc_id_of(self) -> dict[int, str | None]:
        """Reference number -> its doc_id (None: unresolved)."""
        return {ref.number: ref.doc_id for ref in self.references}


def prepare_items(texts: Sequence[str], targets: Sequence[Mapping[str, Any]], index: ExactTitleIndex,
                  papers: PaperLookup) -> list[SurveyItem]:
    """Each generated survey read, its references resolved by exact normalised title, and the corpus papers they
    resolve to looked up once for the whole batch."""
    resolved: list[tuple[ResolvedReference, ...]] = []
    for text in texts:
        document = parse_survey(text)
        resolved.append(tuple(ResolvedReference(number, ref.title, ref.upstream_title, index.resolve(ref.title))
                              for number, ref in sorted(document.references.items())))
    wanted = sorted({ref.doc_id for refs in resolved for ref in refs if ref.doc_id is not None})
    known = papers(wanted) if wanted else {}
    return [SurveyItem(text, target, refs, {ref.doc_id: known[ref.doc_id] for ref in refs
                                            if ref.doc_id is not None and ref.doc_id in known})
            for text, target, refs in zip(texts, targets, resolved, strict=True)]


__all__ = ["PaperLookup", "ResolvedReference", "SurveyItem", "prepare_items"]
