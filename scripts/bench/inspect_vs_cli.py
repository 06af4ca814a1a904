"""The Inspect tasks beside the CLI on the same papers: ``--limit 20`` runs of ``sciwrite/rwgbench`` (RAG, BM25) and
``sciwrite/sciig`` (ELABORATE) on the offline samples, each with Inspect's ``mockllm/model`` and with the tests' fake
OpenAI server (``openai/tiny-chat`` through ``--model-base-url``), timed beside ``sciwrite generate`` +
``sciwrite evaluate`` against the same fake server on the same 20 papers.

Each run is its own process (imports, model loading and all, as a user pays them). The model answers from the
prompt alone (RWGBench: cites [1] and [2] with the prompt's first title; SciIG: the prompt's last 80 words), so the
fake server gives the Inspect run and the CLI run the same predictions. Two equality checks, their largest absolute
difference over every summary value:

- **log vs evaluate**: the Inspect log's task metrics against ``sciwrite evaluate`` on the predictions that run
  produced (read back from the log), the issue's check;
- **inspect vs cli**: the fake-server Inspect run's metrics against the CLI run's ``summary.json``.

Metrics: every metric but the LLM judge, ``lite`` profile (what runs offline), with the default 1,000-resample
bootstrap intervals (seed 0) in both; the intervals' bounds are compared too.

    .venv/bin/python scripts/bench/inspect_vs_cli.py [--limit 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402

PYTHON = sys.executable
SCIWRITE = str(Path(sys.executable).with_name("sciwrite"))  # the console script beside this Python
RUNS = {"rwgbench": {"-T": {"method": "rag"}, "cli": ["--method", "rag"]},
        "sciig": {"-T": {"level": "ELABORATE"}, "cli": ["--level", "ELABORATE"]}}


def answer(prompt: str) -> str:
    """The model of every run: a reply made from the prompt alone."""
    if "[1] Title:" in prompt:  # an RWGBench candidate list
        title = re.search(r"\[1\] Title: (.*)", prompt).group(1)
        return f"Prior work on {title} [1] was extended by later methods [2]."
    return " ".join(prompt.split()[-80:])


def server_answer(body: dict) -> str:
    return answer(body["messages"][-1]["content"])


INSPECT_WORKER = """
import json, sys, time
started = time.perf_counter()
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
sys.path.insert(0, {bench_dir!r})
from inspect_vs_cli import answer
from sciwrite.{bench}.inspect_task import {bench}

def outputs(input, tools, tool_choice, config):
    output = ModelOutput.from_content(model="mockllm", content=answer(input[-1].text))
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tiktoken download
    return output

kind, base_url = sys.argv[1], sys.argv[2]
task = {bench}(source={source!r}, **{args!r})
if kind == "mockllm":
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = inspect_eval(task, model=model, limit={limit}, log_dir={logs!r}, display="none")
else:
    [log] = inspect_eval(task, model="openai/tiny-chat", model_base_url=base_url, model_args={{"responses_api": False}},
                         limit={limit}, log_dir={logs!r}, display="none")
print(json.dumps({{"status": log.status, "log": log.location, "seconds": time.perf_counter() - started}}))
"""


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return time.perf_counter() - started, done.stdout


def numbers(mapping: dict) -> dict[str, float]:
    return {k: float(v) for k, v in mapping.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)}


def summary_values(summary: dict) -> dict[str, float]:
    """A summary's values by the names an Inspect log gives them: each metric (at the summary's top or in the block
    that reports it, e.g. RWGBench's ``grounding``) and its interval's bounds as ``<metric>_ci_low/_ci_high``."""
    flat: dict = {}
    for key, value in summary.items():
        if isinstance(value, dict) and key not in ("intervals", "provenance"):
            flat.update({k: v for k, v in value.items() if k not in summary})
        flat[key] = value
    for metric, bounds in (summary.get("intervals") or {}).items():
        if isinstance(bounds, list) and len(bounds) == 2:
            flat[f"{metric}_ci_low"], flat[f"{metric}_ci_high"] = bounds
    return numbers(flat)


def largest_difference(logged: dict, summary: dict) -> tuple[float, int]:
    """The largest |difference| over the log's values the summary also reports, and how many there are."""
    a, b = numbers(logged), summary_values(summary)
    shared = sorted(set(a) & set(b))
    return max((abs(a[k] - b[k]) for k in shared), default=float("nan")), len(shared)


