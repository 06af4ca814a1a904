"""Positioning-structure similarity (RWGBench PSS): does a generated related-work section organise prior work
in the order the published one does?"""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.encoders import shared_sentence_encoder
from sciwrite.models.registry import resolve_model
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.model_roles import SCIBERT
from sciwrite.rwgbench.metrics.scorers import score_positioning_structure

_DESCRIPTION = """
Positioning-structure similarity (PSS) compares the order of topics in a generated related-work section
with the published one. Both sections are cut into ordered content blocks (paragraphs; a one-paragraph
section into blocks of three sentences; citation markers removed), each block is embedded (SciBERT in the
paper, the packaged all-MiniLM-L6-v2 with `profile="lite"`), and a soft longest common subsequence runs
over the m x n cosine matrix: L_ij = max(L_{i-1,j}, L_{i,j-1}, L_{i-1,j-1} + max(0, cos_ij)),
PSS = 2 L_mn / (m + n). The same blocks in the same order score 1; reordering or missing topics lower it.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections.
    references (`list` of `str`): the published related-work sections.
    model (`str`, keyword, optional): encoder id or path; default: the profile's `scibert` model.
    profile (`str`, keyword, optional): `paper` (SciBERT) or `lite` (packaged MiniLM).
Returns:
    positioning_structure_similarity (`float`): mean PSS over papers.
    model (`str`): the encoder used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/positioning_structure_similarity")
    >>> reference = "Graph neural networks learn on molecules [1].\\n\\nLanguage models read papers [2]."
    >>> swapped = "Language models read papers [2].\\n\\nGraph neural networks learn on molecules [1]."
    >>> same = metric.compute(predictions=[reference], references=[reference], profile="lite")
    >>> round(same["positioning_structure_similarity"], 4)
    1.0
    >>> metric.compute(predictions=[swapped], references=[reference], profile="lite")["positioning_structure_similarity"] < 0.75
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PositioningStructureSimilarity(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, references, model=None, profile=None):
        model_id = resolve_model(SCIBERT, model, profile)
        rows = score_positioning_structure(predictions, references, shared_sentence_encoder(model_id, role="scibert encoder"))
        return {**summarize(rows, "positioning_structure_similarity", citations=False), "model": model_id}
