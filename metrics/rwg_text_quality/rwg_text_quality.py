"""Text quality of a generated related-work section against the published one: ROUGE-L and BERTScore."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.models.registry import resolve_model
from sciwrite.models.token_encoder import load_token_encoder
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.model_roles import SCIBERT
from sciwrite.rwgbench.metrics.scorers import score_text_quality

_DESCRIPTION = """
The surface-similarity metrics RWGBench reports next to its citation metrics: ROUGE-L F1 (`rouge_score`'s tokens
and Porter stemming, its exact numbers with a bit-parallel LCS that is fast on long sections) and BERTScore precision / recall / F1 on SciBERT (`allenai/scibert_scivocab_uncased`,
layer 8 as `bert_score` uses it; the offline `lite` profile uses the packaged all-MiniLM-L6-v2, last layer).
Citation markers are removed from both texts first. BERTScore covers the whole section: texts longer than
the model's 512-token window are encoded window by window instead of being truncated, and for texts within
one window the scores equal `bert_score`'s (no idf weighting, no baseline rescaling).
"""

_CITATION = RWGBENCH_CITATION + """@inproceedings{zhang2020bertscore,
  title     = {BERTScore: Evaluating Text Generation with BERT},
  author    = {Zhang, Tianyi and Kishore, Varsha and Wu, Felix and Weinberger, Kilian Q. and Artzi, Yoav},
  booktitle = {International Conference on Learning Representations},
  year      = {2020}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections.
    references (`list` of `str`): the published related-work sections.
    model (`str`, keyword, optional): BERTScore model id or path; default: the profile's `scibert` model.
    layer (`int`, keyword, optional): hidden layer to embed with; default: bert_score's choice for known
        models, else the last layer.
    profile (`str`, keyword, optional): `paper` (SciBERT) or `lite` (packaged MiniLM).
Returns:
    rougeL, bertscore_precision, bertscore_recall, bertscore_f1 (`float`): means over papers.
    model (`str`), layer (`int`): the BERTScore encoder and layer used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/rwg_text_quality")
    >>> text = "Graph neural networks [1] were applied to molecules."
    >>> results = metric.compute(predictions=[text], references=[text], profile="lite")
    >>> round(results["rougeL"], 4), round(results["bertscore_f1"], 4), results["layer"]
    (1.0, 1.0, 6)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RwgTextQuality(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894", "https://github.com/Tiiiger/bert_score"],
        )

    def _compute(self, predictions, references, model=None, layer=None, profile=None):
        model_id = resolve_model(SCIBERT, model, profile)
        encoder = load_token_encoder(model_id, layer)
        rows = score_text_quality(predictions, references, encoder)
        summary = summarize(rows, "rougeL", "bertscore_precision", "bertscore_recall", "bertscore_f1", citations=False)
        return {**summary, "model": model_id, "layer": encoder.layer}
