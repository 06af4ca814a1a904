"""SciIG entailment-based faithfulness and consistency of introductions: SummaC-ZS over sentence-level NLI."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.nli import summac_nli_for_profile
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.model_roles import SUMMAC_NLI
from sciwrite.sciig.metrics.summac import score_summac

_DESCRIPTION = """
SummaC-ZS (Laban et al., 2022) scores a generated introduction against a source: an NLI model reads every
(source sentence, generated sentence) pair; each generated sentence keeps its best P(entailment) -
P(contradiction) over the source sentences; the score is the mean over generated sentences, in [-1, 1].
Faithfulness uses the title + abstract as source, consistency the reference introduction. The paper profile uses
SummaC's default NLI model `tals/albert-xlarge-vitaminc-mnli`; the offline `lite` profile has no NLI model, so the
metric is reported as not computed, naming the model it needs.
"""

_CITATION = SCIIG_CITATION + """
@article{laban2022summac,
  title   = {{SummaC}: Re-Visiting {NLI}-based Models for Inconsistency Detection in Summarization},
  author  = {Laban, Philippe and Schnabel, Tobias and Bennett, Paul N. and Hearst, Marti A.},
  journal = {Transactions of the Association for Computational Linguistics},
  volume  = {10},
  pages   = {163--177},
  year    = {2022}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    references (`list` of `str`): the reference introductions, one per prediction.
    abstracts (`list` of `str`, keyword): each paper's abstract (with its title, the faithfulness source).
    titles (`list` of `str`, keyword, optional): each paper's title.
    model (`str`, keyword, optional): NLI model id or path; default: the profile's `summac_nli` model.
    profile (`str`, keyword, optional): `paper` or `lite`.
    return_rows (`bool`, keyword, optional): also return `rows`, the per-paper and per-sentence scores.
Returns:
    summac_faithfulness, summac_consistency (`float` or `None`): means over papers, in [-1, 1]; `None` when no
        NLI model is available.
    not_computed (`str`, only then): which model the metric needs.
    model (`str` or `None`): the NLI model used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_summac")
    >>> results = metric.compute(predictions=["We study graphs."], references=["Graphs matter."],
    ...                          abstracts=["A graph paper."], profile="lite")
    >>> results["summac_faithfulness"] is None, "tals/albert-xlarge-vitaminc-mnli" in results["not_computed"]
    (True, True)
"""

SCORES = ("summac_faithfulness", "summac_consistency")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigSummac(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://arxiv.org/abs/2111.09525"],
        )

    def _compute(self, predictions, references, abstracts=None, titles=None, model=None, profile=None,
                 return_rows=False):
        if abstracts is None:
            raise ValueError("`abstracts` is required: each paper's abstract, the faithfulness source")
        nli, why = summac_nli_for_profile(SUMMAC_NLI, model, profile)
        if nli is None:
            return {**{name: None for name in SCORES}, "not_computed": why, "model": None}
        rows = score_summac(predictions, references, titles, abstracts, nli)
        result = {**summarize(rows, *SCORES, citations=False), "model": nli.model_id}
        return {**result, "rows": rows} if return_rows else result
