"""The optional second opinion online: a reference the corpus does not hold is looked up on Semantic Scholar or
OpenAlex, and when the service has a paper that the resolver's own scoring accepts, the verdict becomes
``exists_outside_corpus`` (the reference is real, the corpus lacks it) instead of ``not_found``.

The service's closest works are scored exactly as corpus candidates are (`resolver.score_candidate`: title
similarity, surnames, year) against the same calibrated threshold, so "exists" means the same thing on both sides.
Every answer is cached on disk (`default_cache_path`; `sciwrite.sources.api_client`), so a rerun sends nothing it
sent before and a run that stopped resumes. A lookup that fails leaves the verdict ``not_found``, says so in its
evidence, and is listed in `report()`: rerunning retries exactly those. When the service says the day's allowance
is spent, the lookups left are skipped (each says so) and the run goes on offline.

The default everywhere is offline, corpus only; this runs only when asked (``--verify-online SERVICE``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from sciwrite.core.commands import Option
from sciwrite.core.paths import cache_root
from sciwrite.grounding.index import IndexedPaper
from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle
from sciwrite.grounding.resolver import (
    DEFAULT_THRESHOLD,
    EXISTS_OUTSIDE_CORPUS,
    MAX_TITLE_CHARS,
    NOT_FOUND,
    Candidate,
    Verdict,
    evidence,
    score_candidate,
)
from sciwrite.sources.api_client import ApiError, JsonApiClient, QuotaExceededError
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.openalex import OpenAlexClient
from sciwrite.sources.semantic_scholar import SemanticScholarClient

logger = logging.getLogger(__name__)

#: ``--verify-online`` choices -> the client that asks that service.
SERVICES: dict[str, type[JsonApiClient]] = {"semantic_scholar": SemanticScholarClient, "openalex": OpenAlexClient}
OFFLINE = "offline, corpus only"
#: Failures listed in a report (all are counted).
MAX_LISTED_FAILURES = 20
#: The command-line options that ask for it (`sciwrite evaluate rwgbench`, `sciwrite verify-references`).
ONLINE_OPTIONS = (
    Option("verify_online", "look the references the corpus lacks up on this service, for a fourth verdict, "
                            "exists_outside_corpus (default: offline, corpus only); keys: S2_API_KEY, "
                            "OPENALEX_API_KEY", choices=tuple(SERVICES)),
    Option("online_cache", "JSON Lines cache of the service's answers, so a rerun resumes (default: "
                           "$SCIWRITE_CACHE_DIR/online/<service>.jsonl, SCIWRITE_CACHE_DIR defaulting to "
                           "~/.cache/sciwrite)"),
)


def default_cache_path(service: str) -> Path:
    """Where a service's answers are cached between runs: ``online/<service>.jsonl`` under sciwrite's cache folder
    (`cache_root`: ``$SCIWRITE_CACHE_DIR``, else ``~/.cache/sciwrite``), beside its other caches."""
    return cache_root() / "online" / f"{service}.jsonl"


class OnlineLookup:
    """Second opinions from Semantic Scholar or OpenAlex on the references the corpus does not hold.

    Build one with `for_service`. A service's closest works are scored as corpus candidates are, against the same
    threshold, so "exists" means the same on both sides; answers are cached on disk, so a rerun sends nothing it
    sent before.

    Args:
        client: Any object with ``match_title(title) -> [BibRecord]`` and a ``name``.
        service: The service's name in reports.
        threshold: The score a work must reach to count as the paper.
    """

    def __init__(self, client: Any, service: str, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.client, self.service, self.threshold = client, service, threshold
        self.looked_up = self.outside = 0
        self.failures: list[dict[str, str]] = []
        self.stopped: str | None = None  # why the lookups left were skipped (a spent allowance)

    @classmethod
    def for_service(cls, service: str, *, cache_path: str | Path | None = None,
                    threshold: float = DEFAULT_THRESHOLD, **client_options: Any) -> OnlineLookup:
        """A lookup on `service` (a `SERVICES` key) with its answers cached at `cache_path` (default:
        `default_cache_path`); `client_options` go to the client (``api_key``, ``base_url``, ``min_interval``...)."""
        if service not in SERVICES:
            raise ValueError(f"unknown online service {service!r}; choose one of {sorted(SERVICES)}")
        client = SERVICES[service](cache_path=cache_path or default_cache_path(service), **client_options)
        return cls(client, service, threshold)

    @property
    def description(self) -> str:
        """How summaries name this setting."""
        return f"online second opinion: {self.client.name}"

    def second_opinions(self, verdicts: Sequence[Verdict], show_progress: bool = False) -> list[Verdict]:
        """`verdicts` with each ``not_found`` one looked up online (the others are returned as they are)."""
        wanted = [i for i, v in enumerate(verdicts) if v.verdict == NOT_FOUND and v.reference.title.strip()]
        out = list(verdicts)
        for i in tqdm(wanted, desc=f"{self.client.name} lookups", unit=" refs", disable=not show_progress):
            out[i] = self.second_opinion(verdicts[i])
        return out

    def second_opinion(self, verdict: Verdict) -> Verdict:
        """One verdict's second opinion: ``exists_outside_corpus`` when the service has the paper, else the verdict
        with what the service said added to its evidence."""
        if verdict.verdict != NOT_FOUND:
            return verdict
        if self.stopped:
            return replace(verdict, why=f"{verdict.why}; not looked up on {self.client.name} ({self.stopped})")
        title = verdict.reference.title[:MAX_TITLE_CHARS]
        try:
            works = self.client.match_title(title)
        except QuotaExceededError as err:
            self.stopped = "its allowance is spent"
            self._failed(verdict, err)
            logger.warning("%s; the references left are not looked up online", err)
            return replace(verdict, why=f"{verdict.why}; not looked up on {self.client.name} ({self.stopped})")
        except ApiError as err:
            self._failed(verdict, err)
            logger.warning("%s", err)
            return replace(verdict, why=f"{verdict.why}; the {self.client.name} lookup failed ({err}); rerun to "
                                        "retry it")
        self.looked_up += 1
        scored = sorted(((self.score(verdict, title, work), work) for work in works),
                        key=lambda pair: (-pair[0].score, -pair[0].title_similarity))
        if not scored:
            return replace(verdict, why=f"{verdict.why}; {self.client.name} has no such title either")
        best, work = scored[0]
        if best.score < self.threshold:
            return replace(verdict, why=f"{verdict.why}; {self.client.name}'s closest title scores {best.score:.3f} "
                                        f"({work.title!r})")
        self.outside += 1
        return Verdict(verdict.reference, EXISTS_OUTSIDE_CORPUS, None, best.score,
                       f"not in the corpus; {self.client.name} has it ({work.title!r}"
                       f"{f', {work.year}' if work.year else ''}): {evidence(best)}", verdict.candidates,
                       outside={**work.as_dict(), "title_similarity": best.title_similarity, "score": best.score})

    def score(self, verdict: Verdict, title: str, work: BibRecord) -> Candidate:
        """A work scored as a corpus candidate would be."""
        paper = IndexedPaper(work.id, work.title, normalize_reference_title(work.title), without_subtitle(work.title),
                             frozenset(s for s in map(surname, work.authors) if s), work.year)
        return score_candidate(verdict.reference, normalize_reference_title(title), without_subtitle(title), paper)

    def _failed(self, verdict: Verdict, err: Exception) -> None:
        self.failures.append({"title": verdict.reference.title, "error": str(err)})

    def counters(self) -> dict[str, float]:
        """The running counts, to take before one system's lookups and pass to `report` after them."""
        client = self.client
        return {"looked_up": self.looked_up, "exists_outside_corpus": self.outside, "failed": len(self.failures),
                "requests": getattr(client, "n_requests", 0), "from_cache": getattr(client, "n_cached", 0),
                "cost_usd": getattr(client, "cost_usd", 0.0)}

    def report(self, since: Mapping[str, float] | None = None) -> dict[str, Any]:
        """What the lookups did (since the `counters` taken as `since`; default: since the start): counts, requests
        sent and answers read from the cache, failures (to retry by rerunning), and the price the service reported
        (OpenAlex)."""
        since = since or {}
        now = self.counters()
        done = {key: now[key] - since.get(key, 0) for key in now}
        report: dict[str, Any] = {"service": self.service, **{k: int(v) for k, v in done.items() if k != "cost_usd"},
                                  "failures": self.failures[int(since.get("failed", 0)):][:MAX_LISTED_FAILURES],
                                  "stopped": self.stopped,
                                  "cache": str(self.client.cache_path) if getattr(self.client, "cache_path", None)
                                  else None}
        if hasattr(self.client, "cost_usd"):
            report.update(cost_usd=round(done["cost_usd"], 6), remaining_usd=self.client.remaining_usd)
        return report


