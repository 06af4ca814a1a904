"""The SciIG suite: every introduction-generation metric over one batch, each model loaded once, each scorer
called once on the whole batch.

`STAGES` lists the scorers, the metrics each computes and the model roles each needs; `load_sciig_models`
resolves and loads the models of a profile (a metric whose model the profile lacks is
recorded as not computed, with the reason); `score_sciig` scores generated introductions against their papers
and returns the per-paper rows and the wall seconds of each scorer; `summarize_sciig` averages the rows into the
paper's Table 2 layout (`TABLE2`).

Bad records never abort the batch. Before a scorer runs, each paper is checked with that scorer's own input
checks (e.g. the keyphrase, SummaC and judge scorers reject an empty generation or one over
`sciwrite.sciig.metrics.inputs.MAX_WORDS` words); a paper that fails is left out of that scorer's batch, its
metrics are ``None`` on its row and ``errors[<scorer>]`` says why. The means of `summarize_sciig` are over the
papers each metric could score, and ``scoring_errors`` lists, per scorer, the papers it could not.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tqdm.auto import tqdm

from sciwrite.core.metric_spec import table_groups, table_keys
from sciwrite.core.paper_row import ERRORS, PAPER_ID, PaperRow, typed_rows
from sciwrite.core.summary import Summary
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge import load_chat_model, snapshot_counts
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.metrics.judge_panel import failed_judges
from sciwrite.metrics.summary import JUDGE_FAILURES, check_string_fields, merge_row, paper_name
from sciwrite.models.bleurt import load_bleurt
from sciwrite.models.causal_lm import load_causal_lm
from sciwrite.models.encoders import load_contextual_encoder, load_keyphrase_encoder
from sciwrite.models.memo import MemoSentenceEncoder, MemoTokenEncoder
from sciwrite.models.nli import load_summac_nli
from sciwrite.models.plan import resolve_plan
from sciwrite.models.qa import qa_models_for_plan
from sciwrite.models.registry import roles_named
from sciwrite.models.token_encoder import load_token_encoder
from sciwrite.sciig.metrics.bertscore import score_sciig_bertscore
from sciwrite.sciig.metrics.bleurt import score_bleurt
from sciwrite.sciig.metrics.citations import (
    OFFLINE_EXTRACTOR,
    PRECISION,
    RECALL,
    citation_correctness,
    score_citation_correctness,
    summarize_unmatched,
)
from sciwrite.sciig.metrics.contextual_relevance import check_sources, score_contextual_relevance
from sciwrite.sciig.metrics.corpus_bleu import bleu_statistics, rows_corpus_bleu
from sciwrite.sciig.metrics.inputs import check_sciig_inputs, check_texts
from sciwrite.sciig.metrics.judge import judge_sciig
from sciwrite.sciig.metrics.keyphrases import score_keyphrases
from sciwrite.sciig.metrics.lexical import check_reference_pairs, score_bleu, score_meteor, score_rouge
from sciwrite.sciig.metrics.model_roles import QA_ROLES, ROLES
from sciwrite.sciig.metrics.perplexity import score_perplexity
from sciwrite.sciig.metrics.qa import score_qa
from sciwrite.sciig.metrics.row_fields import (
    BLEU_STATS,
    BLEURT_WINDOWS,
    CITATION_EXTRACTOR,
    CITATION_EXTRACTOR_ERROR,
    JUDGE_ERRORS,
    JUDGE_SNAPSHOTS,
    JUDGE_SYSTEM_FINGERPRINTS,
    NO_CITATION,
    QA_F1_KEYS,
    SENTENCE_BLEU,
)
from sciwrite.sciig.metrics.specs import (
    BLEU,
    BLEURT,
    CITATION_PRECISION,
    CITATION_RECALL,
    CONTEXTUAL_RELEVANCE,
    METEOR,
    METRICS,
    PERPLEXITY,
    QA_FAITHFULNESS,
    SCORERS,
)
from sciwrite.sciig.metrics.summac import score_summac
from sciwrite.sciig.metrics.wordnet import wordnet_or_reason
from sciwrite.scoring.stages import StageTable
from sciwrite.scoring.steps import SuiteModels

logger = logging.getLogger(__name__)

#: The paper's Table 2, one (category, per-paper metric key, label) per column, in order: read off the metrics'
#: one declaration (`sciwrite.sciig.metrics.specs`), as is everything below.
TABLE2: tuple[tuple[str, str, str], ...] = tuple((spec.group, spec.key, spec.label) for spec in METRICS
                                                 if spec.in_table)
#: TABLE2 as the results table's groups: category -> ((metric key, label), ...).
TABLE2_GROUPS: dict[str, tuple[tuple[str, str], ...]] = table_groups(METRICS)
SUITE_METRICS: tuple[str, ...] = table_keys(METRICS)
#: The scorers, in the order they run: the Table 2 metrics each computes together (asking for one computes the
#: others), the model roles each needs and the evaluate module that scores it alone (metrics/<module>/).
STAGES = StageTable.from_specs("SciIG", METRICS, SCORERS)
# Citation-correctness keys renamed in the rows, so that they say which metric they are.
_CITATION_KEYS = {PRECISION: CITATION_PRECISION.key, RECALL: CITATION_RECALL.key}


@dataclass
class SciIGModels(SuiteModels):
    """The loaded models of one profile, and why any metric cannot be computed."""

    wordnet: Any = None  # METEOR's synonym stage
    token_encoder: Any = None  # bertscore role: BERTScore and QA sim_k
    bleurt: Any = None
    contextual_encoder: Any = None
    keyphrase_encoder: Any = None
    summac_nli: Any = None
    qa: Any = None  # question_generation + question_answering roles: QA-based faithfulness / consistency
    lm: Any = None  # gpt2 role: perplexity
    judge: Any = None
    citation_extractor: Any = None  # citation_extractor role (Table 8 LLM); None: the offline regex fallback

    STAGES: ClassVar[StageTable] = STAGES


# Sentence encoders wrapped in a memo (`sciwrite.models.memo`): the references' and sources' texts and keyphrase
# candidates are embedded once however many systems one `SciIGModels` scores.
MEMO_ENCODER_ROLES = ("contextual_encoder", "keyphrase_encoder")
#: The summary's fields beside Table 2: the LLM extractor's unusable answers, the papers whose perplexity is
#: undefined (under two tokens), and the share of papers that cite nothing.
CITATION_EXTRACTOR_ERRORS = "citation_extractor_errors"
PERPLEXITY_UNDEFINED = "perplexity_undefined"
NO_CITATION_RATE = "no_citation_rate"
#: The summary field of the papers each scorer could not score, with why (scorer -> paper_id -> error).
SCORING_ERRORS = "scoring_errors"


def load_sciig_models(profile: str | None = None, models: Mapping[str, str] | None = None,
                      metrics: Iterable[str] | None = None, judge: JudgeConfig = DEFAULT_JUDGE,
                      ledger: UsageLedger | None = None) -> SciIGModels:
    """Load every model the requested `metrics` need (all by default), once; `models` overrides role -> id.

    A role the profile has no model for (offline `lite`: bleurt, gpt2, summac_nli, question_generation,
    question_answering, judge) or a missing WordNet
    marks its metrics not computed, with the reason; a model that is named but cannot be loaded raises
    `ModelUnavailableError`, never a silent substitute. The judge's clients are made as `judge` says; the citation
    extractor's with the provider's defaults (its replies cached in ``$SCIWRITE_CITATION_EXTRACTOR_CACHE`` when
    set); both write their usage to `ledger`.
    """
    wanted = set(STAGES.expand(metrics))
    models = dict(models or {})
    # `--model sciig_judge=X` names the SciIG judge; a plain `judge=X` given to the SciIG suite is taken as it too.
    # `scibert=X` (the role SciIG's BERTScore had before it got its own) is read as `bertscore=X`.
    overrides = {**models, "sciig_judge": models.get("sciig_judge", models.get("judge")),
                 "bertscore": models.get("bertscore", models.get("scibert"))}
    not_requested = {metric: "not requested" for metric in SUITE_METRICS if metric not in wanted}
    plan = resolve_plan(roles_named(ROLES, STAGES.roles_for(wanted)), profile, overrides)
    suite = SciIGModels(profile=plan.profile, not_computed=not_requested, plan=plan)

    def want(stage: str) -> bool:
        return suite.wants(stage)

    if want(METEOR.stage_name):
        suite.wordnet, why = wordnet_or_reason()
        _record(suite, "wordnet", suite.wordnet, why, METEOR.stage_name, model_id="wordnet")
    if want("bertscore") or want("qa"):
        suite.model_ids["bertscore"] = plan.model_id("bertscore")
        token_encoder = load_token_encoder(suite.model_ids["bertscore"], None)
        plan.record("bertscore", token_encoder)
        suite.token_encoder = MemoTokenEncoder(token_encoder)
    roles: list[tuple[str, str, str, Callable[[str], Any]]] = [
        (BLEURT.stage_name, "bleurt", "bleurt", load_bleurt),  # the role and the attribute of its model
        (CONTEXTUAL_RELEVANCE.stage_name, "contextual_encoder", "contextual_encoder", load_contextual_encoder),
        ("keyphrases", "keyphrase_encoder", "keyphrase_encoder", load_keyphrase_encoder),
        ("summac", "summac_nli", "summac_nli", load_summac_nli),
        (PERPLEXITY.stage_name, "gpt2", "lm", load_causal_lm),
    ]
    for stage, role, attribute, loader in roles:
        if want(stage):
            model, why = plan.load(role, loader)
            if model is not None and role in MEMO_ENCODER_ROLES:
                model = MemoSentenceEncoder(model)
            setattr(suite, attribute, model)
            _record(suite, role, model, why, stage, model_id=None if model is None else plan.model_id(role))
    if want("qa"):
        suite.qa, why = qa_models_for_plan(plan, QA_ROLES)
        if suite.qa is None:
            _record(suite, "question_generation", None, why, "qa", model_id=None)
        else:
            suite.model_ids.update(suite.qa.model_ids)
    if want("citations"):
        extractor = JudgeConfig(cache_path=os.environ.get("SCIWRITE_CITATION_EXTRACTOR_CACHE") or None)
        # one usage ledger for the evaluation's LLM spend
        suite.citation_extractor, why = load_chat_model(plan, "citation_extractor", extractor, ledger)
        suite.model_ids["citation_extractor"] = (suite.citation_extractor.model if suite.citation_extractor
                                                 else OFFLINE_EXTRACTOR)
        if why:
            logger.info("citation correctness: %s (%s)", OFFLINE_EXTRACTOR, why)
    if want("judge"):
        suite.judge, why = load_chat_model(plan, "sciig_judge", judge, ledger)
        _record(suite, "judge", suite.judge, why, "judge",
                model_id=getattr(suite.judge, "model", None) or getattr(suite.judge, "model_id", None) or "judge")
    return suite


def _record(suite: SciIGModels, role: str, model: Any, why: str | None, stage: str, model_id: str | None) -> None:
    if model is None:
        for metric in STAGES[stage].metrics:
            suite.not_computed.setdefault(metric, why or f"no {role} model")
    else:
        suite.model_ids[role] = str(model_id or role)


def check_papers(papers: Sequence[Mapping[str, Any]]) -> None:
    """Each paper needs the SciIG fields the metrics read; an error names the paper and the field."""
    check_string_fields(papers, ("paper_id", "title", "abstract", "introduction"))
    for i, paper in enumerate(papers):
        neighbors = paper.get("neighbors")
        if not isinstance(neighbors, list) or not all(isinstance(n, Mapping) for n in neighbors):
            raise ValueError(f"{paper_name(i, paper)}: field 'neighbors' must be a list of {{key, title, authors, "
                             "abstract} records")


def _cited_text(neighbor: Mapping[str, Any]) -> str:
    title, abstract = (neighbor.get("title") or "").strip(), (neighbor.get("abstract") or "").strip()
    return f"{neighbor.get('key', '')}: {title}. {abstract}".strip()


def score_items(items: Sequence[Mapping[str, Any]], models: SciIGModels,
                batch_size: int = 64) -> tuple[list[PaperRow], dict[str, float]]:
    """`score_sciig` on papers as the Ray engine's actors receive them (``text`` and ``target`` each): rows and the
    scorers' seconds."""
    rows, seconds = score_sciig([i["text"] for i in items], [i["target"] for i in items], models, show_progress=False,
                                batch_size=batch_size)
    return typed_rows(rows), seconds


