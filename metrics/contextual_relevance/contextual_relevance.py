"""SciIG contextual relevance: mean cosine of a generated introduction with its title, abstract and cited abstracts."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.encoders import contextual_encoder_for_profile
from sciwrite.models.registry import resolve_model
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.contextual_relevance import score_contextual_relevance
from sciwrite.sciig.metrics.model_roles import CONTEXTUAL_ENCODER

_DESCRIPTION = """
How close a generated introduction stays to the paper's own sources: the mean cosine between the embedding of the
introduction and those of the title, the abstract and each cited work's abstract (empty ones skipped). Embeddings
are mean-pooled token states of the `contextual_encoder` role: Longformer (`allenai/longformer-base-4096`, up to
4,096 tokens) in the paper profile, the packaged all-MiniLM-L6-v2 (256 tokens) in `lite`. Longer texts are embedded
in consecutive windows of the encoder's length and their window embeddings averaged, weighted by token count.
"""

_CITATION = SCIIG_CITATION + """@article{beltagy2020longformer,
  title   = {Longformer: The Long-Document Transformer},
  author  = {Beltagy, Iz and Peters, Matthew E. and Cohan, Arman},
  journal = {arXiv preprint arXiv:2004.05150},
  year    = {2020}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty: scores 0).
    titles (`list` of `str`): paper titles (may be empty: skipped).
    abstracts (`list` of `str`): paper abstracts (non-empty).
    cited_abstracts (`list` of `list` of `str`): abstracts of each paper's cited works (may be an empty list).
    model (`str`, keyword, optional): encoder id or path; default: the profile's `contextual_encoder` model.
    profile (`str`, keyword, optional): `paper` (Longformer) or `lite` (packaged MiniLM).
Returns:
    contextual_relevance (`float`): mean over papers.
    model (`str`): the encoder used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/contextual_relevance")
    >>> text = "Graph neural networks for molecules."
    >>> results = metric.compute(predictions=[text], titles=[text], abstracts=[text], cited_abstracts=[[text]],
    ...                          profile="lite")
    >>> round(results["contextual_relevance"], 4)
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ContextualRelevance(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "titles": datasets.Value("string"),
                                        "abstracts": datasets.Value("string"),
                                        "cited_abstracts": datasets.Sequence(datasets.Value("string"))}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://arxiv.org/abs/2004.05150"],
        )

    def _compute(self, predictions, titles, abstracts, cited_abstracts, model=None, profile=None):
        encoder, why = contextual_encoder_for_profile(CONTEXTUAL_ENCODER, model, profile)
        if encoder is None:
            return {"contextual_relevance": None, "not_computed": why, "model": None}
        rows = score_contextual_relevance(predictions, titles, abstracts, cited_abstracts, encoder)
        model_id = resolve_model(CONTEXTUAL_ENCODER, model, profile)
        return {**summarize(rows, "contextual_relevance", citations=False), "model": model_id}
