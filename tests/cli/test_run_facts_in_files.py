"""`sciwrite compare` and `sciwrite paper-table` carry each run's rank with its interval, its cost and its judge
(issue 51: the same facts as the board), on evaluation folders with usage ledgers whose figures are worked by hand;
a run without a ledger says "unknown", never 0; a ledger that disagrees with its predictions is one line naming the
file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.core.rank_intervals import rank_intervals
from sciwrite.core.run_facts import rank_cell
from sciwrite.core.trust import FAILED_MARK
from sciwrite.surge.paper_tables import COLUMNS as SURGE_COLUMNS
from tests.core.test_paper_tables import SCIIG_METRICS, evaluation_folder, summary_file

JUDGE = {"model": "gpt-x", "snapshots": {"gpt-x-2026-01-01": 2}}
FAILED = {**JUDGE, "check": {"judge": "gpt-x", "verdict": "fails", "pass_rate": 0.5, "interval": [0.3, 0.7]}}
#: Precision per paper (p0, p1). a is above b and c on both papers (rank 1 in every resample). b and c tie on the
#: mean (0.25) and share rank 2; a resample of p0 twice (1 in 4) puts b third, p1 twice (1 in 4) puts c third: each
#: is 2nd in 3/4 of the resamples and 3rd in 1/4, so both intervals are 2-3. a - b is 0.375 on both papers: sig.;
#: b - c is -0.25 or +0.25: its interval [-0.25, 0.25] holds 0: n.s.
PRECISION = {"a": (0.5, 0.75), "b": (0.125, 0.375), "c": (0.375, 0.125)}
SURGE_KEYS = tuple(spec.key for spec in SURGE_COLUMNS)
RANKS = {"a": "1 (1)", "b": "2 (2\u20133) \u2191 sig.", "c": "2 (2\u20133) \u2191 n.s."}


def _line(**fields) -> str:
    return json.dumps(fields) + "\n"


def run_folder(tmp_path, name, *, gen=(), judge=(), check=False, bad_line=None):
    """An RWGBench evaluation folder of system `name` whose summary points at its predictions (p0, p1) in their own
    folder; `gen`: the generator's (cost, input, output, reasoning) per paper, written to the usage.jsonl beside the
    predictions (none: no generator ledger); `judge`: the judge's costs, to the usage.jsonl beside the summary."""
    generation = tmp_path / f"gen-{name}"
    generation.mkdir()
    predictions = generation / f"{name}.jsonl"
    predictions.write_text("".join(_line(paper_id=f"p{i}", text="See [1].", candidates=["d1"]) for i in range(2)))
    if gen:
        (generation / "usage.jsonl").write_text("".join(
            _line(purpose="generate", model="g", run=name, paper_id=f"p{i}", cost_usd=cost, prompt_tokens=tin,
                  completion_tokens=tout, reasoning_tokens=reasoning, cost_source="endpoint")
            for i, (cost, tin, tout, reasoning) in enumerate(gen)) + (bad_line or ""))
    folder = evaluation_folder(tmp_path, name, PRECISION[name], predictions=str(predictions))
    summary = json.loads((folder / "summary.json").read_text())
    summary["provenance"]["judge"] = FAILED if check else JUDGE
    (folder / "summary.json").write_text(json.dumps(summary))
    if judge:
        (folder / "usage.jsonl").write_text("".join(
            _line(purpose="judge", model="gpt-x", run="evaluate-1", prompt_tokens=10, completion_tokens=1,
                  cost_usd=cost, cost_source="endpoint") for cost in judge))
    return folder


