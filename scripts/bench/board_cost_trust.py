"""A board of six systems with cost, rank interval and trust card (issue 51), and how long its page takes to show
the first row in Chromium, before and after issue 51.

On the offline RWGBench sample (``--papers`` papers), against the tests' fake OpenAI server: two generators
(``gen-small``, ``gen-large``: the fake reports each reply's ``usage.cost``, a different price per model) and two
judges (``judge-x``, ``judge-y``) and one 2-judge panel (both), six runs in all: gen-small and gen-large each
scored by judge-x and by judge-y, gen-small by the panel, and gen-large by judge-x with its generator ledger
deleted (its cost must read "unknown", never 0). Each run is generated (RAG on BM25, 10 candidates) into its own
folder, the fake wording each run's sections a little differently and citing that run's number of the candidates
(the board keeps one row per predictions file), and scored into its own folder (so each judge ledger holds that
evaluation's lines only), then imported with ``import_evaluation``, its ledgers with it. Prints each row's rank
cell (with its interval), condition, headline score, dollars per paper (in all, then the generator's and the
judge's) and trust card; judge-x's judge check (``meta-eval judge-check`` on the sample's pairs, against the same
fake, whose judge reads only length) is recorded with the runs judge-x scores alone, so their cards show it.

Then the render time: the board served as the browser tests serve it (`launch`, 127.0.0.1, no worker), headless
Chromium opens the page, clicks the RWGBench tab and waits until the first row's rank cell is visible; the time
from navigation to then, ``--repeats`` times (a fresh browser context each) per server, in ``--rounds``
alternating rounds of before and after (a fresh server each), median over all loads. "Before" is the same
measurement on the code before issue 51 (``git archive 245051e src metrics`` into a temporary folder: metrics/ for
the ``src/sciwrite/evaluate_modules`` link; the git state is not touched), importing the same six folders with that code in a subprocess with ``PYTHONPATH`` on it; "after" is the
same subprocess on this tree's code. Goal: after / before <= 1.20. Skipped, saying why, without Chromium or
Playwright.

    .venv/bin/python scripts/bench/board_cost_trust.py              # ~2-3 min
    .venv/bin/python scripts/bench/board_cost_trust.py --repeats 9 --papers 10
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from tests.fakes.openai_server import ChatServer, Reply  # noqa: E402

#: The commit before issue 51.
BEFORE = "245051e"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
LAPTOP = {"width": 1280, "height": 800}
WAIT_MS = 60_000
#: USD the fake bills per reply, per model (the reply's ``usage.cost``, as OpenRouter reports it).
PRICE = {"gen-small": 0.0004, "gen-large": 0.0030, "judge-x": 0.0002, "judge-y": 0.0005}
JUDGES = ("judge-x", "judge-y")
GENERATORS = ("gen-small", "gen-large")
#: (system, generator, how many of the retrieved candidates its sections cite ([1] .. [n]), judges, keep the
#: generator's ledger)
RUNS = (("small, judge-x", "gen-small", 2, ("judge-x",), True),
        ("small, judge-y", "gen-small", 2, ("judge-y",), True),
        ("large, judge-x", "gen-large", 5, ("judge-x",), True),
        ("large, judge-y", "gen-large", 5, ("judge-y",), True),
        ("small, panel x+y", "gen-small", 2, JUDGES, True),
        ("large, judge-x, no ledger", "gen-large", 8, ("judge-x",), False))
#: Which generation run the fake is answering (its sections name it, so that every run's predictions differ).
CURRENT = {"run": 0, "cited": 2}
METRICS = ["precision", "recall", "citation_density", "llm_judge"]
ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "SCIWRITE_PROFILE": "lite",
       "SCIWRITE_LLM_API_KEY": "bench", "GRADIO_ANALYTICS_ENABLED": "False",
       "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


# ------------------------------------------------------------------------------------------------ the runs


def answer(body: dict) -> Reply:
    """A generator's section citing [1]..[n], or a judge's scores from the judge, the seed and the text's length."""
    from sciwrite.sciig.metrics.judge import PROMPTS

    model = str(body.get("model", ""))
    text = str((body.get("messages") or [{}])[-1].get("content", ""))
    if model in GENERATORS:
        cites = " ".join(f"Line {n} of earlier work is studied in [{n}]." for n in range(1, CURRENT["cited"] + 1))
        content = f"Draft {CURRENT['run']}. {cites}"
    else:
        score = 1 + (len(text) + JUDGES.index(model) + int(body.get("seed") or 0)) % 5
        content = json.dumps({"score": score, **{key: round(score / 5, 2) for p in PROMPTS for key in p.keys}})
    return Reply(content, prompt_tokens=len(text) // 4, completion_tokens=len(content) // 4, cost=PRICE.get(model))


def quietly(argv: list[str]) -> None:
    from sciwrite.cli import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        status = main(argv)
    if status != 0:
        raise SystemExit(f"sciwrite {' '.join(argv[:2])} exited {status}:\n{printed.getvalue()[-3000:]}")


def build_runs(work: Path, source: Path, papers: int) -> list[tuple[str, Path]]:
    """(system, evaluation folder) of each of `RUNS`, generated and scored against the fake server."""
    folders = []
    with ChatServer(answer) as server:
        # judge-x's check on the sample's damaged pairs, recorded with every run judge-x scores alone (the fake
        # judge reads only the text's length, so its card must say it failed)
        check = work / "check-judge-x"
        quietly(["meta-eval", "judge-check", "--benchmark", "rwgbench", "--judge", "judge-x", "--source", str(source),
                 "--limit", str(papers), "--judge-base-url", server.base_url, "--out", str(check)])
        for n, (system, generator, cited, judges, keep) in enumerate(RUNS):
            CURRENT.update(run=n, cited=cited)
            gen = work / f"gen{n}"
            quietly(["generate", "rwgbench", "--model", generator, "--base-url", server.base_url, "--method", "rag",
                     "--retriever", "bm25", "--k", "10", "--split", "sample", "--source", str(source), "--out",
                     str(gen), "--limit", str(papers),
                     "--concurrency", "4"])
            [predictions] = [p for p in gen.glob("*.jsonl") if p.name != "usage.jsonl" and "traces" not in p.name
                             and "failures" not in p.name]
            if not keep:
                (gen / "usage.jsonl").unlink()
            out = work / f"eval{n}"
            quietly(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(source),
                     "--profile", "lite", "--metrics", *METRICS, "--judge-base-url", server.base_url,
                     "--bootstrap", "200", "--system", system, "--out", str(out),
                     *[arg for judge in judges for arg in ("--judge", judge)],
                     *(["--judge-check", str(check)] if judges == ("judge-x",) else [])])
            [summary] = out.glob("*/summary.json")
            folders.append((system, summary.parent))
    return folders


