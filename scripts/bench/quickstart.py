#!/usr/bin/env python
"""The quick start before and after a change, side by side: times and results.

Runs `sciwrite quickstart` three times, one after the other, each in its own process and its own folders:

1. ``before``: the code of a git commit (default ``0f86e18``, the code before issue 14), extracted with
   ``git archive`` into the work folder and imported through ``PYTHONPATH`` (nothing in the repository changes);
2. ``after``: the code of this checkout, from empty data, cache and leaderboard folders;
3. ``warm``: this checkout again on the same data and embedding cache as ``after``, into a new output folder
   (a second run: what did not change is reused).

Each run's wall time, its stages (from the progress lines of its log: sample builds, index, retrieval,
generation, RWGBench and SciIG metrics) and its transformer forward passes (`encoder_work.py`: tokens, seconds and
tokens/s of every ONNX Runtime call, by sequence length) are printed, with the load average before and after (the
machine may be shared). Then ``after`` and ``warm`` are compared with ``before``, file by file: identical by
`compare_quickstart.py`'s rules (tables and per-paper rows byte for byte, JSON less wall times and paths), else
equal within 1e-6 number for number (every other string, key and length the same), else equal but for values the
code rounds before writing them (`ROUNDED`: the keyphrase logs' 4-decimal diagnostic cosine) that moved by exactly
one rounding step, which a difference of 1e-7 does at a rounding boundary (listed, not a failure), else different;
the largest numeric difference is printed. It exits 1 when a file differs beyond 1e-6 or is missing.

    python scripts/bench/quickstart.py --work /tmp/qs-bench --out /tmp/qs-bench.json           # ~20-30 min
    python scripts/bench/quickstart.py --work /tmp/qs-bench --limit 20                          # a smoke run
    python scripts/bench/quickstart.py --work /tmp/qs-bench --before-out /tmp/old/out --before-seconds 812
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_quickstart import VOLATILE, same

from sciwrite.sciig.metrics.keyphrases import LOG_COSINE_DECIMALS

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false"}
# Stage markers in a quick-start log, in the order they appear: (stage, regular expression of its first line).
STAGES = (
    ("samples", r"^built the RWGBench sample|^RWGBench sample:"),
    ("index + retrieval", r"^Retrieval quality"),
    ("generation", r"^SciIG: \d+ generated"),
    ("RWGBench metrics", r"^RWGBench sample, \d+ papers"),
    ("SciIG metrics", r"^SciIG sample, \d+ papers"),
)


def run_quickstart(name: str, src: Path, work: Path, data: Path, limit: int | None) -> dict[str, Any]:
    """One quick start in a child process; returns its wall seconds, per-stage seconds and paths."""
    out = work / name / "out"
    log = work / name / "log.txt"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **OFFLINE, "PYTHONPATH": str(src), "SCIWRITE_CACHE_DIR": str(data / "cache"),
           "PYTHONUNBUFFERED": "1"}
    env.pop("SCIWRITE_EMBEDDING_CACHE", None)
    work_file = work / name / "encoder_work.json"
    code = ("import sys, sciwrite; print('sciwrite from', sciwrite.__file__, flush=True); "
            f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import encoder_work; "
            f"encoder_work.install({str(work_file)!r}); "
            "from sciwrite.quickstart import run_quickstart; "
            f"run_quickstart(out_dir={str(out)!r}, data_dir={str(data / 'rwgbench')!r}, "
            f"sciig_dir={str(data / 'sciig')!r}, store={str(data / 'store.sqlite')!r}, limit={limit!r})")
    load_before = os.getloadavg()
    start = time.perf_counter()
    marks: dict[str, float] = {}
    with log.open("w", encoding="utf-8") as f:
        child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, bufsize=1)
        assert child.stdout is not None
        for line in child.stdout:
            f.write(line)
            for piece in line.split("\r"):
                for stage, pattern in STAGES:
                    if stage not in marks and re.search(pattern, piece.strip()):
                        marks[stage] = time.perf_counter() - start
        if child.wait():
            raise SystemExit(f"{name}: the quick start failed (exit {child.returncode}); see {log}")
    seconds = time.perf_counter() - start
    first_line = log.read_text(encoding="utf-8").splitlines()[0]
    if not first_line.startswith(f"sciwrite from {src}"):
        raise SystemExit(f"{name}: imported the wrong code ({first_line}); expected {src}")
    previous, stages = 0.0, {}
    for stage, _ in STAGES:
        if stage in marks:
            stages[stage] = round(marks[stage] - previous, 1)
            previous = marks[stage]
    stages["tables, plot, leaderboard"] = round(seconds - previous, 1)
    encoder = json.loads(work_file.read_text(encoding="utf-8")) if work_file.exists() else {"installed": False}
    return {"name": name, "src": str(src), "out": str(out), "log": str(log), "seconds": round(seconds, 1),
            "stages": stages, "encoder_work": encoder, "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()]}


TOLERANCE = 1e-6


def _load(path: Path) -> Any:
    """A file as data: JSON, JSON Lines (a list of rows), CSV (a list of rows of cells), else its bytes."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix == ".csv":
        return [[_number(cell) for cell in row] for row in csv.reader(io.StringIO(text))]
    return path.read_bytes()