def score_sciig(predictions: Sequence[str], papers: Sequence[Mapping[str, Any]], models: SciIGModels, *,
                batch_size: int = 64, show_progress: bool = True) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """(one row per prediction, aligned with `papers`; wall seconds per scorer).

    `papers` are SciIG records (paper_id, title, abstract, introduction, neighbors). Each row holds every
    computable metric and its diagnostics, and ``errors`` (scorer -> why this paper could not be scored by it;
    its metrics are then ``None``). Rows carry ``bleu_stats`` (sacrebleu's sufficient statistics) so that
    `summarize_sciig` reports corpus BLEU for any set of rows.
    """
    if len(predictions) != len(papers):
        raise ValueError(f"predictions ({len(predictions)}) and papers ({len(papers)}) must have the same length")
    for i, text in enumerate(predictions):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'text' must be a string, got {type(text).__name__}")
    check_papers(papers)
    rows: list[dict[str, Any]] = [{PAPER_ID: p["paper_id"], ERRORS: {}} for p in papers]
    timings: dict[str, float] = {}
    stages = [(name, check, run) for name, check, run in _stages(list(predictions), papers, models, batch_size,
                                                                 show_progress) if models.wants(name)]
    bar = tqdm(stages, desc="SciIG metrics", disable=not show_progress)
    for name, check, run in bar:
        bar.set_postfix_str(name)  # a stage's own bars (embedding, BERTScore windows...) follow this line
        start = time.perf_counter()
        ok = []
        for i in range(len(papers)):
            why = _problem(check, i)
            if why is None:
                ok.append(i)
            else:
                rows[i][ERRORS][name] = why
                for metric in STAGES[name].metrics:
                    rows[i].setdefault(metric, None)
        if ok:
            for i, extra in zip(ok, run(ok)):
                merge_row(rows[i], extra, name)
        timings[name] = round(time.perf_counter() - start, 4)
        if len(ok) < len(papers):
            logger.warning("%s: %d of %d papers could not be scored (see 'errors' on their rows)", name,
                           len(papers) - len(ok), len(papers))
    return rows, timings


