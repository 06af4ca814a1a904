"""Citation density (RWGBench CD): distinct cited papers per sentence of a generated related-work section."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.scorers import score_citation_density

_DESCRIPTION = """
Citation density (CD) = |C_g| / N_s: the number of distinct papers a generated related-work section cites
(markers resolved through its candidate list) divided by its number of sentences. Published sections
cite densely; a section that describes much and cites little scores low. Sentences come from nltk's
Punkt algorithm with a fixed list of scientific abbreviations (offline, identical on every machine). A
section with no sentence scores 0. Without a candidate
list (the paper's Direct setting: an empty candidate list) the markers cannot resolve, so |C_g| counts the
distinct marker numbers instead ([1] and [1] are one item): the paper reports CD for its Direct rows.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    candidates (`list` of `list` of `str`, keyword): for each prediction, the ordered doc_ids its markers
        index into (1-based).
Returns:
    citation_density (`float`): mean over papers of distinct cited papers per sentence.
    empty_citation_rate (`float`), unresolved_markers (`int`).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/citation_density")
    >>> text = "Smith et al. [1] built graphs. Later work [2, 3] added attention. We differ from [1]."
    >>> metric.compute(predictions=[text], candidates=[["d1", "d2", "d3"]])["citation_density"]
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationDensity(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, candidates=None):
        return summarize(score_citation_density(predictions, candidates), "citation_density")