def print_board(store_path: Path, folders: list[tuple[str, Path]]) -> None:
    """Import the runs with their ledgers and print each row: rank cell, condition, costs, trust card."""
    from sciwrite.core.conditions import summary_condition
    from sciwrite.core.trust import trust_card
    from sciwrite.leaderboard.runs import import_evaluation
    from sciwrite.leaderboard.store import ResultsStore
    from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows

    store = ResultsStore(store_path)
    for system, folder in folders:
        import_evaluation(store, "rwgbench", folder, system=system)
    frame = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench")
    cards = {sub.id: trust_card(summary, summary_condition(summary, sub.profile))
             for sub, summary in store.finished("rwgbench")}
    cost_columns = ["$/paper", "$/paper (gen)", "$/paper (judge)", "$ total"]  # $/paper: beside the rank
    head = ["Rank", "System", "Scored under", "CQ · Prec.", *cost_columns]
    widths = [max(len(h), *(len(str(v)) for v in frame[h])) for h in head]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for _, record in frame.iterrows():
        print("  ".join(str(record[h]).ljust(w) for h, w in zip(head, widths)))
    print()
    for (_, record), sub_id in zip(frame.iterrows(), frame.attrs["ids"]):
        print(f"--- trust card: {record['System']} ---")
        print(cards[sub_id].as_text())
    unknown = frame[frame["System"] == RUNS[-1][0]]["$ total"].tolist()
    print(f"\nrow without a generator ledger, $ total: {unknown}")


# ------------------------------------------------------------------------------------------------ the render time