def _problem(check: Callable[[int], Any], i: int) -> str | None:
    """Why record `i` fails a scorer's input checks (the scorer's own message, minus its 'record 0: '), or None."""
    try:
        check(i)
    except (ValueError, TypeError) as err:
        message = str(err)
        return message.removeprefix("record 0: ")
    return None


@dataclass(frozen=True)
class _Inputs:
    """What the scorers read of a batch: the predictions and, per paper, its reference introduction, title,
    abstract, cited works (their abstracts, their texts, the records) and id."""

    predictions: list[str]
    references: list[str]
    titles: list[str]
    abstracts: list[str]
    cited_abstracts: list[list[str]]
    cited: list[list[str]]
    neighbors: list[list[Any]]
    paper_ids: list[str]

    @classmethod
    def of(cls, predictions: list[str], papers: Sequence[Mapping[str, Any]]) -> _Inputs:
        return cls(predictions, [p["introduction"] for p in papers], [p["title"] for p in papers],
                   [p["abstract"] for p in papers],
                   [[n.get("abstract") or "" for n in p["neighbors"]] for p in papers],
                   [[_cited_text(n) for n in p["neighbors"]] for p in papers],
                   [list(p["neighbors"]) for p in papers], [p["paper_id"] for p in papers])

    def pick(self, field: str, idx: Sequence[int]) -> list[Any]:
        """`field`'s values of the papers at `idx`."""
        values = getattr(self, field)
        return [values[i] for i in idx]


