"""How far past ``--max-cost`` a ``sciwrite generate`` run spends: the real command against the tests' fake
OpenAI-compatible server (tests/fakes/openai_server.py) at concurrency 16, with a $0.50 budget.

Every request is answered after a short delay with usage figures as large as the request allows: the prompt at
one token per four bytes and the whole completion limit (``max_tokens``, 2,048 by default) spent. Priced at
$10 / $70 per million input / output tokens (a ``--prices`` file for the fake model), each request costs about
$0.15, so the old code, which checked the budget only before sending, let all 16 requests in flight finish
($2.40, exit 0). Prints the spend against the budget, the exit status and the papers written.

    .venv/bin/python scripts/bench/budget_overrun.py            # the working tree
    PYTHONPATH=/tmp/before/src .venv/bin/python scripts/bench/budget_overrun.py   # another checkout's code
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
import sciwrite  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.rwgbench.data.sample_folder import write_sample_folder  # noqa: E402
from tests.fakes.openai_server import ChatServer, Reply  # noqa: E402

MODEL = "bench-model"
PRICES = "models:\n  bench-model: {input: 10.0, output: 70.0}\n"


def greedy(body: dict) -> Reply:
    """A reply that uses the whole completion limit, after 0.2 s (so that 16 requests are in flight at once)."""
    prompt = "".join(str(m.get("content", "")) for m in body.get("messages", []))
    limit = int(body.get("max_tokens") or body.get("max_completion_tokens") or 2048)
    return Reply("Prior work studied this problem [1].", delay=0.2, prompt_tokens=len(prompt.encode()) // 4,
                 completion_tokens=limit)


def run(folder: Path, budget: str, concurrency: int, limit: int) -> dict:
    prices = folder / "prices.yaml"
    prices.write_text(PRICES)
    out = folder / "gen"
    with ChatServer(greedy) as server:
        argv = ["generate", "rwgbench", "--model", MODEL, "--base-url", server.base_url, "--method", "direct",
                "--split", "sample", "--source", str(folder / "sample"), "--out", str(out), "--limit", str(limit),
                "--concurrency", str(concurrency), "--max-cost", budget, "--prices", str(prices)]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = main(argv)
        sent = len(server.requests)
    ledger = [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()] \
        if (out / "usage.jsonl").exists() else []
    written = sum(len(p.read_text().splitlines()) for p in out.glob("*.jsonl") if p.name != "usage.jsonl")
    return {"code": sciwrite.__file__, "budget_usd": float(budget), "spent_usd": round(sum(x["cost_usd"] or 0
            for x in ledger), 4), "exit": status, "requests_sent": sent, "papers_written": written,
            "printed": [line for line in printed.getvalue().splitlines() if "stopped" in line or "cost:" in line]}


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", default="0.50", help="--max-cost in USD")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--limit", type=int, default=16, help="papers in scope (16: one per request in flight)")
    args = parser.parse_args()
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "EMPTY")
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
    with tempfile.TemporaryDirectory(prefix="budget-overrun-") as tmp:
        folder = Path(tmp)
        write_sample_folder(folder / "sample", show_progress=False)
        result = run(folder, args.budget, args.concurrency, args.limit)
    print(json.dumps(result, indent=2))
    print(f"spent ${result['spent_usd']:.2f} of a ${result['budget_usd']:.2f} budget; exit {result['exit']}")


if __name__ == "__main__":
    cli()
