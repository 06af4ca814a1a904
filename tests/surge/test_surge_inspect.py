"""SurGE as an Inspect AI task, offline with ``mockllm/model``: a RAG run over two surveys of the sample succeeds,
each sample carries the suite's per-survey metrics, the task's metrics are what the scoring core's summary gives for
the same surveys, and the model receives the request ``sciwrite generate surge`` sends."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect task needs the inspect extra (pip install sciwrite[inspect])")

from sciwrite.surge.inspect_task import surge  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import Recorder, check_scores, cli_prompts, run  # noqa: E402

METRICS = ("reference_coverage", "sh_recall", "rouge1")
#: The model's survey: a heading tree and a paragraph of over 100 characters citing [1] and [2] (the RAG method adds
#: the reference list of the papers it retrieved).
REPLY = ("<think>a trace that must not be scored</think># A survey\n\n## Background\n\nSentiment and style have been "
         "studied with recurrent encoders [1] and with attention over the whole input sentence [2].\n\n"
         "## Outlook\n\nMany open questions remain about controllable generation of text in several styles [1].\n")


@pytest.fixture(scope="module")
def sample(surge_sample_folder):
    return surge_sample_folder


def test_surge_task_rag_two_surveys(sample, tmp_path):
    recorder = Recorder(REPLY)
    task = surge(source=str(sample), method="rag", metrics=",".join(METRICS))
    log = run(task, recorder, tmp_path, limit=2)
    assert len(log.samples) == 2
    for sample_log in log.samples:
        value = sample_log.scores["surge_scores"].value
        assert set(METRICS) <= set(value), value
        assert 0.0 <= value["reference_coverage"] <= 1.0 and 0.0 < value["rouge1"] <= 1.0
        assert "trace" not in sample_log.output.completion
    check_scores(log, "surge", sample, METRICS)
    expected = cli_prompts("surge", ["--source", str(sample), "--method", "rag"])
    sent = [messages for messages, _ in recorder.requests]
    assert sorted(map(str, sent)) == sorted(str(expected[str(s.id)]) for s in log.samples)
