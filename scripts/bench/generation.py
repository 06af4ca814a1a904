"""Generation throughput: the real runner + `APIBackend` (openai SDK) against a local OpenAI-compatible server that
answers every request after a fixed delay (200 ms by default), at concurrency 1 and 32.

Prints requests/s at each concurrency, the ratio of the highest to concurrency 1 (target >= 20x), and the share
of the ideal throughput (concurrency / delay) each level reaches. The server is the tests' fake OpenAI-compatible
server (tests/fakes/openai_server.py: threaded, HTTP/1.1 keep-alive), run in its own process so that it is not the
client's bottleneck.

    .venv/bin/python scripts/bench/generation.py                       # 500 requests at 1 and at 32 (~2 min)
    .venv/bin/python scripts/bench/generation.py --requests-at-1 100   # the same figures, c=1 on 100 requests
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The server is the tests' fake (tests/fakes/openai_server.py): one fake for tests and benchmarks alike.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
from sciwrite.generation.runner import Generated, prompt_text, run_generation  # noqa: E402
from sciwrite.llm.backends import make_backend  # noqa: E402
from sciwrite.llm.types import GenerationSettings  # noqa: E402
from tests.fakes.openai_server import ChatServer, Reply  # noqa: E402

# ------------------------------------------------------------------------------------------------ the server


def echo_after(delay: float):
    """The benchmark's model: every request is answered after `delay` seconds with a text naming its prompt."""

    def answer(request: dict) -> Reply:
        prompt = str((request.get("messages") or [{}])[-1].get("content", ""))
        return Reply(f"Related work for: {prompt}", delay=delay, prompt_tokens=len(prompt.split()),
                     completion_tokens=40)

    return answer


def serve(delay: float) -> None:
    """The tests' fake chat-completions server (threaded, HTTP/1.1 keep-alive), until killed; prints its port."""
    server = ChatServer(echo_after(delay))
    print(server.httpd.port, flush=True)
    server.httpd.serve_forever()


def start_server(delay: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, __file__, "--serve", "--delay", str(delay)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = int(process.stdout.readline())
    return process, f"http://127.0.0.1:{port}/v1"


# ------------------------------------------------------------------------------------------------ the client


class OneShot:
    """One request per paper, as the prompting baselines do."""

    name = "bench"

    def prompt(self, record):
        return [{"role": "user", "content": f"Write the related-work section of '{record['title']}'."}]

    async def run(self, record, llm):
        messages = self.prompt(record)
        return Generated(await llm(messages), prompt_text(messages))


def measure(base_url: str, n: int, concurrency: int, folder: Path) -> dict:
    records = [{"paper_id": f"bench-{i:05d}", "title": f"Paper number {i}"} for i in range(n)]
    out = folder / f"c{concurrency}.jsonl"
    backend = make_backend("bench-model", base_url=base_url)
    cpu = time.process_time()
    report = run_generation(records, OneShot(), backend, out, settings=GenerationSettings(concurrency=concurrency),
                            show_progress=False)
    lines = out.read_text().splitlines()
    assert report.n_written == n == len(lines) and report.n_failed == 0, report
    cpu = time.process_time() - cpu
    return {"concurrency": concurrency, "requests": n, "seconds": report.wall_seconds,
            "requests_per_s": n / report.wall_seconds, "completion_tokens": report.completion_tokens,
            "client_cpu_ms_per_request": 1000 * cpu / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=500, help="requests per concurrency level")
    parser.add_argument("--requests-at-1", type=int, help="requests at concurrency 1 (default: --requests)")
    parser.add_argument("--delay", type=float, default=0.2, help="server answer time in seconds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.delay)
        return

    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("SCIWRITE_LLM_API_KEY", "bench-local-key")
    server, base_url = start_server(args.delay)
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="sciwrite-bench-gen-") as folder:
            for concurrency in args.concurrency:
                n = args.requests_at_1 if concurrency == 1 and args.requests_at_1 else args.requests
                row = measure(base_url, n, concurrency, Path(folder))
                row["ideal_requests_per_s"] = concurrency / args.delay if args.delay > 0 else float("inf")
                row["share_of_ideal"] = row["requests_per_s"] / row["ideal_requests_per_s"]
                results.append(row)
                print(f"concurrency {concurrency:>3}: {n} requests in {row['seconds']:.1f} s = "
                      f"{row['requests_per_s']:.1f} req/s (ideal {row['ideal_requests_per_s']:.0f}; "
                      f"{100 * row['share_of_ideal']:.0f}% of it); client CPU "
                      f"{row['client_cpu_ms_per_request']:.1f} ms/request", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    summary: dict = {"delay_s": args.delay, "levels": results}
    base = next((r for r in results if r["concurrency"] == 1), None)
    top = max(results, key=lambda r: r["concurrency"])
    if base and top is not base:
        summary["speedup"] = top["requests_per_s"] / base["requests_per_s"]
        print(f"speed-up at concurrency {top['concurrency']} over 1: {summary['speedup']:.1f}x (target >= 20x); "
              f"{100 * top['share_of_ideal']:.0f}% of the ideal {top['ideal_requests_per_s']:.0f} req/s")
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
