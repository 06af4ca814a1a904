"""SciIG suite: every SciIG introduction-generation metric in one call, sharing the loaded models."""

import datasets
import evaluate

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.predictions import papers_by_id
from sciwrite.metrics.judge_config import JudgeConfig
from sciwrite.sciig.metrics.bibtex import SCIIG_CITATION
from sciwrite.sciig.metrics.evaluation import SciIGSplit
from sciwrite.scoring.core import ModelCache, score_records
from sciwrite.scoring.request import ScoringRequest

_DESCRIPTION = """
The SciIG suite scores generated introductions on every metric of the benchmark at once, in the paper's Table 2
categories: Lexical (ROUGE-1/2/L, corpus BLEU, METEOR), Semantic (BERTScore F1, BLEURT, contextual relevance),
Keyphrase (reference-based and reference-free coverage, faithfulness, consistency), Entailment (SummaC-ZS
faithfulness and consistency), Citation (precision, recall), Fluency (GPT-2 perplexity) and the LLM judge
(coverage, consistency, faithfulness, citation quality, narrative quality). Each model is loaded once, and kept
across calls with the same settings, and each scorer is called once on the whole batch. It runs sciwrite's one
scoring core, as `sciwrite evaluate sciig` does, so the result carries the same summary: intervals, coverage, the
memorisation signal and the provenance. Predictions are matched to their papers by paper_id. A metric the profile
has no model for (offline `lite`: BLEURT, perplexity, SummaC and the judge) is `None`, with the model it needs in
`not_computed`. A paper one scorer cannot take (an empty or over-20,000-word generation for the keyphrase,
SummaC and judge scorers) is left out of that scorer's means and listed under `scoring_errors`.
"""

_CITATION = SCIIG_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated introductions.
    references (`list` of `str`): the paper_id of each prediction's paper.
    papers (keyword): the papers, a `datasets.Dataset` of a SciIG config (e.g.
        `sciwrite.sciig.load_sciig("sample")`) or a list of dicts with paper_id, title, abstract, introduction
        and neighbors (`{key, title, authors, abstract}` per cited work).
    profile (`str`, keyword, optional): `paper` or `lite`; default `$SCIWRITE_PROFILE` or `paper`.
    models (`dict`, keyword, optional): role -> model id overrides (bertscore, bleurt, contextual_encoder,
        keyphrase_encoder, summac_nli, question_generation, question_answering, gpt2, judge).
    metrics (`list` of `str`, keyword, optional): only these metrics or scorers (rouge, bleu, meteor, bertscore,
        bleurt, contextual_relevance, keyphrases, summac, qa, citations, perplexity, judge); default: all.
    judge_options (`dict`, keyword, optional): base_url, api_key and cache_path of the LLM judge client.
    bootstrap (`int`, keyword, optional): resamples of the 95% intervals over papers (default 1000; 0: none).
    seed (`int`, keyword, optional): the bootstrap's seed (default 0).
    return_per_paper (`bool`, keyword, optional): also return the per-paper rows under `per_paper`.
Returns:
    The summary `sciwrite evaluate sciig` writes: one value per Table 2 metric (rouge1, rouge2, rougeL, bleu (corpus BLEU, on the paper's 0-1 scale), meteor, bertscore_f1, bleurt,
    contextual_relevance, keyphrase_coverage_ref, keyphrase_coverage_free, keyphrase_faithfulness,
    keyphrase_consistency, summac_faithfulness, summac_consistency, qa_faithfulness, qa_consistency,
    citation_precision, citation_recall, perplexity, judge_coverage, judge_consistency, judge_faithfulness,
    judge_citation_quality, judge_narrative_quality; `None` when not computed), n_papers, scoring_errors, not_computed (metric -> reason),
    models (role -> model id), metric_timings (scorer -> seconds), intervals, coverage, memorisation,
    schema_version and provenance.
Examples:
    >>> import evaluate
    >>> suite = evaluate.load("metrics/sciig")
    >>> paper = {"paper_id": "p1", "title": "Graph parsing", "abstract": "We parse graphs with transformers.",
    ...          "introduction": "Graph parsers are slow (Li et al., 2022). We make them fast.",
    ...          "neighbors": [{"key": "Li et al., 2022", "title": "Parsing", "authors": ["Ann Li"], "abstract": ""}]}
    >>> results = suite.compute(predictions=[paper["introduction"]], references=["p1"], papers=[paper],
    ...                         profile="lite", metrics=["rouge", "citations", "bleurt"])
    >>> results["rougeL"], results["citation_precision"], results["citation_recall"]
    (1.0, 1.0, 1.0)
    >>> results["bleurt"] is None and "bleurt" in results["not_computed"]["bleurt"]
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Sciig(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2508.14273"],
        )

    def _compute(self, predictions, references, papers=None, profile=None, models=None, metrics=None,
                 judge_options=None, bootstrap=1000, seed=0, return_per_paper=False):
        if papers is None:
            raise ValueError("`papers` (the SciIG records the predictions introduce) is required")
        benchmark = get_benchmark("sciig")
        split = SciIGSplit.of("papers", papers_by_id(references, papers))
        records = [{"paper_id": pid, "text": text} for pid, text in zip(references, predictions)]
        request = ScoringRequest(profile=profile, models=models or {}, metrics=metrics,
                                 judge=JudgeConfig.from_options(judge_options),
                                 bootstrap=bootstrap, seed=seed, show_progress=False)
        # the models are kept between calls, so scoring system after system computes the reference side once
        result = score_records(benchmark, records, split, request, self.__dict__.setdefault("_models", ModelCache()))
        summary = result.summary.to_json()  # the module's answer is JSON, as evaluate's modules give
        return {**summary, "per_paper": [row.to_json() for row in result.rows]} if return_per_paper else summary
