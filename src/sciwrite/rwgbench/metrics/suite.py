"""The RWGBench suite: every metric over one batch of predictions, each model loaded once and called in batches.

`STAGES` lists the scorers, the metrics each computes and the model roles each needs; `load_rwgbench_models`
resolves and loads the models of a profile (a metric whose model the profile lacks is recorded as not computed,
with the reason); `score_rwgbench` scores predictions against their target papers; `summarize_rwgbench` averages
the per-paper rows into the paper's Table 2 layout.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from datasets import Dataset
from tqdm.auto import tqdm

from sciwrite.core.metric_spec import (
    CANDIDATES,
    needing,
    paper_labels,
    role_metrics,
    table_groups,
    table_keys,
)
from sciwrite.core.paper_row import PAPER_ID, PaperRow, typed_rows
from sciwrite.core.summary import Summary
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.corpus_check import lazy_checker
from sciwrite.grounding.resolver import ReferenceResolver, lazy_resolver
from sciwrite.grounding.scoring import GROUNDING_KEYS
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge import load_chat_model, snapshot_counts
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.metrics.judge_panel import failed_judges
from sciwrite.metrics.summary import (
    EMPTY_CITATION_OUTPUT,
    EMPTY_CITATION_RATE,
    JUDGE_FAILURES,
    JUDGE_SYSTEM_FINGERPRINTS,
    UNRESOLVED_MARKERS,
    check_string_fields,
    merge_row,
    paper_name,
)
from sciwrite.models.citation_frames import load_citation_frame_classifier
from sciwrite.models.encoders import shared_sentence_encoder
from sciwrite.models.memo import MemoFrameClassifier, MemoNLI, MemoSentenceEncoder, MemoTokenEncoder
from sciwrite.models.nli import load_nli
from sciwrite.models.plan import resolve_plan
from sciwrite.models.registry import roles_named
from sciwrite.models.token_encoder import load_token_encoder
from sciwrite.retrieval.corpus_files import CORPUS_COLUMNS
from sciwrite.rwgbench.metrics.formulas import (
    N_NOT_APPLICABLE,
    NOT_APPLICABLE,
    NOT_APPLICABLE_NO_CANDIDATES,
    resolve_citations,
)
from sciwrite.rwgbench.metrics.frames import score_citation_frame_alignment
from sciwrite.rwgbench.metrics.grounding import score_reference_grounding
from sciwrite.rwgbench.metrics.judge import judge_sections
from sciwrite.rwgbench.metrics.model_roles import ROLES
from sciwrite.rwgbench.metrics.row_fields import (
    JUDGE_ERROR,
    JUDGE_SNAPSHOT,
    JUDGE_SYSTEM_FINGERPRINT,
    NO_CANDIDATES,
    not_applicable_key,
)
from sciwrite.rwgbench.metrics.scorers import (
    corpus_abstracts,
    corpus_texts,
    corpus_titles,
    score_citation_density,
    score_citation_distribution_balance,
    score_citation_precision_recall,
    score_claim_support,
    score_positioning_structure,
    score_soft_citation_recall,
    score_text_quality,
    score_topical_relevance,
)
from sciwrite.rwgbench.metrics.specs import (
    BERTSCORE_F1,
    CITATION_DENSITY,
    CITATION_DISTRIBUTION_BALANCE,
    CITATION_FRAME_ALIGNMENT,
    CLAIM_SUPPORT_CONSISTENCY,
    LLM_JUDGE,
    METRICS,
    POSITIONING_STRUCTURE_SIMILARITY,
    PRECISION,
    SCORERS,
    SOFT_CITATION_RECALL,
    TOPICAL_RELEVANCE,
)
from sciwrite.scoring.stages import Stage, StageTable
from sciwrite.scoring.steps import SuiteModels

logger = logging.getLogger(__name__)

#: The paper's Table 2 groups (§4, Table 2), each (per-paper key, column label): Citation Quality (CQ: P, R, soft
#: R, CSC, TRT: selection and local appropriateness), Citation Organization (CO: CD, CDB), Citation Framing (CF:
#: PSS, CFA) and Text Quality (TQ: ROUGE-L, BERTScore, LLM judge). The labels are the stable column names of the
#: CSV / JSON tables ("CQ P", ...); `PAPER_LABELS` are the headers the paper prints, used by the text table. All
#: read off the metrics' one declaration (`sciwrite.rwgbench.metrics.specs`).
TABLE2_GROUPS: dict[str, tuple[tuple[str, str], ...]] = table_groups(METRICS)
SUITE_METRICS: tuple[str, ...] = table_keys(METRICS)
#: Table 2's printed column headers, per metric key.
PAPER_LABELS: dict[str, str] = paper_labels(METRICS)
#: Metrics that compare the cited papers' abstracts, so they need a candidate list to resolve markers to papers:
#: a prediction without one (Direct) has no value for them (the paper prints "–"), never a 0 in the mean.
NEEDS_CANDIDATES: tuple[str, ...] = needing(METRICS, CANDIDATES)

#: The scorers, in the order they run: the metrics each computes together (asking for one computes the others),
#: the model roles each needs and the evaluate module that scores it alone, read off the specs. The reference
#: grounding is reported beside Table 2, never in it (`sciwrite.rwgbench.metrics.grounding`).
STAGES = StageTable.from_specs("RWGBench", METRICS, (
    *SCORERS, Stage("reference_grounding", GROUNDING_KEYS, in_table=False)))
#: The metrics each model role serves (ROUGE-L, in text_quality beside BERTScore, needs none).
ROLE_METRICS: dict[str, tuple[str, ...]] = role_metrics(METRICS)
#: The metrics the scibert role's sentence encoder embeds for (its token encoder: BERTScore's).
_SENTENCE_ENCODED = {TOPICAL_RELEVANCE.key, POSITIONING_STRUCTURE_SIMILARITY.key}


@dataclass
class RWGBenchModels(SuiteModels):
    """The loaded models of one profile, and why any metric cannot be computed."""

    encoder: Any = None  # scibert role: TRT, PSS
    token_encoder: Any = None  # scibert role: BERTScore
    nli: Any = None
    frame_classifier: Any = None
    judge: Any = None

    STAGES: ClassVar[StageTable] = STAGES


def load_rwgbench_models(profile: str | None = None, models: Mapping[str, str] | None = None,
                         metrics: Iterable[str] | None = None,
                         judge: JudgeConfig = DEFAULT_JUDGE, ledger: UsageLedger | None = None) -> RWGBenchModels:
    """Load every model the requested `metrics` need (metric keys or stage names; all by default), once; `models`
    overrides role -> id. The reference grounding, reported beside Table 2 and needing no model, runs with every
    selection (``--metrics reference_grounding`` alone scores it and nothing of Table 2).

    A role the profile has no model for (no NLI or judge offline) marks its metrics not computed; a model
    that is named but cannot be loaded raises `ModelUnavailableError`, never a silent substitute. The models
    are wrapped in memos (`sciwrite.models.memo`): scoring several systems with one `RWGBenchModels` computes
    the split's reference side once.
    """
    wanted = set(STAGES.expand(metrics))
    plan = resolve_plan(roles_named(ROLES, [role for role, served in ROLE_METRICS.items() if wanted & set(served)]),
                        profile, models)
    suite = RWGBenchModels(profile=plan.profile, plan=plan)
    if "scibert" in plan:
        suite.model_ids["scibert"] = plan.model_id("scibert")
        if wanted & _SENTENCE_ENCODED:
            encoder = shared_sentence_encoder(suite.model_ids["scibert"], role="scibert encoder")
            plan.record("scibert", encoder)
            suite.encoder = MemoSentenceEncoder(encoder)
        if BERTSCORE_F1.key in wanted:
            token_encoder = load_token_encoder(suite.model_ids["scibert"])
            if "scibert" not in plan.fingerprints:
                plan.record("scibert", token_encoder)
            suite.token_encoder = MemoTokenEncoder(token_encoder)
    if "nli" in plan:
        nli, why = plan.load("nli", load_nli)
        suite.nli = MemoNLI(nli) if nli is not None else None
        _record(suite, "nli", suite.nli, why, ROLE_METRICS["nli"])
    if "citation_frame" in plan:
        frames, why = plan.load("citation_frame", load_citation_frame_classifier)
        suite.frame_classifier = MemoFrameClassifier(frames) if frames is not None else None
        _record(suite, "citation_frame", suite.frame_classifier, why, ROLE_METRICS["citation_frame"])
    if "judge" in plan:
        suite.judge, why = load_chat_model(plan, "judge", judge, ledger)
        _record(suite, "judge", suite.judge, why, ROLE_METRICS["judge"])
    for metric in SUITE_METRICS:  # the reference grounding, beside Table 2, runs with every selection
        if metric not in wanted and metric not in suite.not_computed:
            suite.not_computed[metric] = "not requested"
    return suite


def _record(suite: RWGBenchModels, role: str, model: Any, why: str | None, metrics: Sequence[str]) -> None:
    if model is None:
        for metric in metrics:
            suite.not_computed[metric] = why or f"no {role} model"
    else:
        suite.model_ids[role] = getattr(model, "model_id", None) or getattr(model, "model", None) or role


def check_papers(papers: Sequence[Mapping[str, Any]]) -> None:
    """Each target paper needs the fields the metrics read; an error names the paper and the field."""
    check_string_fields(papers, ("paper_id", "abstract", "related_work"))
    for i, paper in enumerate(papers):
        citations = paper.get("citations")
        if not citations or not all(isinstance(c, str) for c in citations):
            raise ValueError(f"{paper_name(i, paper)}: field 'citations' must be a non-empty list of doc_ids")


def check_cited_ids(predictions: Sequence[str], candidates: Sequence[Sequence[str]], paper_ids: Sequence[str],
                    known: Mapping[str, str]) -> None:
    """Every doc_id a prediction cites must be in the corpus; the error names the record and the field."""
    for i, (text, cands, paper_id) in enumerate(zip(predictions, candidates, paper_ids)):
        unknown = [d for d in resolve_citations(text, list(cands)).unique_ids if d not in known]
        if unknown:
            raise ValueError(f"record {i} (paper_id {paper_id!r}): field 'candidates' cites doc_id(s) that are not in "
                             f"the corpus: {unknown[:5]}")


def score_rwgbench(predictions: Sequence[str], papers: Sequence[Mapping[str, Any]], models: RWGBenchModels, *,
                   candidates: Sequence[Sequence[str] | None], corpus: Mapping[str, str] | Any, batch_size: int = 64,
                   show_progress: bool = True, references: Sequence[Any] | None = None,
                   resolver: Callable[[], ReferenceResolver] | None = None,
                   online: Any = None, checker: Callable[[], ReferenceChecker] | None = None
                   ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """(one row per prediction, aligned with `papers`; wall seconds per scorer): SciIG's `score_sciig` argument
    order and return shape, with RWGBench's two inputs more, each prediction's `candidates` and the `corpus`.

    `papers` are the target papers (paper_id, title, abstract, related_work, citations); the corpus is read
    once for every cited and gold doc_id. Metrics the models cannot compute are left out of the rows.

    Each row also holds its reference grounding (`sciwrite.rwgbench.metrics.grounding`): `references[i]` is the
    list prediction i carries (None: its candidates are its references), resolved by `resolver()` (default: one
    built over `corpus`'s titles the first time a prediction lists a reference) and, optionally, an `online`
    second opinion, and checked by `checker()` (default: `lazy_checker` over `corpus`, the closed world), each
    reference against its paper's year.
    """
    if not len(predictions) == len(candidates) == len(papers):
        raise ValueError(f"predictions ({len(predictions)}), candidates ({len(candidates)}) and papers "
                         f"({len(papers)}) must have the same length")
    for i, (text, cands) in enumerate(zip(predictions, candidates)):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'text' must be a string, got {type(text).__name__}")
        if cands is None:  # Direct: no candidate list
            continue
        if not isinstance(cands, Sequence) or isinstance(cands, str) or not all(isinstance(c, str) for c in cands):
            raise ValueError(f"record {i}: field 'candidates' must be a list of doc_id strings (empty or null "
                             "for a prediction without candidates)")
    check_papers(papers)
    paper_ids = [p["paper_id"] for p in papers]
    gold = [list(p["citations"]) for p in papers]
    listed, references = references, [p["related_work"] for p in papers]
    if listed is not None and len(listed) != len(predictions):
        raise ValueError(f"references ({len(listed)}) must give one reference list (or None) per prediction "
                         f"({len(predictions)})")
    candidate_lists: list[Sequence[str]] = [list(c or []) for c in candidates]
    cited = [d for text, cands in zip(predictions, candidate_lists) for d in resolve_citations(text, cands).unique_ids]
    texts = _known_texts(corpus, [*cited, *(d for g in gold for d in g)])
    check_cited_ids(predictions, candidate_lists, paper_ids, texts)
    abstracts = _known_abstracts(corpus, cited, texts)

    rows: list[dict[str, Any]] = [{PAPER_ID: pid} for pid in paper_ids]
    stages = _stages(predictions, candidate_lists, papers, references, gold, texts, abstracts, models, batch_size,
                     show_progress)
    stages.append(("reference_grounding", lambda: score_reference_grounding(
        predictions, candidate_lists, listed or [None] * len(predictions), gold, paper_ids,
        lambda ids: corpus_titles(corpus, ids), resolver or lazy_resolver(corpus, show_progress), online, show_progress,
        checker or lazy_checker(corpus), [p.get("year") for p in papers])))
    timings: dict[str, float] = {}
    bar = tqdm(stages, desc="RWGBench metrics", disable=not show_progress)
    for name, run in bar:
        bar.set_postfix_str(name)  # a stage's own bars (embedding, BERTScore windows) follow this line
        start = time.perf_counter()
        for row, extra in zip(rows, run()):
            merge_row(row, extra, name, keep_first=_SHARED)
        timings[name] = round(time.perf_counter() - start, 4)
    return rows, timings


def _known_texts(corpus: Mapping[str, str] | Any, doc_ids: Iterable[str]) -> dict[str, str]:
    """Title + abstract of the doc_ids the corpus holds (unknown ones are reported by `check_cited_ids`)."""
    wanted = list(dict.fromkeys(doc_ids))
    if isinstance(corpus, Mapping):
        return {d: corpus[d] for d in wanted if d in corpus}
    present = set(corpus["doc_id"]) if wanted else set()
    return corpus_texts(corpus, [d for d in wanted if d in present])


def _known_abstracts(corpus: Mapping[str, Any] | Any, doc_ids: Iterable[str], texts: Mapping[str, str]) -> dict[str, str]:
    """The abstracts of the cited papers (CSC and TRT compare abstracts, Eqs. 3-4); a doc_id -> text mapping
    corpus gives its text as is."""
    wanted = [d for d in dict.fromkeys(doc_ids) if d in texts]
    return corpus_abstracts(corpus, wanted)


def _stages(predictions, candidates, papers, references, gold, texts, cited_abstracts, models: RWGBenchModels,
            batch_size: int, show_progress: bool = False):
    """(name, thunk) per scorer whose metrics are wanted and computable; the model-bound ones show progress."""
    skip = models.not_computed
    abstracts = [p["abstract"] for p in papers]
    stages = [
        (PRECISION, lambda: score_citation_precision_recall(predictions, gold, candidates)),
        (CITATION_DENSITY, lambda: score_citation_density(predictions, candidates)),
        (CITATION_DISTRIBUTION_BALANCE, lambda: score_citation_distribution_balance(predictions, candidates)),
        (TOPICAL_RELEVANCE,
         lambda: score_topical_relevance(predictions, abstracts, candidates, cited_abstracts, models.encoder,
                                         batch_size, show_progress)),
        (POSITIONING_STRUCTURE_SIMILARITY,
         lambda: score_positioning_structure(predictions, references, models.encoder, batch_size, show_progress)),
        (SOFT_CITATION_RECALL,
         lambda: score_soft_citation_recall(predictions, gold, candidates, texts, models.nli, max(1, batch_size // 2))),
        (CLAIM_SUPPORT_CONSISTENCY,
         lambda: score_claim_support(predictions, candidates, cited_abstracts, models.nli, max(1, batch_size // 2))),
        (CITATION_FRAME_ALIGNMENT, lambda: _score_frames(predictions, references, candidates, gold, models, batch_size)),
        (BERTSCORE_F1, lambda: score_text_quality(predictions, references, models.token_encoder, show_progress)),
        (LLM_JUDGE, lambda: _score_judge(predictions, papers, models)),
    ]
    # each scorer under its stage's name (a spec it computes names it)
    return [(spec.stage_name, run) for spec, run in stages
            if not all(m in skip for m in STAGES[spec.stage_name].metrics)]


def _score_frames(predictions, references, candidates, gold, models: RWGBenchModels, batch_size: int) -> list[dict[str, Any]]:
    return score_citation_frame_alignment(predictions, references, candidates, models.frame_classifier,
                                          reference_citations=gold, batch_size=batch_size)


def _score_judge(predictions, papers, models: RWGBenchModels) -> list[dict[str, Any]]:
    return judge_sections(predictions, models.judge, titles=[p.get("title") or "" for p in papers])


# Diagnostics several scorers report: the first scorer's value is kept, later ones must agree.
_SHARED = {EMPTY_CITATION_OUTPUT, UNRESOLVED_MARKERS, "n_cited", NO_CANDIDATES}


def score_items(items: Sequence[Mapping[str, Any]], models: RWGBenchModels,
                batch_size: int = 64) -> tuple[list[PaperRow], dict[str, float]]:
    """`score_rwgbench` on self-contained papers, as the Ray engine's actors receive them: each item carries its
    ``text``, ``candidates``, ``target`` paper and the corpus records (``docs``) its candidates and gold citations
    name, so no actor needs the corpus; (rows, seconds per scorer)."""
    docs = {d["doc_id"]: d for item in items for d in item["docs"]}
    corpus = Dataset.from_list(list(docs.values())) if docs else Dataset.from_dict({c: [] for c in CORPUS_COLUMNS})
    rows, seconds = score_rwgbench([i["text"] for i in items], [i["target"] for i in items], models,
                                   candidates=[i["candidates"] for i in items], corpus=corpus, batch_size=batch_size,
                                   show_progress=False)
    return typed_rows(rows), seconds


def summarize_rwgbench(rows: Sequence[PaperRow], models: RWGBenchModels) -> Summary:
    """Means over papers of every suite metric (None, with the reason, for one not computed), plus diagnostics.

    The LLM judge is averaged over the sections it could judge; CSC and TRT over the papers whose prediction
    has a candidate list (None, with the reason under ``not_applicable``, when none has: Direct); the others
    over all papers. ``n_not_applicable`` counts, per metric, the papers left out for want of candidates.
    """
    n = len(rows)
    means: dict[str, float | None] = {}
    not_applicable: dict[str, str] = {}
    n_not_applicable: dict[str, int] = {}
    for metric in SUITE_METRICS:
        values = [value for r in rows if (value := r.value(metric)) is not None]
        expected = n
        if metric in NEEDS_CANDIDATES and metric not in models.not_computed:
            skipped = sum(1 for r in rows if r.details.get(not_applicable_key(metric)))
            expected = n - skipped
            if skipped:
                n_not_applicable[metric] = skipped
            if n and skipped == n:
                not_applicable[metric] = NOT_APPLICABLE_NO_CANDIDATES
        judged = metric in STAGES.judge_metrics  # averaged over the sections the judge could judge
        computed = metric not in models.not_computed and (judged or len(values) == expected)
        means[metric] = sum(values) / len(values) if computed and values else None
    means[EMPTY_CITATION_RATE] = sum(bool(r.details.get(EMPTY_CITATION_OUTPUT)) for r in rows) / n if n else 0.0
    means[UNRESOLVED_MARKERS] = sum(r.value(UNRESOLVED_MARKERS) or 0 for r in rows)
    judged = LLM_JUDGE.key not in models.not_computed
    if judged:
        # a paper the judge failed on, or any judge of a panel (the others' aggregate standing as its score)
        means[JUDGE_FAILURES] = sum(1 for r in rows if r.details.get(JUDGE_ERROR) or failed_judges(r))
    return Summary(
        n_papers=n, profile=models.profile, metrics=means,
        not_computed={m: why for m, why in models.not_computed.items() if why != "not requested"},
        models=dict(models.model_ids), judge_snapshots=snapshot_counts(rows, JUDGE_SNAPSHOT) if judged else None,
        details={NOT_APPLICABLE: not_applicable, N_NOT_APPLICABLE: n_not_applicable,
                 **({JUDGE_SYSTEM_FINGERPRINTS: snapshot_counts(rows, JUDGE_SYSTEM_FINGERPRINT)} if judged else {})})


def table2_row(summary: Summary, system: str) -> dict[str, Any]:
    """One row of the paper's Table 2: `system` and every metric as 'GROUP label' -> value (None if not computed)."""
    row: dict[str, Any] = {"system": system}
    for group, columns in TABLE2_GROUPS.items():
        for key, label in columns:
            row[f"{group} {label}"] = summary.reported(key)
    return row
