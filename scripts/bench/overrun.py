"""What ``--max-cost`` does when the endpoint bills more than a request allowed: the real commands against the
tests' fake OpenAI-compatible server (tests/fakes/openai_server.py) with a $1.00 budget.

Two ways an endpoint can bill past a request's reservation (its prompt bound and completion limit at the price
table's price, $10 / $70 per million input / output tokens here):

- ``tokens``: every reply reports 5,000,000 prompt + 5,000,000 completion tokens, far above the request's limit
  ($400 a reply at the table's price);
- ``cost``: every reply reports 1,000 + 100 tokens (about $0.017 at the table's price) and ``usage.cost`` $1.50.

Each is run through ``sciwrite generate rwgbench --concurrency 16`` (4 papers: every request fits the budget's
first batch; 16 papers: more than it holds) and ``sciwrite evaluate rwgbench --judge`` (3 and 12 papers' texts).
Two more runs go one paper at a time (``--concurrency 1``, 8 papers), where the first batch does not spend the
budget by itself: ``modest``, a ``usage.cost`` of $0.40 a reply (about twice its reservation), and ``dear``, a
``usage.cost`` five times the table's price for the tokens reported but far within the reservation (budget $0.60).
Prints, for each case: the spend against the budget, the requests sent, the exit status, the warning naming the
request that overran (if any) and the command's last line.

    .venv/bin/python scripts/bench/overrun.py                  # the working tree
    PYTHONPATH=/tmp/wt48a/src .venv/bin/python scripts/bench/overrun.py   # another checkout's code
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
import sciwrite  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.rwgbench.data.sample_folder import write_sample_folder  # noqa: E402
from tests.fakes.openai_server import ChatServer, Reply  # noqa: E402

MODEL = "bench-model"
PRICES = f"models:\n  {MODEL}: {{input: 10.0, output: 70.0}}\n"
BUDGET = "1.00"
JUDGE_REPLY = '{"score": 4, "rationale": "ok"}'
GENERATED = "Prior work studied this problem [1]."


def too_many_tokens(text: str) -> Callable[[dict[str, Any]], Reply]:
    """Replies that report 5M prompt + 5M completion tokens, whatever the request's limit."""
    return lambda body: Reply(text, delay=0.2, prompt_tokens=5_000_000, completion_tokens=5_000_000)


def costly(text: str) -> Callable[[dict[str, Any]], Reply]:
    """Replies of 1,000 + 100 tokens whose ``usage.cost`` is $1.50, about 90 times the table's price."""
    return lambda body: Reply(text, delay=0.2, prompt_tokens=1000, completion_tokens=100, cost=1.50)


def modest(text: str) -> Callable[[dict[str, Any]], Reply]:
    """Replies of 1,000 + 100 tokens whose ``usage.cost`` is $0.40: about twice a request's reservation."""
    return lambda body: Reply(text, prompt_tokens=1000, completion_tokens=100, cost=0.40)


def dear(text: str) -> Callable[[dict[str, Any]], Reply]:
    """Replies of 100 + 10 tokens whose ``usage.cost`` is five times the table's price for them ($0.0085), far
    within a request's reservation."""
    return lambda body: Reply(text, prompt_tokens=100, completion_tokens=10, cost=5 * (100 * 10.0 + 10 * 70.0) / 1e6)


LIARS = {"tokens": too_many_tokens, "cost": costly, "modest": modest, "dear": dear}


@dataclass
class Outcome:
    """One case as it ran."""

    case: str
    spent_usd: float
    budget_usd: float
    requests_sent: int
    exit: int | None
    warning: str
    final_line: str
    stop_line: str  # generate's "stopped at the budget: ..." line, when it printed one


