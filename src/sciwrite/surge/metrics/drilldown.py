"""What the leaderboard's drill-down shows of one SurGE survey (`sciwrite.benchmark.Drilldown`).

- The generated survey's references, one row each: its number, its title as read
  (`sciwrite.surge.survey_markdown`), the corpus paper it resolves to by SurGE's exact normalised title (what
  Coverage and citation precision count: `sciwrite.surge.metrics.coverage`), the grounding resolver's verdict with
  the paper it found (fuzzy title, the per-survey row's ``grounding_references``), whether the expert survey
  cites it, and the reference checker's verdict with the fields that differ, the record it matched and its evidence
  (`sciwrite.grounding.check_cells`).
- The expert survey's cited papers that no reference names by exact title (what Coverage misses), each with the
  reference the fuzzy resolver matched to it, if any.
- As the reference text, the expert survey's heading outline; as notes, this survey's Coverage and citation
  precision with their counts.

The exact resolution is done when a survey is shown, against the split's corpus (one vectorised Arrow pass over its
memory-mapped titles: no title index of the whole corpus is kept in memory); the split's survey records carry the
lookup under `EXACT_TITLES` (`drilldown_papers`). Every cell is text; escaping is the page's job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from sciwrite.benchmark import CitationView, Drilldown, DrilldownPapers, Source
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.tables import MISSING_CELL
from sciwrite.grounding.check_cells import CHECK_COLUMNS, check_cells
from sciwrite.grounding.resolver import AMBIGUOUS, EXISTS_OUTSIDE_CORPUS, FOUND, NOT_FOUND
from sciwrite.grounding.scoring import INVALID
from sciwrite.surge.data.configs import SCORED_SPLITS, config_info
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.metrics.coverage import coverage, reference_precision, surge_normalize
from sciwrite.surge.metrics.specs import CITATION_PRECISION, COVERAGE
from sciwrite.surge.survey_markdown import parse_survey

REFERENCE_COLUMNS = ("Ref", "Title as read", "Exact doc_id", "Exact corpus title", "Fuzzy verdict", "Fuzzy doc_id",
                     "Fuzzy corpus title", "Cited by the expert survey", "Evidence", *CHECK_COLUMNS)
UNLISTED_COLUMNS = ("Title", "doc_id", "Fuzzy match")
UNLISTED_CAPTION = ("Cited papers of the expert survey that no generated reference names by exact title (what "
                    "Coverage misses), with the reference the fuzzy resolver matched to each")
#: The exact-title column of a reference whose normalised title no corpus title has.
NO_EXACT_MATCH = "no corpus title matches exactly"
#: The expert-citation column of a reference that names a cited paper only as the fuzzy resolver reads it.
FUZZY_ONLY = "by fuzzy match only"
#: How the table words each grounding verdict.
VERDICT_TEXT = {FOUND: "found", AMBIGUOUS: "ambiguous", NOT_FOUND: "not found",
                EXISTS_OUTSIDE_CORPUS: "exists outside the corpus", INVALID: "invalid"}
#: The key of a survey record's `ExactTitles` lookup (added by `drilldown_papers`).
EXACT_TITLES = "exact_titles"


class ExactTitles:
    """SurGE's exact-title resolution against one corpus, for the titles of one survey at a time.

    `corpus` is a `datasets.Dataset` of corpus documents (read in one vectorised pass over its memory-mapped
    ``doc_id`` and ``title`` columns) or a mapping doc_id -> title in corpus order. Where several corpus papers share
    a normalised title, the last in corpus order wins, as in SurGE's ``title2docid`` (`ExactTitleIndex`)."""

    def __init__(self, corpus: Any) -> None:
        self.corpus = corpus

    def resolve(self, titles: Iterable[str]) -> dict[str, tuple[str, str]]:
        """Normalised title (`surge_normalize`) -> (doc_id, corpus title), for those of `titles` a corpus title
        shares."""
        wanted = {surge_normalize(t) for t in titles}
        if not wanted:
            return {}
        if isinstance(self.corpus, Mapping):
            pairs: Iterable[tuple[str, str]] = ((str(d), str(t or "")) for d, t in self.corpus.items())
            return {key: (d, t) for d, t in pairs if (key := surge_normalize(t)) in wanted}
        return _arrow_resolve(self.corpus, wanted)


