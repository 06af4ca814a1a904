"""Checking a submission before it is queued: the form, the predictions file, and the rules of a public board.

Every problem is found at once and said in one line naming the field, the line or the paper, so a submitter fixes
everything in one go: the form's fields (lengths, an http(s) URL, open/closed weights), the file (size, UTF-8,
one JSON object per line with the benchmark's fields, no paper_id twice), its paper_ids against the split (none
unknown, none missing: a mean over a subset of papers is not comparable with the others), a duplicate of an
earlier submission (`content_digest`: the sha256 of the scored content, so that a reordered file or another
line ending is the same submission), and the submitter's rate limit. A record may carry an agent's trace of its
paper under ``trace`` (a list of turns, as `sciwrite generate` writes them to ``<run>.traces.jsonl``): the
drill-down shows it; it is not scored. Nothing here touches the file system
with a name a user chose: the predictions arrive as bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.core.jsonl import parse_json_lines
from sciwrite.core.predictions import record_problem, with_text
from sciwrite.generation.runner import TRACE
from sciwrite.leaderboard.names import name_key

#: Submissions larger than this are refused (the RWGBench test split's predictions are a few MiB). Sizes are said
#: in MiB everywhere (`mib`).
MAX_BYTES = 20 * 1024 * 1024
#: Longest accepted value of each form field.
FIELD_LIMITS = {"system": 80, "model": 120, "method": 60, "retriever": 60, "submitter": 64, "url": 300}
WEIGHTS = ("open", "closed")
#: Problems listed per kind before the rest are counted.
LISTED = 5
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_URL = re.compile(r"https?://[^\s/$.?#][^\s]*", re.IGNORECASE)
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+(:[\w.-]+)?")


@dataclass(frozen=True)
class SubmissionForm:
    """What a submitter types besides the file; every value is shown back as text, never as markup."""

    benchmark: str
    system: str
    submitter: str
    model: str = ""
    method: str = ""
    retriever: str = ""
    weights: str = ""
    url: str = ""

    def cleaned(self) -> SubmissionForm:
        """The form with surrounding white space removed."""
        return SubmissionForm(**{k: (v or "").strip() for k, v in self.__dict__.items()})


@dataclass
class CheckedPredictions:
    """A predictions file that passed (or failed) the checks: its records, `content_digest` and problems."""

    text: str
    sha256: str
    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def mib(n_bytes: int | float, round_up: bool = False) -> str:
    """A size in the one unit the board states limits in: ``"20 MiB"``, ``"21.05 MiB"``; `round_up` for a size
    over a limit, so that it never prints as the limit itself."""
    value = n_bytes / 2**20
    value = math.ceil(value * 100) / 100 if round_up else value
    return f"{value:.2f}".rstrip("0").rstrip(".") + " MiB"


def content_digest(records: Sequence[Mapping[str, Any]], candidates: bool) -> str:
    """The sha256 of what is scored: each record's paper_id, text (white space normalised) and, with `candidates`,
    candidate list, sorted by paper_id. Line order, line endings, a BOM, blank lines, key order and unscored
    fields do not change it, so the same predictions cannot be submitted twice as "new"."""
    items = sorted([str(r["paper_id"]), " ".join(str(r.get("text") or "").split()),
                    *([r.get("candidates") or []] if candidates else [])] for r in records)
    return hashlib.sha256(json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()


def trace_problem(record: Mapping[str, Any]) -> str | None:
    """What is wrong with a record's ``trace`` (None when it has none, or a list of turns as JSON objects)."""
    trace = record.get(TRACE)
    if TRACE not in record or (isinstance(trace, list) and all(isinstance(turn, dict) for turn in trace)):
        return None
    return (f"(paper_id {record.get('paper_id')!r}) field {TRACE!r} must be a list of the agent's turns (JSON "
            "objects), as in <run>.traces.jsonl")


def form_problems(form: SubmissionForm, benchmarks: Collection[str]) -> list[str]:
    """What is wrong with the form's fields, one line each."""
    problems = []
    if form.benchmark not in benchmarks:
        problems.append(f"benchmark: choose one of {sorted(benchmarks)}, got {form.benchmark!r}")
    for name in ("system", "submitter"):
        value = getattr(form, name)
        if not name_key(value):  # empty, or only invisible characters: nothing a reader could tell apart
            problems.append(f"{name}: required" + (" (it holds only invisible characters)" if value else ""))
    for name, limit in FIELD_LIMITS.items():
        value = getattr(form, name)
        if len(value) > limit:
            problems.append(f"{name}: at most {limit} characters (got {len(value)})")
        if _CONTROL.search(value):
            problems.append(f"{name}: control characters (such as newlines) are not allowed")
    if form.weights and form.weights not in WEIGHTS:
        problems.append(f"weights: 'open' or 'closed', got {form.weights!r}")
    if form.url and not _URL.fullmatch(form.url):
        problems.append("url: only http:// or https:// addresses are accepted")
    return problems


def check_predictions(content: bytes, benchmark: str, paper_ids: Collection[str], *, candidates: bool,
                      excluded: Mapping[str, str] | None = None, max_bytes: int = MAX_BYTES) -> CheckedPredictions:
    """Check a predictions file's bytes against a split's `paper_ids`; `candidates` says whether each record must
    list its candidate doc_ids (RWGBench). `excluded` maps paper_ids the split holds but never scores to why
    (SciIG's holdout papers): predictions for them are reported as problems too."""
    if len(content) > max_bytes:
        return CheckedPredictions("", "", problems=[f"file: {mib(len(content), round_up=True)}; the limit is "
                                                    f"{mib(max_bytes)}"])
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = content.count(b"\n", 0, err.start) + 1
        return CheckedPredictions("", "", problems=[f"line {line}: not UTF-8 text (byte 0x{content[err.start]:02x} at "
                                                    f"offset {err.start}); save the file as UTF-8"])
    checked = CheckedPredictions(text, "")
    kinds: dict[str, list[str]] = {}
    first_line: dict[str, int] = {}
    what = "the generated related-work section" if candidates else "the generated introduction"
    for number, _, record, problem in parse_json_lines(text.splitlines()):
        record = with_text(record)
        problem = problem or record_problem(record, text_is=what, candidates=candidates) or trace_problem(record)
        if problem:
            kinds.setdefault("malformed", []).append(f"line {number}: {problem}")
            continue
        pid = record["paper_id"]
        if pid in first_line:
            kinds.setdefault("duplicate", []).append(f"line {number}: paper_id {pid!r} already on line "
                                                     f"{first_line[pid]}")
            continue
        first_line[pid] = number
        if excluded and pid in excluded:
            kinds.setdefault("excluded", []).append(f"line {number}: paper_id {pid!r}: {excluded[pid]}")
        elif pid not in paper_ids:
            kinds.setdefault("unknown", []).append(f"line {number}: paper_id {pid!r} is not in the {benchmark} split")
        else:
            checked.records.append(record)
    if not first_line and "malformed" not in kinds:
        kinds["empty"] = ["file: no predictions (an empty file)"]
    missing = [pid for pid in paper_ids if pid not in first_line]
    if missing and first_line:
        kinds["missing"] = [f"papers: {len(missing)} of the split's {len(paper_ids)} papers have no prediction, "
                            f"e.g. {', '.join(map(repr, missing[:LISTED]))} (every paper must be predicted; an "
                            "empty text counts)"]
    for lines in kinds.values():
        checked.problems += lines[:LISTED]
        if len(lines) > LISTED:
            checked.problems.append(f"... and {len(lines) - LISTED} more like the above")
    checked.sha256 = content_digest(checked.records, candidates)
    return checked
