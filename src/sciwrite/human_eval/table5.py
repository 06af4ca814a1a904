"""Table 5's rows as files: ``table5.json`` (the rows, the study and the choices the kit made) and ``table5.csv``,
which `sciwrite paper-table rwgbench-table5|sciig-table5` prints from.

A row holds ``target`` (what is validated: a dimension, or "Human consistency"), ``signal`` (the metric, or the
system rated), ``protocol``, and either counts (``agree``, ``n``, ``share``) or a mean rating (``mean``, ``n``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.tables import write_table

NAME = "table5"
#: The columns every row leads with, in this order (a rating study's rows have ``mean`` instead of the counts).
LEADING = ("target", "signal", "protocol", "agree", "n", "share", "mean")


def write_table5(rows: Sequence[Mapping[str, Any]], out: str | Path, study: Mapping[str, Any],
                 choices: Sequence[str], agreement: Mapping[str, Any] | None = None) -> tuple[Path, Path]:
    """``<out>/table5.json`` (rows, study, choices, and the `agreement` report that `paper-table` prints under the
    table) and ``<out>/table5.csv`` (the rows)."""
    ordered = [{**{k: row[k] for k in LEADING if k in row}, **row} for row in rows]
    json_path, csv_path = write_table(ordered, Path(out) / NAME)
    json_path.write_text(json.dumps({"benchmark": study.get("benchmark"), "design": study.get("design"),
                                     "choices": list(choices), "rows": ordered,
                                     **({"agreement": dict(agreement)} if agreement is not None else {})},
                                    indent=2, ensure_ascii=False)
                         + "\n", encoding="utf-8")  # the rows again, with the study and the choices made
    return json_path, csv_path


def read_table5(path: str | Path, benchmark: str) -> dict[str, Any]:
    """A ``table5.json`` (or the folder holding it) of `benchmark`; an error names the file and says what was
    expected."""
    path = Path(path)
    path = path / f"{NAME}.json" if path.is_dir() else path
    usage = f"give the {NAME}.json that `sciwrite human-eval analyze --benchmark {benchmark} --out DIR` wrote"
    if not path.is_file():
        raise InputError(f"no such file (`sciwrite human-eval analyze --out DIR` writes DIR/{NAME}.json)",
                         Where(path=path))
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg})", Where(path=path, line=err.lineno), hint=usage) from None
    if not isinstance(data, dict):
        raise InputError(f"not a JSON object ({type(data).__name__}), so not a {NAME}.json", Where(path=path),
                         hint=usage)
    if data.get("benchmark") != benchmark:
        raise InputError(f"the analysis of a {data.get('benchmark')!r} study, not {benchmark!r}", Where(path=path),
                         hint=usage)
    if not isinstance(data.get("rows"), list) or not all(isinstance(row, dict) for row in data["rows"]):
        raise InputError("field 'rows' must be a list of objects", Where(path=path, field="rows"), hint=usage)
    agreement = data.get("agreement")
    if agreement is not None and not (isinstance(agreement, dict) and all(
            isinstance(agreement.get(part), list) and all(isinstance(row, dict) for row in agreement[part])
            for part in ("people", "models"))):
        raise InputError("must be an object whose 'people' and 'models' are lists of objects",
                         Where(path=path, field="agreement"), hint=usage)
    return data


__all__ = ["LEADING", "NAME", "read_table5", "write_table5"]
