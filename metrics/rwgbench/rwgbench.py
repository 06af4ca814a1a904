"""RWGBench suite: every RWGBench metric in one call, sharing the loaded models across metrics."""

import datasets
import evaluate

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.predictions import papers_by_id
from sciwrite.metrics.judge_config import JudgeConfig
from sciwrite.rwgbench.metrics.evaluation import RWGBenchSplit
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.scoring.core import ModelCache, score_records
from sciwrite.scoring.request import ScoringRequest

_DESCRIPTION = """
The RWGBench suite scores generated related-work sections on every metric of the benchmark at once, in the
paper's Table 2 groups: citation quality (CQ: precision, recall, soft recall, claim-support consistency,
topical relevance), citation organisation (CO: citation density, citation distribution balance), citation framing (CF: positioning-structure similarity, citation frame alignment) and text quality
(TQ: ROUGE-L, BERTScore, LLM judge). Each model is loaded once and shared by the metrics that use it (the
SciBERT-role encoder by TRT, PSS and BERTScore; the NLI model by soft recall and CSC), and kept across
calls with the same settings: the models remember what they computed, so scoring several systems on one
split computes its reference side once. It runs sciwrite's one scoring core, as `sciwrite evaluate rwgbench`
does, so the result carries the same summary: intervals, coverage, the memorisation signal, the grounding and the
provenance. Predictions are matched to their target papers by paper_id. Metrics the profile has no model for (offline `lite`: NLI and the LLM
judge) are `None`, with the model they need in `not_computed`. A prediction without a candidate list (the
paper's Direct setting: an empty candidate list) scores 0 on precision, recall and soft recall, has its markers
counted for CD, CDB and CFA, and has no CSC or TRT (no marker resolves to a paper to compare): those are left
out of the means (`n_not_applicable`), and are `None` with the reason in `not_applicable` when no prediction
has a list; the printed Table 2 shows "–" there, as the paper does for Direct.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections with numeric markers `[i]`.
    references (`list` of `str`): the paper_id of each prediction's target paper.
    candidates (`list` of `list` of `str`, keyword): per prediction, the ordered doc_ids its markers index into.
    papers (keyword): the target papers, a `datasets.Dataset` of an RWGBench paper config (e.g.
        `sciwrite.rwgbench.load_rwgbench("sample")`) or a list of dicts with paper_id, title, abstract,
        related_work and citations.
    corpus (keyword): the corpus, a `datasets.Dataset` (doc_id, title, abstract) or a dict doc_id -> text.
    profile (`str`, keyword, optional): `paper` or `lite`; default `$SCIWRITE_PROFILE` or `paper`.
    models (`dict`, keyword, optional): role -> model id overrides (scibert, nli, citation_frame, judge).
    metrics (`list` of `str`, keyword, optional): only these metrics (default: all).
    judge_options (`dict`, keyword, optional): base_url, api_key and cache_path of the LLM judge client.
    bootstrap (`int`, keyword, optional): resamples of the 95% intervals over papers (default 1000; 0: none).
    seed (`int`, keyword, optional): the bootstrap's seed (default 0).
    return_per_paper (`bool`, keyword, optional): also return the per-paper rows under `per_paper`.
Returns:
    The summary `sciwrite evaluate rwgbench` writes: one mean per metric (precision, recall, soft_citation_recall, claim_support_consistency, topical_relevance,
    citation_density, citation_distribution_balance, positioning_structure_similarity, citation_frame_alignment,
    rougeL, bertscore_f1, llm_judge; `None` when not computed), n_papers, empty_citation_rate,
    unresolved_markers, not_computed (metric -> reason), models (role -> model id), intervals, coverage,
    memorisation, grounding, schema_version and provenance.
Examples:
    >>> import evaluate
    >>> suite = evaluate.load("metrics/rwgbench")
    >>> paper = {"paper_id": "p1", "title": "Graph parsing", "abstract": "We parse graphs with transformers.",
    ...          "related_work": "Transformers [1] replaced recurrent models.\\n\\nGraph parsers [2] use them.",
    ...          "citations": ["d1", "d2"]}
    >>> corpus = {"d1": "Attention is all you need.", "d2": "A graph parser.", "d3": "Bread baking."}
    >>> results = suite.compute(predictions=[paper["related_work"]], references=["p1"], candidates=[["d1", "d2"]],
    ...                         papers=[paper], corpus=corpus, profile="lite")
    >>> results["precision"], results["recall"], round(results["positioning_structure_similarity"], 4)
    (1.0, 1.0, 1.0)
    >>> results["soft_citation_recall"] is None and "nli" in results["not_computed"]["soft_citation_recall"]
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Rwgbench(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, references, candidates=None, papers=None, corpus=None, profile=None, models=None,
                 metrics=None, judge_options=None, bootstrap=1000, seed=0, return_per_paper=False):
        if papers is None or corpus is None:
            raise ValueError("`papers` (the target papers) and `corpus` (the cited papers' texts) are required")
        if candidates is None or len(candidates) != len(predictions):
            raise ValueError("`candidates` must give one doc_id list per prediction")
        benchmark = get_benchmark("rwgbench")
        split = RWGBenchSplit.of("papers", papers_by_id(references, papers), corpus, show_progress=False)
        records = [{"paper_id": pid, "text": text, "candidates": list(cands or [])}
                   for pid, text, cands in zip(references, predictions, candidates)]
        request = ScoringRequest(profile=profile, models=models or {}, metrics=metrics,
                                 judge=JudgeConfig.from_options(judge_options),
                                 bootstrap=bootstrap, seed=seed, show_progress=False)
        # the models are kept between calls, so scoring system after system computes the reference side once
        result = score_records(benchmark, records, split, request, self.__dict__.setdefault("_models", ModelCache()))
        summary = result.summary.to_json()  # the module's answer is JSON, as evaluate's modules give
        return {**summary, "per_paper": [row.to_json() for row in result.rows]} if return_per_paper else summary
