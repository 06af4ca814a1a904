"""`sciwrite meta-eval hallmark --data DIR --split dev_public [--snapshot FILE ...] [--complete-snapshot]
[--check-online S ...]`:
the reference checker scored on a HALLMARK split, with HALLMARK's own metrics under both of its treatments of
uncertain verdicts, beside HALLMARK's published rows; the predictions written in HALLMARK's format."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sciwrite.cli.flags import (
    CHECK_ONLINE,
    COMPLETE_SNAPSHOT,
    CUTOFF_YEAR,
    LIMIT,
    OUT,
    RESPONSE_CACHE,
    SNAPSHOT,
    SPLIT,
)
from sciwrite.core.tables import format_table, write_table
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.snapshot import load_snapshot
from sciwrite.meta_eval.hallmark import read_published, read_split, write_predictions
from sciwrite.meta_eval.hallmark_checker import check_split
from sciwrite.meta_eval.hallmark_report import HEADLINE_COLUMNS, build_report
from sciwrite.sources.bib_services import open_services
from sciwrite.sources.response_cache import SqliteResponseCache, default_cache_path

TOOL = "sciwrite-checker"


def _index(paths: list[str], complete: bool) -> RecordIndex | None:
    if not paths:
        return None
    snapshots = [load_snapshot(p, show_progress=True) for p in paths]
    records = [r for s in snapshots for r in s.records]
    name = "+".join(f"snapshot:{Path(p).name}" for p in paths)
    print(f"snapshot: {len(records):,} records from {', '.join(paths)}"
          + "".join(f" ({', '.join(f'{n} {why}' for why, n in s.skipped.items())} skipped in {s.path})"
                    for s in snapshots if s.skipped))
    return RecordIndex(records, name, complete=complete)


def cmd_hallmark(args: argparse.Namespace) -> int:
    entries = read_split(args.data, args.split)
    if args.limit:
        entries = entries[:args.limit]
    if not args.snapshot and not args.check_online:
        raise ValueError("give a local snapshot (--snapshot FILE) or services online (--check-online SERVICE), or "
                         "both")
    index = _index(args.snapshot or [], args.complete_snapshot)
    cache = SqliteResponseCache(args.response_cache or default_cache_path()) if args.check_online else None
    services = open_services(args.check_online or [], cache=cache)
    checker = ReferenceChecker(index, services, cutoff_year=args.cutoff_year)
    # closed world: the snapshot is all the checker knows; open: it also asks the services, as HALLMARK's tools do
    world = "open" if services else "closed"
    checked = check_split(entries, checker)
    published = read_published(args.data, args.split)
    report = build_report(checked, args.split, TOOL, world, published, index)
    print(f"\nHALLMARK {args.split}: {len(entries):,} entries checked in {checked.seconds:.2f} s "
          f"({len(entries) / max(checked.seconds, 1e-9):,.0f} references/s) against "
          f"{', '.join(checker.sources)} ({world} world; a title no source has is "
          f"{'fabricated' if checker.absent_is_fabricated else 'unresolved'}; cutoff year "
          f"{checker.cutoff_year})")
    print(format_table(report.headline_rows(), HEADLINE_COLUMNS, left=3))
    print("\nPer tier (hallucinated entries of the tier and every valid entry):")
    print(format_table(report.tier_rows(), left=2))
    print("\nPer type:")
    print(format_table(report.type_rows(), left=3))
    if report.partitions:
        print("\nEntries whose work is in the snapshot, and those whose work is not (conservative):")
        print(format_table(list(report.partitions), left=2))
    print()
    print("\n".join(report.lines()))
    for name, failed in checker.service_failures.items():
        print(f"{name}: {failed} lookup(s) failed; those references are unresolved; rerun to retry them")
    out = Path(args.out or f"hallmark-{args.split}")
    out.mkdir(parents=True, exist_ok=True)
    write_predictions(out / f"predictions_{args.split}.jsonl", checked.predictions)
    with (out / f"checks_{args.split}.jsonl").open("w", encoding="utf-8") as f:
        for entry, check in zip(checked.entries, checked.checks):
            f.write(json.dumps({"bibtex_key": entry.key, **check.as_dict()}, ensure_ascii=False) + "\n")
    for treatment, result in report.results.items():
        (out / f"results_{args.split}_{treatment}.json").write_text(json.dumps(result.as_dict(), indent=2) + "\n",
                                                                    encoding="utf-8")
    write_table(report.headline_rows(), out / f"table_{args.split}")
    print(f"wrote {out}/: predictions_{args.split}.jsonl (HALLMARK's format), checks_{args.split}.jsonl (each "
          f"verdict with its evidence), results_{args.split}_{{conservative,aggressive}}.json, "
          f"table_{args.split}.json/.csv")
    return 0


def add_hallmark_command(msub: argparse._SubParsersAction) -> None:
    h = msub.add_parser("hallmark", help="score the reference checker on a HALLMARK split with HALLMARK's metrics, "
                                         "beside its published rows")
    h.add_argument("--data", required=True, metavar="DIR", help="HALLMARK's data folder (SPLIT.jsonl files, "
                                                                "baseline_results/)")
    SPLIT.add(h, "the HALLMARK split (default: dev_public)", default="dev_public")
    SNAPSHOT.add(h)
    COMPLETE_SNAPSHOT.add(h, "the snapshots list every work the entries may cite: a title they lack is fabricated "
                             "(default: unresolved, which HALLMARK's conservative treatment leaves out and its "
                             "aggressive one counts as hallucinated)")
    CHECK_ONLINE.add(h)
    RESPONSE_CACHE.add(h)
    CUTOFF_YEAR.add(h, "entries dated after this year are anachronistic (default: this year)")
    LIMIT.add(h, "only the first N entries")
    OUT.add(h, "the folder for the predictions, checks and results (default: hallmark-SPLIT)", metavar="DIR")
    h.set_defaults(func=cmd_hallmark)


__all__ = ["add_hallmark_command"]
