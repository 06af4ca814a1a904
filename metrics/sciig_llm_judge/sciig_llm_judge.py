"""SciIG LLM-as-judge: coverage, consistency, faithfulness, citation-context quality and narrative quality (0.0-1.0)."""

import datasets
import evaluate

from sciwrite.core.paper_row import typed_rows
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.judge import (
    PROMPT_OF,
    SCORE_NAMES,
    judge_sciig,
    sciig_judge_for_profile,
    summarize_sciig_judgements,
)
from sciwrite.sciig.metrics.row_fields import judge_score_key

_DESCRIPTION = """
An LLM judge scores each generated introduction with the three prompts of the SciIG paper (Table 6, verbatim),
each answered as a JSON object of named float scores in [0.0, 1.0]: (a) `coverage` ("Content Coverage") and
`consistency` against the reference introduction; (b) `faithfulness` and `citation_quality` ("Citation Context
Quality") against the paper's title, abstract and related papers; (c) `narrative_quality`. Scores are averaged over
the papers judged. The judge speaks any OpenAI-compatible API (SCIWRITE_LLM_BASE_URL / SCIWRITE_LLM_API_KEY); the
paper profile asks for `gpt-4o` (the `judge` role shared with RWGBench). The offline `lite` profile has no API
model: the metric is not computed.
"""

_CITATION = SCIIG_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    references (`list` of `str`): the reference introductions.
    abstracts (`list` of `str`, keyword): each paper's abstract.
    titles (`list` of `str`, keyword, optional): each paper's title.
    cited (`list` of `list` of `str`, keyword, optional): per paper, the cited works' texts (title + abstract),
        in marker order.
    prompts (`list` of `str`, keyword, optional): a subset of `reference`, `metadata`, `narrative` (default all).
    model (`str`, keyword, optional): the judge's API model id; default: the profile's `judge` model.
    profile (`str`, keyword, optional): `paper` or `lite` (no judge: not computed).
    base_url, api_key (`str`, keyword, optional): the OpenAI-compatible endpoint; default: the environment.
    cache_path (`str`, keyword, optional): JSONL file of finished replies; a rerun resends only what is missing.
    workers (`int`, keyword, optional): concurrent requests (default 8).
    retries (`int`, keyword, optional): extra passes over failed requests (default 1).
    return_rows (`bool`, keyword, optional): also return `rows`, the per-paper scores, replies and errors.
Returns:
    judge_coverage, judge_consistency, judge_faithfulness, judge_citation_quality, judge_narrative_quality
        (`float` or `None`): means over the papers judged, for the prompts asked.
    n_failed (`int`), failures (`list` of `dict`): `index`, `prompt` and `reason` of each failed request.
    model (`str` or `None`): the judge model asked.
    not_computed (`str`, only when no judge is available): what the metric needs.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/sciig_llm_judge")
    >>> results = metric.compute(predictions=["We study graphs."], references=["Graphs matter."],
    ...                          abstracts=["A graph paper."], profile="lite")
    >>> results["judge_coverage"] is None, "judge" in results["not_computed"]
    (True, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SciigLlmJudge(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273"],
        )

    def _compute(self, predictions, references, abstracts=None, titles=None, cited=None, prompts=None, model=None,
                 profile=None, base_url=None, api_key=None, cache_path=None, workers=8, retries=1,
                 return_rows=False):
        if abstracts is None:
            raise ValueError("`abstracts` is required: each paper's abstract, shown to the metadata prompt")
        prompts = list(prompts or PROMPT_OF)
        judge, why = sciig_judge_for_profile(model, profile, base_url=base_url, api_key=api_key,
                                             cache_path=cache_path)
        if judge is None:
            scores = [s for p in prompts for s in PROMPT_OF[p].scores] if set(prompts) <= set(PROMPT_OF) else SCORE_NAMES
            return {**{judge_score_key(s): None for s in scores}, "not_computed": why, "model": None}
        try:
            rows = judge_sciig(predictions, references, titles, abstracts, judge, cited, prompts=prompts,
                               workers=workers, retries=retries)
        finally:
            judge.close()
        result = {**summarize_sciig_judgements(typed_rows(rows)), "model": judge.model}
        return {**result, "rows": rows} if return_rows else result
