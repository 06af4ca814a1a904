"""The shared derivations from `MetricSpec`s: results table, board, stages, paper-table rows, expectations."""

from __future__ import annotations

import pytest

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import (
    CANDIDATES,
    MetricSpec,
    PrintedAs,
    board_groups,
    needing,
    printed_rows,
    role_metrics,
    sensitivity_expectations,
    table_groups,
)
from sciwrite.metrics.sensitivity import PERTURBATIONS, down
from sciwrite.scoring.stages import Stage, StageTable

UNIT = MetricScale()
SPECS = (
    MetricSpec("a", "A", "G1", UNIT, stage="pair", roles=("enc",), printed={"t": PrintedAs("a!", "C", 1)}),
    MetricSpec("b", "B", "G1", UNIT, stage="pair", needs=(CANDIDATES,), expected=down("empty_text"),
               reasons={"*": "why"}, printed={"t": PrintedAs("b!", "C", 0)}),
    MetricSpec("c", "C", "G2", UNIT, roles=("judge",)),
    MetricSpec("board", "Bd", "Extra", UNIT, in_table=False, on_board=True),
)


def test_tables_are_read_off_the_specs():
    assert table_groups(SPECS) == {"G1": (("a", "A"), ("b", "B")), "G2": (("c", "C"),)}
    assert board_groups(SPECS) == {"Extra": (("board", "Bd"),)}
    assert needing(SPECS, CANDIDATES) == ("b",)
    assert role_metrics(SPECS) == {"enc": ("a",), "judge": ("c",)}
    assert [(spec.key, printed.label) for spec, printed in printed_rows(SPECS, "t")] == [("b", "b!"), ("a", "a!")]


def test_stages_take_their_metrics_and_roles_from_the_specs():
    stages = StageTable.from_specs("Toy", SPECS, (Stage("c", (), judge=True), Stage("beside", ("x",), in_table=False)))
    assert [(s.name, s.metrics, s.roles, s.judge) for s in stages] == [
        ("pair", ("a", "b"), ("enc",), False), ("c", ("c",), ("judge",), True), ("beside", ("x",), (), False)]
    with pytest.raises(ValueError, match="no metric names"):
        StageTable.from_specs("Toy", SPECS, (Stage("unused", ()),))


def test_expectations_default_to_any():
    expected, reasons = sensitivity_expectations(SPECS, PERTURBATIONS)
    assert list(expected) == ["a", "b", "c"]
    assert expected["b"] == {p: "down" if p == "empty_text" else "any" for p in PERTURBATIONS}
    assert reasons == {("b", "*"): "why"}
    with pytest.raises(ValueError, match="unknown perturbations"):
        down("no_such_perturbation")
