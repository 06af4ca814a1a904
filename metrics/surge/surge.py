"""SurGE suite: every SurGE survey-generation metric in one call, sharing the loaded models."""

import datasets
import evaluate

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.predictions import papers_by_id
from sciwrite.metrics.judge_config import JudgeConfig
from sciwrite.scoring.core import ModelCache, score_records
from sciwrite.scoring.request import ScoringRequest
from sciwrite.surge.metrics.evaluation import SurgeSplit

_DESCRIPTION = """
The SurGE suite scores generated surveys (Markdown with `[n]` citations and a numbered reference list) on every
metric of SurGE's evaluator at once: Information collection (Coverage of the expert survey's citations;
Relevance at paper, section and sentence level by NLI), Survey structure (Structure Quality, an LLM judge; SH-Recall,
soft heading recall over embeddings) and Survey content (ROUGE-1/2/L, BLEU, Logic, an LLM judge), with citation
precision and the reference grounding beside them. References are resolved to the corpus by normalised exact title,
as SurGE does, and by sciwrite's fuzzy grounding resolver. It runs sciwrite's one scoring core, as
`sciwrite evaluate surge` does, so the result carries the same summary: intervals, coverage and provenance. A metric
the profile has no model for (offline `lite`: the NLI relevance levels and the judges) is `None`, with the model it
needs in `not_computed`.
"""

_CITATION = """\
@article{su2025surge,
  title   = {SurGE: A Benchmark and Evaluation Framework for Scientific Survey Generation},
  author  = {Su, Weihang and Xie, Anzhe and Ai, Qingyao and Long, Jianming and Mao, Jiaxin and Ye, Ziyi and Liu, Yiqun},
  journal = {arXiv preprint arXiv:2508.15658},
  year    = {2025}
}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated surveys (Markdown).
    references (`list` of `str`): the survey id (`paper_id`) of each prediction's expert survey.
    surveys (keyword): the expert surveys, a `datasets.Dataset` of a SurGE survey config (e.g.
        `sciwrite.surge.data.loading.load_surge("sample")`) or a list of dicts with paper_id, title, abstract,
        structure and all_cites.
    corpus (keyword): the corpus the surveys cite into (e.g. `load_surge("sample_corpus")`), or a list of dicts
        with doc_id, title, abstract, authors, year, source.
    profile (`str`, keyword, optional): `paper` or `lite`; default `$SCIWRITE_PROFILE` or `paper`.
    models (`dict`, keyword, optional): role -> model id overrides (surge_nli, heading_encoder, surge_judge).
    metrics (`list` of `str`, keyword, optional): only these metrics or scorers (reference_coverage, relevance,
        structure_quality, sh_recall, lexical, logic); default: all.
    judge_options (`dict`, keyword, optional): base_url, api_key and cache_path of the LLM judge client.
    bootstrap (`int`, keyword, optional): resamples of the 95% intervals over surveys (default 1000; 0: none).
    seed (`int`, keyword, optional): the bootstrap's seed (default 0).
    return_per_paper (`bool`, keyword, optional): also return the per-survey rows under `per_paper`.
Returns:
    The summary `sciwrite evaluate surge` writes: reference_coverage, relevance_paper, relevance_section,
    relevance_sentence, structure_quality (0-5), sh_recall, rouge1, rouge2, rougeL, bleu (0-1), logic (0-5),
    citation_precision (`None` when not computed), the grounding block, n_papers, not_computed, models,
    intervals, coverage, schema_version and provenance.
Examples:
    >>> import evaluate
    >>> suite = evaluate.load("metrics/surge")
    >>> survey = {"paper_id": "s1", "title": "A survey of parsing", "abstract": "", "authors": [], "year": 2024,
    ...           "date": "", "category": "cs.CL", "all_cites": ["d1", "d2"], "queries": [],
    ...           "structure": [{"id": "0", "parent_id": "", "title": "root", "content": ""}]}
    >>> corpus = [{"doc_id": "d1", "title": "Fast parsing", "abstract": "", "authors": [], "year": 2020,
    ...            "source": "x"}, {"doc_id": "d2", "title": "Slow parsing", "abstract": "", "authors": [],
    ...            "year": 2021, "source": "x"}]
    >>> text = "# Parsing\\n## Methods\\nFast parsers exist [1].\\n## References\\n[1] Fast parsing\\n"
    >>> results = suite.compute(predictions=[text], references=["s1"], surveys=[survey], corpus=corpus,
    ...                         profile="lite", metrics=["reference_coverage"], bootstrap=0)
    >>> results["reference_coverage"], results["citation_precision"]
    (0.5, 1.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Surge(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.15658", "https://github.com/oneal2000/SurGE"],
        )

    def _compute(self, predictions, references, surveys=None, corpus=None, profile=None, models=None, metrics=None,
                 judge_options=None, bootstrap=1000, seed=0, return_per_paper=False):
        if surveys is None or corpus is None:
            raise ValueError("`surveys` (the expert surveys) and `corpus` (the papers they cite) are required")
        benchmark = get_benchmark("surge")
        split = SurgeSplit.of("surveys", papers_by_id(references, surveys), corpus)
        records = [{"paper_id": pid, "text": text} for pid, text in zip(references, predictions)]
        request = ScoringRequest(profile=profile, models=models or {}, metrics=metrics,
                                 judge=JudgeConfig.from_options(judge_options),
                                 bootstrap=bootstrap, seed=seed, show_progress=False)
        result = score_records(benchmark, records, split, request, self.__dict__.setdefault("_models", ModelCache()))
        summary = result.summary.to_json()  # the module's answer is JSON, as evaluate's modules give
        return {**summary, "per_paper": [row.to_json() for row in result.rows]} if return_per_paper else summary
