"""The offline SurGE sample: survey-shaped targets built from the 250 ACL papers (grobid2json) that `aclsum` ships.

SurGE's targets are surveys; the sample stands one in with each ACL paper, in SurGE's schema
(`sciwrite.surge.data.schema.SURVEY_FEATURES`), so that every SurGE pipeline runs offline. Its rules:

- **Targets.** One per aclsum paper that has a title, at least `MIN_SECTIONS` (3) sections and cites at least
  `MIN_CITATIONS` (5) distinct works that resolve to the sample corpus; every other paper is counted under its skip
  reason (``unreadable``, ``no-title``, ``too-few-sections``, ``too-few-citations``). ``paper_id`` is the ACL
  Anthology id; ``year`` the paper's grobid2json year or else the year its id names
  (`sciwrite.sources.aclsum.anthology_year`); ``date`` is "" (unknown: the papers carry no release day, and a
  made-up ``<year>-01-01`` would move a date cutoff); ``category`` is ``cs.CL``.
- **Structure.** A root section (id "0", parent "", title "root") whose ``content`` is the body text before the first
  heading (as SurGE's root holds a survey's text before its first section; "" for almost every paper, the abstract
  staying in ``abstract``), then one section per distinct (section number, heading) in document order, with ids
  "s1", "s2", ... and the heading as title (the number where there is no heading). The tree comes from the numbers:
  "2.1" is a child of "2"; a section whose parent number never occurs hangs under its nearest numbered ancestor
  ("2.1.3" under "2" when "2.1" is missing), a section without a number or without any known ancestor under root
  (GROBID drops the heading of a section that has no text of its own, so such orphans are common; they are counted).
  Paragraphs with neither heading nor number after the first heading are GROBID's footnotes and are left out
  (counted).
- **Content.** A section's paragraphs, one per line, with every citation span removed (SurGE's release strips its
  markers), linked or not: a span list "(A, 2010; B, 2011)" goes whole, and so do the spaces before it.
- **Citations.** A citation span resolves when GROBID linked it to a bibliography entry with a title (the corpus holds
  every such entry); it does not for ``no-link``, ``missing-bib-entry``, ``no-title`` or a ``self-citation`` of the
  paper's own title, each counted. ``all_cites`` lists the resolved works' corpus doc_ids, distinct, in order of
  first citation.
- **Queries.** One per section (root included) whose own text cites a resolved work: ``query_id``
  ``<paper_id>-<section id>``, ``prefix_titles`` the heading path (paper title, ..., section title), ``cites`` the
  section's resolved doc_ids in order of first citation. SurGE's queries are questions an LLM wrote; these are
  templated (`QUERY_TEMPLATE`).
- **Text** (``text``): the survey as Markdown (`sciwrite.surge.data.expert.expert_markdown`): its headings and
  contents, each query's cites as ``[n]`` markers at the end of its section, and the reference list of their corpus
  titles.
- **Corpus** (``sample_corpus``): the target papers (with their abstracts) plus every distinct titled work their
  bibliographies list, assembled by `sciwrite.sources.corpus.assemble_corpus` exactly as the RWGBench sample
  assembles its own, so a cited work has the doc_id it has there (``aclbib-<hash of the normalised title>``; a work
  that is itself a target paper merges into that paper's record, ``doc_id`` its Anthology id). **Cited works have an
  empty abstract**: GROBID bibliographies carry title, authors and year only.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from statistics import mean
from typing import Any

from tqdm.auto import tqdm

from sciwrite.core.errors import InputError
from sciwrite.core.skips import describe_skips
from sciwrite.sources.aclsum import aclsum_paper_dir, anthology_year, cited_work_records
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.corpus import AssemblyReport, CorpusTitleIndex, assemble_corpus
from sciwrite.sources.grobid import (
    Paragraph,
    author_names,
    bib_entries,
    load_grobid_json,
    paragraphs,
    replace_cite_spans,
)
from sciwrite.sources.titles import normalize_title
from sciwrite.surge.data.expert import with_expert_texts

logger = logging.getLogger(__name__)

#: A target needs this many sections (root not counted) ...
MIN_SECTIONS = 3
#: ... and cites this many distinct works that resolve to the corpus.
MIN_CITATIONS = 5
CATEGORY = "cs.CL"
ROOT_ID, ROOT_TITLE = "0", "root"
#: The templated question of a section; `path` is its heading path below the paper title, quoted and joined by " > ".
QUERY_TEMPLATE = "What does the survey '{title}' cover under {path}?"
#: The `path` of the root section's question.
ROOT_PATH = "its opening text"

_SPAN = "\x00"  # stands for a removed citation span until the text around it is tidied
_SPAN_RUN = re.compile(r"\x00(?:[ \t]*[;,]?[ \t]*\x00)+")  # "(A; B) (C)" -> one span
_SPAN_BRACKETED = re.compile(r"\([ \t]*\x00[ \t]*\)|\[[ \t]*\x00[ \t]*\]")  # brackets holding only citations
_SPAN_BEFORE_PUNCT = re.compile(r"[ \t]*\x00[ \t]*(?=[.,;:!?)\]]|$)")
_SPAN_ELSEWHERE = re.compile(r"[ \t]*\x00")


@dataclass(frozen=True)
class SurveyFigures:
    """One kept survey's figures: its tree, and how many of its citation spans resolved."""

    paper_id: str
    sections: int  # root not counted
    depth: int  # 1: sections only under root; 2: with subsections; ...
    orphan_sections: int  # numbered "x.y" sections hung under root for want of a known ancestor
    footnotes_dropped: int
    citation_spans: int
    resolved_spans: int
    citations: int  # distinct resolved works: len(all_cites)
    queries: int

    @property
    def resolved_share(self) -> float:
        """Resolved / all citation spans (1.0 for a paper without any)."""
        return self.resolved_spans / self.citation_spans if self.citation_spans else 1.0