@pytest.fixture
def runs(tmp_path):
    """a: generator $0.01 + $0.03 = $0.04 for 2 papers ($0.02 a paper), 1000 + 3000 input (2,000 a paper),
    100 + 300 output (200), 10 + 30 reasoning tokens (20); judge $0.001 + $0.003 ($0.002 a paper); $0.044 in all.
    b: no generator ledger (unknown), judge $0.002 + $0.002 ($0.002 a paper), its judge failed its check.
    c: no ledger at all."""
    return [str(run_folder(tmp_path, "a", gen=[(0.01, 1000, 100, 10), (0.03, 3000, 300, 30)], judge=[0.001, 0.003])),
            str(run_folder(tmp_path, "b", judge=[0.002, 0.002], check=True)),
            str(run_folder(tmp_path, "c"))]


def block(out: str, start: str) -> list[str]:
    """The lines of `out` from the one starting with `start` to the next empty line."""
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    return lines[first:lines.index("", first) if "" in lines[first:] else len(lines)]


def test_compare_puts_rank_cost_and_judge_on_one_line_per_system(runs, tmp_path, capsys):
    assert main(["compare", *runs, "--metrics", "precision", "--bootstrap", "200", "--out",
                 str(tmp_path / "cmp")]) == 0
    out = capsys.readouterr().out
    lines = block(out, "Cost and judge")
    rows = {line.split()[0]: line for line in lines[3:6]}
    assert [line.split()[0] for line in lines[3:6]] == ["a", "b", "c"]  # rank order
    a = rows["a"].split()
    assert a[1:11] == ["1", "(1)", "$0.02", "$0.002", "$0.044", "2,000", "200", "20", "gpt-x", "(snapshots:"]
    assert rows["b"].split()[1:10] == ["2", "(2\u20133)", "\u2191", "sig.", "unknown", "$0.002", "unknown", "unknown",
                                       "unknown"]
    assert FAILED_MARK in rows["b"] and "fails (0.500)" in rows["b"] and FAILED_MARK not in rows["a"]
    assert rows["c"].split()[1:11] == ["2", "(2\u20133)", "\u2191", "n.s.", *["unknown"] * 6]
    assert "b: prices: endpoint (usage.cost); cost unknown: generator: no generator ledger came with the run" in out
    assert "c: prices: unknown; cost unknown: generator: no generator ledger" in out
    written = json.loads((tmp_path / "cmp.runs.json").read_text())
    assert [(r["system"], r["rank"]) for r in written] == list(RANKS.items())
    assert written[0]["cost_gen_per_paper"] == pytest.approx(0.02) and written[0]["cost_total"] == pytest.approx(0.044)
    assert (written[1]["cost_gen_per_paper"], written[1]["cost_total"]) == (None, None)  # unknown: null, never 0
    assert written[1]["cost_judge_per_paper"] == pytest.approx(0.002)
    assert json.loads((tmp_path / "cmp.json").read_text())[0]["metric"] == "precision"  # the table, as before


def test_paper_table_lists_the_same_runs_and_writes_the_same_facts(runs, tmp_path, capsys):
    assert main(["compare", *runs, "--metrics", "precision", "--out", str(tmp_path / "cmp")]) == 0
    capsys.readouterr()
    assert main(["paper-table", "rwgbench-table2", "--summary", *runs, "--out", str(tmp_path / "t2")]) == 0
    out = capsys.readouterr().out
    lines = block(out, "Runs: rank on precision over the 2 papers every ranked run scored")
    assert lines[1] == ("  a: rank 1 (1); cost $0.02/paper (gen) + $0.002/paper (judge) = $0.044 total over 2 papers "
                        "(prices: endpoint (usage.cost)); judge gpt-x (snapshots: gpt-x-2026-01-01); judge check "
                        "no check recorded")
    assert lines[2].startswith("  b: rank 2 (2\u20133) \u2191 sig.; cost unknown/paper (gen) + $0.002/paper (judge) = "
                               "unknown total over 2 papers")
    assert f"judge gpt-x (snapshots: gpt-x-2026-01-01) {FAILED_MARK}" in lines[2]
    assert lines[3].startswith("  c: rank 2 (2\u20133) \u2191 n.s.; cost unknown/paper (gen) + unknown/paper (judge)")
    # the files agree with compare's, and the rank cell is the statistic's on the same per-paper scores
    assert json.loads((tmp_path / "t2.runs.json").read_text()) == json.loads((tmp_path / "cmp.runs.json").read_text())
    scores = {name: {f"p{i}": v for i, v in enumerate(values)} for name, values in PRECISION.items()}
    ranks = rank_intervals(scores, n_resamples=1000, rng=[0, 0])
    assert {name: rank_cell(ranks, name) for name in PRECISION} == RANKS
    assert [row["system"] for row in json.loads((tmp_path / "t2.json").read_text())] == ["a", "b", "c"]  # unchanged
    header = (tmp_path / "t2.runs.csv").read_text().splitlines()[0].split(",")
    assert "t2.runs.json and" in out and header[0] == "system" and {"cost_gen_per_paper", "judge", "rank"} <= set(header)


