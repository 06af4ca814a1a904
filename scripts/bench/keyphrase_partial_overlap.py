#!/usr/bin/env python
"""What the Jaccard bound on "partial token overlap" changes in SciIG's four keyphrase metrics, on a sample.

The SciIG README matches two keyphrases on "partial token overlap" and states no bound: sciwrite's default is
any shared Porter stem. Before 2026-12-02 sciwrite also asked a Jaccard overlap >= 0.5 of the stem sets. This
script extracts every paper's phrases once (KeyBERT on the `lite` keyphrase encoder) and scores them under both
rules, printing each metric's mean over papers and how many phrase matches the bound removes.

    python scripts/bench/keyphrase_partial_overlap.py --predictions outputs/generations/sciig/extractive.jsonl
    python scripts/bench/keyphrase_partial_overlap.py --predictions preds.jsonl --source DIR --out figures.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from statistics import mean

from sciwrite.core.predictions import read_prediction_records
from sciwrite.models.encoders import load_keyphrase_encoder
from sciwrite.models.registry import resolve_model
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.inputs import source_text
from sciwrite.sciig.metrics.keyphrases import FORMER_PARTIAL_MIN_JACCARD, SCORES, extract_keyphrases, score_extracted
from sciwrite.sciig.metrics.model_roles import KEYPHRASE_ENCODER


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", required=True, help="JSON Lines of paper_id and text")
    parser.add_argument("--config", default="sample", help="SciIG config (default: sample)")
    parser.add_argument("--source", help="dataset folder (default: the sample folder)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    papers = {p["paper_id"]: p for p in load_sciig(args.config, source=args.source, split="test")}
    records, _ = read_prediction_records(args.predictions, text_is="the generated introduction", candidates=False,
                                         bad_records="skip")
    pairs = [(r["text"], papers[r["paper_id"]]) for r in records if r["paper_id"] in papers]
    encoder = load_keyphrase_encoder(resolve_model(KEYPHRASE_ENCODER, None, "lite"))
    texts = [t for text, p in pairs for t in (text, p["introduction"], source_text(p["title"], p["abstract"]))]
    extracted = extract_keyphrases(texts, encoder)
    rules = {"paper (any shared stem)": None, f"former (Jaccard >= {FORMER_PARTIAL_MIN_JACCARD})":
             FORMER_PARTIAL_MIN_JACCARD}
    scored = {name: score_extracted(extracted, bound) for name, bound in rules.items()}
    figures: dict[str, dict[str, float]] = {name: {m: round(mean(r[m] for r in rows), 4) for m in SCORES}
                                            for name, rows in scored.items()}
    paper, former = scored.values()
    matched = {name: sum(e["matched"] is not None for row in rows for e in row["keyphrase_log"])
               for name, rows in scored.items()}
    changed = sum(1 for a, b in zip(paper, former) for x, y in zip(a["keyphrase_log"], b["keyphrase_log"])
                  if (x["matched"] is None) != (y["matched"] is None))
    print(f"{len(pairs)} papers of SciIG {args.config!r}; {sum(len(r['keyphrase_log']) for r in paper)} phrase "
          "lookups")
    print(f"{'metric':28} " + "  ".join(f"{name:>28}" for name in rules) + "    change")
    for metric in SCORES:
        values = [figures[name][metric] for name in rules]
        print(f"{metric:28} " + "  ".join(f"{v:>28.4f}" for v in values) + f"  {values[0] - values[1]:+.4f}")
    print(f"matched phrases: {matched}; lookups whose match the bound removes: {changed}")
    if args.out:
        args.out.write_text(json.dumps({"papers": len(pairs), "means": figures, "matched": matched,
                                        "lookups_changed": changed}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
