"""SciIG keyphrase coverage (reference-based and reference-free), faithfulness and consistency of introductions."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.encoders import keyphrase_encoder_for_profile
from sciwrite.models.registry import resolve_model
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.keyphrases import SCORES, score_keyphrases
from sciwrite.sciig.metrics.model_roles import KEYPHRASE_ENCODER

_DESCRIPTION = """
SciIG compares the keyphrases of a generated introduction with those of the reference introduction and of the
paper's title + abstract. KeyBERT extracts the top 5 phrases of 1-3 words from each text (all-MiniLM-L6-v2;
lite: the packaged copy of the same weights), batched over the whole input. Two phrases match when their Porter
stems are identical, when their stemmed tokens overlap partially (shared stems, Jaccard >= 0.5), or when their
Sentence-BERT cosine is >= 0.7. Reference-based coverage is the share of the reference's phrases matched by the
generation's, reference-free coverage the share of the title + abstract's; faithfulness is the share of the
generation's phrases matched in the title + abstract, consistency the share matched in the reference. Each is a
mean over papers, in [0, 1].
"""

_CITATION = SCIIG_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    references (`list` of `str`): the reference introductions, one per prediction.
    abstracts (`list` of `str`, keyword): each paper's abstract (with its title, the source).
    titles (`list` of `str`, keyword, optional): each paper's title.
    model (`str`, keyword, optional): sentence encoder id or path; default: the profile's `keyphrase_encoder`.
    profile (`str`, keyword, optional): `paper` or `lite`.
    return_rows (`bool`, keyword, optional): also return `rows`, the per-paper scores, phrases and match log.
Returns:
    keyphrase_coverage_ref, keyphrase_coverage_free, keyphrase_faithfulness, keyphrase_consistency (`float`).
    model (`str`): the encoder used.
    rows (`list` of `dict`, only with return_rows): per paper, the four scores, `generated_keyphrases`,
        `reference_keyphrases`, `source_keyphrases` and `keyphrase_log` (metric, phrase, matched, criterion, cosine).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_keyphrases")
    >>> text = "Graph neural networks predict molecule properties."
    >>> results = metric.compute(predictions=[text], references=[text], titles=["Molecular graphs"],
    ...                          abstracts=[text], profile="lite")
    >>> results["keyphrase_consistency"], results["keyphrase_coverage_ref"], results["model"]
    (1.0, 1.0, 'packaged:all-MiniLM-L6-v2')
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigKeyphrases(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273"],
        )

    def _compute(self, predictions, references, abstracts=None, titles=None, model=None, profile=None,
                 return_rows=False):
        if abstracts is None:
            raise ValueError("`abstracts` is required: each paper's abstract, the source of reference-free scores")
        encoder, why = keyphrase_encoder_for_profile(KEYPHRASE_ENCODER, model, profile)
        if encoder is None:
            return {**{name: None for name in SCORES}, "not_computed": why, "model": None}
        rows = score_keyphrases(predictions, references, titles, abstracts, encoder)
        result = {**summarize(rows, *SCORES, citations=False), "model": resolve_model(KEYPHRASE_ENCODER, model, profile)}
        return {**result, "rows": rows} if return_rows else result
