"""A judge's agreement with people, written for a scoring run and read back: ``sciwrite meta-eval agreement --record
DIR`` and ``sciwrite evaluate --human-agreement DIR``.

`agreement_record` keeps the rows of `sciwrite.meta_eval.agreement.metric_agreement` whose metric the benchmark's
LLM judge computes, with the judge(s) whose scores they are, the benchmark, the study, its ratings file, the date and
the bootstrap's settings; `write_agreement_record` writes it to ``DIR/human_agreement.json``. `read_human_agreement`
turns that file into the `HumanAgreementRecord` a summary's provenance keeps under ``judge.human_agreement``, and
`agreement_for_run` refuses one of another benchmark or of a judge the run did not use, as the judge check's
`check_for_run` does, so a run never carries agreement its judge did not earn. `scored_by` reads the judge(s) of
the ``per_paper.jsonl`` files compared from the ``summary.json`` beside each. Every problem is one line naming the
file and the field.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.results import load_summary
from sciwrite.core.summary import HumanAgreementRecord, HumanAgreementRow, Summary, is_number

#: The file `sciwrite meta-eval agreement --record DIR` writes.
RECORD_FILE = "human_agreement.json"
LEVELS = ("item", "system")
_HINT = "--human-agreement wants the --record folder of `sciwrite meta-eval agreement`"


def judge_rows(rows: Sequence[Mapping[str, Any]], judge_metrics: Collection[str],
               benchmark: str) -> list[dict[str, Any]]:
    """The agreement rows of the judge's metrics; `ValueError` when none of the metrics compared is one."""
    kept = [dict(row) for row in rows if row.get("metric") in judge_metrics]
    if not kept:
        compared = ", ".join(dict.fromkeys(str(row.get("metric")) for row in rows)) or "none"
        raise ValueError(f"--record: none of the metrics compared ({compared}) is a judge score of {benchmark} (its "
                         f"judge metrics: {', '.join(judge_metrics)}); pass --metrics with them")
    return kept


def agreement_record(rows: Sequence[Mapping[str, Any]], *, benchmark: str, judges: Sequence[str], study: str,
                     ratings: str | Path, confidence: float, resamples: int, seed: int,
                     date: str | None = None) -> dict[str, Any]:
    """The JSON `write_agreement_record` writes: who was compared with which people, when, and the rows."""
    return {"benchmark": benchmark, "judges": list(judges), "study": study, "ratings": Path(ratings).name,
            "date": date or dt.datetime.now(dt.timezone.utc).date().isoformat(), "confidence": confidence,
            "bootstrap": {"resamples": resamples, "seed": seed}, "rows": [dict(row) for row in rows]}


