"""What a benchmark is, for the code that serves every benchmark alike (the command line, the scoring core, the
quick start, the leaderboard, the Ray engine, the Hub): its identity and six typed parts.

- `BenchmarkData`: its configs and loader, the splits it is scored on, its prediction records, its builds and, when
  it has one, its retrieval corpus;
- `BenchmarkSuite`: its scorers (`sciwrite.scoring.stages.StageTable`), results-table layout, evaluation steps
  (`sciwrite.scoring.steps.EvaluationSteps`) and the options only its evaluation takes;
- `BenchmarkGeneration`: its prompts (methods or levels) and how `sciwrite generate` plans its runs;
- `Presentation`: what it prints, how the leaderboard shows it and the paper's numbered tables;
- `Studies`: its human study, its sensitivity analysis, its judge check and its part of the quick start;
- `HubPart`: its headline metrics as Hub tasks and its dataset repo.

Each benchmark package defines one `Benchmark` (`sciwrite.rwgbench.benchmark.RWGBENCH`,
`sciwrite.sciig.benchmark.SCIIG`); `sciwrite.benchmarks` lists them, and ``tests/test_benchmark_contract.py`` checks
every part of each. Shared code reads these parts and never imports a benchmark package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sciwrite.core.commands import BuildCommand, Option, resolved_options
from sciwrite.core.eval_results import HubTask
from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import MetricSpec
from sciwrite.core.paper_tables import PaperTable
from sciwrite.core.summary import Summary
from sciwrite.generation.jobs import GenerationJob, GenerationRequest
from sciwrite.generation.quickstart_run import QuickstartRun
from sciwrite.human_eval.study import HumanStudy
from sciwrite.meta_eval.judge_pairs import JudgeCheck
from sciwrite.models.registry import ModelRole
from sciwrite.scoring.stages import StageTable
from sciwrite.scoring.steps import EvaluationSteps, SuiteModels

if TYPE_CHECKING:
    import pandas as pd

#: A local dataset folder or a Hub dataset repo id; None: the benchmark's default.
Source = str | Path | None


class DatasetLoader(Protocol):
    """``load(config, source=None, split=None)``: a config as a `datasets.Dataset` (or all its splits)."""

    def __call__(self, config: str, source: Source = None, split: str | None = None) -> Any:
        """Load `config` from `source` (None: the benchmark's default); `split` None: the default split."""
        ...


@dataclass(frozen=True)
class ScoredPapers:
    """The papers of a split a submission is scored on, and those never scored, each with why."""

    paper_ids: tuple[str, ...]
    excluded: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Corpus:
    """A benchmark's retrieval corpus, for `sciwrite index build`, `retrieve` and `verify-references`."""

    configs: tuple[str, ...]  # the corpus configs
    default: str  # the corpus config used when none is named (the offline sample's)
    paper_configs: tuple[str, ...]  # the configs whose papers retrieve from a corpus
    default_papers: str
    #: files(config, source) -> the parquet files of a corpus config in the order the loader reads them
    files: Callable[[str, Source], list[str]]
    #: default_folder(config) -> the local folder a config is read from when no source is named (None: the Hub)
    default_folder: Callable[[str], Path | None]


@dataclass(frozen=True)
class BenchmarkData:
    """The benchmark's data: its configs, splits, loader, prediction records and builds.

    Attributes:
        configs: The dataset configs a prediction file can be scored against.
        offline_config: The config built offline from packaged data (the quick start's, a local board's).
        board_split: The split a public leaderboard scores on.
        load: The loader: ``load(config, source=None, split=None)``.
        splits: What ``--split`` accepts.
        prediction_fields: The fields every prediction record carries besides its text.
        sample_dir: Where the offline sample is built by default.
        scored_papers: ``scored_papers(split, source)``: the paper_ids a submission is scored on, and those never
            scored with the reason.
        builds: Its `sciwrite build` commands.
        prediction_split: The split of a config its predictions are for, when a config has several (SciIG's
            ``test``).
        corpus: Its retrieval corpus, when it has one (RWGBench).
        answer_fields: A paper's fields that are its answer, never shown to a method; the first is the reference
            text a prediction is compared with.
    """

    configs: tuple[str, ...]  # dataset configs a prediction file can be scored against
    offline_config: str  # the config built offline from packaged data (the quick start's, a local board's)
    board_split: str  # the split a public leaderboard scores on (the Space's default)
    load: DatasetLoader
    splits: tuple[str, ...]  # what ``--split`` accepts
    prediction_fields: tuple[str, ...]  # the fields every prediction record carries besides the text
    sample_dir: Callable[[], Path]  # where the offline sample is built by default
    #: scored_papers(split, source) -> the paper_ids a submission is scored on, and those never scored
    scored_papers: Callable[[str, Source], ScoredPapers]
    builds: tuple[BuildCommand, ...] = ()  # `sciwrite build` commands
    prediction_split: str | None = None  # the split of a config its predictions are for, when it has several
    corpus: Corpus | None = None
    #: a paper's fields that are its answer, never shown to a method: the first is the reference text a prediction
    #: is compared with (an Inspect sample's target), the others go in the sample's metadata (gold citations)
    answer_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkSuite:
    """The benchmark's metrics: its stages, its results table and its steps of the scoring core.

    Attributes:
        stages: Its scorers, by stage (`sciwrite.scoring.stages.StageTable`).
        table_groups: The results table: group -> ((metric key, label), ...).
        steps: Its steps of the scoring core (`sciwrite.scoring.steps.EvaluationSteps`).
        options: The options only this benchmark's evaluation takes.
        scales: Metric key -> its range and direction on the paper's scale; every writer and reader of results
            checks values against it.
        specs: Its metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`): the stages, results
            table, scales, sensitivity expectations and Hub tasks are read off them (the contract checks they agree).
        roles: The model roles its metrics need, each declared once (`sciwrite.models.registry.ModelRole`): the
            specs name them, the model plan resolves them and ``sciwrite models`` lists them.
    """

    stages: StageTable
    table_groups: Mapping[str, tuple[tuple[str, str], ...]]  # results table: group -> ((metric key, label), ...)
    steps: EvaluationSteps[Any, Any, Any]
    options: tuple[Option, ...] = ()  # options only this benchmark's evaluation takes (switches included)
    #: metric key -> its range and direction on the paper's scale, declared once: the results table, the board's
    #: extra columns and the Hub tasks read it, and every writer and reader of results checks values against it
    scales: Mapping[str, MetricScale] = field(default_factory=dict)
    #: its metrics, each declared once: everything above that names a metric is read off them
    specs: tuple[MetricSpec, ...] = ()
    #: the model roles its metrics name, each declared once (the contract checks the specs name no other)
    roles: tuple[ModelRole, ...] = ()

    @property
    def metrics(self) -> tuple[str, ...]:
        """The results table's metric keys, in its order."""
        return tuple(key for columns in self.table_groups.values() for key, _ in columns)

    @property
    def model_roles(self) -> tuple[str, ...]:
        """The names of its `roles`: what ``--model-role ROLE=ID`` may name."""
        return tuple(role.name for role in self.roles)

    @property
    def judge_metrics(self) -> tuple[str, ...]:
        """The metric keys the LLM judge computes."""
        return self.stages.judge_metrics

    def expand_metrics(self, names: Iterable[str] | None) -> tuple[str, ...] | None:
        """Metric keys, stage names and evaluate-module names as metric keys (None stays None: all)."""
        return None if names is None else self.stages.expand(names)

    def metrics_without_judge(self, names: Iterable[str] | None = None) -> tuple[str, ...]:
        """`names` (all by default) minus the LLM judge's metrics: what runs with no LLM endpoint."""
        return self.stages.without_judge(names)

    def metric_labels(self) -> dict[str, str]:
        """Short metric labels of the results table (see `table_labels`)."""
        return table_labels(self.table_groups)

    def option_values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option of `options` by keyword, `given` over the defaults; an unknown keyword is an error."""
        return resolved_options(self.options, given, "evaluation")


@dataclass(frozen=True)
class BenchmarkGeneration:
    """How `sciwrite generate <benchmark>` runs: the methods or prompt levels, its options and its plan."""

    prompts: tuple[str, ...]  # the generation methods / prompt levels, as the command names them
    help: str  # what the command writes, for its --help
    options: tuple[Option, ...]  # the options only this benchmark's generation takes
    #: plan(request) -> one job per output file, each prepared when the command reaches it
    plan: Callable[[GenerationRequest], Iterable[GenerationJob]]


@dataclass(frozen=True)
class DrilldownPapers:
    """A split's paper records as the leaderboard's drill-down shows them, and its corpus (None: no corpus)."""

    papers: list[dict[str, Any]]
    corpus: Any = None


@dataclass(frozen=True)
class CitationView:
    """What the drill-down shows of one paper's citations: a table of them, a second table (what is cited outside
    the inputs, or gold papers not cited) with its caption, the reference text and notes."""

    citations: pd.DataFrame
    extra: pd.DataFrame
    extra_caption: str
    reference: str
    notes: list[str]


@dataclass(frozen=True)
class Drilldown:
    """The leaderboard's paper-by-paper view of a submission."""

    #: papers(split, source) -> the split's paper records and corpus
    papers: Callable[[str, Source], DrilldownPapers]
    #: citation_view(record, paper, row, titles) -> the paper's citations as the view shows them
    citation_view: Callable[..., CitationView]