@dataclass
class SurgeSampleReport:
    """What the SurGE sample build kept, skipped (by reason) and could not resolve."""

    n_source_papers: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)  # paper id -> why it could not be read (naming its file)
    unresolved_citations: Counter[str] = field(default_factory=Counter)  # spans of the kept surveys, by reason
    per_survey: list[SurveyFigures] = field(default_factory=list)
    corpus_report: AssemblyReport | None = None  # set once the corpus is assembled

    def skip(self, reason: str, paper_id: str) -> None:
        """Count `paper_id` as skipped for `reason`."""
        self.skipped.setdefault(reason, []).append(paper_id)

    def statistics(self, surveys: list[dict[str, Any]], corpus: list[dict[str, Any]]) -> dict[str, Any]:
        """The figures a dataset card quotes."""
        rows = self.per_survey
        sections, cites = [r.sections for r in rows], [r.citations for r in rows]
        return {
            "source_papers": self.n_source_papers,
            "surveys": len(surveys),
            "skipped_papers": {k: len(v) for k, v in self.skipped.items()},
            "corpus_documents": len(corpus),
            "corpus_documents_with_abstract": sum(1 for d in corpus if d["abstract"]),
            "mean_sections": round(mean(sections), 2) if rows else 0.0,
            "min_sections": min(sections, default=0),
            "max_sections": max(sections, default=0),
            "mean_depth": round(mean(r.depth for r in rows), 2) if rows else 0.0,
            "mean_citations": round(mean(cites), 2) if rows else 0.0,
            "min_citations": min(cites, default=0),
            "max_citations": max(cites, default=0),
            "queries": sum(r.queries for r in rows),
            "mean_resolved_share": round(mean(r.resolved_share for r in rows), 4) if rows else 0.0,
            "orphan_sections": sum(r.orphan_sections for r in rows),
            "footnotes_dropped": sum(r.footnotes_dropped for r in rows),
            "unresolved_citations": dict(self.unresolved_citations),
        }


@dataclass(frozen=True)
class _Section:
    """A section before its citations are turned into doc_ids: `cited` are the titles its text cites, in order."""

    id: str
    parent_id: str
    title: str
    content: str
    cited: tuple[str, ...]


@dataclass(frozen=True)
class _Draft:
    """A paper read into a survey, citations still as titles (the corpus gives their doc_ids)."""

    record: dict[str, Any]  # paper_id, title, authors, year, date, category, abstract
    sections: tuple[_Section, ...]  # root first
    cited: tuple[str, ...]  # the cited titles in document order
    bibs: dict[str, dict[str, Any]]
    titles: dict[str, list[str]]  # the heading path of each section id (root: [])
    figures: dict[str, int]  # SurveyFigures' fields that do not depend on the corpus
    unresolved: Counter[str]  # citation spans that did not resolve, by reason


def remove_citation_spans(para: Paragraph, on_span: Callable[[str | None], None] = lambda ref_id: None) -> str:
    """The paragraph text without its citation spans (`on_span(ref_id)` is called for each), tidied: a run of spans
    and the brackets or separators between them go as one, with the spaces before it."""
    def drop(ref_id: str | None) -> str:
        on_span(ref_id)
        return _SPAN

    text = replace_cite_spans(para, drop, keep=lambda piece: piece.replace(_SPAN, ""))
    text = _SPAN_RUN.sub(_SPAN, text)
    text = _SPAN_BRACKETED.sub(_SPAN, text)
    text = _SPAN_BEFORE_PUNCT.sub("", text)
    return _SPAN_ELSEWHERE.sub("", text).strip()


