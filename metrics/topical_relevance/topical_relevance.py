"""Topical relevance (RWGBench TRT): how close the cited papers are to the target paper's topic."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.encoders import shared_sentence_encoder
from sciwrite.models.registry import resolve_model
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.scorers import score_topical_relevance

_DESCRIPTION = """
Topical relevance (TRT) is the cosine similarity between the embedding of the target paper's abstract and
the embedding of each paper the generated related-work section cites (title + abstract), averaged over
the distinct cited papers and then over papers. The paper embeds with SciBERT
(`allenai/scibert_scivocab_uncased`, mean-pooled); the offline `lite` profile uses the packaged
all-MiniLM-L6-v2, and a score says which model produced it. An empty-citation output scores 0.
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
    topical_relevance (`float`): mean over papers of the mean cosine to the cited papers.
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
        model_id = resolve_model("scibert", model, profile)
        encoder = shared_sentence_encoder(model_id, role="scibert encoder")
        rows = score_topical_relevance(predictions, references, candidates, corpus, encoder)
        return {**summarize(rows, "topical_relevance"), "model": model_id}