def write_agreement_record(record: Mapping[str, Any], folder: str | Path) -> Path:
    """``folder/human_agreement.json`` holding `record`; the folder is made if missing."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError("is a file, not a folder", Where(path=folder, field="--record"),
                         hint="give a folder to write human_agreement.json to")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RECORD_FILE
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def scored_by(summary: Summary) -> tuple[str, ...]:
    """The judge model(s) whose scores a summary's judge metrics are: a panel's judges, else the one judge (none when
    no LLM judge ran)."""
    panel = summary.judge_panel
    if panel is not None and panel.judges:
        return tuple(panel.judges)
    model = summary.provenance.judge_model if summary.provenance is not None else None
    return (model,) if model else ()


def recorded_judges(per_paper: Mapping[str, str | Path]) -> tuple[str | None, tuple[str, ...]]:
    """(benchmark, judges) of the runs whose ``per_paper.jsonl`` files were compared, from the ``summary.json``
    beside each ((None, ()) when none has one); runs scored by different judges or benchmarks are refused."""
    found: dict[tuple[str | None, tuple[str, ...]], Path] = {}
    for path in per_paper.values():
        summary_file = Path(path).parent / "summary.json"
        if summary_file.is_file():
            summary = load_summary(summary_file)
            found.setdefault((summary.benchmark, scored_by(summary)), summary_file)
    if len(found) > 1:
        (first, a), (second, b) = list(found.items())[:2]
        raise InputError(f"was scored by {' + '.join(second[1]) or 'no judge'} on {second[0]}, but {a} by "
                         f"{' + '.join(first[1]) or 'no judge'} on {first[0]}: one record is of one judge",
                         Where(path=b), hint="compare runs of one judge, or pass --judge")
    return next(iter(found), (None, ()))


def _number(path: Path, index: int, row: Mapping[str, Any], key: str) -> float | None:
    value = row.get(key)
    if value is not None and not is_number(value):
        raise InputError(f"must be a number or null, got {value!r}", Where(path=path, record=f"rows[{index}]",
                                                                            field=key))
    return None if value is None else float(value)


def _row(path: Path, index: int, row: Any) -> HumanAgreementRow:
    """One row as `metric_agreement` writes it, checked."""
    where = Where(path=path, record=f"rows[{index}]")
    if not isinstance(row, Mapping):
        raise InputError(f"must be a JSON object, got {type(row).__name__}", where)
    for key in ("criterion", "metric"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise InputError(f"must be a non-empty string, got {row.get(key)!r}", Where(path, None, where.record, key))
    if row.get("level") not in LEVELS:
        raise InputError(f"must be one of {', '.join(LEVELS)}, got {row.get('level')!r}",
                         Where(path, None, where.record, "level"))
    n = row.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise InputError(f"must be a whole number >= 0, got {n!r}", Where(path, None, where.record, "n"))
    values = {key: _number(path, index, row, key) for key in ("kendall_tau", "tau_low", "tau_high", "spearman",
                                                               "spearman_low", "spearman_high")}
    return HumanAgreementRow(criterion=str(row["criterion"]), metric=str(row["metric"]), level=str(row["level"]), n=n,
                             kendall_tau=values["kendall_tau"], tau_interval=(values["tau_low"], values["tau_high"]),
                             spearman=values["spearman"],
                             spearman_interval=(values["spearman_low"], values["spearman_high"]))


def read_human_agreement(folder: str | Path) -> HumanAgreementRecord:
    """The record `sciwrite meta-eval agreement --record folder` wrote, as a summary keeps it; `InputError` (one line
    naming the file and field) when the folder holds no such record."""
    folder = Path(folder)
    path = folder / RECORD_FILE
    if not folder.is_dir():
        raise InputError("not a folder", Where(path=folder), hint=_HINT)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"holds no {RECORD_FILE}", Where(path=folder), hint=_HINT) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"not valid UTF-8 JSON ({err})", Where(path=path), hint=_HINT) from None
    if not isinstance(data, Mapping):
        raise InputError(f"expected a JSON object, got {type(data).__name__}", Where(path=path), hint=_HINT)
    for key in ("benchmark", "study"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise InputError(f"must be a non-empty string, got {data.get(key)!r}", Where(path=path, field=key))
    judges = data.get("judges")
    if not isinstance(judges, list) or not judges or not all(isinstance(j, str) and j for j in judges):
        raise InputError(f"must be a list of judge models, got {judges!r}", Where(path=path, field="judges"))
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise InputError(f"must be a non-empty list of agreement rows, got {rows!r}", Where(path=path, field="rows"))
    date, ratings, confidence = data.get("date"), data.get("ratings"), data.get("confidence")
    return HumanAgreementRecord(
        judges=tuple(judges), benchmark=str(data["benchmark"]), study=str(data["study"]),
        ratings=ratings if isinstance(ratings, str) else None, date=date if isinstance(date, str) else None,
        confidence=float(confidence) if isinstance(confidence, int | float) and is_number(confidence) else None,
        rows=tuple(_row(path, i, row) for i, row in enumerate(rows)), source=str(folder))


def agreement_for_run(record: HumanAgreementRecord, judges: Sequence[str], benchmark: str) -> HumanAgreementRecord:
    """`record` when it is of `benchmark` and its judges are the run's `judges` (a panel's agreement is the panel's
    scores', not one of its judges'; one judge's, not a panel's); else `InputError`, one line."""
    where = Where(path=f"--human-agreement {record.source}" if record.source else "--human-agreement")
    if record.benchmark != benchmark:
        raise InputError(f"the agreement is of benchmark {record.benchmark!r}, this run scores {benchmark!r}", where)
    if not judges:
        raise InputError(f"this run has no LLM judge to match the agreement's judge {' + '.join(record.judges)!r} "
                         "(pass --judge)", where)
    if set(record.judges) != set(judges):
        raise InputError(f"the agreement is of judge {' + '.join(record.judges)!r}, this run's judge is "
                         f"{' + '.join(repr(j) for j in judges)}", where)
    return record


__all__ = ["LEVELS", "RECORD_FILE", "agreement_for_run", "agreement_record", "judge_rows", "read_human_agreement",
           "recorded_judges", "scored_by", "write_agreement_record"]
