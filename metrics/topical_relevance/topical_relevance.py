"""Topical relevance (RWGBench TRT): how close the cited papers are to the target paper's topic."""

import datasets
import evaluate

from sciwrite.models.encoders import shared_sentence_encoder
from sciwrite.models.registry import resolve_model
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.model_roles import SCIBERT
from sciwrite.rwgbench.metrics.scorers import score_topical_relevance, summarize_applicable

_DESCRIPTION = """
Topical relevance (TRT, RWGBench Eq. 4, §4.1.3): TRT = (1/|C_g|) * sum over c_i in C_g of cos(a_P, a_ci), the
cosine between the embedding of the target paper's abstract a_P and that of each distinct cited paper's
abstract a_ci (C_g: the distinct papers the section's markers resolve to through its candidate list), then the
mean over papers. The paper embeds abstracts with SciBERT (`allenai/scibert_scivocab_uncased`, mean-pooled);
the offline `lite` profile uses the packaged all-MiniLM-L6-v2, and a score says which model produced it.
The cited side is the corpus `abstract` field (the title only when the abstract is empty); a corpus given as
a dict doc_id -> text is embedded as that text. An empty-citation output with a candidate list scores 0.
A prediction without a candidate list (the paper's Direct setting: an empty candidate list) has no value:
its markers resolve to no paper, so there is no abstract to compare; it is left out of the mean
(`n_not_applicable`) and a batch of only such predictions gives None with `not_applicable` saying why (the
paper prints "–" for Direct), never 0.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    references (`list` of `str`): the abstract of each target paper.
    candidates (`list` of `list` of `str`, keyword): for each prediction, the ordered doc_ids its markers
        index into (1-based).
    corpus (keyword): the corpus the doc_ids come from: a `datasets.Dataset` with `doc_id`, `title`,
        `abstract` (e.g. `sciwrite.rwgbench.load_rwgbench("corpus")`) or a dict doc_id -> text.
    model (`str`, keyword, optional): encoder id or path; default: the profile's `scibert` model.
    profile (`str`, keyword, optional): `paper` (SciBERT) or `lite` (packaged MiniLM); default
        `$SCIWRITE_PROFILE` or `paper`.
Returns:
    topical_relevance (`float` or `None`): mean over the papers with a candidate list of the mean cosine to
        the cited papers; `None` (with `not_applicable`) when no prediction has a candidate list (Direct).
    n_not_applicable (`int`): predictions without a candidate list, left out of the mean.
    empty_citation_rate (`float`), unresolved_markers (`int`), model (`str`): the encoder used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/topical_relevance")
    >>> corpus = {"d1": "Dense retrieval of scientific papers with dual encoders.",
    ...           "d2": "A recipe for sourdough bread with a long cold fermentation."}
    >>> results = metric.compute(
    ...     predictions=["Dual encoders [1] retrieve papers.", "Bread [2]."],
    ...     references=["Dense retrieval of scientific papers with dual encoders."] * 2,
    ...     candidates=[["d1", "d2"]] * 2, corpus=corpus, profile="lite",
    ... )
    >>> results["model"], round(results["topical_relevance"], 2)  # paper 1: cosine 1.0; paper 2: about 0.08
    ('packaged:all-MiniLM-L6-v2', 0.54)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TopicalRelevance(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, references, candidates=None, corpus=None, model=None, profile=None):
        if corpus is None:
            raise ValueError("`corpus` is required: the doc_id -> title + abstract source of the cited papers")
        model_id = resolve_model(SCIBERT, model, profile)
        encoder = shared_sentence_encoder(model_id, role="scibert encoder")
        rows = score_topical_relevance(predictions, references, candidates, corpus, encoder)
        return {**summarize_applicable(rows, "topical_relevance"), "model": model_id}