@dataclass(frozen=True)
class Presentation:
    """How the benchmark's results are shown: the evaluation's report, the leaderboard and the paper's tables."""

    #: report(summaries, out) -> what `sciwrite evaluate` prints after scoring
    report: Callable[[Sequence[Summary], Path], str]
    printed_labels: Mapping[str, str] = field(default_factory=dict)  # metric -> header as the paper prints it
    #: columns the leaderboard shows after the paper's table (not in the paper: grounding): group -> ((key, label),
    #: ...), their values read from a summary by `board_values(summary) -> {key: (mean, low, high)}`; per-paper rows
    #: hold each key at the top level
    board_groups: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    board_values: Callable[[Summary], Mapping[str, tuple[Any, Any, Any]]] | None = None
    per_paper_notes: Mapping[str, str] = field(default_factory=dict)  # metric -> what its per-paper value is
    paper_tables: tuple[PaperTable, ...] = ()  # the paper's numbered tables
    drilldown: Drilldown | None = None


@dataclass(frozen=True)
class SensitivityRun:
    """A sensitivity analysis's result: one row per metric and perturbation, the papers, the models it used."""

    rows: list[dict[str, Any]]
    n_papers: int
    models: SuiteModels


@dataclass(frozen=True)
class Sensitivity:
    """Does each metric move the right way when the reference section is damaged on purpose?"""

    #: run(profile, metrics, limit, seed, n_resamples, show_progress) -> the reference sections and their
    #: perturbations scored on the offline sample (`sciwrite.metrics.sensitivity`)
    run: Callable[..., SensitivityRun]
    expected: Mapping[str, Mapping[str, str]]  # metric -> perturbation -> expected direction
    reasons: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (metric, perturbation or "*") -> why