def _number(cell: str) -> Any:
    try:
        return float(cell)
    except ValueError:
        return cell


#: Values the quick start rounds before writing them: JSON key -> decimals. Two runs whose unrounded values agree
#: to 1e-7 can still write values one step (10^-decimals) apart when a value sits at a rounding boundary.
ROUNDED = {"cosine": LOG_COSINE_DECIMALS}  # the keyphrase logs' diagnostic cosine (keyphrase_outputs/<paper>.json)


def largest_gap(a: Any, b: Any, path: str = "", steps: list[str] | None = None) -> tuple[float, str]:
    """(largest absolute difference between numbers at the same place, where); inf where the two differ otherwise
    (another key, length, string or type). Volatile fields (wall times, paths) are left out. With `steps`, a value
    of a `ROUNDED` key that moved by exactly one rounding step counts as no difference and its place is appended."""
    if isinstance(a, dict) and isinstance(b, dict):
        a = {k: v for k, v in a.items() if k not in VOLATILE}
        b = {k: v for k, v in b.items() if k not in VOLATILE}
        if a.keys() != b.keys():
            return float("inf"), f"{path} keys {sorted(a.keys() ^ b.keys())[:3]}"
        return max((largest_gap(a[k], b[k], f"{path}/{k}", steps) for k in a), default=(0.0, ""), key=lambda g: g[0])
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return float("inf"), f"{path} length {len(a)} vs {len(b)}"
        return max((largest_gap(x, y, f"{path}[{i}]", steps) for i, (x, y) in enumerate(zip(a, b))),
                   default=(0.0, ""), key=lambda g: g[0])
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        gap = abs(float(a) - float(b))
        decimals = ROUNDED.get(path.rsplit("/", 1)[-1])
        if steps is not None and decimals is not None and gap > 0 and math.isclose(gap, 10.0 ** -decimals, rel_tol=1e-6):
            steps.append(path)
            return 0.0, path
        return gap, path
    return (0.0, "") if a == b else (float("inf"), f"{path}: {str(a)[:60]!r} vs {str(b)[:60]!r}")


