"""Prediction files: one JSON object per line, read strictly and joined to the split by paper_id.

An RWGBench line is ``{"paper_id": ..., "text": <generated related work with [i] markers>, "candidates":
[doc_id, ...]}``; a SciIG line ``{"paper_id": ..., "text": <generated introduction>}``. The generation runner's
``pred`` is read as ``text`` when ``text`` is absent; other fields are kept but unused. Every problem is reported
with its line number and field, all at once. A prediction source may also be a dataset folder or a Hub dataset id
(what ``sciwrite push`` uploads): it is loaded with `datasets.load_dataset` and read as the same lines.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import JsonLine, iter_json_lines, line_ref, parse_json_lines
from sciwrite.core.paths import cache_root

logger = logging.getLogger(__name__)

#: Problems listed in one error before the rest are counted.
MAX_LISTED_PROBLEMS = 10


@dataclass(frozen=True)
class SystemPredictions:
    """One system's predictions as the scoring core takes them, from a file or from memory.

    Read from a file with `from_file` (a JSON Lines file, a dataset folder or a Hub dataset id), or give records in
    memory with `from_records` or `from_text`. Each record is one paper's prediction: ``paper_id``, ``text`` and
    the benchmark's other fields (RWGBench's ``candidates``).

    Attributes:
        system: The system's name.
        origin: What names the predictions in messages (``FILE:LINE``) and in the summary; in memory, record i is
            line i + 1.
        path: The file, when read from one (read lazily, line by line).
        records: The lines, when given in memory.
    """

    system: str
    origin: str
    path: Path | None = None  # the file, when read from one (read lazily, line by line)
    records: tuple[JsonLine, ...] | None = field(default=None, repr=False)  # the lines, when in memory

    @classmethod
    def from_file(cls, path: str | Path, system: str | None = None) -> SystemPredictions:
        """The predictions of a file (or dataset), named `system` (default: the file's stem)."""
        return cls(system or Path(path).stem, str(path), path=Path(path))

    @classmethod
    def from_records(cls, records: Iterable[Any], system: str, origin: str | None = None) -> SystemPredictions:
        """Prediction records already in memory (dicts with ``paper_id``, ``text``, ...), named `system`."""
        lines = tuple((number, json.dumps(record, ensure_ascii=False, default=str), record, None)
                      for number, record in enumerate(records, start=1))
        return cls(system, origin or f"<{system}>", records=lines)

    @classmethod
    def from_text(cls, text: str, system: str, origin: str | None = None) -> SystemPredictions:
        """The predictions of a JSON Lines text (a submission's upload), parsed line by line, named `system`."""
        return cls(system, origin or f"<{system}>", records=tuple(parse_json_lines(text.splitlines())))

    def lines(self) -> Iterator[JsonLine]:
        """(line number, line, record, problem) for each prediction line.

        A record's ``pred`` (the generation runner's field) is also its ``text``; `problem` says why a line is not
        valid JSON (its record is then None).
        """
        if self.records is not None:
            for number, line, record, problem in self.records:
                yield number, line, with_text(dict(record) if isinstance(record, dict) else record), problem
            return
        for number, line, record, problem in iter_json_lines(prediction_file(self.path or self.origin)):
            yield number, line, with_text(record), problem


def as_predictions(source: str | Path | SystemPredictions) -> SystemPredictions:
    """`source` as `SystemPredictions` (a path is read as a file)."""
    return source if isinstance(source, SystemPredictions) else SystemPredictions.from_file(source)


def json_lines(source: str | Path | SystemPredictions) -> Iterator[JsonLine]:
    """(line number, line, record, problem) for each non-blank line of a JSON Lines file (or of a prediction
    dataset, see `prediction_file`, or of predictions in memory); `problem` says why a line is not valid JSON (its
    record is then None). A record's ``pred`` (the generation runner's field) is also its ``text``."""
    return as_predictions(source).lines()


def with_text(record: Any) -> Any:
    """`record` with the generation runner's ``pred`` also as ``text`` when ``text`` is absent (in place)."""
    if isinstance(record, dict) and "text" not in record and "pred" in record:
        record["text"] = record["pred"]
    return record


#: How an Inspect log begins: a ``.eval`` log is a zip archive holding ``header.json`` (or, while it is written,
#: ``_journal/start.json``); a ``.json`` log is one JSON object whose first fields are its version and status.
_ZIP_MAGIC = b"PK\x03\x04"
_INSPECT_ENTRIES = ("header.json", "_journal/start.json")
_INSPECT_JSON = re.compile(rb'\A(\xef\xbb\xbf)?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:\s*\{')


def is_inspect_log(path: Path) -> bool:
    """Whether the file at `path` is an Inspect log (what ``inspect eval`` writes), zip or JSON."""
    with path.open("rb") as f:
        head = f.read(512)
    if _INSPECT_JSON.match(head):
        return True
    if not head.startswith(_ZIP_MAGIC):
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            return any(name in _INSPECT_ENTRIES for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


def refuse_inspect_log(path: Path) -> None:
    """An Inspect log given as predictions is refused, saying how to use it: its samples are scored already, and
    it holds no prediction line."""
    if is_inspect_log(path):
        raise InputError("is an Inspect log (what `inspect eval` writes), not a JSON Lines prediction file",
                         Where(path=path), hint=f"the task scored its samples (`inspect score {path}` scores them "
                         f"again): put it on the board with `sciwrite leaderboard import --inspect-log {path}` (or "
                         f"`sciwrite push results --inspect-log {path}`); `sciwrite evaluate` scores the .jsonl "
                         "`sciwrite generate` writes")


def prediction_file(source: str | Path) -> Path:
    """A local JSON Lines file for `source`: a file as it is (an Inspect log is refused, saying how to use it:
    `refuse_inspect_log`); a dataset folder or a Hub dataset id, optionally with ``:<config>`` (``sciwrite push``
    uploads each run as one config), loaded with `datasets.load_dataset` and written once as JSON Lines under the
    sciwrite cache.
    """
    path = Path(source)
    if path.is_file():
        refuse_inspect_log(path)
        return path
    text = str(source)
    location, _, config = text.partition(":") if not path.exists() else (text, "", "")
    is_folder = Path(location).is_dir()
    looks_like_repo = re.fullmatch(r"[\w.-]+/[\w.-]+", location) is not None and not location.endswith((".jsonl", ".json"))
    if not is_folder and not looks_like_repo:
        raise FileNotFoundError(f"no prediction file {path} (nor a dataset folder or Hub dataset id[:config])")
    from datasets import DatasetDict, load_dataset

    try:
        loaded = load_dataset(location, config or None)
    except Exception as err:
        raise FileNotFoundError(f"no prediction file {path}, and loading it as a dataset failed: {err}") from err
    if isinstance(loaded, DatasetDict):
        if len(loaded) != 1:
            raise ValueError(f"prediction dataset {text!r} has splits {list(loaded)}; expected exactly one")
        loaded = next(iter(loaded.values()))

    digest = hashlib.sha256(f"{text}:{loaded._fingerprint}".encode()).hexdigest()[:16]
    name = re.sub(r"[^\w.-]+", "_", text)[-80:]
    out = cache_root() / "predictions" / f"{name}-{digest}.jsonl"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for row in loaded:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        tmp.replace(out)
    return out


#: How a prediction file's bad lines are handled, one way for every benchmark (``--bad-records``): ``error`` rejects
#: the file with every bad line named, before any model runs; ``skip`` scores the good lines and writes the bad
#: ones, counted and logged, to ``rejected.jsonl``.
BAD_RECORDS = ("error", "skip")
#: The one default of every front end: refuse a file with a bad line.
DEFAULT_BAD_RECORDS = "error"


def check_bad_records(policy: str) -> str:
    """`policy` when it is a known ``--bad-records`` policy (``error``, ``skip``); a `ValueError` otherwise."""
    if policy not in BAD_RECORDS:
        raise ValueError(f"unknown bad-records policy {policy!r}; choose one of {list(BAD_RECORDS)}")
    return policy


def malformed_records(path: str | Path, problems: Sequence[tuple[int, str]]) -> str:
    """The error text naming a file's malformed lines, (line number, problem) each: the first
    `MAX_LISTED_PROBLEMS` as ``FILE:LINE: problem``, then how many more (formatted only as listed: a file may have
    hundreds of thousands)."""
    listed = "\n  ".join(f"{line_ref(path, number)}: {problem}" for number, problem in problems[:MAX_LISTED_PROBLEMS])
    more = f"\n  ... and {len(problems) - MAX_LISTED_PROBLEMS} more" if len(problems) > MAX_LISTED_PROBLEMS else ""
    return f"{path}: {len(problems)} malformed prediction record(s):\n  {listed}{more}"


def rejected_lines_text(path: str | Path, rejected: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a report prints of a file's rejected lines: the first `MAX_LISTED_PROBLEMS` as ``rejected: FILE:LINE:
    problem``, then how many more (all of them are in ``rejected.jsonl``)."""
    lines = [f"rejected: {line_ref(path, item['line'])}: {item['problem']}" for item in rejected[:MAX_LISTED_PROBLEMS]]
    if len(rejected) > MAX_LISTED_PROBLEMS:
        lines.append(f"rejected: ... and {len(rejected) - MAX_LISTED_PROBLEMS} more lines (all in rejected.jsonl)")
    return lines


def rejected_line(item: Mapping[str, Any]) -> dict[str, Any]:
    """A rejected line as a summary lists it: its line number and its problem (not its text)."""
    return {"line": item["line"], "problem": item["problem"]}


def write_rejected(out_dir: Path, rejected: Sequence[Mapping[str, Any]]) -> Path | None:
    """``rejected.jsonl`` in `out_dir` with the rejected lines (its path), or no such file when there are none: a
    stale one from an earlier run would mislead."""
    path = out_dir / "rejected.jsonl"
    if not rejected:
        path.unlink(missing_ok=True)
        return None
    path.write_text("".join(json.dumps(dict(item), ensure_ascii=False) + "\n" for item in rejected), encoding="utf-8")
    return path


def reject_or_keep(path: str | Path, rejected: Sequence[dict[str, Any]], policy: str) -> None:
    """Raise for `rejected` lines under the ``error`` policy (every line counted, the first `MAX_LISTED_PROBLEMS`
    named); log the first of them and a count under ``skip``."""
    check_bad_records(policy)
    if not rejected:
        return
    if policy == "error":
        problems = [(item["line"], item["problem"]) for item in rejected]
        raise ValueError(malformed_records(path, problems) + "\n(fix them, or pass --bad-records skip to score the "
                         "good lines and list these in rejected.jsonl)")
    for item in rejected[:MAX_LISTED_PROBLEMS]:
        logger.warning("%s: %s (not scored; written to rejected.jsonl)", line_ref(path, item["line"]), item["problem"])
    if len(rejected) > MAX_LISTED_PROBLEMS:  # a file of 300,000 bad lines must not print 300,000 warnings
        logger.warning("%s: ... and %d more lines not scored (every one in rejected.jsonl)", path,
                       len(rejected) - MAX_LISTED_PROBLEMS)


#: A benchmark's own check of one well-formed record (e.g. RWGBench: its cited doc_ids are in the corpus): why the
#: record cannot be scored, or None. It runs while the file is read, so its problem is named ``FILE:LINE``.
RecordCheck = Callable[[dict[str, Any]], str | None]


@dataclass(frozen=True)
class ReadPredictions:
    """A prediction file's records, its rejected lines (``{line, problem, content}``) and the paper_ids predicted
    again with the same content (counted once, listed so that a join report can say so)."""

    records: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    repeated: list[str]


def read_system(source: str | Path | SystemPredictions, *, text_is: str = "the generated related-work section",
                candidates: bool = True, bad_records: str = DEFAULT_BAD_RECORDS, check: RecordCheck | None = None
                ) -> ReadPredictions:
    """The one reader of a system's predictions, and the one owner of the duplicate-paper rule: a paper_id seen
    again with the same prediction counts once (listed in ``repeated``); seen again with a different one, the
    later line is rejected (the first is scored). A malformed record, or one `check` refuses, is rejected.

    Under `bad_records` ``error`` any rejected line raises, naming every one (conflicting duplicates grouped by
    paper with all their lines); under ``skip`` they are logged and returned."""
    check_bad_records(bad_records)
    source = as_predictions(source)
    records: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    repeated: list[str] = []
    first_line: dict[str, tuple[int, str]] = {}
    conflicts: dict[str, list[int]] = {}
    for number, line, record, problem in source.lines():
        problem = problem or record_problem(record, text_is=text_is, candidates=candidates, check=check)
        if problem is None:
            content = json.dumps([record["text"], record.get("candidates") if candidates else None])
            if record["paper_id"] in first_line:
                seen_line, seen = first_line[record["paper_id"]]
                if seen == content:
                    if record["paper_id"] not in repeated:
                        repeated.append(record["paper_id"])
                    continue
                conflicts.setdefault(record["paper_id"], [seen_line]).append(number)
                problem = (f"(paper_id {record['paper_id']!r}) already predicted on line {seen_line} with a different "
                           "prediction; the first is scored")
        if problem:
            rejected.append({"line": number, "problem": problem, "content": line.rstrip("\n")})
            continue
        first_line[record["paper_id"]] = (number, content)
        records.append(record)
    if not records and not rejected:
        raise ValueError(empty_file(source.origin))
    if bad_records == "error" and conflicts and len(rejected) == sum(len(lines) - 1 for lines in conflicts.values()):
        where = "; ".join(f"{pid!r} on lines {', '.join(map(str, lines))}" for pid, lines in list(conflicts.items())[:5])
        raise ValueError(f"{source.origin}: {len(conflicts)} paper_id(s) have several different predictions: {where}; "
                         "keep one record per paper")
    reject_or_keep(source.origin, rejected, bad_records)
    return ReadPredictions(records, rejected, repeated)


def read_prediction_records(path: str | Path | SystemPredictions, *, text_is: str = "the generated related-work section",
                            candidates: bool = True, bad_records: str = DEFAULT_BAD_RECORDS,
                            check: RecordCheck | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(records, rejected) of a prediction file (`read_system`, without the repeated ids)."""
    read = read_system(path, text_is=text_is, candidates=candidates, bad_records=bad_records, check=check)
    return read.records, read.rejected


def empty_file(path: str | Path) -> str:
    """The message for a prediction file with no line at all (blank lines aside)."""
    return f"{path}: the file is empty: no prediction line (was the generation run, and did it write here?)"


def read_predictions(path: str | Path | SystemPredictions, check: RecordCheck | None = None) -> list[dict[str, Any]]:
    """The records of a JSON Lines prediction file, every line as it is (a strict read, for publishing a file as
    it is; scoring reads with `read_system`); a `ValueError` lists every malformed line and field (and every record
    `check` refuses), each named ``FILE:LINE``."""
    records, problems = [], []
    for number, _, record, problem in json_lines(path):
        problem = problem or record_problem(record, check=check)
        if problem:
            problems.append((number, problem))
        else:
            records.append(record)
    origin = as_predictions(path).origin
    if not records and not problems:
        raise ValueError(empty_file(origin))
    if problems:
        raise ValueError(malformed_records(origin, problems))
    return records


def record_problem(record: Any, text_is: str = "the generated related-work section",
                   candidates: bool = True, check: RecordCheck | None = None) -> str | None:
    """What is wrong with one prediction record (naming the field), or None. `text_is` says what `text` holds;
    `candidates` whether the record must carry its candidate doc_ids (RWGBench) or not (SciIG); `check`, the
    benchmark's own test of a well-formed record."""
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    if "cost_source" in record and "purpose" in record and "text" not in record and "pred" not in record:
        return "a usage-ledger line (usage.jsonl, what each request cost), not a prediction: pass the output file"
    paper_id = record.get("paper_id")
    if not isinstance(paper_id, str) or not paper_id.strip():
        return "field 'paper_id' must be a non-empty string"
    if not isinstance(record.get("text"), str):
        return f"(paper_id {paper_id!r}) field 'text' (or 'pred') must be a string ({text_is})"
    if candidates:
        ids = record.get("candidates")
        if not isinstance(ids, list) or not all(isinstance(c, str) for c in ids):
            return f"(paper_id {paper_id!r}) field 'candidates' must be a list of doc_id strings"
    return check(record) if check is not None else None


@dataclass
class JoinReport:
    """How predictions matched the split's papers by paper_id."""

    matched: list[tuple[int, int]]  # (prediction index, paper index), in the split's order
    missing: list[str]  # papers of the split without a prediction
    extra: list[str]  # predictions for papers the split does not hold
    duplicates: list[str]  # paper_ids predicted more than once (the first prediction is used)

    def summary(self) -> dict[str, int]:
        """The join's counts: matched, missing, extra and duplicate paper_ids."""
        return {"n_matched": len(self.matched), "n_missing": len(self.missing), "n_extra": len(self.extra),
                "n_duplicates": len(self.duplicates)}


def join_by_paper_id(prediction_ids: Sequence[str], paper_ids: Sequence[str]) -> JoinReport:
    """Match predictions to papers by id, never by position; report what does not match."""
    first: dict[str, int] = {}
    duplicates: list[str] = []
    for i, pid in enumerate(prediction_ids):
        if pid in first:
            if pid not in duplicates:
                duplicates.append(pid)
        else:
            first[pid] = i
    in_split = set(paper_ids)
    matched = [(first[pid], j) for j, pid in enumerate(paper_ids) if pid in first]
    missing = [pid for pid in paper_ids if pid not in first]
    extra = [pid for pid in first if pid not in in_split]
    return JoinReport(matched, missing, extra, duplicates)


def papers_by_id(paper_ids: Sequence[str], papers: Any, field: str = "references") -> list[dict[str, Any]]:
    """The records of `papers` (a list or a `datasets.Dataset`) for each id in `paper_ids`, in that order; an id
    not among them is a `ValueError` naming `field` (the argument that carried the ids)."""
    papers = papers.to_list() if hasattr(papers, "to_list") else list(papers)
    index_of = {p["paper_id"]: j for j, p in enumerate(papers)}
    unknown = [pid for pid in paper_ids if pid not in index_of]
    if unknown:
        raise ValueError(f"field {field!r}: paper_id(s) not among `papers`: {unknown[:5]}")
    return [papers[index_of[pid]] for pid in paper_ids]
