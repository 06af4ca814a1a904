"""RWGBench test-set selection: the paper's rules for which candidate papers enter the benchmark.

A candidate is kept when its related-work extraction rate is above 95 %, it cites 10 to 50 works,
it is an accepted ICLR/NeurIPS/ICML paper (by normalised title), and every citation is in the corpus.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import iter_json_lines
from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.sources.titles import normalize_title

logger = logging.getLogger(__name__)

# Rules in the order they are checked; a rejected candidate is counted under the first it fails.
RULES: tuple[str, ...] = ("extraction-rate", "citation-count", "not-accepted", "citation-coverage", "duplicate-paper_id")


@dataclass
class SelectionReport:
    """How many candidates each rule rejected (first failing rule only) and how many were kept."""

    n_candidates: int = 0
    n_kept: int = 0
    rejected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RULES, 0))
    examples: dict[str, list[str]] = field(default_factory=dict)
    max_examples: int = 5

    def reject(self, rule: str, paper_id: str) -> None:
        """Count one candidate as rejected by `rule`, keeping the first few paper_ids."""
        self.rejected[rule] = self.rejected.get(rule, 0) + 1
        shown = self.examples.setdefault(rule, [])
        if len(shown) < self.max_examples:
            shown.append(paper_id)

    def summary(self) -> str:
        """Totals, then one line per rule."""
        lines = [f"test-set selection: {self.n_candidates} candidates, {self.n_kept} kept"]
        for rule in RULES:
            examples = self.examples.get(rule)
            suffix = f" (e.g. {', '.join(examples)})" if examples else ""
            lines.append(f"  rejected by {rule}: {self.rejected.get(rule, 0)}{suffix}")
        return "\n".join(lines)


def _venue_by_title(accepted_titles: Mapping[str, str | None] | Iterable[str]) -> dict[str, str | None]:
    """Normalised accepted title -> venue (None when not given); the first venue of a title wins."""
    pairs = accepted_titles.items() if isinstance(accepted_titles, Mapping) else ((t, None) for t in accepted_titles)
    venues: dict[str, str | None] = {}
    for title, venue in pairs:
        key = normalize_title(title)
        if key:
            venues.setdefault(key, venue or None)
    return venues


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def select_test_papers(
    candidates: Iterable[Mapping[str, Any]],
    accepted_titles: Mapping[str, str | None] | Iterable[str] | None,
    corpus_ids: Collection[str],
    *,
    min_extraction_rate: float = 0.95,
    min_citations: int = 10,
    max_citations: int = 50,
    extra_fields: Iterable[str] = (),
) -> tuple[list[dict[str, Any]], SelectionReport]:
    """Apply the RWGBench selection rules; return the kept papers (paper-schema records) and a report.

    Rules, checked in order: extraction_rate > `min_extraction_rate` (strictly); `min_citations` <=
    len(citations) <= `max_citations`; normalised title among `accepted_titles` (a title -> venue
    mapping or plain titles; None leaves the venue rule out); coverage == 1 and every citation in
    `corpus_ids`; and a paper_id not kept before. A missing extraction_rate or coverage fails its rule.
    The kept record carries the `PAPER_FEATURES` fields and `extra_fields`, its `venue` taken from the
    accepted list when that names one.
    """
    venues = _venue_by_title(accepted_titles) if accepted_titles is not None else None
    if not isinstance(corpus_ids, (set, frozenset)):
        corpus_ids = set(corpus_ids)
    report = SelectionReport()
    kept: list[dict[str, Any]] = []
    kept_ids: set[str] = set()
    for cand in candidates:
        report.n_candidates += 1
        paper_id = str(cand.get("paper_id"))
        citations = list(cand.get("citations") or [])
        rate = _number(cand.get("extraction_rate"))
        coverage = _number(cand.get("coverage"))
        key = normalize_title(cand.get("title"))
        if rate is None or not rate > min_extraction_rate:
            report.reject("extraction-rate", paper_id)
        elif not min_citations <= len(citations) <= max_citations:
            report.reject("citation-count", paper_id)
        elif venues is not None and (not key or key not in venues):
            report.reject("not-accepted", paper_id)
        elif coverage is None or coverage < 1.0 - 1e-9 or any(c not in corpus_ids for c in citations):
            report.reject("citation-coverage", paper_id)
        elif paper_id in kept_ids:
            report.reject("duplicate-paper_id", paper_id)
        else:
            record = {name: cand.get(name) for name in (*PAPER_FEATURES, *extra_fields)}
            record["citations"] = citations
            if venues is not None and venues[key]:
                record["venue"] = venues[key]
            kept.append(record)
            kept_ids.add(paper_id)
    report.n_kept = len(kept)
    logger.info("%s", report.summary())
    return kept, report


def read_accepted_titles(path: str | Path) -> dict[str, str | None]:
    """Accepted-paper titles -> venue (None without a venue column) from a CSV, TSV, JSON Lines or text file.

    CSV/TSV need a header with a `title` column and may have `venue`; JSON Lines records have
    `title` and optionally `venue`; a .txt file holds one title per line. Blank titles are skipped;
    the first venue of a repeated title wins.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    pairs: list[tuple[str, str | None]] = []
    if suffix in {".csv", ".tsv"}:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
            columns = {name.strip().lower(): name for name in reader.fieldnames or []}
            if "title" not in columns:
                raise ValueError(f"{path}: no 'title' column in header {reader.fieldnames}")
            for row in reader:
                venue = row.get(columns["venue"]) if "venue" in columns else None
                pairs.append((row.get(columns["title"]) or "", venue))
    elif suffix in {".jsonl", ".json", ".ndjson"}:
        for lineno, _, record, problem in iter_json_lines(path):
            if problem is not None:
                raise ValueError(f"{path}:{lineno}: {problem}")
            if not isinstance(record, Mapping) or "title" not in record:
                raise ValueError(f"{path}:{lineno}: expected an object with a 'title' field")
            pairs.append((record.get("title") or "", record.get("venue")))
    else:
        with path.open(encoding="utf-8-sig") as fh:
            pairs = [(line, None) for line in fh]
    titles: dict[str, str | None] = {}
    for title, venue in pairs:
        title = " ".join(str(title).split())
        if title:
            titles.setdefault(title, (str(venue).strip() or None) if venue is not None else None)
    return titles
