"""Real-endpoint behaviour, measured on the tests' fake OpenAI-compatible server answering as OpenAI's reasoning
families do (tests/fakes/openai_server.py `like_real_endpoints`: 400 on max_tokens and on a temperature other
than 1), run in its own process:

1. HTTP requests sent per paper by the real runner + `APIBackend` for ``gpt-5.5`` (one request a paper), with the
   capability table and with the table emptied, so that only the 400-and-retry path (`RequestPolicy.learn`)
   shapes the requests; at concurrency 1 and 16 (concurrent papers all meet the refusals before the first lesson
   lands). Counted from the usage ledger's ``attempts``;
2. the usage ledger's overhead: requests/s of a 1,000-request run with and without the ledger (median of 5 runs
   each, alternated, after a warm-up run), every request answered at once by a classic chat model id; and the
   CPU time of one `UsageLedger.record` (a priced line appended), timed over 10,000 calls.

    .venv/bin/python scripts/bench/llm_endpoints.py            # ~1 min
    .venv/bin/python scripts/bench/llm_endpoints.py --requests 300 --papers 50
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
from generation import OneShot  # noqa: E402  (scripts/bench/generation.py: one request per paper)

from sciwrite.generation.runner import run_generation  # noqa: E402
from sciwrite.llm.backends import APIBackend, parse_model_id, policy_for  # noqa: E402
from sciwrite.llm.capabilities import MODEL_FAMILIES  # noqa: E402
from sciwrite.llm.ledger import UsageLedger  # noqa: E402
from sciwrite.llm.types import Completion, GenerationSettings  # noqa: E402
from tests.fakes.openai_server import ChatServer, Reply, like_real_endpoints  # noqa: E402


def answer(request: dict) -> Reply:
    prompt = str((request.get("messages") or [{}])[-1].get("content", ""))
    return Reply(f"Related work for: {prompt} [1].", prompt_tokens=len(prompt.split()) * 50, completion_tokens=300)


def serve() -> None:
    server = ChatServer(like_real_endpoints(answer))
    print(server.httpd.port, flush=True)
    server.httpd.serve_forever()


def run(base_url: str, model: str, n: int, concurrency: int, folder: Path, tag: str, *, families=MODEL_FAMILIES,
        ledger: bool = True) -> tuple[float, UsageLedger | None]:
    """(requests/s, the ledger) of one run of `n` one-request papers."""
    records = [{"paper_id": f"p{i:05d}", "title": f"Paper number {i}"} for i in range(n)]
    spec = parse_model_id(model, base_url)
    backend = APIBackend(spec, policy=policy_for(spec, families=families))
    book = UsageLedger(folder / f"{tag}-usage.jsonl") if ledger else None
    report = run_generation(records, OneShot(), backend, folder / f"{tag}.jsonl",
                            settings=GenerationSettings(concurrency=concurrency), show_progress=False, ledger=book)
    assert report.n_written == n and report.n_failed == 0, report
    return n / report.wall_seconds, book


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100, help="papers of each requests-per-paper run")
    parser.add_argument("--requests", type=int, default=1000, help="requests of each ledger-overhead run")
    parser.add_argument("--repeats", type=int, default=5, help="ledger-overhead runs with and without (median)")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    logging.basicConfig(level=logging.ERROR)
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "bench-local-key")
    process = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    base_url = f"http://127.0.0.1:{int(process.stdout.readline())}/v1"
    figures: dict = {"requests_per_paper": [], "ledger_overhead": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="sciwrite-bench-llm-") as tmp:
            folder = Path(tmp)
            print(f"HTTP requests per paper, gpt-5.5 on the fake reasoning endpoint ({args.papers} papers, one "
                  "request each):")
            for concurrency in (1, 16):
                for label, families in (("with the table", MODEL_FAMILIES), ("table emptied", ())):
                    tag = f"rpp-{'table' if families else 'empty'}-c{concurrency}"
                    _, book = run(base_url, "gpt-5.5", args.papers, concurrency, folder, tag, families=families)
                    assert book is not None
                    lines = [json.loads(x) for x in book.path.read_text().splitlines()]
                    sent = sum(x["attempts"] for x in lines)
                    row = {"concurrency": concurrency, "table": label, "papers": args.papers, "http_requests": sent,
                           "per_paper": sent / args.papers, "extra": sent - args.papers}
                    figures["requests_per_paper"].append(row)
                    print(f"  concurrency {concurrency:>2}, {label:14}: {sent:4d} requests = "
                          f"{row['per_paper']:.2f} per paper ({row['extra']} refused by the endpoint)", flush=True)
            print(f"\nusage ledger overhead, {args.requests} requests at concurrency 16 (median of {args.repeats}):")
            rates: dict[str, list[float]] = {"without": [], "with": []}
            run(base_url, "bench-model", args.requests, 16, folder, "warm-up")  # connections, imports, caches
            for repeat in range(args.repeats):
                for label in ("without", "with"):
                    rate, _ = run(base_url, "bench-model", args.requests, 16, folder, f"ledger-{label}-{repeat}",
                                  ledger=label == "with")
                    rates[label].append(rate)
            without, with_ledger = statistics.median(rates["without"]), statistics.median(rates["with"])
            figures["ledger_overhead"] = {"requests": args.requests, "runs": rates,
                                          "median_requests_per_s_without": without,
                                          "median_requests_per_s_with": with_ledger,
                                          "overhead_percent": 100 * (without - with_ledger) / without}
            print(f"  without the ledger: {without:.0f} requests/s; with it: {with_ledger:.0f} requests/s "
                  f"({figures['ledger_overhead']['overhead_percent']:+.1f}% slower; runs without "
                  f"{[round(r) for r in rates['without']]}, with {[round(r) for r in rates['with']]})")
            book = UsageLedger(folder / "record-timing.jsonl")
            reply = Completion("x", "gpt-5.5", 1200, 340, "stop", reasoning_tokens=40, snapshot="gpt-5.5-2026-04-23")
            start = time.process_time()
            for i in range(10_000):
                book.record(reply, model="openai:gpt-5.5", purpose="generate", paper_id=f"p{i}", run="bench")
            micros = 1e6 * (time.process_time() - start) / 10_000
            figures["ledger_overhead"]["record_cpu_microseconds"] = micros
            print(f"  one ledger line (priced, appended): {micros:.0f} us of CPU")
    finally:
        process.kill()
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
