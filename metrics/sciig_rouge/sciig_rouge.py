"""SciIG ROUGE: ROUGE-1, ROUGE-2 and ROUGE-L F1 of a generated introduction against the reference one."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.lexical import score_rouge

_DESCRIPTION = """
Lexical overlap as the SciIG paper reports it: ROUGE-1, ROUGE-2 and ROUGE-L F1 with `rouge_score`'s tokenizer and
Porter stemming. ROUGE-L uses sciwrite's bit-parallel LCS, which gives rouge_score's exact numbers in milliseconds
on long introductions. Texts are scored whole and as given; an empty generation scores 0.
"""

_CITATION = SCIIG_CITATION + """@inproceedings{lin2004rouge,
  title     = {{ROUGE}: A Package for Automatic Evaluation of Summaries},
  author    = {Lin, Chin-Yew},
  booktitle = {Text Summarization Branches Out},
  year      = {2004}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty).
    references (`list` of `str`): the reference introductions (non-empty).
Returns:
    rouge1, rouge2, rougeL (`float`): F1 means over papers.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_rouge")
    >>> results = metric.compute(predictions=["Graph networks model molecules."],
    ...                          references=["Graph networks model molecules well."])
    >>> round(results["rouge1"], 4), round(results["rouge2"], 4), round(results["rougeL"], 4)
    (0.8889, 0.8571, 0.8889)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigRouge(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://github.com/google-research/google-research/tree/master/rouge"],
        )

    def _compute(self, predictions, references):
        return summarize(score_rouge(predictions, references), "rouge1", "rouge2", "rougeL", citations=False)
