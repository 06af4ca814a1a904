"""What a benchmark is, for the code that serves every benchmark alike (the command line, the quick start, the
leaderboard and the distributed engine): its configs and loader, its prediction records, its suite's metrics and
results-table layout, its prompts, its generation and build commands, and its evaluation: one `evaluate` with one argument list and return shape for
every benchmark, and the `report` text `sciwrite evaluate <benchmark>` prints. Each benchmark package defines one
`Benchmark` (`sciwrite.rwgbench.benchmark.RWGBENCH`, `sciwrite.sciig.benchmark.SCIIG`); `sciwrite.benchmarks` lists
them, and ``tests/test_benchmark_contract.py`` checks each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's interface; every field is data or a library function taking plain arguments."""

    name: str  # the id used on the command line and in prediction files (rwgbench, sciig)
    title: str  # as the paper names it
    paper: str  # the paper's reference (arXiv id)
    configs: tuple[str, ...]  # dataset configs a prediction file can be scored against
    offline_config: str  # the config built offline from packaged data (the quick start's)
    load: Callable[..., Any]  # load(config, source=None, split=None) -> datasets.Dataset
    prediction_fields: tuple[str, ...]  # the fields every prediction record carries besides the text
    table_groups: Mapping[str, tuple[tuple[str, str], ...]]  # results table: group -> ((metric key, label), ...)
    metrics_without_judge: Callable[[Iterable[str] | None], list[str]]  # what runs with no LLM endpoint
    prompts: tuple[str, ...]  # the generation methods / prompt levels, as `sciwrite generate` names them
    # evaluate(predictions, split, *, systems, out_dir, source, profile, models, metrics, judge_options, batch_size,
    # bootstrap, seed, engine, ray_address, ray_actors, bad_records, cutoff, **flags) -> one summary per prediction
    # file, each system written to out_dir/<system>/ (its rows and summary with the memorisation signal; `cutoff`, a
    # date, adds every metric before and after it: `sciwrite.metrics.runner.evaluate_files`)
    evaluate: Callable[..., list[dict[str, Any]]]
    report: Callable[[Sequence[Mapping[str, Any]], Path], str]  # what `sciwrite evaluate` prints after scoring
    splits: tuple[str, ...]  # what `sciwrite evaluate --split` accepts
    model_roles: tuple[str, ...]  # the roles `--model ROLE=ID` may name
    stage_names: tuple[str, ...] = ()  # scorer names `--metrics` accepts besides metric keys
    #: on/off options only this benchmark's `evaluate` takes: keyword -> help
    evaluate_flags: Mapping[str, str] = field(default_factory=dict)
    #: options with a value only this benchmark's `evaluate` takes (`sciwrite.core.commands.Option`), by keyword
    evaluate_options: tuple[Any, ...] = ()
    split_aliases: tuple[str, ...] = ()  # former names of `--split` (deprecated, still read)
    load_models: Callable[..., Any] | None = None  # (profile, models, metrics, judge_options) -> the suite's models
    #: score_items(items, models, batch_size) -> (rows, stage seconds): what the Ray engine's actors run
    score_items: Callable[..., tuple[list[dict[str, Any]], dict[str, float]]] | None = None
    #: scored_papers(split, source) -> (the paper_ids a submission is scored on, {paper_id: why never scored})
    scored_papers: Callable[[str, Any], tuple[tuple[str, ...], dict[str, str]]] | None = None
    #: drilldown_papers(split, source) -> (the split's paper records, its corpus or None): the drill-down's papers
    drilldown_papers: Callable[[str, Any], tuple[list[dict[str, Any]], Any]] | None = None
    #: citation_view(record, paper, row, titles) -> (citations, extra, extra's caption, reference text, notes)
    citation_view: Callable[..., tuple[Any, Any, str, str, list[str]]] | None = None
    #: sensitivity(profile, metrics, limit, seed, n_resamples, show_progress) -> (rows, papers, models): the
    #: reference sections and their perturbations scored on the offline sample (`sciwrite.metrics.sensitivity`)
    sensitivity: Callable[..., tuple[list[dict[str, Any]], int, Any]] | None = None
    sensitivity_expected: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # metric -> pert -> direction
    sensitivity_reasons: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (metric, pert or "*") -> why
    #: quickstart(QuickstartRun) -> results by name: this benchmark's part of `sciwrite quickstart`
    quickstart: Callable[[Any], dict[str, Any]] | None = None
    sample_dir: Callable[[], Path] | None = None  # where the offline sample is built by default
    summary_split_key: str = "split"  # the summary.json key that names the split or config scored
    prediction_split: str | None = None  # the split of a config its predictions are for, when the config has several
    printed_labels: Mapping[str, str] = field(default_factory=dict)  # metric -> header as the paper prints it
    #: columns the leaderboard shows after the paper's table (not in the paper: grounding): group -> ((key, label),
    #: ...), their values read from a summary by `board_values(summary) -> {key: (mean, low, high)}`; per-paper rows
    #: hold each key at the top level
    board_groups: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    board_values: Callable[[Mapping[str, Any]], Mapping[str, tuple[Any, Any, Any]]] | None = None
    per_paper_notes: Mapping[str, str] = field(default_factory=dict)  # metric -> what its per-paper value is
    generate_help: str = ""  # what `sciwrite generate <name>` writes, for its --help
    #: the options only this benchmark's `sciwrite generate` takes (`sciwrite.core.commands.Option`)
    generate_options: tuple[Any, ...] = ()
    #: plan_generation(GenerationRequest) -> iterator of GenerationJob (`sciwrite.generation.jobs`): one output
    #: file each, prepared when the command reaches it
    plan_generation: Callable[[Any], Iterable[Any]] | None = None
    builds: tuple[Any, ...] = ()  # `sciwrite build` commands (`sciwrite.core.commands.BuildCommand`)
    paper_tables: tuple[Any, ...] = ()  # the paper's numbered tables (`sciwrite.core.paper_tables.PaperTable`)
    human_study: Any = None  # the paper's human study (`sciwrite.human_eval.study.HumanStudy`)
    #: the headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`), the (config, split)s they are
    #: defined on, and the benchmark's Hub dataset repo (`hub_repo()`): ``eval.yaml`` and ``.eval_results``
    hub_tasks: tuple[Any, ...] = ()
    hub_configs: tuple[tuple[str, str], ...] = ()
    hub_repo: Callable[[], str] | None = None

    @property
    def metrics(self) -> tuple[str, ...]:
        """The suite's metric keys, in the results table's order."""
        return tuple(key for columns in self.table_groups.values() for key, _ in columns)

    @property
    def board_metrics(self) -> tuple[str, ...]:
        """The leaderboard's metric keys: the suite's, then the `board_groups`'."""
        return (*self.metrics, *(key for columns in self.board_groups.values() for key, _ in columns))

    def metric_labels(self) -> dict[str, str]:
        """Short metric labels of the results table (see `table_labels`)."""
        return table_labels(self.table_groups)


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
