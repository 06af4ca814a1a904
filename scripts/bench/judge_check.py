"""The judge check's figures for two scripted judges: ``sciwrite meta-eval judge-check`` for both benchmarks, against
the tests' fake OpenAI server, with a judge that follows the damage (it knows each paper's reference section and
scores high exactly when it is judged) and one that answers at random (seeded by the request). Prints each run's
pass rate per kind of damage with its interval, the verdict, and the requests, tokens and cost the usage ledger
counted (the fake server reports OpenRouter-style costs for ``vendor/model`` ids).

    .venv/bin/python scripts/bench/judge_check.py [--limit N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.meta_eval.judge_check import sample_papers  # noqa: E402
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402
from tests.fakes.scripted_judges import FollowingJudge, RandomJudge  # noqa: E402


def run(bench: str, judge: str, answer, limit: int | None, out: Path) -> dict:
    """One judge-check run; its summary.json and rows, the stdout kept."""
    with ChatServer(like_real_endpoints(answer)) as server, contextlib.redirect_stdout(io.StringIO()) as printed, \
            contextlib.redirect_stderr(io.StringIO()):
        status = main(["meta-eval", "judge-check", "--benchmark", bench, "--judge", judge, "--base-url",
                       server.base_url, "--out", str(out), *(["--limit", str(limit)] if limit else [])])
    if status != 0:
        raise SystemExit(f"{bench} {judge}: exit status {status}\n{printed.getvalue()}")
    return {**json.loads((out / "summary.json").read_text()), "printed": printed.getvalue()}


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N papers of each sample (default: all)")
    args = parser.parse_args()
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "EMPTY")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("rwgbench", "sciig"):
            bench = get_benchmark(name)
            references = {p["title"]: p[bench.data.answer_fields[0]] for p in sample_papers(bench)}
            for label, judge, answer in (("following", "acme/judge-following", FollowingJudge(references)),
                                         ("random", "acme/judge-random", RandomJudge(seed=0))):
                summary = run(name, judge, answer, args.limit, Path(tmp) / name / label)
                usage = summary.get("llm_usage") or {}
                print(f"\n{bench.title}, {label} judge: {summary['n_papers']} papers, {summary['n_pairs']} pairs "
                      f"(pair set {summary['pair_set_digest'][:12]}), verdict {summary['verdict']}; "
                      f"{usage.get('requests')} requests, {usage.get('prompt_tokens')} prompt + "
                      f"{usage.get('completion_tokens')} completion tokens, ${usage.get('cost_usd', 0):.4f}")
                for row in summary["rows"]:
                    rate = "-" if row["pass_rate"] is None else f"{row['pass_rate']:.3f}"
                    interval = "" if row["ci_low"] is None else f" [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
                    print(f"  {row['kind']:<20} {'(outside rubric)' if row['in_rubric'] is False else '':<17}"
                          f"{row['passed']:>4}/{row['n_judged']:<4} pass {rate}{interval}  ties {row['ties']}")


if __name__ == "__main__":
    main_()
