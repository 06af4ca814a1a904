"""RWGBench LLM judge: an overall 1-5 publication-readiness score of each generated related-work section."""

import datasets
import evaluate

from sciwrite.core.paper_row import typed_rows
from sciwrite.metrics.judge import judge_for_profile
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.judge import judge_sections, summarize_judgements
from sciwrite.rwgbench.metrics.model_roles import JUDGE

_DESCRIPTION = """
An LLM judge reads each generated related-work section and gives one overall publication-readiness score from
1 to 5, weighing coherence, organisation, fluency and academic writing style; citation correctness and citation
coverage (whether cited papers exist or support the claims, how many or which papers are cited, the marker
format) are explicitly excluded, since other RWGBench metrics measure them (paper §4.4). The paper prints no
verbatim prompt: the rubric is ours, built on exactly those criteria and exclusions.
Scores are normalised to [0, 1] as (s - 1) / 4 and averaged over the judged sections. The judge speaks any
OpenAI-compatible API (SCIWRITE_LLM_BASE_URL / SCIWRITE_LLM_API_KEY, or OPENAI_BASE_URL / OPENAI_API_KEY);
the paper profile asks for `gpt-5.5`, the paper's default scorer (§5.1). The section is passed as delimited data, so instructions inside it do not
steer the judge. The offline `lite` profile has no API model: the metric is reported as not computed.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections.
    titles (`list` of `str`, keyword, optional): the target papers' titles, shown to the judge as context.
    model (`str`, keyword, optional): the judge's API model id; default: the profile's `judge` model.
    profile (`str`, keyword, optional): `paper` or `lite` (no judge: not computed).
    base_url, api_key (`str`, keyword, optional): the OpenAI-compatible endpoint; default: the environment.
    cache_path (`str`, keyword, optional): JSONL file of finished replies; a rerun resends only what is missing.
    workers (`int`, keyword, optional): concurrent requests (default 8).
    retries (`int`, keyword, optional): extra passes over failed sections (default 1).
Returns:
    llm_judge (`float` or `None`): mean normalised score over the judged sections; `None` when none was judged.
    n_judged, n_failed (`int`): sections with and without a score.
    failures (`list` of `dict`): `index` and `reason` of each failed section, to retry them.
    model (`str` or `None`): the judge model asked.
    not_computed (`str`, only when no judge is available): what the metric needs.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/rwg_llm_judge")
    >>> results = metric.compute(predictions=["Prior work [1] studied graphs."], profile="lite")
    >>> results["llm_judge"] is None, "judge" in results["not_computed"]
    (True, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RwgLlmJudge(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, titles=None, model=None, profile=None, base_url=None, api_key=None,
                 cache_path=None, workers=8, retries=1):
        judge, why = judge_for_profile(JUDGE, model, profile, base_url=base_url, api_key=api_key, cache_path=cache_path)
        if judge is None:
            return {"llm_judge": None, "not_computed": why, "model": None}
        try:
            rows = judge_sections(predictions, judge, titles, workers=workers, retries=retries)
        finally:
            judge.close()
        return {**summarize_judgements(typed_rows(rows)), "model": judge.model}
