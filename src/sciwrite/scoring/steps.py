"""A benchmark's part of the scoring core (`sciwrite.scoring.core`), as typed data: how its split is opened, how a
system's predictions join it, how its models load, how a system is scored (in this process or on Ray Data), what
its summary holds and which result files it writes besides the shared ones.

A benchmark subclasses `OpenSplit` and `PredictionFile` with what its own steps read (RWGBench: the corpus; SciIG:
the holdout split), so no step passes a loose dictionary; the core reads only the fields declared here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.results import SideFiles
from sciwrite.core.summary import Intervals, Summary
from sciwrite.models.plan import ModelPlan
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.stages import StageTable


@dataclass(frozen=True)
class OpenSplit:
    """The split a run scores: its config name (the provenance's) and its papers (a `datasets.Dataset`)."""

    config: str
    papers: Any  # a `datasets.Dataset`, or a list of records given in memory

    @property
    def paper_ids(self) -> list[str]:
        return paper_ids(self.papers)

    def records(self, rows: Sequence[int]) -> list[dict[str, Any]]:
        """The papers at `rows` (positions in `papers`), in that order, as records."""
        if isinstance(self.papers, list):
            return [self.papers[row] for row in rows]
        return self.papers.select(list(rows)).to_list()


def paper_ids(papers: Any) -> list[str]:
    """The ``paper_id`` of each paper of a `datasets.Dataset` (its column, no row decoded) or of a list of records."""
    if isinstance(papers, list | tuple):
        return [paper["paper_id"] for paper in papers]
    return list(papers["paper_id"])


@dataclass(frozen=True)
class PredictionFile:
    """One system's predictions, read and joined to the split: the texts to score and their papers, in order."""

    origin: str  # the file as given (or where in-memory records came from): the summary's ``predictions``
    texts: list[str]
    targets: list[dict[str, Any]]
    rejected: list[dict[str, Any]]  # lines left out under ``--bad-records skip``
    trailer: Mapping[str, Any] = field(default_factory=dict, kw_only=True)  # summary keys after the provenance


@dataclass(frozen=True)
class Scored:
    """One system's scores: its per-paper rows, the wall seconds of each stage and, when the grounding asked an
    online service, what those lookups did for this system (`sciwrite.grounding.online.OnlineLookup.report`)."""

    rows: list[PaperRow]
    seconds: dict[str, float] = field(default_factory=dict)
    lookups: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ResultFiles:
    """What a benchmark writes besides per_paper.jsonl and summary.json (`sciwrite.core.results`)."""

    table_rows: list[dict[str, Any]]
    extra_json: Mapping[str, Any] = field(default_factory=dict)
    side_files: SideFiles | None = None


@dataclass
class SuiteModels:
    """A suite's loaded models, the model plan they came from, and why any metric cannot be computed. Each
    benchmark subclasses it with its models' fields and its stage table (`STAGES`)."""

    profile: str
    model_ids: dict[str, str] = field(default_factory=dict)  # role -> model id
    not_computed: dict[str, str] = field(default_factory=dict)  # metric -> reason
    plan: ModelPlan | None = None  # every role resolved up front, with the loaded weights' fingerprints

    STAGES: ClassVar[StageTable | None] = None  # the suite's stage table (each subclass sets its own)

    def wants(self, stage: str) -> bool:
        """Whether any metric of `stage` is to be computed."""
        if self.STAGES is None:
            raise ValueError(f"{type(self).__name__} has no stage table")
        return not all(m in self.not_computed for m in self.STAGES[stage].metrics)

    def description(self) -> SuiteModels:
        """The same suite without its weights (what a Ray actor sends back): profile, ids, plan, not computed."""
        return type(self)(profile=self.profile, model_ids=dict(self.model_ids), not_computed=dict(self.not_computed),
                          plan=self.plan)


#: (rows, seconds per stage): what scoring a batch of papers gives.
Rows = tuple[list[PaperRow], dict[str, float]]

#: A benchmark's own subclasses of the three step types, so that its steps take what it declares (the type checker
#: sees `EvaluationSteps[RWGBenchFile, RWGBenchSplit, RWGBenchModels]`, the core only the bounds).
FileT = TypeVar("FileT", bound=PredictionFile)
SplitT = TypeVar("SplitT", bound=OpenSplit)
ModelsT = TypeVar("ModelsT", bound=SuiteModels)


@dataclass(frozen=True)
class EvaluationSteps(Generic[FileT, SplitT, ModelsT]):
    """A benchmark's part of the scoring core; every step is a module-level function (Ray pickles the model and
    item steps by reference, so an actor imports the benchmark's module itself). Generic in the benchmark's own
    prediction file, split and models types."""

    #: open_split(request) -> the split named by ``request.split`` (and its ``source``); an error for an unknown one
    open_split: Callable[[ScoringRequest], SplitT]
    #: read(predictions, split, request) -> one system's predictions joined to the split; every problem named
    read: Callable[[SystemPredictions, SplitT, ScoringRequest], FileT]
    #: load_models(profile, models, metrics, judge, ledger) -> the suite's models, each loaded once
    load_models: Callable[..., ModelsT]
    #: score(file, split, models, request) -> the system's rows in this process
    score: Callable[[FileT, SplitT, ModelsT, ScoringRequest], Scored]
    #: summarize(file, scored, models, split, request, system) -> the summary's means, intervals, join report and
    #: LLM record, before what every benchmark's has (coverage, memorisation, cutoff, provenance) is added
    summarize: Callable[..., Summary]
    #: result_files(summary, system) -> the results-table rows and side files
    result_files: Callable[[Summary, str], ResultFiles]
    templates: Mapping[str, str]  # the prompt templates the metrics send (their hash goes in the provenance)
    metrics: tuple[str, ...] = ()  # every per-paper metric key a summary reports (what ``--cutoff`` splits)
    #: ray_items(file, split) -> one self-contained, picklable item per paper (no actor holds the split)
    ray_items: Callable[[FileT, SplitT], list[Any]] | None = None
    #: score_items(items, models, batch_size) -> rows and seconds: what a Ray actor runs on its share
    score_items: Callable[..., Rows] | None = None
    #: after_ray(file, split, rows, request) -> the system's `Scored`, completing the actors' rows in the driver
    #: (RWGBench: the reference grounding against the split's one title index); None: the rows as they came
    after_ray: Callable[[FileT, SplitT, list[PaperRow], ScoringRequest], Scored] | None = None
    #: memorisation_texts(file, split) -> one (reference text, [the texts the model was given]) per scored paper,
    #: in the file's order (`sciwrite.metrics.memorisation`); None: no memorisation signal
    memorisation_texts: Callable[[FileT, SplitT], list[tuple[str, list[str]]]] | None = None
    #: intervals(rows, means, n_resamples, seed) -> a summary's intervals from its per-paper rows in the split's
    #: order and the summary's means of its per-paper `metrics` (a metric whose mean is None gets none): the one
    #: computation its `summarize` and any other front end that reports intervals (an Inspect metric) call; None:
    #: the benchmark reports none
    intervals: Callable[[Sequence[PaperRow], Mapping[str, Any], int, int], Intervals] | None = None

    @property
    def runs_on_ray(self) -> bool:
        return self.ray_items is not None and self.score_items is not None


def aligned(rows: Sequence[PaperRow], file: PredictionFile) -> None:
    """Scored rows must come back in the file's paper order; an error naming the first that does not (a row that
    names no paper is taken as in its place)."""
    for row, target in zip(rows, file.targets, strict=True):
        if row.paper_id is not None and row.paper_id != target["paper_id"]:
            raise RuntimeError(f"scored rows out of order: {row.paper_id} where {target['paper_id']} was")


__all__ = ["EvaluationSteps", "FileT", "ModelsT", "SplitT", "OpenSplit", "PredictionFile", "ResultFiles", "Rows", "Scored", "SuiteModels",
           "aligned", "paper_ids"]
