"""A reference's check (the per-reference row's ``check``, `sciwrite.grounding.corpus_check.check_fields`) as the
text cells of a drill-down table: its verdict, the fields that differ, the record it matched and the evidence.

Every cell is plain text built from the row's values (titles and evidence may hold anything a system wrote);
escaping is the page's job, and nothing here builds markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.core.tables import MISSING_CELL

#: The columns `check_cells` fills, in order.
CHECK_COLUMNS = ("Check", "Fields differing", "Matched record", "Check evidence")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def verdict_text(check: Mapping[str, Any]) -> str:
    """The verdict in words, with its kind when it has one: ``title mismatch (near_miss)``."""
    verdict = _text(check.get("verdict")).replace("_", " ") or MISSING_CELL
    kind = _text(check.get("kind"))
    return f"{verdict} ({kind})" if kind else verdict


def fields_text(check: Mapping[str, Any]) -> str:
    """Each field that differs, what the reference says and what the record says: ``year: cited 2021, record
    2017``; the field names alone when the check lists no mismatch details."""
    mismatches = [m for m in check.get("mismatches") or () if isinstance(m, Mapping)]
    if not mismatches:
        return ", ".join(_text(f) for f in check.get("fields") or ())
    return "; ".join(f"{_text(m.get('field'))}: cited {_text(m.get('cited'))}, record "
                     f"{_text(m.get('record')) or 'none'}" for m in mismatches)


def record_text(check: Mapping[str, Any]) -> str:
    """The matched record as ``title (source id)``; "" when none."""
    matched = check.get("matched")
    if not isinstance(matched, Mapping):
        return ""
    return f"{_text(matched.get('title'))} ({_text(matched.get('source'))} {_text(matched.get('id'))})"


def check_cells(check: Any) -> dict[str, str]:
    """`CHECK_COLUMNS` of one reference: its check's verdict, differing fields, matched record and evidence
    (`MISSING_CELL` and empty cells when the reference was not checked)."""
    if not isinstance(check, Mapping):
        return {"Check": MISSING_CELL, "Fields differing": "", "Matched record": "", "Check evidence": ""}
    return {"Check": verdict_text(check), "Fields differing": fields_text(check), "Matched record": record_text(check),
            "Check evidence": _text(check.get("why"))}


__all__ = ["CHECK_COLUMNS", "check_cells", "fields_text", "record_text", "verdict_text"]
