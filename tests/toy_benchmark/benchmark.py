"""The toy benchmark as a `sciwrite.benchmark.Benchmark`: every typed part, each as small as it can be."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmark import (
    Benchmark,
    BenchmarkData,
    BenchmarkGeneration,
    BenchmarkSuite,
    HubPart,
    Presentation,
    Studies,
)
from sciwrite.core.commands import Option
from sciwrite.core.eval_results import HubTask
from sciwrite.core.paper_tables import PaperTable, TableData, TableRow
from sciwrite.core.summary import Summary
from sciwrite.generation.jobs import GenerationJob, GenerationRequest
from tests.toy_benchmark.scoring import ROLES, STAGES, STEPS, TABLE_GROUPS, load_toy, scored_papers


def report(summaries: Sequence[Summary], out: Path) -> str:
    return "\n".join(f"{s.system}: length ratio {s.value('length_ratio') or 0.0:.3f}" for s in summaries)


def plan(request: GenerationRequest) -> list[GenerationJob]:
    return []  # nothing to generate: the toy is scored on hand-written predictions


def table1(options: Mapping[str, Any]) -> TableData:
    rows = (TableRow(("toy",), {"n": 3}, {"n": "3"}),)
    return TableData("Table 1. Toy papers.", ("Config",), (("n", "Papers"),), rows)


TOY = Benchmark(
    name="toy",
    title="Toy",
    paper="arXiv:0000.00000",
    data=BenchmarkData(configs=("toy",), offline_config="toy", board_split="toy", load=load_toy, splits=("toy",),
                       prediction_fields=("paper_id",), sample_dir=lambda: Path(__file__).parent,
                       scored_papers=scored_papers),
    suite=BenchmarkSuite(stages=STAGES, table_groups=TABLE_GROUPS, steps=STEPS, roles=ROLES,
                         options=(Option("shout", "upper-case every prediction before scoring", switch=True),)),
    generation=BenchmarkGeneration(prompts=("copy",), help="nothing: the toy has no generation", options=(),
                                   plan=plan),
    presentation=Presentation(report=report, paper_tables=(PaperTable("toy-table1", "Toy papers", "nothing", (),
                                                                      table1),)),
    studies=Studies(),
    hub=HubPart(tasks=(HubTask("length_ratio", "length_ratio", "length over the reference's"),),
                configs=(("toy", "test"),), repo=lambda: "sciwrite/toy"),
)