def _stages(predictions: list[str], papers: Sequence[Mapping[str, Any]], models: SciIGModels, batch_size: int,
            show_progress: bool = False) -> list[tuple[str, Callable[[int], Any], Callable[[Sequence[int]], Any]]]:
    """(name, per-record check, run(indices) -> rows) per scorer, each scorer called once on the checked papers;
    the model-bound scorers show their own progress with `show_progress`."""
    inputs = _Inputs.of(predictions, papers)
    return [*_reference_stages(inputs, models, show_progress),
            *_source_stages(inputs, models, batch_size, show_progress)]


def _reference_stages(x: _Inputs, models: SciIGModels, show_progress: bool
                      ) -> list[tuple[str, Callable[[int], Any], Callable[[Sequence[int]], Any]]]:
    """The scorers comparing a prediction with the reference introduction: ROUGE, BLEU, METEOR, BERTScore,
    BLEURT."""

    def pair_check(i: int) -> None:
        check_reference_pairs([x.predictions[i]], [x.references[i]])

    def rouge(idx):
        return score_rouge(x.pick("predictions", idx), x.pick("references", idx))

    def bleu(idx):
        preds, refs = x.pick("predictions", idx), x.pick("references", idx)
        _, rows = score_bleu(preds, refs)  # sacrebleu's 0-100; reported on the paper's 0-1 scale
        return [{BLEU.key: row[BLEU.key] / 100, BLEU_STATS: stats}
                for row, stats in zip(rows, bleu_statistics(preds, refs))]

    def meteor(idx):
        return score_meteor(x.pick("predictions", idx), x.pick("references", idx), models.wordnet)

    def bertscore(idx):
        return score_sciig_bertscore(x.pick("predictions", idx), x.pick("references", idx), models.token_encoder,
                                     show_progress=show_progress)

    def bleurt(idx):
        return [{BLEURT.key: r[BLEURT.key], BLEURT_WINDOWS: r["windows"]}
                for r in score_bleurt(x.pick("predictions", idx), x.pick("references", idx), models.bleurt)]

    return [("rouge", pair_check, rouge), (BLEU.stage_name, pair_check, bleu),
            (METEOR.stage_name, pair_check, meteor), ("bertscore", pair_check, bertscore),
            (BLEURT.stage_name, pair_check, bleurt)]


