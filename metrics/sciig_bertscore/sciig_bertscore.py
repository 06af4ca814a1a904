"""SciIG BERTScore: whole-introduction BERTScore of a generated introduction against the reference one."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.sciig.metrics.bertscore import sciig_bertscore_encoder, score_sciig_bertscore
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION

_DESCRIPTION = """
BERTScore precision / recall / F1 (greedy cosine matching of contextual token embeddings, no idf weighting, no
baseline rescaling) over whole introductions: texts longer than the encoder's 512-token window are encoded window
by window and all their tokens take part in the matching; within one window the scores equal `bert_score`'s.
Model: the `bertscore` role (`roberta-large`, layer 17: bert_score's English default, the scale of SciIG's Table 2, in the paper profile; the packaged
all-MiniLM-L6-v2, layer 6, in `lite`) — the SciIG paper's BERTScore model is not stated, so sciwrite uses the
scientific encoder it uses elsewhere; `model`/`layer` override, and the result names both.
"""

_CITATION = SCIIG_CITATION + """@inproceedings{zhang2020bertscore,
  title     = {BERTScore: Evaluating Text Generation with BERT},
  author    = {Zhang, Tianyi and Kishore, Varsha and Wu, Felix and Weinberger, Kilian Q. and Artzi, Yoav},
  booktitle = {International Conference on Learning Representations},
  year      = {2020}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty: scores 0).
    references (`list` of `str`): the reference introductions (non-empty).
    model (`str`, keyword, optional): BERTScore model id or path; default: the profile's `bertscore` model.
    layer (`int`, keyword, optional): hidden layer; default: bert_score's choice for known models, else the last.
    profile (`str`, keyword, optional): `paper` or `lite`.
Returns:
    bertscore_precision, bertscore_recall, bertscore_f1 (`float`): means over papers.
    model (`str`), layer (`int`): the encoder and layer used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_bertscore")
    >>> text = "Graph neural networks were applied to molecules."
    >>> results = metric.compute(predictions=[text], references=[text], profile="lite")
    >>> round(results["bertscore_f1"], 4), results["layer"]
    (1.0, 6)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigBertscore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://github.com/Tiiiger/bert_score"],
        )

    def _compute(self, predictions, references, model=None, layer=None, profile=None):
        encoder = sciig_bertscore_encoder(model, layer, profile)
        rows = score_sciig_bertscore(predictions, references, encoder)
        summary = summarize(rows, "bertscore_precision", "bertscore_recall", "bertscore_f1", citations=False)
        return {**summary, "model": encoder.model_id, "layer": encoder.layer}
