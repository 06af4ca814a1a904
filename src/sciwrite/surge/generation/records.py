"""What a SurGE method reads: a survey's topic without its answer, and the corpus papers retrieved for it.

A record (`survey_inputs`) keeps only ``paper_id``, ``title``, ``year``, ``date`` and ``category`` of a survey, and
its ``abstract`` only when the topic is ``title-abstract``: the expert survey's text and tree, its citations and its
sections' cite lists (`ANSWER_FIELDS`) never reach a method, nor its failures file. A retrieval method's record also
holds ``candidate_docs``: the ``{"doc_id", "title", "abstract"}`` of the top-k papers retrieved for the topic, in
rank order (`SurveySearch.topic_docs`, one batched search per run).

What a search never returns (`survey_cutoff`): the survey itself, recognised by its normalised title (never by its
id: SurGE's survey ids, "0" to "204", are also doc_ids of other corpus papers) and, for the agent, any paper published
after the survey (its ``date``, else its ``year``, the same year included; `sciwrite.generation.cutoff`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.agent_tools import CorpusTools
from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.cutoff import NO_DATE, Cutoff, corpus_date
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.titles import normalize_title
from sciwrite.surge.generation.prompts import TITLE_ABSTRACT, topic_text

logger = logging.getLogger(__name__)

#: The fields of a survey that are its answer, never shown to (or kept for) a method.
ANSWER_FIELDS = ("text", "structure", "all_cites", "queries")
#: The fields of a survey a method may read (the abstract too with the ``title-abstract`` topic).
INPUT_FIELDS = ("paper_id", "title", "year", "date", "category")
#: The cutoff source of a search that holds back only the survey itself.
UNDATED = "none: only the survey itself is held back"


def survey_inputs(survey: Mapping[str, Any], topic: str) -> dict[str, Any]:
    """A survey's fields a method may read (`INPUT_FIELDS`, and ``abstract`` for the title-abstract topic)."""
    record = {key: survey.get(key) for key in INPUT_FIELDS}
    if topic == TITLE_ABSTRACT:
        record["abstract"] = survey.get("abstract")
    return record


def survey_cutoff(record: Mapping[str, Any], dated: bool = False) -> Cutoff:
    """What a search for the survey `record` holds back: the survey itself (by its normalised title) and, when
    `dated`, every paper published after it (its ``date``, else its ``year``)."""
    # A paper_id no corpus doc_id can be: SurGE's survey ids are corpus doc_ids of other papers.
    key, paper_id = normalize_title(record.get("title") or ""), f"surge-survey:{record.get('paper_id')}"
    if not dated:
        return Cutoff(paper_id, key, None, None, UNDATED)
    date = corpus_date(record.get("date"))
    if date is not None:
        return Cutoff(paper_id, key, date, date.year, "date")
    year = parse_year(record.get("year"))
    return Cutoff(paper_id, key, None, year, "year") if year is not None else Cutoff(paper_id, key, None, None,
                                                                                        NO_DATE)


class SurveySearch:
    """The run's retriever (BM25 or dense) over the split's corpus, as SurGE's methods search it: a query's top-k
    corpus papers that `survey_cutoff` allows, as ``{"doc_id", "title", "abstract"}`` dicts in rank order. `hits`
    blocks (a method runs it in a worker thread); searches run one at a time (`CorpusTools`' lock)."""

    def __init__(self, retriever: Any, corpus: Any) -> None:
        self.tools = CorpusTools(retriever, corpus)

    @property
    def lookup(self) -> CorpusLookup:
        return self.tools.lookup

    def hits(self, record: Mapping[str, Any], query: str, k: int, dated: bool = False) -> list[dict[str, str]]:
        """The top `k` papers for `query` that the survey's cutoff allows, best first."""
        if not query.strip():
            return []
        return [self.lookup.doc(doc_id) for doc_id in self.tools.hits(survey_cutoff(record, dated), query, k)]

    def topic_docs(self, records: Sequence[Mapping[str, Any]], k: int, topic: str,
                   show_progress: bool = False) -> list[list[dict[str, str]]]:
        """Each survey's top `k` papers for its topic (`topic_text`), all searched in ONE call; a survey whose hits
        the cutoff thinned below `k` is searched again on its own (`hits`). A survey with no title to search with
        gets none (its method then fails it with a clear error)."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        queries = [topic_text(r, topic) for r in records]
        asked = [i for i, q in enumerate(queries) if q]
        for i in set(range(len(records))) - set(asked):
            logger.warning("survey %s has no title to search with: it gets no papers", records[i].get("paper_id"))
        found: list[list[dict[str, str]]] = [[] for _ in records]
        if not asked:
            return found
        want = k + 1  # one more than asked for: the survey itself is often the first hit
        results = self.tools.retriever.search([queries[i] for i in asked], k=want, show_progress=show_progress)
        for i, result in zip(asked, results):
            cutoff = survey_cutoff(records[i])
            kept = [d for d in result.doc_ids if d in self.lookup and cutoff.allows(d, self.lookup.row(d))][:k]
            if len(kept) < k and len(result.doc_ids) >= want:  # more may pass further down the ranking
                kept = self.tools.hits(cutoff, queries[i], k)
            found[i] = [self.lookup.doc(doc_id) for doc_id in kept]
        return found


def require_docs(record: Mapping[str, Any], method: str) -> list[dict[str, Any]]:
    """The record's retrieved papers; none is a `ValueError` saying why a survey can have none."""
    docs = list(record.get("candidate_docs") or [])
    if not docs:
        raise ValueError(f"survey {record.get('paper_id')!r} has no retrieved papers for method {method!r}: the "
                         "retriever found none for its topic (or it has no title to search with)")
    return docs


__all__ = ["ANSWER_FIELDS", "INPUT_FIELDS", "UNDATED", "SurveySearch", "require_docs", "survey_cutoff",
           "survey_inputs"]
