"""SciIG METEOR: nltk's METEOR, with real WordNet synonyms, of a generated introduction against the reference."""

import datasets
import evaluate

from sciwrite.metrics.summary import summarize
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.lexical import score_meteor
from sciwrite.sciig.metrics.wordnet import wordnet_or_reason

_DESCRIPTION = """
METEOR as `nltk.translate.meteor_score` computes it (alpha 0.9, beta 3, gamma 0.5; exact, Porter-stem and WordNet
synonym matches; lower-cased Treebank word tokens). WordNet 3.0 comes from nltk's data when present, else from
Debian's `wordnet-base` (/usr/share/wordnet, prepared once for nltk under ~/.cache/sciwrite/nltk_data). Without
WordNet the score is reported as not computed, with what to install: METEOR without its synonym stage would be a
different, lower number.
"""

_CITATION = SCIIG_CITATION + """@inproceedings{banerjee2005meteor,
  title     = {{METEOR}: An Automatic Metric for {MT} Evaluation with Improved Correlation with Human Judgments},
  author    = {Banerjee, Satanjeev and Lavie, Alon},
  booktitle = {Proceedings of the ACL Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine Translation and/or Summarization},
  year      = {2005}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions (may be empty).
    references (`list` of `str`): the reference introductions (non-empty).
Returns:
    meteor (`float` or `None`): mean over papers; `None` when WordNet is not installed.
    not_computed (`str`, only then): what to install.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_meteor")
    >>> text = "Graph neural networks were applied to molecules."
    >>> results = metric.compute(predictions=[text], references=[text])
    >>> results["meteor"] is None or round(results["meteor"], 3) > 0.99
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigMeteor(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://www.nltk.org/api/nltk.translate.meteor_score.html"],
        )

    def _compute(self, predictions, references):
        wordnet, why = wordnet_or_reason()
        if wordnet is None:
            return {"meteor": None, "not_computed": why}
        return summarize(score_meteor(predictions, references, wordnet), "meteor", citations=False)
