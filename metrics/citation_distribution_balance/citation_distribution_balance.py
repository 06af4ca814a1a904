"""Citation distribution balance (RWGBench): how evenly a generated related-work section spreads its citations."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.scorers import score_citation_distribution_balance

_DESCRIPTION = """
Citation distribution balance (CDB) is the share of the papers a generated related-work section cites
that it cites exactly once. Published related-work sections mostly mention each prior work once, in the
place it belongs; a section that keeps returning to the same few papers scores low. A marker `[i]`
resolves to `candidates[i-1]`; out-of-range and malformed markers are counted and ignored; a section
with no resolvable marker (an empty-citation output) scores 0. The score needs no reference section.
Without a candidate list (the paper's Direct setting: an empty candidate list) each marker number is one cited
item and f(c) counts its occurrences (the paper reports CDB for its Direct rows).
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    candidates (`list` of `list` of `str`, keyword): for each prediction, the ordered doc_ids its markers
        index into (1-based).
Returns:
    citation_distribution_balance (`float`): mean over papers of (papers cited once) / (papers cited).
    empty_citation_rate (`float`): share of papers whose section resolves no marker.
    unresolved_markers (`int`): out-of-range and malformed markers over all papers.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/citation_distribution_balance")
    >>> results = metric.compute(
    ...     predictions=["A [1] builds on [2]; later [1, 3] and again [1]. See also [4]."],
    ...     candidates=[["d1", "d2", "d3", "d4"]],
    ... )
    >>> results["citation_distribution_balance"]
    0.75
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationDistributionBalance(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, candidates=None):
        rows = score_citation_distribution_balance(predictions, candidates)
        return summarize(rows, "citation_distribution_balance")