def _arrow_resolve(corpus: Any, wanted: set[str]) -> dict[str, tuple[str, str]]:
    """`ExactTitles.resolve` on a `datasets.Dataset`: every title normalised as `surge_normalize` does (ASCII letters
    only, lower-cased; RE2 reads code points, so an accented letter is dropped whole), then the wanted ones picked."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if getattr(corpus, "_indices", None) is not None:  # a selection: materialise its rows once
        corpus = corpus.flatten_indices()
    table = corpus.data.table.select(["doc_id", "title"])
    normalised = pc.ascii_lower(pc.replace_substring_regex(pc.fill_null(table.column("title"), ""),
                                                           pattern="[^a-zA-Z]+", replacement=""))
    mask = pc.is_in(normalised, value_set=pa.array(sorted(wanted), pa.string()))
    picked = table.append_column("key", normalised).filter(mask).to_pylist()
    return {r["key"]: (r["doc_id"], r["title"] or "") for r in picked}  # in corpus order: the last one stays


def drilldown_papers(split: str, source: Source = None) -> DrilldownPapers:
    """The surveys of `split` (``sample`` / ``surveys``), each carrying the exact-title lookup of its corpus
    (`EXACT_TITLES`), and that corpus (for the titles of the expert survey's cited papers)."""
    if split not in SCORED_SPLITS:
        raise ValueError(f"unknown SurGE split {split!r}; choose one of {list(SCORED_SPLITS)}")
    corpus = load_surge(config_info(split).corpus or "corpus", source=source)
    lookup = ExactTitles(corpus)
    return DrilldownPapers([{**survey, EXACT_TITLES: lookup} for survey in load_surge(split, source=source).to_list()],
                           corpus)


@dataclass(frozen=True)
class ReferenceView:
    """One generated reference: its number and title as read, the corpus paper its exact title names (None: none)
    and its grounding record (None: the row holds none)."""

    number: int
    title: str
    exact_doc_id: str | None
    exact_title: str
    grounding: Mapping[str, Any] | None

    @property
    def fuzzy_doc_id(self) -> str | None:
        """The doc_id the fuzzy resolver found (None unless its verdict is found)."""
        g = self.grounding
        return str(g["doc_id"]) if g is not None and g.get("verdict") == FOUND and g.get("doc_id") else None


def survey_references(text: str, lookup: ExactTitles, row: PaperRow | None) -> tuple[list[ReferenceView], list[str]]:
    """(each reference of the generated survey, in number order as SurGE reads them; notes). The row's grounding
    records join the references by position: the evaluation grounds the references in that order, numbering them
    1, 2, ... whatever their own numbers."""
    references = sorted(parse_survey(text).references.items())
    exact = lookup.resolve(ref.title for _, ref in references) if references else {}
    notes: list[str] = []
    grounding = None if row is None else row.grounding
    records: list[Mapping[str, Any] | None] = [None] * len(references)
    if grounding is not None and grounding.error:
        notes.append(grounding.error)
    elif grounding is not None and len(grounding.references) == len(references):
        records = list(grounding.references)
    elif row is not None and references:
        held = 0 if grounding is None else len(grounding.references)
        notes.append(f"the per-survey row holds the grounding of {held} references, the survey lists "
                     f"{len(references)}: the fuzzy columns are empty")
    views = []
    for (number, ref), record in zip(references, records, strict=True):
        doc_id, title = exact.get(surge_normalize(ref.title), (None, ""))
        views.append(ReferenceView(number, ref.title, doc_id, title, record))
    return views, notes


def _expert_cites(ref: ReferenceView, gold: set[str]) -> str:
    if ref.exact_doc_id is not None and ref.exact_doc_id in gold:
        return "yes"
    return FUZZY_ONLY if ref.fuzzy_doc_id is not None and ref.fuzzy_doc_id in gold else "no"


def references_frame(references: Sequence[ReferenceView], gold: Sequence[str]) -> pd.DataFrame:
    """One row per reference (`REFERENCE_COLUMNS`), every cell text."""
    gold_set = set(gold)
    rows = []
    for ref in references:
        g = ref.grounding
        rows.append({
            "Ref": f"[{ref.number}]", "Title as read": ref.title,
            "Exact doc_id": ref.exact_doc_id or "",
            "Exact corpus title": ref.exact_title if ref.exact_doc_id is not None else NO_EXACT_MATCH,
            "Fuzzy verdict": MISSING_CELL if g is None else VERDICT_TEXT.get(str(g.get("verdict")), str(g.get("verdict"))),
            "Fuzzy doc_id": "" if g is None else str(g.get("doc_id") or ""),
            "Fuzzy corpus title": "" if g is None else str(g.get("corpus_title") or ""),
            "Cited by the expert survey": _expert_cites(ref, gold_set),
            "Evidence": "" if g is None else str(g.get("why") or ""),
            **check_cells(None if g is None else g.get("check"))})
    return pd.DataFrame(rows, columns=list(REFERENCE_COLUMNS))


def unlisted_frame(references: Sequence[ReferenceView], gold: Sequence[str],
                   titles: Callable[[Iterable[str]], Mapping[str, str]]) -> pd.DataFrame:
    """The expert survey's cited papers (once each, in its order) that no reference names by exact title
    (`UNLISTED_COLUMNS`): the fuzzy match is the numbers of the references the fuzzy resolver found it for, "no",
    or `MISSING_CELL` when the row holds no grounding."""
    named = {ref.exact_doc_id for ref in references}
    missed = [d for d in dict.fromkeys(gold) if d not in named]
    known = titles(missed)
    grounded = all(ref.grounding is not None for ref in references)
    rows = []
    for doc_id in missed:
        numbers = [f"[{ref.number}]" for ref in references if ref.fuzzy_doc_id == doc_id]
        rows.append({"Title": known.get(doc_id, ""), "doc_id": doc_id,
                     "Fuzzy match": ", ".join(numbers) or ("no" if grounded else MISSING_CELL)})
    return pd.DataFrame(rows, columns=list(UNLISTED_COLUMNS))


def score_notes(references: Sequence[ReferenceView], gold: Sequence[str], row: PaperRow | None) -> list[str]:
    """This survey's Coverage and citation precision as the view resolves its references (with their counts), the
    fuzzy resolver's recall, and where the per-survey row holds other values (scored against other data)."""
    resolved = [ref.exact_doc_id for ref in references]
    found = {d for d in resolved if d is not None}
    gold_set = set(gold)
    notes = []
    value = coverage(gold, found)
    if value is None:
        notes.append("Coverage: undefined (the expert survey cites no corpus paper)")
    else:
        notes.append(f"Coverage {value:.3f}: {sum(1 for d in gold if d in found)} of the expert survey's "
                     f"{len(gold)} citations are listed (exact title, as SurGE resolves)")
    precision = reference_precision(resolved, gold)
    if precision is None:
        notes.append("Citation precision: undefined (the generated survey lists no reference)")
    else:
        notes.append(f"Citation precision {precision:.3f}: {sum(1 for d in resolved if d in gold_set)} of the "
                     f"{len(resolved)} references are cited papers of the expert survey")
    if references and all(ref.grounding is not None for ref in references) and gold_set:
        hits = {ref.fuzzy_doc_id for ref in references} & gold_set
        notes.append(f"By the fuzzy resolver: {len(hits)} of the {len(gold_set)} cited papers found "
                     f"(grounded recall {len(hits) / len(gold_set):.3f})")
    for key, label, mine in ((COVERAGE.key, "Coverage", value), (CITATION_PRECISION.key, "citation precision",
                                                                 precision)):
        held = None if row is None else row.value(key)
        if isinstance(held, int | float) and mine is not None and abs(float(held) - mine) > 1e-9:
            notes.append(f"the per-survey row holds {label} {float(held):.3f}: it was scored against other data")
    return notes


def heading_outline(structure: Sequence[Mapping[str, Any]]) -> str:
    """The expert survey's section titles, one a line, indented two spaces per level below the top: its tree
    (``parent_id``) walked in document order, without the root (the parentless section titled "root"). A section
    whose parent is not in the tree is placed at the top level."""
    ids = {str(s.get("id")) for s in structure}
    roots = {str(s.get("id")) for s in structure if not s.get("parent_id") and s.get("title") == "root"}
    children: dict[str, list[Mapping[str, Any]]] = {}
    top: list[Mapping[str, Any]] = []
    for section in structure:
        if str(section.get("id")) in roots:
            continue
        parent = str(section.get("parent_id") or "")
        if parent in roots or parent not in ids:
            top.append(section)
        else:
            children.setdefault(parent, []).append(section)
    lines: list[str] = []
    seen: set[int] = set()

    def walk(start: Mapping[str, Any]) -> None:
        stack = [(start, 0)]
        while stack:
            section, depth = stack.pop()
            if id(section) in seen:
                continue
            seen.add(id(section))
            lines.append("  " * depth + (str(section.get("title") or "") or "(untitled)"))
            stack.extend((child, depth + 1) for child in reversed(children.get(str(section.get("id")), [])))

    for section in top:
        walk(section)
    for section in structure:  # a section on a cycle of parents, reached from no top section: shown at the top
        if str(section.get("id")) not in roots:
            walk(section)
    return "\n".join(lines)


def citation_view(record: Mapping[str, Any], paper: Mapping[str, Any], row: PaperRow | None,
                  titles: Callable[[Iterable[str]], Mapping[str, str]]) -> CitationView:
    """One survey's references, the expert survey's cited papers it does not list, the expert survey's outline
    and the notes."""
    text = str(record.get("text", record.get("pred", "")) or "")
    gold = [str(g) for g in paper.get("all_cites") or []]
    lookup = paper.get(EXACT_TITLES)
    if not isinstance(lookup, ExactTitles):
        raise ValueError(f"survey {paper.get('paper_id')!r} carries no corpus to resolve titles against: load the "
                         "split with sciwrite.surge.metrics.drilldown.drilldown_papers")
    references, notes = survey_references(text, lookup, row)
    return CitationView(references_frame(references, gold), unlisted_frame(references, gold, titles),
                        UNLISTED_CAPTION, heading_outline(list(paper.get("structure") or [])),
                        [*score_notes(references, gold, row), *notes])


#: SurGE's drill-down (`sciwrite.surge.benchmark.SURGE`'s presentation).
DRILLDOWN = Drilldown(papers=drilldown_papers, citation_view=citation_view)

__all__ = ["DRILLDOWN", "EXACT_TITLES", "FUZZY_ONLY", "NO_EXACT_MATCH", "REFERENCE_COLUMNS", "UNLISTED_CAPTION",
           "UNLISTED_COLUMNS", "VERDICT_TEXT", "ExactTitles", "ReferenceView", "citation_view", "drilldown_papers",
           "heading_outline", "references_frame", "score_notes", "survey_references", "unlisted_frame"]
