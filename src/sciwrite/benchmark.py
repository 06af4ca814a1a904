"""What a benchmark is, for the code that serves every benchmark alike (the command line, the quick start, and
the leaderboard and the distributed engine to come): its configs and loader, its prediction records, its suite's
metrics and results-table layout, and its prompts. Each benchmark package defines one `Benchmark`
(`sciwrite.rwgbench.benchmark.RWGBENCH`, `sciwrite.sciig.benchmark.SCIIG`); `sciwrite.benchmarks` lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's interface; every field is data or a library function taking plain arguments."""

    name: str  # the id used on the command line and in prediction files: "rwgbench", "sciig"
    title: str  # as the paper names it
    paper: str  # the paper's reference (arXiv id)
    configs: tuple[str, ...]  # dataset configs a prediction file can be scored against
    offline_config: str  # the config built offline from packaged data (the quick start's)
    load: Callable[..., Any]  # load(config, source=None, split=None) -> datasets.Dataset
    prediction_fields: tuple[str, ...]  # the fields every prediction record carries besides the text
    table_groups: Mapping[str, tuple[tuple[str, str], ...]]  # results table: group -> ((metric key, label), ...)
    metrics_without_judge: Callable[[Iterable[str] | None], list[str]]  # what runs with no LLM endpoint
    prompts: tuple[str, ...]  # the generation methods / prompt levels, as `sciwrite generate` names them

    @property
    def metrics(self) -> tuple[str, ...]:
        """The suite's metric keys, in the results table's order."""
        return tuple(key for columns in self.table_groups.values() for key, _ in columns)
