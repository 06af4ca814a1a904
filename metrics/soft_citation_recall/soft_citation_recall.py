"""Soft citation recall (RWGBench): how much of the gold citations' content the cited papers entail."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.nli import nli_for_profile
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.model_roles import NLI
from sciwrite.rwgbench.metrics.scorers import score_soft_citation_recall

_DESCRIPTION = """
Soft citation recall credits a generated section for citing papers that cover the gold citations even when
they are not the same papers. With s(g, r) = P(entailment) + 0.5 P(neutral) of an NLI model, premise = a
cited paper g (title + abstract), hypothesis = a gold paper r, the score of a section is the mean over
gold papers r of max over cited papers g of s(g, r); an empty-citation output scores 0, and so does a
prediction without a candidate list (Direct: C_g is empty; the paper's Direct rows report 0.000). The paper profile
uses `MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli`; the offline `lite` profile has no NLI
model, so the metric is reported as not computed (the result names the model it needs).
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    references (`list` of `list` of `str`): the gold citations (corpus doc_ids) of each paper.
    candidates (`list` of `list` of `str`, keyword): per prediction, the doc_ids its markers index into.
    corpus (keyword): a corpus `datasets.Dataset` (doc_id, title, abstract) or a dict doc_id -> text.
    model (`str`, keyword, optional): NLI model id or path; default: the profile's `nli` model.
    profile (`str`, keyword, optional): `paper` or `lite`.
Returns:
    soft_citation_recall (`float` or `None`): mean over papers; `None` when no NLI model is available.
    not_computed (`str`, only then): which model the metric needs.
    model (`str` or `None`): the NLI model used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/soft_citation_recall")
    >>> results = metric.compute(predictions=["A [1]."], references=[["d1"]], candidates=[["d1"]],
    ...                          corpus={"d1": "A paper."}, profile="lite")
    >>> results["soft_citation_recall"] is None, "MoritzLaurer/DeBERTa-v3-large" in results["not_computed"]
    (True, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SoftCitationRecall(evaluate.Metric):
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

    def _compute(self, predictions, references, candidates=None, corpus=None, model=None, profile=None):
        if corpus is None:
            raise ValueError("`corpus` is required: the doc_id -> title + abstract source of the papers")
        nli, why = nli_for_profile(NLI, model, profile)
        if nli is None:
            return {"soft_citation_recall": None, "not_computed": why, "model": None}
        rows = score_soft_citation_recall(predictions, references, candidates, corpus, nli)
        return {**summarize(rows, "soft_citation_recall", citations=False), "model": nli.model_id}