class Warnings(logging.Handler):
    """The warnings logged under ``sciwrite`` while a case runs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def run_cli(argv: list[str]) -> tuple[int | None, str, str, str]:
    """(exit status, stdout's last line, the budget warning logged, the stop line printed) of one command."""
    handler = Warnings()
    logger = logging.getLogger("sciwrite")
    logger.addHandler(handler)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
            try:
                status: int | None = main(argv)
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else None
    finally:
        logger.removeHandler(handler)
    lines = [line for line in printed.getvalue().splitlines() if line.strip()]
    budget = [line for line in handler.lines if "budget" in line and ("charged" in line or "reserved" in line)]
    stops = [line for line in lines if line.startswith("stopped at the budget")]
    return status, lines[-1] if lines else "", budget[0] if budget else "", stops[0] if stops else ""


def spent(ledger: Path) -> float:
    """The costs of a usage ledger's lines, in all."""
    if not ledger.exists():
        return 0.0
    return round(sum(json.loads(x).get("cost_usd") or 0 for x in ledger.read_text().splitlines() if x.strip()), 4)


def generate_case(folder: Path, liar: str, papers: int, concurrency: int = 16, budget: str = BUDGET) -> Outcome:
    out = folder / f"gen-{liar}-{papers}"
    with ChatServer(LIARS[liar](GENERATED)) as server:
        status, last, warning, stop = run_cli([
            "generate", "rwgbench", "--model", MODEL, "--base-url", server.base_url, "--method", "direct", "--split",
            "sample", "--source", str(folder / "sample"), "--out", str(out), "--limit", str(papers),
            "--concurrency", str(concurrency), "--max-cost", budget, "--prices", str(folder / "prices.yaml")])
        sent = len(server.requests)
    return Outcome(f"generate --concurrency {concurrency}, {liar}, {papers} papers", spent(out / "usage.jsonl"),
                   float(budget), sent, status, warning, last, stop)


def predictions(folder: Path, papers: int) -> Path:
    """A prediction file of `papers` texts of the sample's papers."""
    from sciwrite.rwgbench.data.loading import load_rwgbench

    chosen = list(load_rwgbench("sample", source=str(folder / "sample")))[:papers]
    path = folder / f"pred-{papers}.jsonl"
    path.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": f"{GENERATED} ({i})",
                                        "candidates": p["citations"]}) + "\n" for i, p in enumerate(chosen)))
    return path


def evaluate_case(folder: Path, liar: str, papers: int) -> Outcome:
    out = folder / f"eval-{liar}-{papers}"
    with ChatServer(LIARS[liar](JUDGE_REPLY)) as server:
        status, last, warning, stop = run_cli([
            "evaluate", "rwgbench", "--predictions", str(predictions(folder, papers)), "--source",
            str(folder / "sample"), "--profile", "lite", "--metrics", "llm_judge", "--judge", MODEL,
            "--judge-base-url", server.base_url, "--prices", str(folder / "prices.yaml"), "--max-cost", BUDGET,
            "--bootstrap", "0", "--out", str(out)])
        sent = len(server.requests)
    return Outcome(f"evaluate --judge, {liar}, {papers} papers", spent(out / "usage.jsonl"), float(BUDGET), sent,
                   status, warning, last, stop)


def table(outcomes: list[Outcome]) -> str:
    """The outcomes as a Markdown table."""
    rows = ["| case | spent | budget | sent | exit | warning naming the request | final line |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| {o.case} | ${o.spent_usd:.4f} | ${o.budget_usd:.2f} | {o.requests_sent} | {o.exit} | "
             f"{o.warning or '-'} | {o.final_line} |" for o in outcomes]
    stops = [f"- {o.case}: {o.stop_line}" for o in outcomes if o.stop_line]
    return "\n".join(rows) + ("\n\nstop lines:\n" + "\n".join(stops) if stops else "")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the outcomes to this JSON file")
    args = parser.parse_args()
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "EMPTY")
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    with tempfile.TemporaryDirectory(prefix="overrun-") as tmp:
        folder = Path(tmp)
        write_sample_folder(folder / "sample", show_progress=False)
        (folder / "prices.yaml").write_text(PRICES)
        outcomes = [case(folder, liar, papers) for case, sizes in ((generate_case, (4, 16)), (evaluate_case, (3, 12)))
                    for liar in ("tokens", "cost") for papers in sizes]
        outcomes += [generate_case(folder, "modest", 8, concurrency=1),
                     generate_case(folder, "dear", 8, concurrency=1, budget="0.60")]
    print(f"code: {Path(sciwrite.__file__).parent}")
    print(table(outcomes))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")


if __name__ == "__main__":
    cli()
