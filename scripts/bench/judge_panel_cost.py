"""What a judge panel costs: ``sciwrite evaluate`` with 3 judges x 3 samples (``--judge A --judge B --judge C
--judge-samples 3``) against the tests' fake OpenAI server, beside one judge asked once, for both benchmarks on 5
papers of the offline sample (their reference sections as the predictions). Prints the requests per paper, the
tokens the server reported and the panel block's alpha and judge-noise share. The fake judges score from the seed
and the text's length, so their samples differ.

    .venv/bin/python scripts/bench/judge_panel_cost.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402

PAPERS = 5
JUDGES = ("judge-a", "judge-b", "judge-c")


def answer(body: dict) -> str:
    """Every score the two benchmarks' judges ask for, from the judge, the seed and the text's length."""
    from sciwrite.sciig.metrics.judge import PROMPTS

    text = body["messages"][-1]["content"]
    bias = JUDGES.index(body["model"]) if body["model"] in JUDGES else 0
    score = 1 + (len(text) + bias + int(body.get("seed") or 0)) % 5
    named = {key: round(score / 5, 2) for prompt in PROMPTS for key in prompt.keys}
    return json.dumps({"score": score, **named})


def predictions(bench: str, folder: Path, out: Path) -> Path:
    from sciwrite.benchmarks import get_benchmark
    from sciwrite.scoring.request import ScoringRequest

    benchmark = get_benchmark(bench)
    split = benchmark.suite.steps.open_split(ScoringRequest(split="sample", source=str(folder), show_progress=False))
    reference = benchmark.data.answer_fields[0]
    records = []
    for paper in split.records(range(PAPERS)):
        record = {"paper_id": paper["paper_id"], "text": paper[reference]}
        if "candidates" in benchmark.data.prediction_fields:
            record["candidates"] = list(paper.get("citations") or [])
        records.append(record)
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def run(bench: str, source: Path, preds: Path, out: Path, server: ChatServer, judge_args: list[str]) -> dict:
    from sciwrite.cli import main

    before = len(server.requests)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(["evaluate", bench, "--predictions", str(preds), "--source", str(source), "--profile", "lite",
                       "--metrics", "judge" if bench == "sciig" else "llm_judge", "--judge-base-url", server.base_url,
                       "--bootstrap", "200", "--out", str(out), *judge_args])
    assert status == 0, printed.getvalue()
    bodies = server.requests[before:]
    summary = json.loads((out / preds.stem / "summary.json").read_text())
    return {"requests": len(bodies), "per_paper": len(bodies) / PAPERS, "summary": summary}


def main() -> None:
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder
    from sciwrite.sciig.data.builder import write_sciig_sample

    os.environ.update(SCIWRITE_LLM_API_KEY="bench", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    work = Path(tempfile.mkdtemp(prefix="judge_panel_cost_"))
    sources = {"rwgbench": work / "rwgbench", "sciig": work / "sciig"}
    write_sample_folder(sources["rwgbench"], show_progress=False)
    write_sciig_sample(sources["sciig"])
    panel = [arg for judge in JUDGES for arg in ("--judge", judge)] + ["--judge-samples", "3"]
    with ChatServer(like_real_endpoints(answer)) as server:
        for bench, source in sources.items():
            preds = predictions(bench, source, work / f"{bench}.jsonl")
            one = run(bench, source, preds, work / f"{bench}_one", server, ["--judge", JUDGES[0]])
            many = run(bench, source, preds, work / f"{bench}_panel", server, panel)
            criteria = many["summary"]["judge_panel"]["criteria"]
            print(json.dumps({
                "benchmark": bench, "papers": PAPERS, "one_judge_requests_per_paper": one["per_paper"],
                "panel_3x3_requests_per_paper": many["per_paper"],
                "alpha_ordinal": {c: block["krippendorff_alpha_ordinal"] for c, block in criteria.items()},
                "judge_noise_share": {c: block["judge_noise_share"] for c, block in criteria.items()}}))


if __name__ == "__main__":
    main()