def test_a_run_without_per_paper_rows_is_listed_but_not_ranked(runs, capsys):
    Path(runs[2], "per_paper.jsonl").unlink()
    assert main(["paper-table", "rwgbench-table2", "--summary", *runs]) == 0
    lines = block(capsys.readouterr().out, "Runs: rank on precision")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["a", "b", "c"]
    assert lines[1].startswith("  a: rank 1 (1);") and lines[2].startswith("  b: rank 2 (2) \u2191 sig.;")
    assert lines[3].startswith("  c: rank not ranked: no per_paper.jsonl beside its summary;")
    assert main(["paper-table", "rwgbench-table2", "--summary", runs[0], runs[2]]) == 0  # a alone has rows
    lines = block(capsys.readouterr().out, "Runs: not ranked on precision (fewer than 2 runs with per-paper rows")
    assert lines[1].startswith("  a: rank not ranked: no other run with per-paper rows; cost $0.02/paper (gen)")


def test_sciig_and_surge_tables_list_their_runs_too(tmp_path, capsys):
    """Summaries alone (no per-paper rows, no predictions): listed under their labels, not ranked, the generator's
    cost unknown."""
    first = summary_file(tmp_path, "one", SCIIG_METRICS, "sciig")
    second = summary_file(tmp_path, "two", {**SCIIG_METRICS, "rouge1": 0.5}, "sciig")
    assert main(["paper-table", "sciig-table2", "--summary", f"m1={first}", f"m2={second}"]) == 0
    lines = block(capsys.readouterr().out, "Runs: not ranked on ")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["m1", "m2"]
    assert lines[1].startswith("  m1: rank not ranked: no per_paper.jsonl beside its summary; cost unknown/paper (gen)")
    surge = [summary_file(tmp_path, name, dict.fromkeys(SURGE_KEYS, value), "surge")
             for name, value in (("s1", 0.5), ("s2", 0.25))]
    assert main(["paper-table", "surge-table1", "--summary", f"rag={surge[0]}", f"agent={surge[1]}"]) == 0
    assert [line.split(":")[0].strip() for line in block(capsys.readouterr().out, "Runs: ")[1:]] == ["rag", "agent"]


@pytest.mark.parametrize("command", ["compare", "paper-table"])
def test_a_ledger_that_disagrees_with_its_predictions_is_one_line_naming_file_and_line(tmp_path, capsys, command):
    bad = _line(purpose="generate", model="g", run="a", paper_id="p1", cost_usd=-0.5)
    a = run_folder(tmp_path, "a", gen=[(0.01, 1, 1, 0), (0.03, 1, 1, 0)], bad_line=bad)
    b = run_folder(tmp_path, "b")
    argv = ["compare", str(a), str(b)] if command == "compare" else ["paper-table", "rwgbench-table2", "--summary",
                                                                    str(a), str(b)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before anything is printed
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"sciwrite: error: {tmp_path}/gen-a/usage.jsonl:3, record 'p1', "
                                               "field 'cost_usd': must be null or a finite number of USD >= 0")
