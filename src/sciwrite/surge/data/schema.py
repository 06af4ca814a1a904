"""The SurGE schema, defined once as `datasets.Features`: surveys (the targets) and the corpus they cite.

A survey record carries what SurGE's ``surveys.json`` documents (title, authors, year, date, arXiv category,
abstract, the section tree ``structure`` and ``all_cites``) and, per section, the cite lists of ``queries.json``
(``queries``), and the expert survey rendered from them as Markdown (``text``). ``paper_id`` is the survey's id as
text: every sciwrite front end joins predictions to targets by it. The corpus has the shared corpus features
(``doc_id`` as text), so one corpus serves SurGE and RWGBench.
"""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, List, Value

from sciwrite.core.schema import validate_features
from sciwrite.sources.corpus import CORPUS_FEATURES

#: One section of a survey's tree, as SurGE's ``structure`` lists them: the root section is titled ``root``, and a
#: section names its parent by ``parent_id`` ("" for the root). ``content`` is the section's own text (its
#: citation markers removed, as in SurGE's release).
SECTION_FEATURES = {
    "id": Value("string"),
    "parent_id": Value("string"),
    "title": Value("string"),
    "content": Value("string"),
}

#: One entry of SurGE's ``queries.json``: a section (by ``section_id``, SurGE's ``original_id``), its heading path
#: (``prefix_titles``: survey title, section, subsection...), the question written for it and the corpus documents
#: the section cites.
QUERY_FEATURES = {
    "query_id": Value("string"),
    "section_id": Value("string"),
    "prefix_titles": List(Value("string")),
    "query": Value("string"),
    "cites": List(Value("string")),
}

SURVEY_FEATURES = Features(
    {
        "paper_id": Value("string"),  # SurGE's survey_id, as text
        "title": Value("string"),
        "authors": List(Value("string")),
        "year": Value("int32"),
        "date": Value("string"),  # ISO 8601 timestamp of the arXiv release ("" when unknown)
        "category": Value("string"),
        "abstract": Value("string"),
        "structure": List(SECTION_FEATURES),
        "all_cites": List(Value("string")),  # corpus doc_ids the survey cites
        "queries": List(QUERY_FEATURES),
        # the expert survey as Markdown (`sciwrite.surge.data.expert.expert_markdown`): headings, contents, each
        # section's cites as [n] markers at its end (their places are ours) and the reference list
        "text": Value("string"),
    }
)
"""The surveys' features: what a method is given (title, abstract, date...) and what it is scored against."""

#: The corpus documents' features are every benchmark's (`sciwrite.sources.corpus.CORPUS_FEATURES`): SurGE's corpus is
#: the one RWGBench is built on, so one corpus folder serves both benchmarks.

FEATURES_BY_KIND: dict[str, Features] = {"survey": SURVEY_FEATURES, "corpus": CORPUS_FEATURES}


def validate_dataset(ds: Dataset | DatasetDict, kind: str, where: str = "dataset") -> Dataset | DatasetDict:
    """Check `ds` against the SurGE schema of `kind` (``survey`` or ``corpus``) and cast it to the exact features.

    Raises:
        SchemaError: A column is missing, extra or of the wrong type; the message names `where` and each problem.
    """
    return validate_features(ds, FEATURES_BY_KIND[kind], f"SurGE {kind}", where)


__all__ = ["CORPUS_FEATURES", "FEATURES_BY_KIND", "QUERY_FEATURES", "SECTION_FEATURES", "SURVEY_FEATURES",
           "validate_dataset"]