def compare(before: Path, after: Path) -> dict[str, Any]:
    """Per file: the same by compare_quickstart's rules (bytes for tables and rows, JSON less wall times and paths),
    else equal within `TOLERANCE` number for number, else equal but for values of `ROUNDED` keys one rounding step
    apart, else different; and the largest numeric difference (rounding steps left out)."""
    names = sorted({p.relative_to(before) for p in before.rglob("*") if p.is_file()}
                   | {p.relative_to(after) for p in after.rglob("*") if p.is_file()})
    within, stepped, differing, missing, compared, exact = [], [], [], [], 0, 0
    largest: tuple[float, str] = (0.0, "")
    for name in names:
        a, b = before / name, after / name
        if name.suffix == ".png" or name.stem in VOLATILE:
            continue
        if not (a.is_file() and b.is_file()):
            missing.append(str(name))
            continue
        compared += 1
        if same(a, b):
            exact += 1
            continue
        steps: list[str] = []
        gap, where = largest_gap(_load(a), _load(b), steps=steps)
        if gap > largest[0] or not largest[1]:
            largest = max(largest, (gap, f"{name}{where}"), key=lambda g: g[0])
        if gap > TOLERANCE:
            differing.append(f"{name} ({gap:.3g} at {where})")
        elif steps:
            stepped.append(f"{name} ({len(steps)} rounded value(s) one step apart, first at {steps[0]}; "
                           f"everything else within {TOLERANCE:g})")
        else:
            within.append(f"{name} ({gap:.3g} at {where})")
    return {"files_compared": compared, "files_identical": exact, "files_within_tolerance": within,
            "files_one_rounding_step": stepped, "files_differing": differing, "files_missing": missing,
            "tolerance": TOLERANCE, "rounded": ROUNDED, "largest_numeric_difference": largest[0],
            "largest_difference_at": largest[1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/qs-bench"), help="folder for code, data and outputs")
    parser.add_argument("--before", default="0f86e18", help="git commit of the code before the change")
    parser.add_argument("--before-out", type=Path, help="reuse this finished quick-start output as `before`")
    parser.add_argument("--before-seconds", type=float, help="the wall seconds of the reused `before` run")
    parser.add_argument("--limit", type=int, help="score only the first N papers of each benchmark")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    if args.work.exists() and any(args.work.iterdir()):
        raise SystemExit(f"{args.work} is not empty: every run starts from empty folders")
    args.work.mkdir(parents=True, exist_ok=True)
    runs = []
    if args.before_out:
        before = {"name": "before", "out": str(args.before_out), "seconds": args.before_seconds, "reused": True}
    else:
        code = args.work / "before-code"
        code.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive.stdout, check=True)
        before = run_quickstart("before", code / "src", args.work, args.work / "before" / "data", args.limit)
    runs.append(before)
    after_data = args.work / "after" / "data"
    runs.append(run_quickstart("after", ROOT / "src", args.work, after_data, args.limit))
    runs.append(run_quickstart("warm", ROOT / "src", args.work, after_data, args.limit))
    for run in runs:
        print(f"{run['name']:6} {run['seconds']} s  load {run.get('load_before')} -> {run.get('load_after')}")
        for stage, seconds in run.get("stages", {}).items():
            print(f"         {stage:28} {seconds:8.1f} s")
        work = run.get("encoder_work", {})
        if work.get("installed"):
            print("         ONNX Runtime forward passes (encoder_work.py):")
            for group, entry in [*work["groups"].items(), ("all", work["total"])]:
                print(f"           {group:26} {entry['sequences']:>8} sequences {entry['tokens']:>10} tokens "
                      f"({entry['padded_tokens']} padded) {entry['seconds']:8.1f} s  {entry['tokens_per_second']} tokens/s")
    report = {"runs": runs}
    for name in ("after", "warm"):
        verdict = compare(Path(before["out"]), Path(next(r for r in runs if r["name"] == name)["out"]))
        report[f"before_vs_{name}"] = verdict
        print(f"\nbefore vs {name}: {verdict['files_compared']} files compared: {verdict['files_identical']} "
              f"identical, {len(verdict['files_within_tolerance'])} equal within {TOLERANCE:g}, "
              f"{len(verdict['files_one_rounding_step'])} equal but for a value rounded before writing that moved "
              f"one step, {len(verdict['files_differing'])} differ, {len(verdict['files_missing'])} missing; "
              "largest numeric "
              f"difference {verdict['largest_numeric_difference']:.3g} ({verdict['largest_difference_at'] or '-'})")
        for line in verdict["files_one_rounding_step"][:20]:
            print(f"  ROUNDING STEP {line}")
        for line in verdict["files_differing"][:20]:
            print(f"  DIFFERS {line}")
        for line in verdict["files_missing"][:20]:
            print(f"  MISSING {line}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    verdicts = [report[f"before_vs_{n}"] for n in ("after", "warm")]
    return 0 if all(not v["files_differing"] and not v["files_missing"] for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