def measure(store_path: Path, source: Path, folders: list[tuple[str, Path]], repeats: int) -> dict:
    """Import `folders` into a fresh store with the sciwrite on sys.path, serve it, and time the first row's rank
    cell in Chromium `repeats` times (seconds)."""
    from playwright.sync_api import expect, sync_playwright

    import sciwrite
    from sciwrite.leaderboard.app import launch
    from sciwrite.leaderboard.runs import import_evaluation
    from sciwrite.leaderboard.service import BoardSettings, Leaderboard
    from sciwrite.leaderboard.store import ResultsStore

    store = ResultsStore(store_path)
    for system, folder in folders:
        import_evaluation(store, "rwgbench", folder, system=system)
    board = Leaderboard(store, BoardSettings(sources={"rwgbench": str(source)}))
    served = launch(board, host="127.0.0.1", port=None, worker=False, prevent_thread_lock=True, quiet=True,
                    show_error=True)
    times = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            try:
                for _ in range(repeats + 1):  # the first is a warm-up (Gradio's first page build), not counted
                    context = browser.new_context(viewport=LAPTOP)
                    page = context.new_page()
                    start = time.perf_counter()
                    page.goto(served.url, wait_until="commit")
                    page.get_by_role("tab", name="RWGBench", exact=True).click(timeout=WAIT_MS)
                    rank = page.locator("#table-rwgbench").get_by_role("row").nth(1).get_by_role("gridcell").nth(0)
                    expect(rank).to_be_visible(timeout=WAIT_MS)
                    times.append(time.perf_counter() - start)
                    text = rank.inner_text().strip()
                    context.close()
            finally:
                browser.close()
    finally:
        served.app.close()
    return {"code": str(Path(sciwrite.__file__).parent), "rows": len(store.finished("rwgbench")),
            "first_rank_cell": text, "times_s": [round(t, 3) for t in times[1:]],
            "median_s": round(statistics.median(times[1:]), 3)}


def measure_in(src: Path, work: Path, name: str, source: Path, folders: list[tuple[str, Path]], repeats: int) -> dict:
    """`measure` in a subprocess on the code under `src`."""
    env = {**os.environ, **ENV, "PYTHONPATH": str(src), "GRADIO_TEMP_DIR": str(work / f"gradio-{name}")}
    job = {"store": str(work / f"board-{name}.sqlite"), "source": str(source), "repeats": repeats,
           "folders": [[s, str(f)] for s, f in folders]}
    done = subprocess.run([sys.executable, __file__, "--measure", json.dumps(job)], env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"the {name} measurement failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def browser_missing() -> str:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (scripts/install_chromium.sh)"
    return ""


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5, help="timed page loads per code version and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of before, then after (median "
                                                               "over all their loads)")
    parser.add_argument("--before", default=BEFORE, help="the commit before the change")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: one measurement, as JSON
    args = parser.parse_args()
    os.environ.update(ENV)
    if args.measure:
        job = json.loads(args.measure)
        result = measure(Path(job["store"]), Path(job["source"]), [(s, Path(f)) for s, f in job["folders"]],
                         job["repeats"])
        print(json.dumps(result))
        return
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder

    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="board_cost_trust_"))
    source = work / "sample"
    write_sample_folder(source, show_progress=False)
    folders = build_runs(work, source, args.papers)
    print(f"{len(folders)} runs of {args.papers} papers generated and scored in {time.perf_counter() - started:.1f} s "
          f"(work folder {work})\n")
    print_board(work / "board.sqlite", folders)
    missing = browser_missing()
    if missing:
        print(f"\nrender time: skipped ({missing})")
    else:
        old = work / "before"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "src", "metrics"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        # rounds of before then after, each a fresh server: the machine's load drifts over a minute, and
        # alternating spreads the drift over both versions instead of charging it to one
        found: dict[str, list[dict]] = {"before": [], "after": []}
        for n in range(args.rounds):
            found["before"].append(measure_in(old / "src", work, f"before{n}", source, folders, args.repeats))
            found["after"].append(measure_in(ROOT / "src", work, f"after{n}", source, folders, args.repeats))
        print(f"\nrender time (navigation -> first row's rank cell visible, headless Chromium, 1280x800; "
              f"{args.rounds} alternating rounds of {args.repeats} page loads each):")
        medians = {}
        for name, results in found.items():
            times = [t for result in results for t in result["times_s"]]
            medians[name] = statistics.median(times)
            last = results[-1]
            print(f"  {name} ({args.before if name == 'before' else 'working tree'}; {last['code']}): "
                  f"{last['rows']} rows, first rank cell {last['first_rank_cell']!r}, "
                  f"median {medians[name]:.3f} s of {len(times)} loads; per round "
                  f"{[r['median_s'] for r in results]}")
        ratio = medians["after"] / medians["before"]
        print(f"  after / before = {ratio:.2f} (goal <= 1.20: {'met' if ratio <= 1.20 else 'NOT met'})")
    print(f"\ntotal {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    cli()
