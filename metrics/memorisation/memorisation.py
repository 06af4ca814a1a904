"""Memorisation signal: how much of a prediction repeats its reference word for word where its inputs could not
have taught it (sciwrite's contamination check for RWGBench and SciIG)."""

import datasets
import evaluate

from sciwrite.core.paper_row import PAPER_ID, typed_rows
from sciwrite.metrics.memorisation import KEYS, memorisation, summarize_memorisation

_DESCRIPTION = """
Per paper, the share in [0, 1] of the prediction's word 8-grams (every position counted) that occur in the
reference text but in none of the inputs the model was given, and the longest run of the prediction's words covered
by such 8-grams. A model reciting a section it read in training scores near 1; one writing from, or copying from,
its inputs scores near 0. Words are lower-cased `\\w+` runs with numeric citation markers removed. Not a metric of
either paper: sciwrite reports it beside their tables (`sciwrite evaluate`), so a model that recites shows up.
"""

_CITATION = """\
@misc{sciwrite,
  title = {sciwrite: benchmarking AI-assisted scientific writing},
  note = {the memorisation signal of `sciwrite evaluate`},
  year = {2026}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated texts.
    references (`list` of `str`): the reference texts (the papers' own sections).
    inputs (`list` of `list` of `str`, keyword): for each prediction, the texts its model was given (title,
        abstract, introduction, cited works' abstracts...).
    n (`int`, keyword): the n-gram length (default 8).
Returns:
    memorisation (`float`): mean share over the papers with at least n words of prediction.
    max_span_words (`int`): the longest recalled span over all papers.
    per_paper (`list` of `dict`): each paper's `memorisation` and `memorised_span_words`.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/memorisation")
    >>> reference = "x a b c d e f g h i j y"
    >>> result = metric.compute(predictions=["a b c d e f g h i j"], references=[reference],
    ...                         inputs=[["b c d e f g h i"]])
    >>> round(result["memorisation"], 4), result["max_span_words"]
    (0.6667, 10)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Memorisation(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
        )

    def _compute(self, predictions, references, inputs=None, n=8):
        inputs = inputs if inputs is not None else [[] for _ in predictions]
        if len(inputs) != len(predictions):
            raise ValueError(f"inputs has {len(inputs)} entries for {len(predictions)} predictions: one list each")
        fields = [memorisation(p, r, x, n) for p, r, x in zip(predictions, references, inputs)]
        summary = summarize_memorisation(typed_rows({PAPER_ID: str(i), **paper} for i, paper in enumerate(fields)),
                                         n_resamples=0)
        return {"memorisation": summary.mean, "max_span_words": summary.max_span_words or 0,
                "per_paper": [{key: paper[key] for key in KEYS} for paper in fields]}