def _slots(paras: list[Paragraph]) -> tuple[list[int | None], list[tuple[str, str]]]:
    """Each paragraph's place (0: root, the text before the first heading; i: the i-th section; None: a footnote,
    left out) and the sections' (number, heading) in order of first appearance."""
    slots: list[int | None] = []
    index: dict[tuple[str, str], int] = {}
    for para in paras:
        key = ((para.sec_num or "").strip().rstrip("."), para.section)
        if key == ("", ""):
            slots.append(None if index else 0)
        else:
            slots.append(index.setdefault(key, len(index) + 1))
    return slots, list(index)


def _parents(numbers: list[str]) -> tuple[list[str], int]:
    """Each section's parent id (sections are "s1", "s2", ... in the order of `numbers`) and the orphan count."""
    id_of: dict[str, str] = {}
    for i, number in enumerate(numbers, 1):
        if number:
            id_of.setdefault(number, f"s{i}")
    parents, orphans = [], 0
    for number in numbers:
        parts = number.split(".") if number else []
        ancestors = (".".join(parts[:k]) for k in range(len(parts) - 1, 0, -1))
        parent = next((id_of[a] for a in ancestors if a in id_of), None)
        orphans += parent is None and len(parts) > 1
        parents.append(parent or ROOT_ID)
    return parents, orphans


