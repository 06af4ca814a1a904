"""SciIG perplexity: fluency of a generated introduction as its perplexity under GPT-2, over the whole text."""

import datasets
import evaluate

from sciwrite.models.causal_lm import perplexity_model_for_profile
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.model_roles import GPT2
from sciwrite.sciig.metrics.perplexity import score_perplexity, summarize_perplexity

_DESCRIPTION = """
Perplexity of each generated introduction under GPT-2 (`openai-community/gpt2`, the `gpt2` role): exp of the mean
negative log-likelihood of its tokens. Texts longer than GPT-2's 1,024-token context are scored whole with strided
sliding windows as in the transformers perplexity guide: 1,024-token windows every `stride` tokens (default 512),
each scoring only tokens not scored before, with the rest of the window as context; a text that fits one window
gets the exact full-context value. The first token is not scored (no BOS is added); a text with fewer than two
tokens has no perplexity (counted in `unscored`). Lower is more fluent. No package ships GPT-2, so the offline
`lite` profile reports it as not computed.
"""

_CITATION = SCIIG_CITATION + """@techreport{radford2019language,
  title       = {Language Models are Unsupervised Multitask Learners},
  author      = {Radford, Alec and Wu, Jeffrey and Child, Rewon and Luan, David and Amodei, Dario and Sutskever, Ilya},
  institution = {OpenAI},
  year        = {2019}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    model (`str`, keyword, optional): causal LM id or path; default: the profile's `gpt2` model.
    stride (`int`, keyword, optional): tokens between window starts; default: half the model's context.
    profile (`str`, keyword, optional): `paper` or `lite` (no GPT-2).
Returns:
    perplexity (`float` or `None`): mean over the papers that have one; `None` when no model is available.
    unscored (`int`): papers with fewer than two tokens.
    not_computed (`str`, only when no model): which model the metric needs.
    model (`str` or `None`): the language model used.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/perplexity")
    >>> results = metric.compute(predictions=["A text."], profile="lite")
    >>> results["perplexity"] is None, "gpt2" in results["not_computed"]
    (True, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Perplexity(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273", "https://huggingface.co/docs/transformers/perplexity"],
        )

    def _compute(self, predictions, model=None, stride=None, profile=None):
        lm, why = perplexity_model_for_profile(GPT2, model, profile)
        if lm is None:
            return {"perplexity": None, "unscored": len(predictions), "not_computed": why, "model": None}
        return {**summarize_perplexity(score_perplexity(predictions, lm, stride)), "model": lm.model_id}
