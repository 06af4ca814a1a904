"""The typed summary of one scored system: what every benchmark's ``summary.json`` holds, as typed fields, and its
metric values as one typed mapping.

A summary is JSON only at the edges: the result files (`sciwrite.core.results`) and the leaderboard's database
(`sciwrite.leaderboard.store`). Everywhere else it is a `Summary`, so a renamed field is found by the type checker,
never by a reader that silently gets None. `Summary.from_json` reads every layout the project ever wrote (schema 0,
before versions; 1, with provenance; 2, the split under ``split``) and `Summary.to_json` gives back the current
layout, key for key and in the order read (a round trip changes nothing but an older layout's renamed keys).

What is typed is what every benchmark has: system, split, schema version, run, coverage, intervals, not-computed
reasons, models, the join, grounding, memorisation, judge panel, the cutoff split, LLM usage and requests, and
provenance. The metric means and the other numbers at the top level are `Summary.metrics`; a benchmark's own blocks
(SciIG's ``metric_timings``, RWGBench's ``not_applicable``) are `Summary.details`, read by the benchmark that writes
them, under keys it declares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, TypeVar

from sciwrite.core.coverage import Coverage
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, migrate_summary, schema_version_of

#: A metric's value in a summary: a mean or a count; None when it was not computed or has no value.
MetricValue = float | None

BlockT = TypeVar("BlockT", bound="JsonBlock")


def is_number(value: Any) -> bool:
    """Whether `value` is a JSON number (True and False are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return value if is_number(value) else None


@dataclass(frozen=True)
class JsonBlock:
    """Typed fields of one JSON object of a summary, read from a file or built in code.

    A block read (`raw` holds the JSON read) writes itself back as read: the keys it had, in their order, the typed
    fields' values in place of theirs, the keys no field names left as they were, and a field whose key it did not
    have only when it holds something (not None, not empty). A block built in code (`raw` None) writes its layout
    (`built`): every field that is not None, those in `ALWAYS` even when None (a null that says "unknown"), and
    those in `WHEN_SET` only when they hold something.

    A subclass declares its fields; `JSON_KEYS` maps a field to its JSON key where the two differ."""

    raw: Mapping[str, Any] | None = field(default=None, repr=False, compare=False, kw_only=True)

    JSON_KEYS: ClassVar[Mapping[str, str]] = {}
    ALWAYS: ClassVar[frozenset[str]] = frozenset()
    WHEN_SET: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def json_key(cls, name: str) -> str:
        """The JSON key of the field `name`."""
        return cls.JSON_KEYS.get(name, name)

    def typed_json(self) -> dict[str, Any]:
        """Each typed field's JSON key and value, in the fields' order."""
        return {self.json_key(f.name): encode(getattr(self, f.name)) for f in fields(self) if f.name != "raw"}

    def to_json(self) -> dict[str, Any]:
        """The block as JSON: as read (`written_back`), or, built in code, in its layout (`built`)."""
        if self.raw is None:
            return built(self.typed_json(), self.ALWAYS, self.WHEN_SET)
        return written_back(self.raw, self.typed_json())


def built(typed: Mapping[str, Any], always: Iterable[str] = (), when_set: Iterable[str] = ()) -> dict[str, Any]:
    """A block built in code as JSON: each typed key unless its value is None, those in `always` even then, and those
    in `when_set` only when they hold something (not None, not empty)."""
    kept, optional = set(always), set(when_set)
    return {key: value for key, value in typed.items()
            if key in kept or (value not in (None, {}, []) if key in optional else value is not None)}


def written_back(raw: Mapping[str, Any], typed: Mapping[str, Any], always: Iterable[str] = ()) -> dict[str, Any]:
    """A block as JSON: `raw`'s keys in their order with the `typed` values over them, then the typed keys it did
    not have that hold something (not None, not empty), or that are in `always` (kept even as None)."""
    kept = set(always)
    out = {key: typed[key] if key in typed else value for key, value in raw.items()}
    out.update({key: value for key, value in typed.items()
                if key not in out and (key in kept or value not in (None, {}, []))})
    return out


def encode(value: Any) -> Any:
    """A typed value as JSON: blocks by their `to_json`, intervals as ``[low, high]``, coverage as its record."""
    if isinstance(value, JsonBlock):
        return value.to_json()
    if isinstance(value, Interval):
        return [value.low, value.high]
    if isinstance(value, Coverage):
        return value.as_dict()
    if isinstance(value, Mapping):
        return {key: encode(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [encode(item) for item in value]
    return value


@dataclass(frozen=True)
class Interval:
    """A 95% (or `Intervals.confidence`) interval: its bounds, None where the metric has no value."""

    low: float | None
    high: float | None

    @classmethod
    def from_json(cls, value: Any) -> Interval:
        """``[low, high]`` as read (anything else: no bounds). A bound that is not a number is kept as it is, for
        the checks of the metrics' scales to refuse with the field's name (`sciwrite.scoring.checks`)."""
        if isinstance(value, list | tuple) and len(value) == 2:
            return cls(value[0], value[1])
        return cls(None, None)


def _intervals(value: Any) -> dict[str, Interval]:
    return {key: Interval.from_json(bounds) for key, bounds in _mapping(value).items()}


@dataclass(frozen=True)
class Intervals:
    """The bootstrap intervals of a summary's metrics, and how they were computed."""

    bounds: Mapping[str, Interval] = field(default_factory=dict)  # metric -> its interval
    method: str | None = None  # ``percentile bootstrap over papers``
    n_resamples: int | None = None
    confidence: float | None = None
    notes: Mapping[str, str] = field(default_factory=dict)  # metric -> why it has no interval (SciIG's corpus BLEU)

    def of(self, metric: str) -> Interval | None:
        """The interval of `metric`, None when the summary has none."""
        return self.bounds.get(metric)


@dataclass(frozen=True)
class DatasetRef(JsonBlock):
    """The data a score was computed on (the provenance's ``dataset``): its config, content fingerprint, size and,
    for a Hub dataset, its revision."""

    config: str | None = None
    fingerprint: str | None = None
    n_papers: int | None = None
    revision: str | None = None

    ALWAYS = frozenset({"fingerprint", "n_papers"})  # null: not known for this data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DatasetRef:
        """The block read from its JSON object (`raw` keeps it as read)."""
        return cls(config=_text(data.get("config")), fingerprint=_text(data.get("fingerprint")),
                   n_papers=_count(data.get("n_papers")), revision=_text(data.get("revision")), raw=dict(data))


@dataclass(frozen=True)
class PanelJudgePapers(JsonBlock):
    """What one judge of a panel scored of a system's papers (`sciwrite.metrics.judge_panel.judge_papers`): the
    papers it gave a usable score (every criterion, in one repeat at least), those it gave none, and the first of
    those with why (every paper's reason is in its row's ``judge_panel_errors``)."""

    papers_scored: int | None = None
    papers_failed: int | None = None
    failures: tuple[str, ...] = ()  # ``paper_id: why``, the first few

    WHEN_SET = frozenset({"failures"})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PanelJudgePapers:
        """The block read from its JSON object (`raw` keeps it as read)."""
        failures = data.get("failures")
        return cls(papers_scored=_count(data.get("papers_scored")), papers_failed=_count(data.get("papers_failed")),
                   failures=tuple(str(f) for f in failures) if isinstance(failures, list) else (), raw=dict(data))


def _judge_papers(value: Any) -> dict[str, PanelJudgePapers]:
    return {str(judge): PanelJudgePapers.from_json(papers) for judge, papers in _mapping(value).items()
            if isinstance(papers, Mapping)}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _interval_pair(value: Any) -> tuple[float | None, float | None]:
    if isinstance(value, list | tuple) and len(value) == 2:
        return _number(value[0]), _number(value[1])
    return None, None


@dataclass(frozen=True)
class JudgeCheckRecord(JsonBlock):
    """The judge check a run's judge passed or failed (``sciwrite meta-eval judge-check``), as ``sciwrite evaluate
    --judge-check DIR`` records it under the provenance's ``judge.check``: the judge checked, the verdict, the pass
    rate over the pairs of the kinds of damage in the judge's rubric with its interval and confidence, the kinds
    tried, the pairs, the pair set's digest, the date and the folder it was read from."""

    judge: str | None = None
    benchmark: str | None = None
    verdict: str | None = None  # "passes" or "fails"
    pass_rate: float | None = None
    interval: tuple[float | None, float | None] = (None, None)
    confidence: float | None = None
    kinds: tuple[str, ...] = ()
    n_pairs: int | None = None
    pair_set_digest: str | None = None
    date: str | None = None  # YYYY-MM-DD
    source: str | None = None  # the folder `meta-eval judge-check --out` wrote

    ALWAYS = frozenset({"judge", "verdict", "pass_rate", "interval"})

    @property
    def failed(self) -> bool:
        """Whether the judge failed its check (an unknown verdict is not a failure)."""
        return self.verdict == "fails"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgeCheckRecord:
        """The block read from its JSON object (`raw` keeps it as read)."""
        kinds = data.get("kinds")
        return cls(judge=_text(data.get("judge")), benchmark=_text(data.get("benchmark")),
                   verdict=_text(data.get("verdict")), pass_rate=_number(data.get("pass_rate")),
                   interval=_interval_pair(data.get("interval")), confidence=_number(data.get("confidence")),
                   kinds=tuple(str(k) for k in kinds) if isinstance(kinds, list) else (),
                   n_pairs=_count(data.get("n_pairs")), pair_set_digest=_text(data.get("pair_set_digest")),
                   date=_text(data.get("date")), source=_text(data.get("source")), raw=dict(data))


@dataclass(frozen=True)
class HumanAgreementRow(JsonBlock):
    """One criterion of a human study against one judge metric, at one level (``item``: (paper, system) outputs;
    ``system``: per-system means): the items or systems compared, Kendall tau and Spearman rho with their
    bootstrap intervals (None: undefined, e.g. constant scores)."""

    criterion: str | None = None
    metric: str | None = None
    level: str | None = None  # "item" or "system"
    n: int | None = None
    kendall_tau: float | None = None
    tau_interval: tuple[float | None, float | None] = (None, None)
    spearman: float | None = None
    spearman_interval: tuple[float | None, float | None] = (None, None)

    ALWAYS = frozenset({"kendall_tau", "spearman"})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HumanAgreementRow:
        """The block read from its JSON object (`raw` keeps it as read)."""
        return cls(criterion=_text(data.get("criterion")), metric=_text(data.get("metric")),
                   level=_text(data.get("level")), n=_count(data.get("n")),
                   kendall_tau=_number(data.get("kendall_tau")), tau_interval=_interval_pair(data.get("tau_interval")),
                   spearman=_number(data.get("spearman")),
                   spearman_interval=_interval_pair(data.get("spearman_interval")), raw=dict(data))


@dataclass(frozen=True)
class HumanAgreementRecord(JsonBlock):
    """How the run's judge agrees with people (``sciwrite meta-eval agreement --record DIR``), as ``sciwrite evaluate
    --human-agreement DIR`` records it under the provenance's ``judge.human_agreement``: the judge(s) whose scores
    were compared, the benchmark, the study and its ratings file, the date, the interval level and a row per
    criterion, judge metric and level; the folder it was read from."""

    judges: tuple[str, ...] = ()
    benchmark: str | None = None
    study: str | None = None
    ratings: str | None = None  # the ratings file's name
    date: str | None = None  # YYYY-MM-DD
    confidence: float | None = None
    rows: tuple[HumanAgreementRow, ...] = ()
    source: str | None = None  # the folder `meta-eval agreement --record` wrote

    ALWAYS = frozenset({"judges", "study", "rows"})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HumanAgreementRecord:
        """The block read from its JSON object (`raw` keeps it as read)."""
        judges, rows = data.get("judges"), data.get("rows")
        return cls(judges=tuple(str(j) for j in judges) if isinstance(judges, list) else (),
                   benchmark=_text(data.get("benchmark")), study=_text(data.get("study")),
                   ratings=_text(data.get("ratings")), date=_text(data.get("date")),
                   confidence=_number(data.get("confidence")),
                   rows=tuple(HumanAgreementRow.from_json(r) for r in rows if isinstance(r, Mapping))
                   if isinstance(rows, list) else (), source=_text(data.get("source")), raw=dict(data))


def _snapshots_by_judge(value: Any) -> dict[str, dict[str, Any]]:
    return {str(judge): _mapping(found) for judge, found in _mapping(value).items() if isinstance(found, Mapping)}


@dataclass(frozen=True)
class JudgeRecord(JsonBlock):
    """The LLM judge a summary's judge scores came from (the provenance's ``judge``); for a panel, also whether
    every judge scored every paper and what each scored (absent from a record written before they were kept)."""

    model: str | None = None
    snapshots: Mapping[str, int] = field(default_factory=dict)  # the model snapshots that answered, with counts

    ALWAYS = frozenset({"model"})
    WHEN_SET = frozenset({"judges", "snapshots_by_judge"})
    system_fingerprints: Mapping[str, int] = field(default_factory=dict)  # the backends' fingerprints, with counts
    panel_complete: bool | None = None  # a panel: every judge gave every paper a usable score (None: no panel)
    judges: Mapping[str, PanelJudgePapers] = field(default_factory=dict)  # a panel's judge -> what it scored
    #: a panel's judge -> the snapshots that answered it, with the papers each answered (absent: not recorded)
    snapshots_by_judge: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    check: JudgeCheckRecord | None = None  # the judge check recorded with ``--judge-check`` (None: none)
    #: the judge's agreement with people recorded with ``--human-agreement`` (None: none)
    human_agreement: HumanAgreementRecord | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgeRecord:
        """The block read from its JSON object (`raw` keeps it as read)."""
        return cls(model=_text(data.get("model")), snapshots=_mapping(data.get("snapshots")),
                   system_fingerprints=_mapping(data.get("system_fingerprints")),
                   panel_complete=_flag(data.get("panel_complete")), judges=_judge_papers(data.get("judges")),
                   snapshots_by_judge=_snapshots_by_judge(data.get("snapshots_by_judge")),
                   check=JudgeCheckRecord.from_json(check) if isinstance(check := data.get("check"), Mapping) else None,
                   human_agreement=HumanAgreementRecord.from_json(found)
                   if isinstance(found := data.get("human_agreement"), Mapping) else None,
                   raw=dict(data))


@dataclass(frozen=True)
class InspectRun(JsonBlock):
    """The Inspect AI run a summary was read from (the provenance's ``inspect``; absent for `sciwrite evaluate`)."""

    task: str | None = None
    run_id: str | None = None
    log: str | None = None
    snapshots: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InspectRun:
        """The block read from its JSON object (`raw` keeps it as read)."""
        return cls(task=_text(data.get("task")), run_id=_text(data.get("run_id")), log=_text(data.get("log")),
                   snapshots=_mapping(data.get("snapshots")), raw=dict(data))


@dataclass(frozen=True)
class Provenance(JsonBlock):
    """What a score was computed with (`sciwrite.core.provenance.provenance` writes it): code version, dataset,
    models, judge, prompt templates, seeds, engine, hardware and wall time."""

    sciwrite_version: str | None = None
    git_commit: str | None = None
    benchmark: str | None = None
    dataset: DatasetRef | None = None
    profile: str | None = None
    models: Mapping[str, Any] = field(default_factory=dict)  # role -> model id
    model_plan: Mapping[str, Any] = field(default_factory=dict)  # role -> how it was resolved and loaded
    judge: JudgeRecord | None = None
    prompt_templates_sha256: str | None = None
    seeds: Mapping[str, Any] = field(default_factory=dict)
    engine: str | None = None
    hardware: Mapping[str, Any] = field(default_factory=dict)
    started: str | None = None
    finished: str | None = None
    wall_seconds: float | None = None
    inspect: InspectRun | None = None

    ALWAYS = frozenset({"sciwrite_version", "git_commit", "profile", "judge"})  # null: unknown, or no judge ran

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Provenance:
        """The block read from its JSON object (`raw` keeps it as read)."""
        dataset, judge, inspect = data.get("dataset"), data.get("judge"), data.get("inspect")
        return cls(sciwrite_version=_text(data.get("sciwrite_version")), git_commit=_text(data.get("git_commit")),
                   benchmark=_text(data.get("benchmark")),
                   dataset=DatasetRef.from_json(dataset) if isinstance(dataset, Mapping) else None,
                   profile=_text(data.get("profile")), models=_mapping(data.get("models")),
                   model_plan=_mapping(data.get("model_plan")),
                   judge=JudgeRecord.from_json(judge) if isinstance(judge, Mapping) else None,
                   prompt_templates_sha256=_text(data.get("prompt_templates_sha256")),
                   seeds=_mapping(data.get("seeds")), engine=_text(data.get("engine")),
                   hardware=_mapping(data.get("hardware")), started=_text(data.get("started")),
                   finished=_text(data.get("finished")), wall_seconds=_number(data.get("wall_seconds")),
                   inspect=InspectRun.from_json(inspect) if isinstance(inspect, Mapping) else None, raw=dict(data))

    @property
    def config(self) -> str | None:
        """The dataset config scored (None when the provenance names none)."""
        return self.dataset.config if self.dataset is not None else None

    @property
    def judge_model(self) -> str | None:
        """The LLM judge's model (None when no judge ran or the provenance does not say)."""
        return self.judge.model if self.judge is not None else None


@dataclass(frozen=True)
class RunDescription(JsonBlock):
    """How the scored predictions were made (the summary's ``run``): the writer model, the method or prompt level,
    and for RWGBench the retriever and whether candidates were the gold citations."""

    model: str | None = None
    method: str | None = None
    retriever: str | None = None
    oracle: bool | None = None  # RWGBench: the candidates were the gold citations (the paper's Oracle)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunDescription:
        """The block read from its JSON object (`raw` keeps it as read)."""
        oracle = data.get("oracle")
        return cls(model=_text(data.get("model")), method=_text(data.get("method")),
                   retriever=_text(data.get("retriever")), oracle=oracle if isinstance(oracle, bool) else None,
                   raw=dict(data))


@dataclass(frozen=True)
class GroundingSummary(JsonBlock):
    """The reference grounding beside the results table (the summary's ``grounding``): its rates as metric values,
    their intervals, and how the references were looked up."""

    metrics: Mapping[str, MetricValue] = field(default_factory=dict)  # grounding_found_rate, grounded_precision, ...
    intervals: Mapping[str, Interval] = field(default_factory=dict)
    interval_method: str | None = None
    n_resamples: int | None = None
    confidence: float | None = None
    counts: Mapping[str, int] = field(default_factory=dict)  # verdict -> references
    n_references: int | None = None
    n_papers: int | None = None  # papers with a reference list read
    n_papers_listing: int | None = None  # of those, papers listing at least one readable reference
    sources: tuple[str, ...] = ()  # where the references came from: ``candidates``, ``references``
    n_invalid_lists: int | None = None  # reference lists that could not be read
    problems: tuple[str, ...] = ()  # the first lists and references that could not be read, and why
    lookup: str | None = None  # ``offline, corpus only`` or the online services asked
    threshold: float | None = None  # the title similarity a match needs
    online: Mapping[str, Any] | None = None  # what the online lookups did, when asked
    error: str | None = None  # why the grounding could not run (the block then holds nothing else)
    checker: str | None = None  # what the reference checker's verdict rates were checked against (its world)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GroundingSummary:
        """The block read from its JSON object (`raw` keeps it as read)."""
        keys = {"counts", "n_references", "n_papers", "n_papers_listing", "n_invalid_lists", "threshold",
                "n_resamples", "confidence"}
        values = {key: value for key, value in data.items()
                  if key not in keys and (is_number(value) or value is None and key.startswith("ground"))}
        sources, problems = data.get("sources"), data.get("problems")
        return cls(metrics=values, intervals=_intervals(data.get("intervals")),
                   interval_method=_text(data.get("interval_method")), n_resamples=_count(data.get("n_resamples")),
                   confidence=_number(data.get("confidence")), counts=_mapping(data.get("counts")),
                   n_references=_count(data.get("n_references")), n_papers=_count(data.get("n_papers")),
                   n_papers_listing=_count(data.get("n_papers_listing")),
                   sources=tuple(str(s) for s in sources) if isinstance(sources, list) else (),
                   n_invalid_lists=_count(data.get("n_invalid_lists")),
                   problems=tuple(str(p) for p in problems) if isinstance(problems, list) else (),
                   lookup=_text(data.get("lookup")), threshold=_number(data.get("threshold")),
                   online=_mapping(data.get("online")) or None, error=_text(data.get("error")),
                   checker=_text(data.get("checker")), raw=dict(data))

    ALWAYS = frozenset({"interval_method"})  # null: no intervals asked for

    def reported(self, key: str) -> Any:
        """What the block holds under `key`, whatever its type (see `Summary.reported`)."""
        if key in self.metrics:
            return self.metrics[key]
        return self.raw.get(key) if self.raw is not None else self.typed_json().get(key)

    @property
    def has_results(self) -> bool:
        """Whether the block holds rates or an error (an empty one: the system listed no reference)."""
        return bool(self.metrics) or self.error is not None

    def to_json(self) -> dict[str, Any]:
        """As `JsonBlock.to_json`; built in code, every rate is written, None included (not defined)."""
        if self.raw is None:
            return built(self.typed_json(), {*self.ALWAYS, *self.metrics}, self.WHEN_SET)
        return written_back(self.raw, self.typed_json())

    def typed_json(self) -> dict[str, Any]:
        """The rates at the block's top, then the typed fields (see `JsonBlock.typed_json`)."""
        return {**encode(dict(self.metrics)), "counts": dict(self.counts), "n_references": self.n_references,
                "n_papers": self.n_papers, "n_papers_listing": self.n_papers_listing, "sources": list(self.sources),
                "n_invalid_lists": self.n_invalid_lists, "problems": list(self.problems), "lookup": self.lookup,
                "threshold": self.threshold, "online": encode(self.online), "error": self.error,
                "checker": self.checker, "intervals": encode(dict(self.intervals)), "interval_method": self.interval_method,
                "n_resamples": self.n_resamples, "confidence": self.confidence}


@dataclass(frozen=True)
class MemorisationSummary(JsonBlock):
    """How much of the reference text a system copied (the summary's ``memorisation``,
    `sciwrite.metrics.memorisation`): the mean share, its interval and the papers most copied."""

    n: int | None = None  # the n of the n-grams counted
    mean: float | None = None
    interval: Interval | None = None
    median: float | None = None
    n_papers: int | None = None
    max_span_words: int | None = None
    papers_at_least_half: int | None = None
    top: tuple[Mapping[str, Any], ...] = ()

    ALWAYS, WHEN_SET = frozenset({"mean"}), frozenset({"top"})  # a mean of null: no paper long enough

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemorisationSummary:
        """The block read from its JSON object (`raw` keeps it as read)."""
        interval = data.get("interval")
        return cls(n=_count(data.get("n")), mean=_number(data.get("mean")),
                   interval=Interval.from_json(interval) if interval is not None else None,
                   median=_number(data.get("median")), n_papers=_count(data.get("n_papers")),
                   max_span_words=_count(data.get("max_span_words")),
                   papers_at_least_half=_count(data.get("papers_at_least_half")),
                   top=tuple(item for item in data.get("top") or () if isinstance(item, Mapping)), raw=dict(data))


@dataclass(frozen=True)
class JudgePanel(JsonBlock):
    """A panel of judges, or one judge asked several times (the summary's ``judge_panel``,
    `sciwrite.metrics.judge_panel`): the judges, the samples each gave per paper, and per criterion each judge's
    mean and interval with the panel's agreement; whether every judge gave every paper a usable score
    (``complete``) and what each scored (``papers_by_judge``), absent from a block written before they were kept."""

    judges: tuple[str, ...] = ()
    samples: int | None = None
    aggregate: str | None = None  # how the judges' scores of a paper combine (the panel asked for)
    samples_asked: int | None = None  # the samples asked of each judge per paper
    criteria: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    complete: bool | None = None  # None: not recorded (an older block)
    papers_by_judge: Mapping[str, PanelJudgePapers] = field(default_factory=dict)

    WHEN_SET = frozenset({"papers_by_judge"})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgePanel:
        """The block read from its JSON object (`raw` keeps it as read)."""
        judges = data.get("judges")
        return cls(judges=tuple(j for j in judges if isinstance(j, str)) if isinstance(judges, list) else (),
                   samples=_count(data.get("samples")), aggregate=_text(data.get("aggregate")),
                   samples_asked=_count(data.get("samples_asked")), criteria=_mapping(data.get("criteria")),
                   complete=_flag(data.get("complete")), papers_by_judge=_judge_papers(data.get("papers_by_judge")),
                   raw=dict(data))


@dataclass(frozen=True)
class LLMUsage(JsonBlock):
    """What an evaluation's LLM calls cost (the summary's ``llm_usage``): requests, tokens and dollars, read from
    the usage ledger."""

    ledger: str | None = None
    requests: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    unpriced_requests: int | None = None  # requests with no cost reported and no price known
    by_model: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # model -> requests, cost, snapshots

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LLMUsage:
        """The block read from its JSON object (`raw` keeps it as read)."""
        return cls(ledger=_text(data.get("ledger")), requests=_count(data.get("requests")),
                   prompt_tokens=_count(data.get("prompt_tokens")),
                   completion_tokens=_count(data.get("completion_tokens")),
                   reasoning_tokens=_count(data.get("reasoning_tokens")), cached_tokens=_count(data.get("cached_tokens")),
                   cost_usd=_number(data.get("cost_usd")), unpriced_requests=_count(data.get("unpriced_requests")),
                   by_model={k: _mapping(v) for k, v in _mapping(data.get("by_model")).items()}, raw=dict(data))


@dataclass(frozen=True)
class JoinSummary(JsonBlock):
    """How a system's predictions joined its split (the summary's ``join``, `sciwrite.core.predictions.JoinReport`):
    the papers matched, those of the split with no prediction, predictions of no paper of the split, and papers
    predicted twice."""

    n_matched: int | None = None
    n_missing: int | None = None
    n_extra: int | None = None
    n_duplicates: int | None = None
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    duplicates: tuple[str, ...] | None = None  # None: not reported
    missing_scored_as_empty: bool | None = None  # the papers without a prediction were scored as empty sections
    n_holdout: int | None = None  # predictions of papers of the held-out split, left out (SciIG)
    holdout_rule: str | None = None  # how the held-out split is drawn
    holdout_excluded: tuple[str, ...] | None = None  # None: the split has no held-out part
    n_rejected_lines: int | None = None  # malformed prediction lines left out (``--bad-records skip``)
    rejected_lines: tuple[Mapping[str, Any], ...] | None = None  # each one's line number and problem

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JoinSummary:
        """The block read from its JSON object (`raw` keeps it as read)."""
        def ids(value: Any) -> tuple[str, ...]:
            return tuple(str(v) for v in value) if isinstance(value, list) else ()

        def listed(value: Any) -> tuple[str, ...] | None:
            return ids(value) if isinstance(value, list) else None

        rejected, empty = data.get("rejected_lines"), data.get("missing_scored_as_empty")
        return cls(n_matched=_count(data.get("n_matched")), n_missing=_count(data.get("n_missing")),
                   n_extra=_count(data.get("n_extra")), n_duplicates=_count(data.get("n_duplicates")),
                   missing=ids(data.get("missing")), extra=ids(data.get("extra")),
                   duplicates=listed(data.get("duplicates")),
                   missing_scored_as_empty=empty if isinstance(empty, bool) else None,
                   n_holdout=_count(data.get("n_holdout")), holdout_rule=_text(data.get("holdout_rule")),
                   holdout_excluded=listed(data.get("holdout_excluded")),
                   n_rejected_lines=_count(data.get("n_rejected_lines")),
                   rejected_lines=tuple(r for r in rejected if isinstance(r, Mapping))
                   if isinstance(rejected, list) else None, raw=dict(data))


@dataclass(frozen=True)
class CutoffSplit(JsonBlock):
    """Every metric before and after a model's training cutoff (the summary's ``cutoff``,
    `sciwrite.metrics.cutoff.cutoff_comparison`): the date, how a paper's side is decided, the test, the papers on
    each side, those whose side is undetermined, and per metric its two-sample comparison."""

    cutoff: str | None = None  # the cutoff date, ISO
    rule: str | None = None
    test: str | None = None
    n_before: int | None = None
    n_after: int | None = None
    undetermined: tuple[str, ...] = ()
    #: metric -> ``mean_a``/``mean_b`` (before/after), ``difference``, ``ci_low``/``ci_high``, ``p_value``,
    #: ``p_holm``, ``interval_a``/``interval_b``
    metrics: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CutoffSplit:
        """The block read from its JSON object (`raw` keeps it as read)."""
        undetermined = data.get("undetermined")
        return cls(cutoff=_text(data.get("cutoff")), rule=_text(data.get("rule")), test=_text(data.get("test")),
                   n_before=_count(data.get("n_before")), n_after=_count(data.get("n_after")),
                   undetermined=tuple(str(p) for p in undetermined) if isinstance(undetermined, list) else (),
                   metrics={k: _mapping(v) for k, v in _mapping(data.get("metrics")).items()}, raw=dict(data))


#: The top-level keys `Summary` reads into typed fields (the intervals' four keys make one `Intervals`).
_INTERVAL_KEYS = ("intervals", "interval_method", "n_resamples", "confidence", "interval_notes")
_TYPED_KEYS = frozenset({"schema_version", "system", "split", "predictions", "run", "n_papers", "profile",
                         "not_computed", "models", "join", "grounding", "coverage", "memorisation", "judge_panel", "cutoff",
                         "llm_usage", "llm_requests", "judge_snapshots", "provenance", "self_reported",
                         *_INTERVAL_KEYS})


@dataclass(frozen=True)
class Summary:
    """One system's scores on one split, as every benchmark's summary holds them.

    Attributes:
        schema_version: The layout the summary was written in (`SUMMARY_SCHEMA_VERSION` for a new one; 0 before
            versions existed). `to_json` writes the current layout whatever it says.
        system: The system's name.
        split: The split or config scored.
        metrics: Metric key -> its mean (None: not computed, or no paper had a value), and the other numbers at the
            top level (rates, counts), in the summary's order.
        not_computed: Metric key -> why it was not computed.
        intervals: The metrics' bootstrap intervals (None: the run asked for none).
        coverage: The ``coverage`` record: the papers scored out of the split's (`scored` also reads a summary
            written before it).
        details: The benchmark's own blocks and fields, by key (SciIG's ``metric_timings``, RWGBench's
            ``not_applicable``); the benchmark that writes one reads it, by a key it declares.
    """

    schema_version: int = SUMMARY_SCHEMA_VERSION
    system: str | None = None
    split: str | None = None
    predictions: str | None = None  # the predictions file scored
    run: RunDescription | None = None
    n_papers: int | None = None
    profile: str | None = None
    metrics: Mapping[str, MetricValue] = field(default_factory=dict)
    not_computed: Mapping[str, str] = field(default_factory=dict)
    models: Mapping[str, str] = field(default_factory=dict)  # role -> model id
    intervals: Intervals | None = None
    join: JoinSummary | None = None
    grounding: GroundingSummary | None = None
    coverage: Coverage | None = None
    memorisation: MemorisationSummary | None = None
    judge_panel: JudgePanel | None = None
    cutoff: CutoffSplit | None = None
    usage: LLMUsage | None = None
    #: per LLM role: its model family, the options sent, the parameters not applied as asked, the snapshots seen
    llm_requests: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the judge's model snapshots that answered, with counts (None: no judge ran; empty: none answered)
    judge_snapshots: Mapping[str, int] | None = None
    provenance: Provenance | None = None
    #: scores a model repo reports of itself (its ``.eval_results``), imported by the leaderboard, not computed here
    self_reported: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)
    #: the JSON read (current layout): its key order, and what `to_json` writes back unchanged; None for a summary
    #: built in code, which `to_json` writes in its layout
    raw: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Summary:
        """A summary of any schema version, in the current layout (`migrate_summary` renames older keys)."""
        data = migrate_summary(data)
        run, grounding, memorisation = data.get("run"), data.get("grounding"), data.get("memorisation")
        join, cutoff = data.get("join"), data.get("cutoff")
        panel, usage, provenance = data.get("judge_panel"), data.get("llm_usage"), data.get("provenance")
        intervals = None
        if any(key in data for key in _INTERVAL_KEYS):
            intervals = Intervals(bounds=_intervals(data.get("intervals")), method=_text(data.get("interval_method")),
                                  n_resamples=_count(data.get("n_resamples")), confidence=_number(data.get("confidence")),
                                  notes={k: str(v) for k, v in _mapping(data.get("interval_notes")).items()})
        rest = {key: value for key, value in data.items() if key not in _TYPED_KEYS}
        return cls(
            schema_version=schema_version_of(data), system=_text(data.get("system")), split=_text(data.get("split")),
            predictions=_text(data.get("predictions")),
            run=RunDescription.from_json(run) if isinstance(run, Mapping) else None,
            n_papers=_count(data.get("n_papers")), profile=_text(data.get("profile")),
            metrics={key: value for key, value in rest.items() if is_number(value) or value is None},
            not_computed={k: str(v) for k, v in _mapping(data.get("not_computed")).items()},
            models={k: str(v) for k, v in _mapping(data.get("models")).items()}, intervals=intervals,
            join=JoinSummary.from_json(join) if isinstance(join, Mapping) else None,
            grounding=GroundingSummary.from_json(grounding) if isinstance(grounding, Mapping) else None,
            coverage=_coverage(data),
            memorisation=MemorisationSummary.from_json(memorisation) if isinstance(memorisation, Mapping) else None,
            judge_panel=JudgePanel.from_json(panel) if isinstance(panel, Mapping) else None,
            cutoff=CutoffSplit.from_json(cutoff) if isinstance(cutoff, Mapping) else None,
            usage=LLMUsage.from_json(usage) if isinstance(usage, Mapping) else None,
            llm_requests={k: _mapping(v) for k, v in _mapping(data.get("llm_requests")).items()},
            judge_snapshots=_mapping(snapshots) if isinstance(snapshots := data.get("judge_snapshots"), Mapping)
            else None,
            provenance=Provenance.from_json(provenance) if isinstance(provenance, Mapping) else None,
            self_reported=data.get("self_reported") is True,
            details={key: value for key, value in rest.items() if not (is_number(value) or value is None)},
            raw=data)

    def to_json(self) -> dict[str, Any]:
        """The summary as ``summary.json`` holds it. Read from a file: the keys read, in their order, with the typed
        values over them, then what it did not have that holds something (every metric, None included). Built in
        code: its layout (`built`): every field that is not None, every metric (None: not computed), the interval
        method even when none was asked for, and the LLM requests, interval notes and self-report only when they
        hold something."""
        typed = self._typed_json()
        always = [*self.metrics]  # a metric's None: not computed
        if self.raw is not None:
            return written_back(self.raw, typed, always=always)
        if self.intervals is not None:  # no method when no interval was asked for
            always += ["interval_method", "n_resamples", "confidence"]
        return built(typed, always, when_set=("llm_requests", "interval_notes", "self_reported"))

    def _typed_json(self) -> dict[str, Any]:
        typed: dict[str, Any] = {
            "schema_version": self.schema_version, "system": self.system, "split": self.split,
            "predictions": self.predictions, "run": encode(self.run), "n_papers": self.n_papers,
            "profile": self.profile, **dict(self.metrics), "not_computed": dict(self.not_computed),
            "models": dict(self.models)}
        if self.raw and "schema_version" not in self.raw:
            del typed["schema_version"]  # a summary older than versions stays one (it reads as schema 0)
        if self.intervals is not None:
            typed.update({"intervals": encode(dict(self.intervals.bounds)), "interval_method": self.intervals.method,
                          "n_resamples": self.intervals.n_resamples, "confidence": self.intervals.confidence,
                          "interval_notes": dict(self.intervals.notes)})
        typed.update({"join": encode(self.join), "grounding": encode(self.grounding), "coverage": encode(self.coverage),
                      "memorisation": encode(self.memorisation), "judge_panel": encode(self.judge_panel),
                      "cutoff": encode(self.cutoff),
                      "llm_usage": encode(self.usage), "llm_requests": encode(dict(self.llm_requests)),
                      "judge_snapshots": encode(self.judge_snapshots), "provenance": encode(self.provenance),
                      # written when true (or when the summary read said it, even false)
                      "self_reported": self.self_reported if self.self_reported or "self_reported" in (self.raw or {})
                      else None, **dict(self.details)})
        return typed

    def with_(self, **changes: Any) -> Summary:
        """A copy with `changes` (field name -> value)."""
        return replace(self, **changes)

    # What readers ask of every summary, whatever its benchmark.

    @property
    def benchmark(self) -> str | None:
        """The benchmark that scored it (from the provenance; None for a summary older than provenance)."""
        return self.provenance.benchmark if self.provenance is not None else self.details.get("benchmark")

    @property
    def config(self) -> str | None:
        """The dataset config scored: the provenance's, else the summary's split."""
        config = self.provenance.config if self.provenance is not None else None
        return config or self.split

    @property
    def scoring_profile(self) -> str | None:
        """The model profile: the provenance's, else the summary's."""
        return (self.provenance.profile if self.provenance is not None else None) or self.profile

    @property
    def scored(self) -> Coverage:
        """The papers scored out of the split's: the ``coverage`` record, or (a summary written before it)
        ``n_papers`` against the split's size in the provenance."""
        if self.coverage is not None:
            return self.coverage
        dataset = self.provenance.dataset if self.provenance is not None else None
        return Coverage(self.n_papers or 0, dataset.n_papers if dataset is not None else None)

    @property
    def interval_notes(self) -> dict[str, str]:
        """Metric -> why it has no interval (empty when the summary says nothing of it)."""
        return dict(self.intervals.notes) if self.intervals is not None else {}

    def holds(self, key: str) -> bool:
        """Whether the summary has `key` at the top level among its metrics and its benchmark's own fields (a metric
        not computed is held, as None)."""
        return key in self.metrics or key in self.details

    def reported(self, key: str) -> Any:
        """What the summary holds at the top level under `key`, whatever its type: a metric's mean, or a value no
        reader can use (text where a number belongs), for the scale checks to refuse by name."""
        return self.metrics[key] if key in self.metrics else self.details.get(key)

    def value(self, metric: str) -> MetricValue:
        """The mean of `metric` (or of a grounding rate); None when the summary has none."""
        if metric in self.metrics:
            return self.metrics[metric]
        return self.grounding.metrics.get(metric) if self.grounding is not None else None

    def interval(self, metric: str) -> Interval | None:
        """The interval of `metric` (or of a grounding rate); None when the summary has none."""
        found = self.intervals.of(metric) if self.intervals is not None else None
        if found is None and self.grounding is not None:
            found = self.grounding.intervals.get(metric)
        return found


def _coverage(data: Mapping[str, Any]) -> Coverage | None:
    """The summary's ``coverage`` record (None when it has none: see `Summary.scored`)."""
    recorded = data.get("coverage")
    if isinstance(recorded, Mapping) and _count(recorded.get("n_scored")) is not None:
        return Coverage(recorded["n_scored"], _count(recorded.get("n_split")))
    return None


__all__ = ["CutoffSplit", "DatasetRef", "GroundingSummary", "HumanAgreementRecord", "HumanAgreementRow", "InspectRun",
           "Interval", "Intervals", "JoinSummary", "JsonBlock", "JudgeCheckRecord", "JudgePanel", "JudgeRecord",
           "LLMUsage", "MemorisationSummary", "MetricValue", "PanelJudgePapers", "Provenance", "RunDescription",
           "Summary", "encode", "is_number", "written_back"]
