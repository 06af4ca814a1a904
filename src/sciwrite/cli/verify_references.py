"""`sciwrite verify-references FILE ... [--benchmark B] [--corpus CONFIG]`: which references of a list name a paper
of a benchmark's corpus (`Benchmark.data.corpus`).

Reads JSON Lines (titles, reference objects, or `sciwrite generate` prediction lines with ``references``) or BibTeX
(`sciwrite.grounding.reference_lists`), resolves every reference against the titles of an RWGBench corpus config
(`sciwrite.grounding`; offline: the sample corpus, corpus only), prints each verdict with its evidence and the
counts, and writes the verdicts as JSON Lines with ``--out``. An entry that cannot be read is listed as ``invalid``
with its problem; the others are still checked. ``--verify-online semantic_scholar|openalex`` looks what the corpus
lacks up on that service (`sciwrite.grounding.online`), for a fourth verdict, ``exists_outside_corpus``.

Every entry is also checked field by field (`sciwrite.grounding.checker`): against the corpus, the local snapshots
given (``--snapshot``: JSON Lines, BibTeX or a DBLP XML dump) and the services named (``--check-online``: Crossref,
DBLP, Semantic Scholar, OpenAlex, arXiv, answers cached in one SQLite file), for a verdict of the taxonomy
(verified, fabricated, metadata_mismatch, title_mismatch, anachronistic, unresolved) with the fields that differ,
the record matched and its source. The entries that are not verified are listed with their evidence: what an
author checking a bibliography before submission fixes."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciwrite.cli.flags import (
    CHECK_ONLINE,
    COMPLETE_SNAPSHOT,
    CORPUS,
    CUTOFF_YEAR,
    OUT,
    RESPONSE_CACHE,
    SNAPSHOT,
    SOURCE,
)
from sciwrite.cli.index import add_corpus_benchmark, corpus_configs_text, corpus_of
from sciwrite.cli.options import add_options
from sciwrite.core.tables import format_table
from sciwrite.grounding import ReferenceResolver, TitleIndex
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.online import OFFLINE, ONLINE_OPTIONS, OnlineLookup, lookups_note
from sciwrite.grounding.record_index import RecordIndex, corpus_records
from sciwrite.grounding.reference_lists import ListedReference, read_reference_list
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, EXISTS_OUTSIDE_CORPUS, VERDICTS, Verdict
from sciwrite.grounding.scoring import INVALID
from sciwrite.grounding.snapshot import load_snapshot
from sciwrite.grounding.taxonomy import CHECK_VERDICTS, VERIFIED, Check
from sciwrite.sources.bib_services import open_services
from sciwrite.sources.response_cache import SqliteResponseCache, default_cache_path


def cmd_verify_references(args: argparse.Namespace) -> int:
    bench, corpus_part = corpus_of(args.benchmark)
    config = args.corpus or corpus_part.default
    entries = [entry for path in args.files for entry in read_reference_list(path)]
    corpus = bench.data.load(config, source=args.source)
    resolver = ReferenceResolver(TitleIndex.from_corpus(corpus), threshold=args.threshold)
    online = (OnlineLookup.for_service(args.verify_online, cache_path=args.online_cache, threshold=args.threshold)
              if args.verify_online else None)
    readable = [e.reference for e in entries if e.reference is not None]
    verdicts = resolver.resolve(readable)
    if online is not None:
        verdicts = online.second_opinions(verdicts, show_progress=True)
    checker = _checker(args, corpus)
    checks = iter(checker.check(readable))
    checked = _with_verdicts(entries, verdicts)
    entry_checks = [next(checks) if entry.reference is not None else None for entry, _ in checked]
    rows = [_table_row(entry, verdict) for entry, verdict in checked]
    print(format_table(rows, left=4))
    counts = Counter(r["verdict"] for r in rows)
    shown = (*VERDICTS, *((EXISTS_OUTSIDE_CORPUS,) if online else ()), INVALID)
    print(f"\n{len(rows)} references against {len(resolver.index):,} titles of {bench.title} {config!r} "
          f"({online.description if online else OFFLINE}; threshold {args.threshold}): "
          + ", ".join(f"{counts[v]} {v}" for v in shown))
    if online is not None:
        print(lookups_note([online.report()], "the verdicts, each with its reason"))
    wrong = [_problem_row(entry, check) for (entry, _), check in zip(checked, entry_checks)
             if check is not None and check.verdict != VERIFIED]
    check_counts = Counter(c.verdict for c in entry_checks if c is not None)
    print(f"\nChecked field by field against {', '.join(checker.sources)} (a title no source has is "
          f"{'fabricated' if checker.absent_is_fabricated else 'unresolved'}): "
          + ", ".join(f"{check_counts[v]} {v}" for v in CHECK_VERDICTS))
    if wrong:
        print(format_table(wrong, left=6))
    for name, failed in checker.service_failures.items():
        print(f"{name}: {failed} lookup(s) failed; those entries are unresolved: rerun the same command to retry")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for (entry, verdict), check in zip(checked, entry_checks):
                line = _verdict_line(entry, verdict)
                if check is not None:
                    line["check"] = {k: v for k, v in check.as_dict().items() if k != "title"}
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        print(f"wrote {out}")
    return 0


def _checker(args: argparse.Namespace, corpus: Any) -> ReferenceChecker:
    """The field-by-field checker over the corpus, the snapshots given and the services named."""
    records = corpus_records(corpus)
    names = ["corpus"]
    for path in args.snapshot or []:
        records += load_snapshot(path, show_progress=True).records
        names.append(f"snapshot:{Path(path).name}")
    index = RecordIndex(records, "+".join(names), complete=args.complete_snapshot)
    services = open_services(args.check_online, SqliteResponseCache(args.response_cache or default_cache_path())) \
        if args.check_online else []
    return ReferenceChecker(index, services, cutoff_year=args.cutoff_year)


def _problem_row(entry: ListedReference, check: Check) -> dict[str, Any]:
    """The printed line of an entry whose check is not verified: what differs, the record and the evidence."""
    matched = check.matched
    return {"where": entry.where, "check": check.verdict, "fields": ", ".join(check.fields_differing()) or None,
            "matched": f"{matched.title[:60]} ({matched.source} {matched.id})" if matched else None,
            "confidence": check.confidence, "evidence": check.why[:160]}


def _with_verdicts(entries: Sequence[ListedReference],
                   verdicts: Sequence[Verdict]) -> list[tuple[ListedReference, Verdict | None]]:
    """Each entry with its verdict (`verdicts` are those of the readable entries, in order); None for an entry that
    cannot be read."""
    pending = iter(verdicts)
    return [(entry, None if entry.reference is None else next(pending)) for entry in entries]


def _table_row(entry: ListedReference, verdict: Verdict | None) -> dict[str, Any]:
    """The printed line of one entry: its verdict and evidence, or ``invalid`` and why."""
    if entry.reference is None or verdict is None:
        return {"where": entry.where, "title": "", "verdict": INVALID, "doc_id": None, "corpus title": "",
                "score": None, "why": entry.problem}
    best = verdict.candidates[0] if verdict.candidates else None
    named = (best.title if best and verdict.doc_id else
             f"{verdict.outside['title']} ({verdict.outside['source']} {verdict.outside['id']})"
             if verdict.outside else "")
    return {"where": entry.where, "title": entry.reference.title[:80], "verdict": verdict.verdict,
            "doc_id": verdict.doc_id, "corpus title": named[:80], "score": verdict.score, "why": verdict.why}


def _verdict_line(entry: ListedReference, verdict: Verdict | None) -> dict[str, Any]:
    """The ``--out`` line of one entry: where it is and its verdict, or ``invalid`` and why."""
    return {"where": entry.where, **(verdict.as_dict() if verdict is not None else {"verdict": INVALID,
                                                                                  "why": entry.problem})}


def add_verify_references_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify-references", help="check which references of a list (JSON Lines or BibTeX) name a "
                                                 "paper of the corpus: found / ambiguous / not_found, with evidence")
    p.add_argument("files", nargs="+", metavar="FILE", help="JSON Lines (titles, {title, authors, year}, or "
                                                            "prediction lines with 'references') or .bib files")
    add_corpus_benchmark(p)
    CORPUS.add(p, f"the corpus config whose titles are searched ({corpus_configs_text('configs')}; default: the "
                  "offline sample's)")
    SOURCE.add(p, "local dataset folder or Hub repo id of the corpus (default: the sample folder / the Hub)")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                   help=f"score a candidate needs to be found (default: {DEFAULT_THRESHOLD}, calibrated on the corpus)")
    OUT.add(p, "also write every verdict, with its candidates and evidence, as JSON Lines")
    add_options(p, ONLINE_OPTIONS)
    SNAPSHOT.add(p)
    COMPLETE_SNAPSHOT.add(p, "the corpus and the snapshots list every work the entries may cite: a title they lack "
                             "is fabricated (default: unresolved)")
    CHECK_ONLINE.add(p)
    RESPONSE_CACHE.add(p)
    CUTOFF_YEAR.add(p, "entries dated after this year are anachronistic (default: this year)")
    p.set_defaults(func=cmd_verify_references)
