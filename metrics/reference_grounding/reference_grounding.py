"""Reference grounding (RWGBench): which references of a generated related-work section name a paper of the corpus."""

import datasets
import evaluate

from sciwrite.core.paper_row import typed_rows
from sciwrite.grounding.online import OnlineLookup
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, lazy_resolver
from sciwrite.grounding.scoring import summarize_grounding
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.formulas import RWGBENCH_CITATION
from sciwrite.rwgbench.metrics.grounding import score_reference_grounding
from sciwrite.rwgbench.metrics.scorers import corpus_titles

_DESCRIPTION = """
Reference grounding resolves the references a generated section lists (a Direct run's titles, written from memory)
against the corpus's titles: each gets a verdict, `found` (with its doc_id and score), `ambiguous` (several papers
within 0.02 of each other) or `not_found` (hallucinated), with the evidence behind it (title similarity, author
surnames, year). A prediction with no list of its own cites its candidates: its references are the candidates its
markers resolve to, corpus papers by construction (found, score 1). Per system: the found, hallucination
(`not_found`) and ambiguous rates, and grounded precision and recall of the found doc_ids against the gold
citations. It is reported beside Table 2 and never changes it: Direct keeps the paper's 0.000 recall there.
"""

_CITATION = RWGBENCH_CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): generated related-work sections.
    references (`list` of `list` of `str`): the gold citations (corpus doc_ids) of each paper.
    reference_lists (`list`, keyword): per prediction, the references it lists (titles, or objects with `title`
        and optional `authors`, `year`, `n`), or None when it has none (its candidates are its references).
    candidates (`list` of `list` of `str`, keyword): per prediction, the doc_ids its markers index into.
    corpus (keyword): the corpus whose titles are searched: a config name ("sample_corpus", "corpus"), a
        `datasets.Dataset` or a list of records with `doc_id` and `title` (optionally `authors`, `year`).
    threshold (`float`, keyword): the score a candidate needs to be found (default: the calibrated 0.83).
    verify_online (`str`, keyword): "semantic_scholar" or "openalex" looks the references the corpus lacks up on
        that service, for a fourth verdict, `exists_outside_corpus` (default: None, offline, corpus only).
    online_cache (`str`, keyword): where the service's answers are cached (default: ~/.cache/sciwrite/online/).
Returns:
    grounding_found_rate, grounding_hallucination_rate, grounding_ambiguous_rate (`float` or None): means over the
        papers that list a readable reference of each verdict's share (and grounding_outside_rate online).
    grounded_precision, grounded_recall (`float`): means over the papers with references of the found doc_ids
        against the gold citations (an unfound reference counts as a wrong citation).
    counts (`dict`): references per verdict over all papers (`invalid`: entries that could not be read).
    per_paper (`list` of `dict`): every reference's verdict, doc_id, score and evidence, per paper.
    lookup (`str`): "offline, corpus only", or which service gave the second opinion; online (`dict`): what its
        lookups did (counts, requests, cache, failures to retry by rerunning).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/reference_grounding")
    >>> corpus = [{"doc_id": "d1", "title": "Attention Is All You Need"},
    ...           {"doc_id": "d2", "title": "Deep Residual Learning for Image Recognition"},
    ...           {"doc_id": "d3", "title": "Neural Machine Translation by Jointly Learning to Align and Translate"}]
    >>> results = metric.compute(
    ...     predictions=["Transformers [1] replaced recurrence [2]; residual links [3] help."],
    ...     references=[["d1", "d3"]],
    ...     reference_lists=[[{"n": 1, "title": "Attention is all you need, NeurIPS 2017"},
    ...                       {"n": 2, "title": "Neural machine translation by jointly learning to align"},
    ...                       {"n": 3, "title": "Residual Graph Llamas for Quantum Parsing"}]],
    ...     candidates=[[]], corpus=corpus)
    >>> [r["verdict"] for r in results["per_paper"][0]["grounding_references"]]
    ['found', 'found', 'not_found']
    >>> round(results["grounding_found_rate"], 4), round(results["grounded_recall"], 4)
    (0.6667, 1.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ReferenceGrounding(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Sequence(datasets.Value("string"))}
            ),
            reference_urls=["https://arxiv.org/abs/2606.24894"],
        )

    def _compute(self, predictions, references, reference_lists=None, candidates=None, corpus=None,
                 threshold=DEFAULT_THRESHOLD, verify_online=None, online_cache=None):
        if corpus is None:
            raise ValueError("pass corpus=: a config name ('sample_corpus', 'corpus'), a Dataset or a list of records")
        if isinstance(corpus, str):
            corpus = load_rwgbench(corpus)
        n = len(predictions)
        reference_lists = [None] * n if reference_lists is None else list(reference_lists)
        candidates = [[]] * n if candidates is None else [list(c or []) for c in candidates]
        if not len(reference_lists) == len(candidates) == n:
            raise ValueError(f"reference_lists ({len(reference_lists)}) and candidates ({len(candidates)}) need one "
                             f"entry per prediction ({n})")
        records = corpus if hasattr(corpus, "column_names") else list(corpus)
        titles = records if hasattr(records, "column_names") else {r["doc_id"]: r for r in records}
        online = (OnlineLookup.for_service(verify_online, cache_path=online_cache, threshold=threshold)
                  if verify_online else None)
        rows = score_reference_grounding(predictions, candidates, reference_lists, references,
                                         [str(i) for i in range(n)], lambda ids: corpus_titles(titles, ids),
                                         lazy_resolver(records, threshold=threshold), online)
        summary = summarize_grounding(typed_rows(rows), online=online.client.name if online else None,
                                      threshold=threshold)
        rates = ("grounding_found_rate", "grounding_hallucination_rate", "grounding_ambiguous_rate",
                 *(("grounding_outside_rate",) if online else ()), "grounded_precision", "grounded_recall")
        means = summary.metrics if summary is not None else {}
        return {**{k: means.get(k) for k in rates}, "counts": dict(summary.counts) if summary is not None else {},
                "lookup": summary.lookup if summary is not None else None, "per_paper": rows,
                **({"online": online.report()} if online else {})}
