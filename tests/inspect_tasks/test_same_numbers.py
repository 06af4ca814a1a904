"""The issue's equality, end to end for both benchmarks: the predictions an Inspect run produced, read back from its
log and scored by the real ``sciwrite evaluate`` command, give the log's task metrics, means and bootstrap
intervals, to 1e-9."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from sciwrite.cli import main  # noqa: E402
from sciwrite.harness.inspect_logs import read_inspect_log  # noqa: E402
from sciwrite.harness.inspect_scorers import BOUNDS  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from sciwrite.sciig.inspect_task import sciig  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import REPLY, Echo, Recorder, run  # noqa: E402

RESAMPLES = 200
CASES = {
    "rwgbench": (lambda source: rwgbench(source=source, method="rag", k=5, bootstrap=RESAMPLES, bootstrap_seed=3,
                                         metrics="precision,recall,citation_density,rougeL"), lambda: Recorder(REPLY),
                 "mini_sample_folder"),
    "sciig": (lambda source: sciig(source=source, level="ELABORATE", bootstrap=RESAMPLES, bootstrap_seed=3,
                                   metrics="rouge1,rougeL,bleu"), lambda: Echo(""), "sciig_mini_folder"),
}


def summary_value(summary: dict, name: str):
    """`name`'s value in a summary: at its top, or in the block that reports it (RWGBench's ``grounding``)."""
    if name in summary:
        return summary[name]
    [value] = [block[name] for block in summary.values() if isinstance(block, dict) and name in block]
    return value


@pytest.mark.parametrize("benchmark", sorted(CASES))
def test_sciwrite_evaluate_on_the_logs_predictions_gives_the_logs_metrics(benchmark, tmp_path, request):
    make_task, model, folder = CASES[benchmark]
    source = str(request.getfixturevalue(folder))
    log = run(make_task(source), model(), tmp_path)
    logged = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
    predictions = tmp_path / "inspect_run.jsonl"
    predictions.write_text(read_inspect_log(log.location).predictions_text)
    metrics = [name for name in logged if not name.endswith(BOUNDS)]
    assert main(["evaluate", benchmark, "--predictions", str(predictions), "--split", "sample", "--source", source,
                 "--profile", "lite", "--metrics", *metrics, "--bootstrap", str(RESAMPLES), "--bootstrap-seed", "3",
                 "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / "inspect_run" / "summary.json").read_text())
    assert summary["n_papers"] == len(log.samples) >= 2
    for name in metrics:
        assert logged[name] == pytest.approx(summary_value(summary, name), abs=1e-9), name
    bounds = [name for name in logged if name.endswith(BOUNDS)]
    assert bounds  # the intervals are in the log, and they are the command's
    for name in bounds:
        metric, side = (name.removesuffix(BOUNDS[0]), 0) if name.endswith(BOUNDS[0]) else \
            (name.removesuffix(BOUNDS[1]), 1)
        assert logged[name] == pytest.approx(summary["intervals"][metric][side], abs=1e-9), name