def _heading_paths(sections: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    """Section id -> its heading path below the paper title, from (id, parent_id, title) triples."""
    parent_of = {sid: parent for sid, parent, _ in sections}
    title_of = {sid: title for sid, _, title in sections}
    paths: dict[str, list[str]] = {ROOT_ID: []}
    for sid, _, _ in sections:
        chain, node = [], sid
        while node != ROOT_ID:
            chain.append(title_of[node])
            node = parent_of[node]
        paths[sid] = chain[::-1]
    return paths


def _read(paper_id: str, doc: dict[str, Any]) -> _Draft:
    """A paper's sections with citation spans removed, the titles of the works they cite, and its figures."""
    title = doc["title"].strip()
    own_key = normalize_title(title)
    bibs = bib_entries(doc)
    paras = paragraphs(doc)
    slots, keys = _slots(paras)
    texts: list[list[str]] = [[] for _ in range(len(keys) + 1)]
    cited: list[list[str]] = [[] for _ in range(len(keys) + 1)]
    in_order: list[str] = []  # cited titles in document order, for all_cites
    unresolved: Counter[str] = Counter()
    n_spans = 0

    def on_span(slot: int, ref_id: str | None) -> None:
        nonlocal n_spans
        n_spans += 1
        entry_title = ((bibs.get(ref_id) or {}).get("title") or "").strip() if ref_id is not None else ""
        key = normalize_title(entry_title)
        reason = ("no-link" if ref_id is None else "missing-bib-entry" if ref_id not in bibs else
                  "no-title" if not key else "self-citation" if key == own_key else None)
        if reason:
            unresolved[reason] += 1
        else:
            cited[slot].append(entry_title)
            in_order.append(entry_title)

    for para, slot in zip(paras, slots):
        if slot is not None:
            texts[slot].append(remove_citation_spans(para, partial(on_span, slot)))
    parents, orphans = _parents([number for number, _ in keys])
    triples = [(f"s{i}", parent, heading or number) for i, ((number, heading), parent) in enumerate(zip(keys, parents), 1)]
    sections = [_Section(sid, parent, heading, "\n".join(t for t in texts[slot] if t), tuple(cited[slot]))
                for slot, (sid, parent, heading) in enumerate([(ROOT_ID, "", ROOT_TITLE), *triples])]
    paths = _heading_paths(triples)
    record = {"paper_id": paper_id, "title": title, "authors": author_names(doc.get("authors")),
              "year": parse_year(doc.get("year")) or anthology_year(paper_id), "date": "", "category": CATEGORY,
              "abstract": (doc.get("abstract") or "").strip()}
    figures = {"sections": len(keys), "depth": max(len(p) for p in paths.values()), "orphan_sections": orphans,
               "footnotes_dropped": slots.count(None), "citation_spans": n_spans,
               "resolved_spans": n_spans - sum(unresolved.values())}
    return _Draft(record, tuple(sections), tuple(in_order), bibs, paths, figures, unresolved)


def _distinct_cited(draft: _Draft) -> int:
    return len({normalize_title(t) for t in draft.cited})


def build_surge_sample(paper_dir: str | Path | None = None,
                       show_progress: bool = True) -> tuple[list[dict], list[dict], SurgeSampleReport]:
    """Build (surveys, corpus, report) from a folder of grobid2json papers (default: aclsum's 250); see the module
    docstring for the rules.

    Raises:
        FileNotFoundError: The folder holds no ``*.json``.
        InputError: No paper could be kept; the message names the folder and the skips by reason.
    """
    folder = Path(paper_dir or aclsum_paper_dir())
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no grobid2json papers (*.json) in {folder}")
    report = SurgeSampleReport(n_source_papers=len(paths))
    drafts: list[_Draft] = []
    for path in tqdm(paths, desc="reading papers", disable=not show_progress):
        paper_id = path.stem
        try:
            doc = load_grobid_json(path)
        except ValueError as err:
            logger.warning("skipping %s", err)
            report.skip("unreadable", paper_id)
            report.why[paper_id] = str(err)
            continue
        if not normalize_title(doc.get("title") if isinstance(doc.get("title"), str) else None):
            report.skip("no-title", paper_id)
            continue
        draft = _read(paper_id, doc)
        if draft.figures["sections"] < MIN_SECTIONS:
            report.skip("too-few-sections", paper_id)
        elif _distinct_cited(draft) < MIN_CITATIONS:
            report.skip("too-few-citations", paper_id)
        else:
            drafts.append(draft)
    if not drafts:
        raise _no_survey(folder, report)
    targets = [{"doc_id": d.record["paper_id"], "title": d.record["title"], "abstract": d.record["abstract"],
                "authors": d.record["authors"], "year": d.record["year"], "source": "aclsum"} for d in drafts]
    # Target papers come first, as in the RWGBench sample: a cited work that is a target merges into its record.
    corpus, report.corpus_report = assemble_corpus(targets, (r for d in drafts for r in cited_work_records(d.bibs)))
    index = CorpusTitleIndex(corpus)
    return with_expert_texts([_survey(d, index, report) for d in drafts], corpus), corpus, report


def _survey(draft: _Draft, index: CorpusTitleIndex, report: SurgeSampleReport) -> dict[str, Any]:
    """The survey record of a kept draft: cited titles turned into corpus doc_ids, queries written."""
    def doc_ids(titles: tuple[str, ...]) -> list[str]:
        ids = []
        for title in titles:
            doc_id = index.lookup(title)
            if doc_id is None:  # every titled bibliography entry is a corpus record: this is a bug, not bad data
                raise RuntimeError(f"{draft.record['paper_id']}: cited title {title!r} is not in the corpus")
            if doc_id not in ids:
                ids.append(doc_id)
        return ids

    title, paper_id = draft.record["title"], draft.record["paper_id"]
    all_cites = doc_ids(draft.cited)
    queries = []
    for s in draft.sections:
        cites = doc_ids(s.cited)
        if cites:
            path = " > ".join(f"'{t}'" for t in draft.titles[s.id]) or ROOT_PATH
            queries.append({"query_id": f"{paper_id}-{s.id}", "section_id": s.id,
                            "prefix_titles": [title, *draft.titles[s.id]],
                            "query": QUERY_TEMPLATE.format(title=title, path=path), "cites": cites})
    report.unresolved_citations.update(draft.unresolved)
    report.per_survey.append(SurveyFigures(paper_id, citations=len(all_cites), queries=len(queries), **draft.figures))
    structure = [{"id": s.id, "parent_id": s.parent_id, "title": s.title, "content": s.content}
                 for s in draft.sections]
    return {**draft.record, "structure": structure, "all_cites": all_cites, "queries": queries}


def _no_survey(folder: Path, report: SurgeSampleReport) -> InputError:
    """The error of a build that kept no paper: what was skipped and why."""
    unreadable = len(report.skipped.get("unreadable", [])) == report.n_source_papers
    problem = "no readable paper" if unreadable else "no usable paper"
    hint = ("each paper must be a grobid2json file in UTF-8" if unreadable else
            f"a paper is kept when it has a title, at least {MIN_SECTIONS} sections and cites at least "
            f"{MIN_CITATIONS} distinct works whose bibliography entries have titles")
    return InputError(f"{problem} in {folder}: {report.n_source_papers} skipped "
                      f"({describe_skips(report.skipped, report.why)})", hint=hint)


__all__ = ["CATEGORY", "MIN_CITATIONS", "MIN_SECTIONS", "QUERY_TEMPLATE", "ROOT_ID", "ROOT_PATH", "ROOT_TITLE",
           "SurgeSampleReport", "SurveyFigures", "build_surge_sample", "remove_citation_spans"]
