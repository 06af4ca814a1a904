"""A suite's scorers as data: each `Stage` names the metrics it computes together, the model roles it needs, the
evaluate module that scores it alone and whether it is an LLM judge. A benchmark's stages are read off its
metric declarations (`StageTable.from_specs`: each `sciwrite.core.metric_spec.MetricSpec` names its stage and model
roles); the metric names ``--metrics`` accepts, the roles ``--model`` accepts, what runs without an LLM endpoint and
which roles a run resolves are all read from that one table, never listed twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from sciwrite.core.metric_spec import MetricSpec


@dataclass(frozen=True)
class Stage:
    """One scorer: the metric keys it writes on each row (asking for one computes the others)."""

    name: str
    metrics: tuple[str, ...]
    roles: tuple[str, ...] = ()  # the model roles it loads (`--model-role ROLE=ID`)
    module: str | None = None  # the evaluate module that scores it alone (metrics/<module>/), when not `name`
    judge: bool = False  # an LLM judge: left out by ``--no-judge`` and by a board without an endpoint
    in_table: bool = True  # its metrics are columns of the paper's results table (False: reported beside it)

    @property
    def names(self) -> tuple[str, ...]:
        """What ``--metrics`` accepts for the whole stage: its name and its evaluate module's."""
        return (self.name, *((self.module,) if self.module and self.module != self.name else ()))


@dataclass(frozen=True)
class StageTable:
    """A suite's stages, in the order they run."""

    benchmark: str  # its title, for messages
    stages: tuple[Stage, ...]

    def __post_init__(self) -> None:
        keys = [metric for stage in self.stages for metric in stage.metrics]
        if len(keys) != len(set(keys)):
            raise ValueError(f"{self.benchmark}: a metric is computed by two stages: {keys}")

    @classmethod
    def from_specs(cls, benchmark: str, specs: Sequence[MetricSpec], scorers: Sequence[Stage] = ()) -> StageTable:
        """The stages of a benchmark's results-table metrics, in the order the specs first name them: each stage
        computes the specs that name it and loads their model roles. `scorers` gives what a spec cannot say of its
        stage (the evaluate module, an LLM judge), its metrics left empty; a scorer declared with metrics (one
        reported beside the table, computed by shared code) keeps them and runs after the others."""
        given = {stage.name: stage for stage in scorers}
        table = [spec for spec in specs if spec.in_table]
        stages = []
        for name in dict.fromkeys(spec.stage_name for spec in table):
            members = [spec for spec in table if spec.stage_name == name]
            stage = given.get(name, Stage(name, ()))
            if stage.metrics:
                raise ValueError(f"{benchmark}: stage {name!r} is declared with metrics and named by specs")
            stages.append(replace(stage, metrics=tuple(spec.key for spec in members),
                                  roles=tuple(dict.fromkeys(role for spec in members for role in spec.roles))))
        named = {stage.name for stage in stages}
        unused = [name for name, stage in given.items() if name not in named and not stage.metrics]
        if unused:
            raise ValueError(f"{benchmark}: no metric names the stage(s) {unused}")
        return cls(benchmark, (*stages, *(stage for stage in scorers if stage.metrics)))

    def __iter__(self) -> Iterator[Stage]:
        return iter(self.stages)

    def __getitem__(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)

    @property
    def metrics(self) -> tuple[str, ...]:
        """Every metric key, in stage order."""
        return tuple(metric for stage in self.stages for metric in stage.metrics)

    @property
    def table_metrics(self) -> tuple[str, ...]:
        """The metric keys of the paper's results table, in stage order."""
        return tuple(metric for stage in self.stages if stage.in_table for metric in stage.metrics)

    @property
    def names(self) -> tuple[str, ...]:
        """Every stage name and evaluate-module name ``--metrics`` accepts besides the metric keys."""
        return tuple(name for stage in self.stages for name in stage.names)

    @property
    def roles(self) -> tuple[str, ...]:
        """Every model role, in stage order (each once)."""
        return tuple(dict.fromkeys(role for stage in self.stages for role in stage.roles))

    @property
    def judge_metrics(self) -> tuple[str, ...]:
        """The metrics an LLM judge computes."""
        return tuple(metric for stage in self.stages if stage.judge for metric in stage.metrics)

    def stage_of(self, metric: str) -> Stage:
        """The stage that computes `metric`."""
        for stage in self.stages:
            if metric in stage.metrics:
                return stage
        raise KeyError(metric)

    def expand(self, names: Iterable[str] | None) -> tuple[str, ...]:
        """The metric keys that metric keys, stage names and evaluate-module names stand for (all of them for
        None), in stage order; an unknown name is a `ValueError` listing what is accepted."""
        if names is None:
            return self.metrics
        wanted: set[str] = set()
        for name in names:
            stages = [stage for stage in self.stages if name in stage.names]
            if stages:
                wanted.update(stages[0].metrics)
            elif name in self.metrics:
                wanted.add(name)
            else:
                raise ValueError(f"unknown {self.benchmark} metric {name!r}; choose from the metrics "
                                 f"{list(self.metrics)} or the scorers {list(self.names)}")
        return tuple(metric for metric in self.metrics if metric in wanted)

    def without_judge(self, names: Iterable[str] | None = None) -> tuple[str, ...]:
        """`names` (all by default) expanded, minus the LLM judge's metrics: what runs with no LLM endpoint."""
        judged = set(self.judge_metrics)
        return tuple(metric for metric in self.expand(names) if metric not in judged)

    def wanted_stages(self, metrics: Iterable[str]) -> tuple[Stage, ...]:
        """The stages that compute any of `metrics`."""
        wanted = set(metrics)
        return tuple(stage for stage in self.stages if wanted & set(stage.metrics))

    def roles_for(self, metrics: Iterable[str]) -> tuple[str, ...]:
        """The model roles the stages of `metrics` need (each once, in stage order)."""
        return tuple(dict.fromkeys(role for stage in self.wanted_stages(metrics) for role in stage.roles))


__all__ = ["Stage", "StageTable"]
