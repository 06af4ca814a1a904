#!/usr/bin/env python
"""Issue 49's figures for SurGE's survey reader: every survey under each folder in SurGE's layout (a method's
``output/``: one subfolder per survey id) read and parsed, with per folder the surveys, characters, headings,
markers (SurGE's ``[n]`` reading and the grouped one), references (and how many titles differ from what SurGE's
``parse_refs`` keeps, and how many lines SurGE's pattern drops), errors and throughput.

SurGE's published baseline outputs are not in this repository (their licence is unclear): name their folders.

    python scripts/bench/surge_reader.py /data/SurGE/baselines/Autosurvey/output /data/SurGE/baselines/ID/output
    python scripts/bench/surge_reader.py --repeat 5 --out figures.json FOLDER...
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError
from sciwrite.core.tables import format_table
from sciwrite.surge.prediction_folder import scan_prediction_folder
from sciwrite.surge.survey_markdown import parse_survey

MB = 2**20


def folder_figures(folder: Path, repeat: int) -> dict[str, Any]:
    """One folder's counts, and its best time over `repeat` runs of read + parse + every selection."""
    row: dict[str, Any] = {"folder": str(folder), "surveys": 0, "chars": 0, "headings": 0, "markers": 0,
                           "markers_grouped": 0, "references": 0, "title_differs": 0, "upstream_dropped": 0,
                           "errors": 0, "surveys_per_s": None, "mb_per_s": None}
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            scanned = scan_prediction_folder(folder)
        except InputError as err:
            row["errors"], row["error"] = 1, str(err)
            return row
        counts = {key: 0 for key in ("chars", "bytes", "headings", "markers", "markers_grouped", "references",
                                     "title_differs", "upstream_dropped")}
        for survey in scanned.surveys:
            doc = parse_survey(survey.text)
            counts["chars"] += len(survey.text)
            counts["bytes"] += len(survey.text.encode("utf-8"))
            counts["headings"] += len(doc.headings())
            doc.heading_titles(), doc.outline(), doc.paragraphs()  # timed with the rest: what the metrics read
            counts["markers"] += len(doc.markers())
            counts["markers_grouped"] += len(doc.markers(upstream=False))
            counts["references"] += len(doc.references)
            counts["title_differs"] += sum(ref.title != ref.upstream_title for ref in doc.references.values())
            counts["upstream_dropped"] += sum(ref.upstream_title is None for ref in doc.references.values())
        best = min(best, time.perf_counter() - start)
    row.update({key: value for key, value in counts.items() if key != "bytes"}, surveys=len(scanned.surveys),
               skipped=len(scanned.skipped))
    row["surveys_per_s"] = round(len(scanned.surveys) / best, 1) if best > 0 else None
    row["mb_per_s"] = round(counts["bytes"] / MB / best, 2) if best > 0 else None
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders in SurGE's layout (a method's output/)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per folder; the best is reported")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    rows = [folder_figures(folder, max(1, args.repeat)) for folder in args.folders]
    shown = [{**row, **{key: f"{row[key]:,.1f}" for key in ("surveys_per_s", "mb_per_s") if row[key] is not None}}
             for row in rows]
    print(format_table(shown, ["folder", "surveys", "chars", "headings", "markers", "markers_grouped", "references",
                              "title_differs", "upstream_dropped", "errors", "surveys_per_s", "mb_per_s"]))
    for row in rows:
        if "error" in row:
            print(f"error: {row['error']}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 1 if any(row["errors"] for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
