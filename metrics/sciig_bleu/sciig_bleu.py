"""SciIG BLEU: sacrebleu corpus BLEU and mean sentence BLEU of generated introductions against the reference ones."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.lexical import score_bleu

_DESCRIPTION = """
BLEU as `sacrebleu` computes it with its default settings (13a tokenization, exponential smoothing), reported on
the SciIG paper's 0-1 scale (Table 2: e.g. 0.1198), i.e. sacrebleu's 0-100 score divided by 100: the corpus BLEU of all generated introductions against their references, and the mean
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
    corpus_bleu (`float`): sacrebleu's corpus BLEU / 100 (0-1).
    bleu (`float`): mean sentence BLEU over papers / 100 (0-1).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_bleu")
    >>> text = "Graph neural networks were applied to molecules in many studies."
    >>> results = metric.compute(predictions=[text], references=[text])
    >>> round(results["corpus_bleu"], 2), round(results["bleu"], 2)
    (1.0, 1.0)
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
        corpus, rows = score_bleu(predictions, references)  # sacrebleu's 0-100
        rows = [{**row, "bleu": row["bleu"] / 100} for row in rows]  # the paper's 0-1 scale
        return {"corpus_bleu": corpus / 100, **summarize(rows, "bleu", citations=False)}
