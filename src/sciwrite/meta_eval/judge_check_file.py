"""Reading a judge check back for a scoring run: ``sciwrite evaluate --judge-check DIR``.

``sciwrite meta-eval judge-check --out DIR`` writes ``DIR/summary.json`` (the judge, the benchmark, the verdict, the
kinds of damage tried and the headline rows). `read_judge_check` turns it into the `JudgeCheckRecord` a summary's
provenance keeps under ``judge.check``: the pass rate and its Wilson interval are those of the ``in rubric`` row
(every pair of the kinds the judge's rubric covers), the row the verdict is about. `check_for_run` refuses a check
of another judge or benchmark, so a run never carries a check its judge did not take. Every problem is one line
naming the file and the field.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.summary import JudgeCheckRecord, is_number
from sciwrite.meta_eval.judge_check import IN_RUBRIC, OVERALL

#: The file `sciwrite meta-eval judge-check --out DIR` writes its verdict to.
SUMMARY_FILE = "summary.json"
VERDICTS = ("passes", "fails")


def _number(value: Any) -> float | None:
    return float(value) if is_number(value) else None


def _headline(path: Path, rows: Any) -> Mapping[str, Any]:
    """The overall ``in rubric`` row of the check's headline rows."""
    if not isinstance(rows, list):
        raise ValueError(f"{path}: field 'rows' must be a list of the check's rows, got {type(rows).__name__}")
    for row in rows:
        if isinstance(row, Mapping) and row.get("kind") == IN_RUBRIC and row.get("criterion", OVERALL) == OVERALL:
            return row
    raise ValueError(f"{path}: field 'rows' has no {IN_RUBRIC!r} row: not a `sciwrite meta-eval judge-check` summary")


def _date(path: Path, data: Mapping[str, Any]) -> str:
    """The check's date: its ``date`` field, else the day the file was last written (UTC)."""
    if isinstance(data.get("date"), str):
        return str(data["date"])
    return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).date().isoformat()


def read_judge_check(folder: str | Path) -> JudgeCheckRecord:
    """The check `sciwrite meta-eval judge-check --out folder` wrote, as a summary records it; `ValueError` (one
    line naming the file and field) when the folder holds no such check."""
    folder = Path(folder)
    path = folder / SUMMARY_FILE
    if not folder.is_dir():
        raise ValueError(f"--judge-check {folder}: not a folder (give the --out folder of `sciwrite meta-eval "
                         "judge-check`)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"--judge-check {folder}: no {SUMMARY_FILE} (give the --out folder of `sciwrite meta-eval "
                         "judge-check`)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not valid UTF-8 JSON ({err})") from None
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    for name in ("judge", "benchmark"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise ValueError(f"{path}: field {name!r} must be a non-empty string, got {data.get(name)!r}")
    if data.get("verdict") not in VERDICTS:
        raise ValueError(f"{path}: field 'verdict' must be one of {', '.join(VERDICTS)}, got {data.get('verdict')!r}")
    row = _headline(path, data.get("rows"))
    kinds = data.get("kinds")
    digest = data.get("pair_set_digest")
    return JudgeCheckRecord(
        judge=str(data["judge"]), benchmark=str(data["benchmark"]), verdict=str(data["verdict"]),
        pass_rate=_number(row.get("pass_rate")), interval=(_number(row.get("ci_low")), _number(row.get("ci_high"))),
        confidence=_number(data.get("confidence")),
        kinds=tuple(str(k) for k in kinds) if isinstance(kinds, list) else (),
        n_pairs=row.get("n_pairs") if isinstance(row.get("n_pairs"), int) else None,
        pair_set_digest=digest if isinstance(digest, str) else None, date=_date(path, data), source=str(folder))


def check_for_run(check: JudgeCheckRecord, judges: Sequence[str], benchmark: str) -> JudgeCheckRecord:
    """`check` when it is of one of the run's `judges` on `benchmark`; else `ValueError`, one line."""
    where = f"--judge-check {check.source}" if check.source else "--judge-check"
    if check.benchmark != benchmark:
        raise ValueError(f"{where}: the check is of benchmark {check.benchmark!r}, this run scores {benchmark!r}")
    if not judges:
        raise ValueError(f"{where}: this run has no LLM judge to match the check's judge {check.judge!r} "
                         "(pass --judge)")
    if check.judge not in judges:
        raise ValueError(f"{where}: the check is of judge {check.judge!r}, this run's judge is "
                         f"{' + '.join(repr(j) for j in judges)}")
    return check


__all__ = ["SUMMARY_FILE", "VERDICTS", "check_for_run", "read_judge_check"]
