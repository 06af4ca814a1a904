"""Claim-support consistency (RWGBench CSC): do the cited papers support what the citing sentences say?"""

import datasets
import evaluate

from sciwrite.models.nli import nli_for_profile
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.model_roles import NLI
from sciwrite.rwgbench.metrics.scorers import score_claim_support, summarize_applicable

_DESCRIPTION = """
Claim-support consistency (CSC, RWGBench Eq. 3, §4.1.2) checks each citation of a generated related-work
section against the paper it cites. For each distinct cited paper c_i in C_g (the papers the section's markers
resolve to through its candidate list): premise = the abstract of c_i (the corpus `abstract` field; a corpus
given as a dict doc_id -> text is used as that text), hypothesis = the sentence citing c_i (markers removed).
The NLI model's PREDICTED label (argmax) scores entailment 1, neutral 0.5, contradiction 0 (the paper maps
labels, not probabilities; an exact tie goes to the first of entailment, neutral, contradiction).
CSC = (1/|C_g|) * sum of s_i, then the mean over papers. Where the paper is silent: a paper cited in several
sentences gets s_i = the mean of its sentences' scores, so each distinct cited paper weighs once as Eq. 3
normalises by |C_g|. An empty-citation output with a candidate list scores 0. A prediction without a candidate
list (the paper's Direct setting: an empty candidate list) has no value: no marker resolves to a paper, so
there is no premise; it is left out of the mean (`n_not_applicable`), and a batch of only such predictions
gives None with `not_applicable` saying why (the paper prints "–" for Direct), never 0.
The paper says only "a DeBERTa-v3 NLI model"; the paper profile uses
`MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli` (three-way, large, trained beyond MNLI's genres).
The offline `lite` profile has no NLI model, so the metric is reported as not computed, naming the model it needs.
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
    claim_support_consistency (`float` or `None`): mean over the papers with a candidate list; `None` when no
        NLI model is available (`not_computed`) or no prediction has a candidate list (`not_applicable`).
    n_not_applicable (`int`): predictions without a candidate list, left out of the mean.
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
        nli, why = nli_for_profile(NLI, model, profile)
        if nli is None:
            return {"claim_support_consistency": None, "not_computed": why, "model": None}
        rows = score_claim_support(predictions, candidates, corpus, nli)
        return {**summarize_applicable(rows, "claim_support_consistency", citations=False), "model": nli.model_id}