def lookups_note(reports: Sequence[Mapping[str, Any]], failures_listed: str) -> str:
    """What the second opinion online did, in one line, over one or several `OnlineLookup.report`s (one per system
    of a run); `failures_listed` says where the failed lookups are listed."""
    total = {key: sum(r.get(key) or 0 for r in reports)
             for key in ("looked_up", "exists_outside_corpus", "requests", "from_cache", "failed", "cost_usd")}
    first = reports[0]
    text = (f"Outside: not in the corpus, found on {first['service']} at the same threshold ({total['looked_up']} "
            f"looked up, {total['exists_outside_corpus']} found; {total['requests']} requests, {total['from_cache']} "
            f"answers from the cache {first['cache']})")
    if any("cost_usd" in r for r in reports):
        text += f"; the service's price: ${total['cost_usd']:.4f}"
    if total["failed"]:
        text += (f"; {total['failed']} lookup(s) failed and stay not found (listed in {failures_listed}): rerun the "
                 "same command to retry them")
    stopped = next((r["stopped"] for r in reports if r.get("stopped")), None)
    if stopped:
        text += f"; lookups stopped: {stopped}"
    return text + "."


__all__ = ["MAX_LISTED_FAILURES", "OFFLINE", "ONLINE_OPTIONS", "SERVICES", "OnlineLookup", "default_cache_path", "lookups_note"]
