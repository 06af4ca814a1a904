"""`evaluate_files` from Python and ``sciwrite evaluate`` leave the same folder: the same files (each system's
folder, its rejected lines, the run's cutoff tables and plot), byte for byte where the content is deterministic,
and the same summaries but for the clock (their usage ledger included)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.core.datasets import remove_stale_parquet, write_split
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest

CUTOFF = "2020-12-31"
#: Files whose content records how long the run took: summaries are compared without it, timings by name only.
TIMED = {"summary.json", "metric_timings.json"}


def dated_sample(folder):
    """The mini sample with its three papers dated 2019, 2021 and 2023 (one before the cutoff, two after)."""
    papers = load_rwgbench("sample", source=folder)
    dated = papers.map(lambda p, i: {"year": 2019 + 2 * i}, with_indices=True)
    remove_stale_parquet(folder, "sample")
    write_split(folder, "sample", "test", dated)
    return papers


def prediction_files(papers, tmp_path):
    """Two systems: the reference sections, and the same with a citation dropped and a malformed line."""
    records = human_gt_records(papers, "sample")
    human, trimmed = tmp_path / "human.jsonl", tmp_path / "trimmed.jsonl"
    human.write_text("".join(json.dumps(r) + "\n" for r in records))
    trimmed.write_text("".join(json.dumps({**r, "text": r["text"].replace("[1]", "", 1)}) + "\n" for r in records)
                       + "{not json\n")
    return [str(human), str(trimmed)]


def folder_files(root):
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_api_and_the_command_leave_the_same_folder(mini_sample_copy, tmp_path, capsys):
    predictions = prediction_files(dated_sample(mini_sample_copy), tmp_path)
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    assert main(["evaluate", "rwgbench", "--predictions", *predictions, "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "recall", "--bootstrap", "200", "--cutoff", CUTOFF,
                 "--bad-records", "skip", "--out", str(cli_out)]) == 0
    printed = capsys.readouterr().out
    request = ScoringRequest(split="sample", source=str(mini_sample_copy), profile="lite",
                             metrics=["precision", "recall"], bootstrap=200, cutoff=date.fromisoformat(CUTOFF),
                             bad_records="skip")
    evaluate_files(get_benchmark("rwgbench"), predictions, request, out_dir=api_out)

    cli, api = folder_files(cli_out), folder_files(api_out)
    assert sorted(cli) == sorted(api)
    # what the run writes beyond each system's own files, and the command says where
    assert {"cutoff.json", "cutoff.csv", "cutoff.png", "cutoff_across_systems.json", "cutoff_across_systems.csv",
            "trimmed/rejected.jsonl", "human/per_paper.jsonl"} <= set(cli)
    assert f"wrote {cli_out / 'cutoff.json'}, {cli_out / 'cutoff.csv'} and the plot {cli_out / 'cutoff.png'}" in printed
    assert f"wrote {cli_out / 'cutoff_across_systems.csv'}" in printed
    differing = [name for name in cli if name.rpartition("/")[2] not in TIMED
                 and cli[name].read_bytes() != api[name].read_bytes()]
    assert differing == []
    for name in (name for name in cli if name.endswith("summary.json")):  # all but the clock
        assert untimed(cli[name], cli_out) == untimed(api[name], api_out)
        assert json.loads(api[name].read_text())["llm_usage"]["ledger"] == str(api_out / "usage.jsonl")


def untimed(path, out):
    """A summary without its start and wall time, its usage ledger's path relative to the output folder."""
    summary = json.loads(path.read_text())
    del summary["provenance"]["started"], summary["provenance"]["wall_seconds"]
    summary["llm_usage"]["ledger"] = str(Path(summary["llm_usage"]["ledger"]).relative_to(out))
    return summary
