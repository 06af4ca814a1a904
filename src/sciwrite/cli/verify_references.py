"""`sciwrite verify-references FILE ... [--benchmark B] [--corpus CONFIG]`: which references of a list name a paper
of a benchmark's corpus (`Benchmark.data.corpus`).

Reads JSON Lines (titles, reference objects, or `sciwrite generate` prediction lines with ``references``) or BibTeX
(`sciwrite.grounding.reference_lists`), resolves every reference against the titles of an RWGBench corpus config
(`sciwrite.grounding`; offline: the sample corpus, corpus only), prints each verdict with its evidence and the
counts, and writes the verdicts as JSON Lines with ``--out``. An entry that cannot be read is listed as ``invalid``
with its problem; the others are still checked. ``--verify-online semantic_scholar|openalex`` looks what the corpus
lacks up on that service (`sciwrite.grounding.online`), for a fourth verdict, ``exists_outside_corpus``."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciwrite.cli.flags import CORPUS, OUT, SOURCE
from sciwrite.cli.index import add_corpus_benchmark, corpus_configs_text, corpus_of
from sciwrite.cli.options import add_options
from sciwrite.core.tables import format_table
from sciwrite.grounding import ReferenceResolver, TitleIndex
from sciwrite.grounding.online import OFFLINE, ONLINE_OPTIONS, OnlineLookup, lookups_note
from sciwrite.grounding.reference_lists import ListedReference, read_reference_list
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, EXISTS_OUTSIDE_CORPUS, VERDICTS, Verdict
from sciwrite.grounding.scoring import INVALID


def cmd_verify_references(args: argparse.Namespace) -> int:
    bench, corpus_part = corpus_of(args.benchmark)
    config = args.corpus or corpus_part.default
    entries = [entry for path in args.files for entry in read_reference_list(path)]
    corpus = bench.data.load(config, source=args.source)
    resolver = ReferenceResolver(TitleIndex.from_corpus(corpus), threshold=args.threshold)
    online = (OnlineLookup.for_service(args.verify_online, cache_path=args.online_cache, threshold=args.threshold)
              if args.verify_online else None)
    verdicts = resolver.resolve([e.reference for e in entries if e.reference is not None])
    if online is not None:
        verdicts = online.second_opinions(verdicts, show_progress=True)
    checked = _with_verdicts(entries, verdicts)
    rows = [_table_row(entry, verdict) for entry, verdict in checked]
    print(format_table(rows, left=4))
    counts = Counter(r["verdict"] for r in rows)
    shown = (*VERDICTS, *((EXISTS_OUTSIDE_CORPUS,) if online else ()), INVALID)
    print(f"\n{len(rows)} references against {len(resolver.index):,} titles of {bench.title} {config!r} "
          f"({online.description if online else OFFLINE}; threshold {args.threshold}): "
          + ", ".join(f"{counts[v]} {v}" for v in shown))
    if online is not None:
        print(lookups_note([online.report()], "the verdicts, each with its reason"))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for entry, verdict in checked:
                f.write(json.dumps(_verdict_line(entry, verdict), ensure_ascii=False) + "\n")
        print(f"wrote {out}")
    return 0


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
    p.set_defaults(func=cmd_verify_references)
