"""Benchmark: submissions the leaderboard accepts per second under 20 concurrent clients.

Builds the RWGBench mini sample (3 aclsum papers, 2 target papers) in a temporary folder, launches the app on
127.0.0.1 with a fresh store, and has `--clients` threads, each with its own `gradio_client.Client`, submit
`--per-client` distinct valid prediction files through the form's endpoint (``/submit``): the full path a browser
takes (upload, checks, sha256, the store's transaction). Reports accepted submissions per second, the latency
percentiles of one submission, and checks that every accepted submission is in the store. With `--worker` the
evaluation worker runs too (lite profile, model-free metrics) and the time until all are FINISHED is reported.

    .venv/bin/python scripts/bench/leaderboard_submissions.py [--clients 20] [--per-client 10] [--worker]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from gradio_client import Client, handle_file  # noqa: E402

from sciwrite.leaderboard.app import launch  # noqa: E402
from sciwrite.leaderboard.evaluator import SuiteEvaluator  # noqa: E402
from sciwrite.leaderboard.service import BoardSettings, Leaderboard  # noqa: E402
from sciwrite.leaderboard.store import FAILED, FINISHED, ResultsStore  # noqa: E402
from sciwrite.rwgbench.data.loading import load_rwgbench  # noqa: E402
from sciwrite.rwgbench.data.sample_folder import write_sample_folder  # noqa: E402
from sciwrite.sources.aclsum import aclsum_paper_dir  # noqa: E402

MINI_PAPERS = ("E06-1051", "P02-1051", "P06-1112")


def mini_sample(folder: Path) -> Path:
    papers = folder / "papers"
    papers.mkdir(parents=True)
    for stem in MINI_PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    write_sample_folder(folder / "sample", paper_dir=papers, show_progress=False)
    return folder / "sample"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--worker", action="store_true", help="score the submissions too")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sciwrite-bench-lb-"))
    sample = mini_sample(tmp)
    papers = load_rwgbench("sample", source=sample).to_list()
    files = []
    for k in range(args.clients * args.per_client):
        path = tmp / f"pred-{k}.jsonl"
        path.write_text("\n".join(json.dumps({"paper_id": p["paper_id"], "text": f"Run {k} builds on [1].",
                                              "candidates": p["citations"][:2]}) for p in papers), encoding="utf-8")
        files.append(path)
    board = Leaderboard(ResultsStore(tmp / "lb.sqlite"),
                        BoardSettings(sources={"rwgbench": str(sample)}, rate_limit=10**6))
    board.split_ids("rwgbench")  # loaded once at start, as a running board has it
    evaluator = SuiteEvaluator(sources={"rwgbench": str(sample)}, profile="lite", bootstrap=200,
                               metrics={"rwgbench": ["precision", "recall", "citation_density"]})
    served = launch(board, worker=args.worker, evaluator=evaluator, poll_s=0.1, heartbeat_s=1.0,
                    prevent_thread_lock=True, quiet=True)
    latencies: list[float] = []
    replies: list[str] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        c = Client(served.url, verbose=False)
        for j in range(args.per_client):
            path = files[index * args.per_client + j]
            started = time.perf_counter()
            reply = c.predict("rwgbench", handle_file(str(path)), "", f"system {index}-{j}", "m", "rag", "bm25", "open",
                              "", f"client{index}", api_name="/submit")
            with lock:
                latencies.append(time.perf_counter() - started)
                replies.append(reply)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    accepted = sum(r.startswith("Accepted") for r in replies)
    stored = len(board.store.submissions())
    print(f"{args.clients} concurrent clients x {args.per_client} submissions: {accepted} accepted in {elapsed:.2f} s "
          f"= {accepted / elapsed:.1f} submissions/s; {stored} in the store")
    q = statistics.quantiles(latencies, n=20)
    print(f"latency of one submission: median {statistics.median(latencies) * 1000:.0f} ms, "
          f"p95 {q[18] * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    if served.worker is not None:
        while any(s.status not in (FINISHED, FAILED) for s in board.store.submissions()):
            time.sleep(0.2)
        done = time.perf_counter() - started
        statuses = [s.status for s in board.store.submissions()]
        print(f"all {len(statuses)} reached a final status {done:.1f} s after the first submission "
              f"({statuses.count(FINISHED)} FINISHED, {statuses.count(FAILED)} FAILED)")
    served.close(timeout=5)
    if accepted != len(files) or stored != accepted:
        raise SystemExit("lost or refused submissions: see above")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