def _source_stages(x: _Inputs, models: SciIGModels, batch_size: int, show_progress: bool
                   ) -> list[tuple[str, Callable[[int], Any], Callable[[Sequence[int]], Any]]]:
    """The scorers reading the paper's sources (title, abstract, cited works) or the prediction alone: contextual
    relevance, keyphrases, SummaC, QA, citations, perplexity, the judge."""

    def source_check(i: int) -> None:
        check_sciig_inputs([x.predictions[i]], [x.references[i]], [x.titles[i]], [x.abstracts[i]])

    def contextual(idx):
        return score_contextual_relevance(x.pick("predictions", idx), x.pick("titles", idx),
                                          x.pick("abstracts", idx), x.pick("cited_abstracts", idx),
                                          models.contextual_encoder, batch_size, show_progress)

    def keyphrases(idx):
        return score_keyphrases(x.pick("predictions", idx), x.pick("references", idx), x.pick("titles", idx),
                                x.pick("abstracts", idx), models.keyphrase_encoder, batch_size, show_progress)

    def summac(idx):
        rows = score_summac(x.pick("predictions", idx), x.pick("references", idx), x.pick("titles", idx),
                            x.pick("abstracts", idx), models.summac_nli, cited=x.pick("cited", idx))
        return [{**r, "summac_generated_sentences": r.pop("generated_sentences")} for r in rows]

    def qa(idx):
        return score_qa(x.pick("predictions", idx), x.pick("references", idx), x.pick("titles", idx),
                        x.pick("abstracts", idx), models.qa, cited=x.pick("cited", idx), batch_size=batch_size)

    def citations(idx):
        rows = score_citation_correctness(x.pick("predictions", idx), x.pick("neighbors", idx),
                                          x.pick("paper_ids", idx), models.citation_extractor,
                                          x.pick("titles", idx), x.pick("abstracts", idx))
        return [{_CITATION_KEYS.get(k, k): v for k, v in r.items()} for r in rows]

    def perplexity(idx):
        return score_perplexity(x.pick("predictions", idx), models.lm)

    def judge(idx):
        return judge_sciig(x.pick("predictions", idx), x.pick("references", idx), x.pick("titles", idx),
                           x.pick("abstracts", idx), models.judge, x.pick("cited", idx), show_progress=False)

    return [
        (CONTEXTUAL_RELEVANCE.stage_name, lambda i: check_sources([x.predictions[i]], [x.titles[i]],
                                                                  [x.abstracts[i]], [x.cited_abstracts[i]]),
         contextual),
        ("keyphrases", source_check, keyphrases),
        ("summac", source_check, summac),
        ("qa", source_check, qa),
        ("citations", lambda i: citation_correctness(x.predictions[i], x.neighbors[i], f"paper {x.paper_ids[i]!r}"),
         citations),
        (PERPLEXITY.stage_name, lambda i: check_texts("predictions", [x.predictions[i]], allow_empty=True,
                                                      max_words=10 ** 12), perplexity),
        ("judge", source_check, judge),
    ]


