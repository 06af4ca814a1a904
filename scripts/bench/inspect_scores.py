#!/usr/bin/env python
"""Run the Inspect tasks ``sciwrite/rwgbench`` and ``sciwrite/sciig`` on the offline samples with Inspect's
``mockllm/model`` (one fixed reply, carrying usage so that Inspect does not download tiktoken's vocabulary to count
tokens), and write each run's metrics and per-sample scores as JSON: what `same_numbers.sh` compares before and after
a change.

    python scripts/bench/inspect_scores.py OUT [--limit 5]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

REPLY = "Earlier parsers [1] build on transformers [2]. Later work [3] (Smith et al., 2020) differs from both."


def reply() -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=REPLY)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=5)
    args = parser.parse_args()
    for task in ("rwgbench", "sciig"):
        model = get_model("mockllm/model", custom_outputs=[reply() for _ in range(20 * args.limit)])
        [log] = inspect_eval(f"sciwrite/{task}", model=model, limit=args.limit,
                             log_dir=str(args.out / "logs" / task), display="none")
        if log.status != "success" or log.results is None:
            raise SystemExit(f"{task}: the Inspect run ended {log.status}: {log.error}")
        scores = {score.name: {name: metric.value for name, metric in score.metrics.items()}
                  for score in log.results.scores}
        samples = [{"id": sample.id, "scores": {name: s.value for name, s in (sample.scores or {}).items()}}
                   for sample in log.samples or []]
        target = args.out / "out" / "inspect" / f"{task}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"scores": scores, "samples": samples}, indent=1, sort_keys=True, default=str))
        print(f"{task}: {len(samples)} samples, {sum(len(v) for v in scores.values())} metric values -> {target}")


if __name__ == "__main__":
    main()
