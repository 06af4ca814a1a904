"""Citation precision and recall (RWGBench): which works a generated related-work section cites."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.scorers import score_citation_precision_recall

_DESCRIPTION = """
Citation precision and recall judge related-work generation as citation decision-making: the set of
corpus papers a generated section cites, against the set the published section cites. A marker `[i]` in
the generated text resolves to `candidates[i-1]`, the i-th paper of the candidate list the generator was
given. Markers that fall outside the list or are malformed are counted as unresolved. A section with no
resolvable marker is an empty-citation output and scores 0 on both; so does a prediction without a candidate
list (the paper's Direct setting: an empty candidate list), as the paper's Direct rows report 0.000.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`
        (also `[1, 2]`, `[1-3]`, `[1][2]`).
    references (`list` of `list` of `str`): the gold citations (corpus doc_ids) of each paper.
    candidates (`list` of `list` of `str`, keyword): for each prediction, the ordered doc_ids its
        markers index into (1-based). Required: without it no marker can be resolved.
Returns:
    precision (`float`): mean over papers of |cited ∩ gold| / |cited| (0 for an empty-citation output).
    recall (`float`): mean over papers of |cited ∩ gold| / |gold|.
    empty_citation_rate (`float`): share of papers whose section resolves no marker.
    unresolved_markers (`int`): out-of-range and malformed markers over all papers.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/citation_precision_recall")
    >>> results = metric.compute(
    ...     predictions=["Graph methods [1] and transformers [2, 3] were used [7]."],
    ...     references=[["d1", "d3", "d9"]],
    ...     candidates=[["d1", "d2", "d3"]],
    ... )
    >>> round(results["precision"], 4), round(results["recall"], 4), results["unresolved_markers"]
    (0.6667, 0.6667, 1)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationPrecisionRecall(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Sequence(datasets.Value("string"))}
            ),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, references, candidates=None):
        return summarize(score_citation_precision_recall(predictions, references, candidates), "precision", "recall")