@dataclass(frozen=True)
class Studies:
    """What is run about the benchmark rather than on a model: its human study, its metrics' sensitivity, the
    check of its judge, and its part of `sciwrite quickstart`."""

    human_study: HumanStudy | None = None
    sensitivity: Sensitivity | None = None
    #: the judge check's pairs and the benchmark's own judge (`sciwrite meta-eval judge-check`)
    judge_check: JudgeCheck | None = None
    #: quickstart(run) -> results by name: this benchmark's part of `sciwrite quickstart`
    quickstart: Callable[[QuickstartRun], dict[str, Any]] | None = None


@dataclass(frozen=True)
class HubPart:
    """The benchmark on the Hub: its headline metrics as tasks (``eval.yaml``, ``.eval_results``), the (config,
    split)s they are defined on, and its dataset repo."""

    tasks: tuple[HubTask, ...]
    configs: tuple[tuple[str, str], ...]
    repo: Callable[[], str]


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its identity and its six typed parts, everything shared code needs to serve it.

    Attributes:
        name: The id used on the command line and in prediction files (``rwgbench``, ``sciig``).
        title: The benchmark's name as its paper writes it.
        paper: The paper's reference (its arXiv id).
        data: Its configs, splits, loader, prediction records, builds and retrieval corpus.
        suite: Its scorers, results table, steps of the scoring core and evaluation-only options.
        generation: Its prompts (methods or levels) and how `sciwrite generate` plans its runs.
        presentation: What `sciwrite evaluate` prints, how the leaderboard shows it, the paper's numbered tables.
        studies: Its human study, sensitivity analysis, judge check and part of the quick start.
        hub: Its headline metrics as Hub tasks, and its dataset repo.
    """

    name: str  # the id used on the command line and in prediction files (rwgbench, sciig)
    title: str  # as the paper names it
    paper: str  # the paper's reference (arXiv id)
    data: BenchmarkData
    suite: BenchmarkSuite
    generation: BenchmarkGeneration
    presentation: Presentation
    studies: Studies
    hub: HubPart

    @property
    def board_metrics(self) -> tuple[str, ...]:
        """The leaderboard's metric keys: the results table's, then those of `Presentation.board_groups`."""
        return (*self.suite.metrics,
                *(key for columns in self.presentation.board_groups.values() for key, _ in columns))


def table_labels(groups: Mapping[str, Sequence[tuple[str, str]]]) -> dict[str, str]:
    """Metric key -> its short label in a results table: the column label, prefixed by its group where two groups
    share a label (as SciIG's two "Faithfulness" columns)."""
    counts: dict[str, int] = {}
    for columns in groups.values():
        for _, label in columns:
            counts[label] = counts.get(label, 0) + 1
    labels = {key: label if counts[label] == 1 else f"{group} {label}"
              for group, columns in groups.items() for key, label in columns}
    return {**labels, "sentence_bleu": "sentence BLEU"}


__all__ = ["Benchmark", "BenchmarkData", "BenchmarkGeneration", "BenchmarkSuite", "CitationView", "Corpus",
           "DatasetLoader", "Drilldown", "DrilldownPapers", "HubPart", "Presentation", "ScoredPapers", "Sensitivity",
           "SensitivityRun", "Source", "Studies", "table_labels"]
