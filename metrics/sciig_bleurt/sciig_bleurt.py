"""SciIG BLEURT: BLEURT-20-D12 of a generated introduction against the reference one, over whole texts."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.bleurt import bleurt_for_profile
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.bleurt import score_bleurt
from sciwrite.sciig.metrics.model_roles import BLEURT

_DESCRIPTION = """
BLEURT-20-D12 (`lucadiliello/BLEURT-20-D12`, the PyTorch port of the distilled BLEURT-20), loaded by sciwrite onto
transformers' BERT (the port's package does not import with transformers 5). BLEURT reads 512 tokens; a longer
(reference, generation) pair is cut into k aligned windows (both texts into k consecutive near-equal pieces of at
most 254 tokens each), piece i of the generation scored against piece i of the reference, and the paper's score is
the mean over its k windows (`windows` in the per-paper rows). No package ships BLEURT, so the offline `lite`
profile reports it as not computed.
"""

_CITATION = SCIIG_CITATION + """@inproceedings{sellam2020bleurt,
  title     = {{BLEURT}: Learning Robust Metrics for Text Generation},
  author    = {Sellam, Thibault and Das, Dipanjan and Parikh, Ankur P.},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year      = {2020}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty).
    references (`list` of `str`): the reference introductions (non-empty).
    model (`str`, keyword, optional): BLEURT port checkpoint id or folder; default: the profile's `bleurt` model.
    profile (`str`, keyword, optional): `paper` or `lite` (no BLEURT).
Returns:
    bleurt (`float` or `None`): mean over papers; `None` when no BLEURT model is available.
    not_computed (`str`, only then): which model the metric needs.
    model (`str` or `None`): the BLEURT checkpoint used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_bleurt")
    >>> results = metric.compute(predictions=["A text."], references=["A text."], profile="lite")
    >>> results["bleurt"] is None, "lucadiliello/BLEURT-20-D12" in results["not_computed"]
    (True, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigBleurt(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://huggingface.co/lucadiliello/BLEURT-20-D12"],
        )

    def _compute(self, predictions, references, model=None, profile=None):
        bleurt, why = bleurt_for_profile(BLEURT, model, profile)
        if bleurt is None:
            return {"bleurt": None, "not_computed": why, "model": None}
        return {**summarize(score_bleurt(predictions, references, bleurt), "bleurt", citations=False), "model": bleurt.model_id}
