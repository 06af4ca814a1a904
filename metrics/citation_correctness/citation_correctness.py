"""Citation correctness (SciIG): whether a generated introduction's author–year citations name the paper's cited works."""

import datasets
import evaluate

from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.citations import (
    score_citation_correctness,
    summarize_citation_correctness,
)

_DESCRIPTION = """
SciIG gives a model a paper's title, abstract and cited works, each with its in-text identifier such as
"Li et al., 2022", and asks for the Introduction. Citation correctness reads the generation's APA / ACL
author-year citations ("(Li et al., 2022; Chen and Wu, 2021a)", "Li et al. (2022)") and compares them, as sets,
with the identifiers of the cited works: precision is the share of the generation's citations that name a cited
work, recall the share of cited works the generation cites. Identifiers match up to case, "&" vs "and",
spacing, punctuation and the year's suffix letter. A generation with no citation scores 0 on both and is
counted in `no_citation_rate`.

Apart from precision, `unmatched_citation_rate` is the automatic counterpart of the "Hallucinated Citations"
criterion of the SciIG human rubric (Table 7): the share of a generation's citations whose first surname is no
cited work's ("(Smith et al., 2021)" with no Smith among them). A citation with a cited work's surname but another
year or form is a near miss, counted apart (`n_near_miss_citations`).
"""

_CITATION = SCIIG_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions with author-year citations.
    references (`list` of `list` of `str`): for each paper, the in-text identifiers of its cited works
        (the `key` of each item of the SciIG `neighbors` column). A paper with none is an error.
Returns:
    precision (`float`): mean over papers of |cited ∩ neighbors| / |cited| (0 for a generation with no citation).
    recall (`float`): mean over papers of |cited ∩ neighbors| / |neighbors|.
    no_citation_rate (`float`): share of generations with no author-year citation.
    unmatched_citation_rate (`float` or `None`): mean over the papers that cite anything of the share of their
        citations whose first surname no cited work has (None when no generation cites).
    n_unmatched_citations (`int`), n_near_miss_citations (`int`), n_papers_citing (`int`): the counts behind it.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/citation_correctness")
    >>> results = metric.compute(
    ...     predictions=["Parsers improved (Li et al., 2022b; Smith & Jones, 2020), as Brown (2019) showed."],
    ...     references=[["Li et al., 2022", "Smith and Jones, 2020", "Chen et al., 2021"]],
    ... )
    >>> round(results["precision"], 4), round(results["recall"], 4), results["no_citation_rate"]
    (0.6667, 0.6667, 0.0)
    >>> round(results["unmatched_citation_rate"], 4), results["n_unmatched_citations"]  # Brown is no cited author
    (0.3333, 1)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationCorrectness(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Sequence(datasets.Value("string"))}
            ),
            reference_urls=["https://arxiv.org/abs/2508.14273"],
        )

    def _compute(self, predictions, references):
        return summarize_citation_correctness(score_citation_correctness(predictions, references))