def log_metrics(path: str, bench: str) -> dict:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path)
    [score] = [s for s in log.results.scores if s.name == f"{bench}_scores"]
    return {name: metric.value for name, metric in score.metrics.items()}


def log_predictions(path: str, out: Path) -> Path:
    from sciwrite.harness.inspect_logs import read_inspect_log

    out.write_text(read_inspect_log(path).predictions_text)
    return out


def evaluate(bench: str, predictions: Path, source: Path, out: Path, env: dict[str, str]) -> tuple[float, dict]:
    seconds, _ = timed([SCIWRITE, "evaluate", bench, "--predictions", str(predictions), "--split",
                        "sample", "--source", str(source), "--profile", "lite", "--no-judge",
                        "--out", str(out)], env)
    return seconds, json.loads((out / predictions.stem / "summary.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--json", help="also write the table here")
    args = parser.parse_args()
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder
    from sciwrite.sciig.data.builder import write_sciig_sample

    work = Path(tempfile.mkdtemp(prefix="inspect_vs_cli_"))
    sources = {"rwgbench": work / "rwgbench", "sciig": work / "sciig"}
    write_sample_folder(sources["rwgbench"], show_progress=False)
    write_sciig_sample(sources["sciig"])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OPENAI_API_KEY": "bench", "SCIWRITE_LLM_API_KEY": "bench", "PYTHONPATH": str(ROOT)}
    rows = []
    with ChatServer(like_real_endpoints(server_answer)) as server:
        for bench, run in RUNS.items():
            source = sources[bench]
            out = work / f"cli_{bench}"
            generate_s, _ = timed([SCIWRITE, "generate", bench, "--model", "tiny-chat",
                                   "--base-url", server.base_url, "--split", "sample", "--source", str(source),
                                   "--limit", str(args.limit), "--out", str(out / "gen"), *run["cli"]], env)
            [predictions] = [p for p in (out / "gen").glob("*.jsonl") if p.name != "usage.jsonl"]
            evaluate_s, cli_summary = evaluate(bench, predictions, source, out / "eval", env)
            for kind in ("mockllm", "fake server"):
                script = INSPECT_WORKER.format(bench_dir=str(Path(__file__).parent), bench=bench, source=str(source),
                                               args=run["-T"], limit=args.limit, logs=str(work / "logs"))
                seconds, printed = timed([PYTHON, "-c", script, kind, server.base_url], env)
                result = json.loads(printed.strip().splitlines()[-1])
                if result["status"] != "success":
                    raise SystemExit(f"{bench} {kind}: the Inspect run ended {result['status']}")
                metrics = log_metrics(result["log"], bench)
                preds = log_predictions(result["log"], work / f"{bench}_{kind.replace(' ', '_')}.jsonl")
                _, rescored = evaluate(bench, preds, source, work / f"rescored_{bench}_{kind.replace(' ', '_')}", env)
                log_vs_evaluate, n_values = largest_difference(metrics, rescored)
                row = {"benchmark": bench, "model": kind, "papers": args.limit, "values_compared": n_values,
                       "inspect_eval_s": round(seconds, 1), "cli_generate_s": round(generate_s, 1),
                       "cli_evaluate_s": round(evaluate_s, 1), "cli_total_s": round(generate_s + evaluate_s, 1),
                       "log_vs_evaluate_max_abs_diff": log_vs_evaluate}
                if kind == "fake server":
                    row["inspect_vs_cli_max_abs_diff"] = largest_difference(metrics, cli_summary)[0]
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
