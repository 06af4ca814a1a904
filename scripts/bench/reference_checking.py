#!/usr/bin/env python
"""Issue 50's figures for the reference checker on HALLMARK (`sciwrite meta-eval hallmark` does the same for one
setting; this prints every figure the issue names):

1. closed world, a snapshot built from HALLMARK's ``valid_entries.jsonl`` alone, on a split (default dev_public): F1
   under HALLMARK's conservative and aggressive treatments, FPR over the valid entries whose work is in the snapshot,
   detection per type, and how often the verdict type is right among the hallucinated entries caught; the same with
   ``--complete-snapshot`` (a title the snapshot lacks is fabricated);
2. online, through the services' own client code against local fakes of Crossref and DBLP that hold the same
   records: the first run (requests sent), then a rerun from the SQLite response cache with every service address
   unreachable (seconds, requests sent: goal 0 and under 30 s, the same verdicts).

The offline speed against 1.09M titles is `scripts/bench/grounding.py`'s "checked with the taxonomy" line.

    python scripts/bench/reference_checking.py --data ../shared/data/hallmark
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

from sciwrite.core.tables import format_table
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.snapshot import load_snapshot
from sciwrite.meta_eval.hallmark import read_split
from sciwrite.meta_eval.hallmark_checker import check_split
from sciwrite.meta_eval.hallmark_report import build_report
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.bib_services import open_services
from sciwrite.sources.response_cache import SqliteResponseCache

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
from tests.fakes.crossref import CrossrefServer  # noqa: E402
from tests.fakes.dblp import DblpServer  # noqa: E402


def closed_world(data: str, split: str, complete: bool) -> dict:
    """One closed-world run's figures."""
    entries = read_split(data, split)
    snapshot = load_snapshot(Path(data) / "valid_entries.jsonl")
    index = RecordIndex(list(snapshot.records), "snapshot:valid_entries.jsonl", complete=complete)
    checked = check_split(entries, ReferenceChecker(index))
    report = build_report(checked, split, "sciwrite-checker", "closed", [], index)
    cons, aggr = report.results["conservative"], report.results["aggressive"]
    in_snapshot = next(r for r in report.partitions if r["work"] == "in the snapshot" and r["label"] == "VALID")
    print(f"\n== closed world, {'complete' if complete else 'open'} snapshot ({len(snapshot.records)} records), "
          f"{split}: {len(entries):,} entries in {checked.seconds:.2f} s")
    print(format_table([{"treatment": t, "F1": r.f1_hallucination, "DR": r.detection_rate,
                         "FPR": r.false_positive_rate, "TW-F1": r.tier_weighted_f1, "ECE": r.ece, "AUROC": r.auroc,
                         "uncertain": r.num_uncertain} for t, r in report.results.items()]))
    print(f"FPR over the {in_snapshot['n']} valid entries whose work is in the snapshot: "
          f"{in_snapshot['flagged']}/{in_snapshot['n']} = {in_snapshot['flagged'] / in_snapshot['n']:.4f} (goal <= 0.02)")
    print("\n".join(report.lines()[:3]))
    print(format_table(report.type_rows(), left=3))
    print(format_table(list(report.partitions), left=2))
    return {"complete": complete, "f1_conservative": cons.f1_hallucination, "f1_aggressive": aggr.f1_hallucination,
            "fpr_in_snapshot": in_snapshot["flagged"] / in_snapshot["n"],
            "verdict_type_right": report.verdict_types.overall.accuracy, "seconds": checked.seconds}


def _crossref_work(record: BibRecord) -> dict:
    names = [name.rsplit(" ", 1) for name in record.authors]
    return {"title": [record.title], "type": "proceedings-article" if record.venue else "posted-content",
            "author": [{"given": n[0], "family": n[-1]} if len(n) == 2 else {"family": n[0]} for n in names],
            "issued": {"date-parts": [[record.year]]}, "container-title": [record.venue] if record.venue else []}


def _dblp_publication(record: BibRecord) -> dict:
    authors = [{"@pid": str(i), "text": name} for i, name in enumerate(record.authors)]
    return {"authors": {"author": authors[0] if len(authors) == 1 else authors}, "title": f"{record.title}.",
            "venue": record.venue or "CoRR", "year": str(record.year),
            "type": "Conference and Workshop Papers" if record.venue else "Informal and Other Publications",
            "key": record.url.rsplit("/rec/", 1)[-1] if record.url and "/rec/" in record.url else record.id,
            **({"doi": record.doi} if record.doi else {}),
            **({"ee": f"https://arxiv.org/abs/{record.arxiv_id}"} if record.arxiv_id else {})}


def online(data: str, split: str) -> dict:
    """A run through Crossref's and DBLP's client code against fakes holding the snapshot's records, then a rerun
    from the cache alone."""
    entries = read_split(data, split)
    records = load_snapshot(Path(data) / "valid_entries.jsonl").records
    crossref = CrossrefServer({r.doi: _crossref_work(r) for r in records if r.doi})
    dblp = DblpServer([_dblp_publication(r) for r in records])
    for server in (crossref, dblp):
        threading.Thread(target=server.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    cache_path = Path(tempfile.mkdtemp()) / "responses.sqlite"
    options = {"min_interval": 0, "crossref": {"base_url": crossref.url}, "dblp": {"base_url": dblp.url}}
    with SqliteResponseCache(cache_path) as cache:
        started = time.perf_counter()
        first = check_split(entries, ReferenceChecker(None, open_services(["crossref", "dblp"], cache, **options)))
        first_s = time.perf_counter() - started
    sent = len(crossref.requests) + len(dblp.requests)
    crossref.close()
    dblp.close()
    # the same addresses, now closed: any request sent would fail (and say so)
    dead = {**options, "max_retries": 0, "timeout": 1.0}
    with SqliteResponseCache(cache_path) as cache:
        services = open_services(["crossref", "dblp"], cache, **dead)
        started = time.perf_counter()
        again = check_split(entries, ReferenceChecker(None, services))
        rerun_s = time.perf_counter() - started
        resent = sum(s.counts().requests for s in services)
    same = [a.verdict for a in first.checks] == [b.verdict for b in again.checks]
    report = build_report(first, split, "sciwrite-checker", "open", [], None)
    print("\n" + format_table([{"treatment": t, "F1": r.f1_hallucination, "DR": r.detection_rate,
                                "FPR": r.false_positive_rate, "uncertain": r.num_uncertain}
                               for t, r in report.results.items()]))
    print(f"\n== online (Crossref + DBLP fakes holding the {len(records)} snapshot records), {split}: first run "
          f"{first_s:.1f} s, {sent:,} requests; rerun from the cache {rerun_s:.2f} s, {resent} requests sent (goal 0, "
          f"under 30 s); same verdicts: {same}")
    return {"f1": {t: r.f1_hallucination for t, r in report.results.items()}, "first_s": first_s, "requests": sent, "rerun_s": rerun_s, "rerun_requests": resent, "same": same}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="HALLMARK's data folder (SPLIT.jsonl, valid_entries.jsonl)")
    parser.add_argument("--split", default="dev_public")
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()
    figures = {"closed": [closed_world(args.data, args.split, complete) for complete in (False, True)],
               "online": online(args.data, args.split)}
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2), encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
