"""The judge check's figures for scripted judges: ``sciwrite meta-eval judge-check`` for every benchmark that declares
one (RWGBench, SciIG, SurGE), against the tests' fake OpenAI server, with a judge that follows the damage (it knows
each paper's reference section and scores high exactly when it is judged; SurGE's sees outlines and passages, not
citations), one that answers at random (seeded by the request) and one that reads nothing but length (the longer
text scores higher). The length-only judge runs twice: on the kinds of damage the check had before the
length-matched ones (``--kinds`` without them: every in-rubric kind there shortens the text) and on every kind.
Prints each run's pass rate per kind of damage with its interval, the verdict, and the requests, tokens and cost
the usage ledger counted (the fake server reports OpenRouter-style costs for ``vendor/model`` ids), then one line
per run for the card.

    .venv/bin/python scripts/bench/judge_check.py [--limit N] [--benchmark B ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.meta_eval.judge_check import sample_papers  # noqa: E402
from sciwrite.meta_eval.judge_pairs import KINDS, LENGTH_MATCHED  # noqa: E402
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402
from tests.fakes.scripted_judges import CitationBlindJudge, FollowingJudge, LengthJudge, RandomJudge  # noqa: E402

BENCHMARKS = ("rwgbench", "sciig", "surge")
#: The kinds the check had before the length-matched ones.
BEFORE = tuple(k for k in KINDS if k not in LENGTH_MATCHED)


def run(bench: str, judge: str, answer: Callable[[dict], Any], limit: int | None, out: Path,
        kinds: tuple[str, ...] = tuple(KINDS)) -> dict:
    """One judge-check run; its summary.json and rows, the stdout kept."""
    with ChatServer(like_real_endpoints(answer)) as server, contextlib.redirect_stdout(io.StringIO()) as printed, \
            contextlib.redirect_stderr(io.StringIO()):
        status = main(["meta-eval", "judge-check", "--benchmark", bench, "--judge", judge, "--judge-base-url",
                       server.base_url, "--out", str(out), "--kinds", *kinds,
                       *(["--limit", str(limit)] if limit else [])])
    if status != 0:
        raise SystemExit(f"{bench} {judge}: exit status {status}\n{printed.getvalue()}")
    return {**json.loads((out / "summary.json").read_text()), "printed": printed.getvalue()}


def in_rubric(summary: dict) -> str:
    """The in-rubric row as the card writes it: passed/judged = rate [low, high], and the verdict."""
    row = next(r for r in summary["rows"] if r["kind"] == "in rubric")
    if row["pass_rate"] is None:
        return f"no pair judged, {summary['verdict']}"
    return (f"{row['passed']}/{row['n_judged']} = {row['pass_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}], "
            f"{summary['verdict']}")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N papers of each sample (default: all)")
    parser.add_argument("--benchmark", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    args = parser.parse_args()
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "EMPTY")
    card = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.benchmark:
            bench = get_benchmark(name)
            papers = sample_papers(bench)
            following = (CitationBlindJudge(papers) if name == "surge" else
                         FollowingJudge({p["title"]: p[bench.data.answer_fields[0]] for p in papers}))
            for label, judge, answer, kinds in (
                    ("following", "acme/judge-following", following, tuple(KINDS)),
                    ("random", "acme/judge-random", RandomJudge(seed=0), tuple(KINDS)),
                    ("length-only, before", "acme/judge-length", LengthJudge(), BEFORE),
                    ("length-only", "acme/judge-length", LengthJudge(), tuple(KINDS))):
                summary = run(name, judge, answer, args.limit, Path(tmp) / name / label.replace(", ", "-"), kinds)
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
                card.append(f"{bench.title}, {label} judge ({summary['n_pairs']} pairs): {in_rubric(summary)}")
    print("\nin rubric, for the card:")
    print("\n".join(card))


if __name__ == "__main__":
    main_()
