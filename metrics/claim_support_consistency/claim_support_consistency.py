"""Claim-support consistency (RWGBench CSC): do the cited papers support what the citing sentences say?"""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.nli import nli_for_profile
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.scorers import score_claim_support

_DESCRIPTION = """
Claim-support consistency (CSC) checks each citation of a generated related-work section against the paper
it cites: premise = the cited paper (title + abstract), hypothesis = the sentence that cites it (markers
removed); entailment scores 1, neutral 0.5, contradiction 0, i.e. P(entailment) + 0.5 P(neutral) of an NLI
model, averaged over the section's citations and then over sections. A section with no resolved citation
scores 0. The paper profile uses `MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli`; the offline
`lite` profile has no NLI model, so the metric is reported as not computed, naming the model it needs.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    candidates (`list` of `list` of `str`, keyword): per prediction, the doc_ids its markers index into.
    corpus (keyword): a corpus `datasets.Dataset` (doc_id, title, abstract) or a dict doc_id -> text.
    model (`str`, keyword, optional): NLI model id or path; default: the profile's `nli` model.
    profile (`str`, keyword, optional): `paper` or `lite`.
Returns:
    claim_support_consistency (`float` or `None`): mean over papers; `None` when no NLI model is available.
    not_computed (`str`, only then): which model the metric needs.
    model (`str` or `None`): the NLI model used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/claim_support_consistency")
    >>> results = metric.compute(predictions=["A [1]."], candidates=[["d1"]], corpus={"d1": "A paper."}, profile="lite")
    >>> results["claim_support_consistency"] is None
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ClaimSupportConsistency(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, candidates=None, corpus=None, model=None, profile=None):
        if corpus is None:
            raise ValueError("`corpus` is required: the doc_id -> title + abstract source of the cited papers")
        nli, why = nli_for_profile(model, profile)
        if nli is None:
            return {"claim_support_consistency": None, "not_computed": why, "model": None}
        rows = score_claim_support(predictions, candidates, corpus, nli)
        return {**summarize(rows, "claim_support_consistency", citations=False), "model": nli.model_id}
