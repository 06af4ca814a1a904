"""SciIG BLEU: sacrebleu corpus BLEU and mean sentence BLEU of generated introductions against the reference ones."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.lexical import score_bleu

_DESCRIPTION = """
BLEU as `sacrebleu` computes it with its default settings (13a tokenization, exponential smoothing), on
sacrebleu's 0-100 scale: the corpus BLEU of all generated introductions against their references, and the mean
over papers of sentence BLEU (effective order), which is the per-paper score. Texts are scored whole and as given.
"""

_CITATION = SCIIG_CITATION + """@inproceedings{post2018call,
  title     = {A Call for Clarity in Reporting {BLEU} Scores},
  author    = {Post, Matt},
  booktitle = {Proceedings of the Third Conference on Machine Translation: Research Papers},
  year      = {2018}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty).
    references (`list` of `str`): the reference introductions (non-empty).
Returns:
    corpus_bleu (`float`): sacrebleu's corpus BLEU (0-100).
    bleu (`float`): mean sentence BLEU over papers (0-100).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_bleu")
    >>> text = "Graph neural networks were applied to molecules in many studies."
    >>> results = metric.compute(predictions=[text], references=[text])
    >>> round(results["corpus_bleu"], 2), round(results["bleu"], 2)
    (100.0, 100.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigBleu(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://github.com/mjpost/sacrebleu"],
        )

    def _compute(self, predictions, references):
        corpus, rows = score_bleu(predictions, references)
        return {"corpus_bleu": corpus, **summarize(rows, "bleu", citations=False)}