def summarize_sciig(rows: Sequence[PaperRow], models: SciIGModels) -> Summary:
    """Per Table 2 metric: the mean over the papers it scored (None, with the reason, when not computed); BLEU
    is corpus BLEU over the scored papers, perplexity the mean over papers with a defined value (two tokens or
    more), each judge score the mean over the papers judged on it. Also: papers each scorer could not score."""
    means: dict[str, float | None] = {}
    for metric in SUITE_METRICS:
        if metric in models.not_computed:
            means[metric] = None
        elif metric == BLEU.key:
            means[metric] = rows_corpus_bleu(rows)
        else:
            means[metric] = _mean(rows, metric)
    if BLEU.key not in models.not_computed:
        means[SENTENCE_BLEU] = _mean(rows, BLEU.key)
    if QA_FAITHFULNESS.key not in models.not_computed:
        means.update({extra: _mean(rows, extra) for extra in QA_F1_KEYS})  # token-F1 variant, not the paper's score
    details: dict[str, Any] = {}
    if CITATION_PRECISION.key not in models.not_computed:
        details[CITATION_EXTRACTOR] = models.model_ids.get("citation_extractor", OFFLINE_EXTRACTOR)
        means[CITATION_EXTRACTOR_ERRORS] = sum(1 for r in rows if r.details.get(CITATION_EXTRACTOR_ERROR))
    if PERPLEXITY.key not in models.not_computed:
        means[PERPLEXITY_UNDEFINED] = sum(1 for r in rows if r.value(PERPLEXITY.key) is None
                                          and PERPLEXITY.stage_name not in r.errors)
    if CITATION_PRECISION.key not in models.not_computed:
        scored = [r for r in rows if CITATION_PRECISION.stage_name not in r.errors]
        means[NO_CITATION_RATE] = sum(bool(r.details.get(NO_CITATION)) for r in scored) / len(scored) if scored else None
        means.update(summarize_unmatched(scored))  # apart from citation precision (Table 7's counterpart)
    judged = models.wants("judge")
    if judged:
        # a paper the judge failed on, or any judge of a panel (the others' aggregate standing as its score)
        means[JUDGE_FAILURES] = sum(1 for r in rows if r.details.get(JUDGE_ERRORS) or failed_judges(r))
        details[JUDGE_SYSTEM_FINGERPRINTS] = snapshot_counts(rows, JUDGE_SYSTEM_FINGERPRINTS)
    errors: dict[str, dict[str, str]] = {}
    for row in rows:
        for stage, why in row.errors.items():
            errors.setdefault(stage, {})[str(row.paper_id)] = why
    return Summary(n_papers=len(rows), profile=models.profile, metrics=means,
                   not_computed={m: why for m, why in models.not_computed.items() if why != "not requested"},
                   models=dict(models.model_ids), judge_snapshots=snapshot_counts(rows, JUDGE_SNAPSHOTS) if judged else None,
                   details={**details, SCORING_ERRORS: errors})


def _mean(rows: Sequence[PaperRow], key: str) -> float | None:
    """The mean of `key` over the rows that have a value (None when none has)."""
    values = [value for r in rows if (value := r.value(key)) is not None]
    return sum(values) / len(values) if values else None


def table2_rows(summary: Summary) -> list[dict[str, Any]]:
    """Table 2 as (category, metric, key, value) rows; value None when not computed."""
    return [{"category": category, "metric": label, "key": key, "value": summary.reported(key)}
            for category, key, label in TABLE2]
