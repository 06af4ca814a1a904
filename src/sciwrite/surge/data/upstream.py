"""`sciwrite build surge`: SurGE's released files (``surveys.json``, ``queries.json``, ``corpus.json``, field names as
its README documents them) as a dataset folder that `load_dataset` reads.

The corpus is read and assembled as RWGBench's is (`sciwrite.sources.corpus`, shared: the same reader of SurGE's
``corpus.json``, duplicate titles merged into the first record, every skip counted), so one corpus folder serves
both benchmarks. A survey's ``all_cites`` and a query's ``cites`` follow those merges (a doc_id merged away is
replaced by the one kept). Each survey's ``text``, the expert survey as Markdown, is rendered from its tree, its
queries' cites and their corpus titles (`sciwrite.surge.data.expert`).

Every problem of the surveys and queries (a missing field, a cited id not in the corpus, a malformed
``structure``) is collected, each as one line naming the file, the record and the field, and the build stops with
all of them: nothing is written from files that disagree with each other.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datasets import Dataset
from tqdm.auto import tqdm

from sciwrite.core.datasets import write_json
from sciwrite.core.errors import InputError, Where
from sciwrite.sources.bibliography import parse_authors, parse_year
from sciwrite.sources.corpus import AssemblyReport, assemble_corpus, read_surge_corpus
from sciwrite.surge.data.card import upstream_card
from sciwrite.surge.data.configs import UPSTREAM_FILES_URL, card_configs_yaml, write_dataset_folder
from sciwrite.surge.data.expert import with_expert_texts
from sciwrite.surge.data.schema import CORPUS_FEATURES, SURVEY_FEATURES

logger = logging.getLogger(__name__)

#: The fields a survey record must carry (SurGE's README: survey_id, survey_title, structure, all_cites; the
#: others are read when present).
REQUIRED_SURVEY_FIELDS = ("survey_id", "survey_title", "structure", "all_cites")
REQUIRED_QUERY_FIELDS = ("original_id", "cites")
REQUIRED_SECTION_FIELDS = ("id", "title", "content")
#: How many problems the error lists before it says how many more there are.
SHOWN_PROBLEMS = 20
REPORT_FILE = "build_report.json"


@dataclass
class UpstreamBuild:
    """What the build read, kept and redirected; `problems` are the lines of the error when there are any."""

    n_surveys: int = 0
    n_queries: int = 0
    n_queries_unplaced: int = 0
    problems: list[str] = field(default_factory=list)
    corpus: AssemblyReport | None = None

    def problem(self, path: Path, record: str, where: str, what: str) -> None:
        self.problems.append(f"{Where(path, record=record, field=where)}: {what}")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _id(value: Any) -> str:
    """An id as text: SurGE writes ints (doc_id 1086990) and strings (section uuids) alike."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return _text(value)


def _read_array(path: Path) -> list[Any]:
    try:
        with path.open(encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})",
                         Where(path, err.lineno)) from err
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", Where(path)) from err
    if not isinstance(data, list):
        raise InputError(f"expected a JSON array of records, found a JSON {type(data).__name__}", Where(path))
    return data


def _structure(path: Path, record: str, sections: Any, build: UpstreamBuild) -> list[dict[str, str]]:
    """A survey's ``structure`` as sections, each problem noted: not a list, a section without id/title/content,
    an id used twice, a parent_id that names no section, no root."""
    if not isinstance(sections, list):
        build.problem(path, record, "structure", f"expected a list of sections, found {type(sections).__name__}")
        return []
    out: list[dict[str, str]] = []
    for i, section in enumerate(sections):
        if not isinstance(section, Mapping):
            build.problem(path, record, f"structure[{i}]", "not an object")
            continue
        missing = [name for name in REQUIRED_SECTION_FIELDS if name not in section]
        if missing:
            build.problem(path, record, f"structure[{i}]", f"missing {', '.join(missing)}")
            continue
        parent = section.get("parent_id")
        out.append({"id": _id(section["id"]), "parent_id": "" if parent in (None, -1, "-1") else _id(parent),
                    "title": _text(section["title"]), "content": _text(section["content"])})
    ids = [s["id"] for s in out]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        build.problem(path, record, "structure", f"section id(s) used twice: {duplicated[:5]}")
    for i, section in enumerate(out):
        if section["parent_id"] and section["parent_id"] not in ids:
            build.problem(path, record, f"structure[{i}].parent_id",
                          f"{section['parent_id']!r} names no section of this survey")
    if out and not any(s["title"] == "root" for s in out):
        build.problem(path, record, "structure", "no section titled 'root' (SurGE's tree starts at one)")
    return out


def _cites(path: Path, record: str, where: str, cites: Any, corpus_ids: set[str], redirects: Mapping[str, str],
           build: UpstreamBuild) -> list[str]:
    if not isinstance(cites, list):
        build.problem(path, record, where, f"expected a list of corpus doc_ids, found {type(cites).__name__}")
        return []
    out = []
    for i, cite in enumerate(cites):
        doc_id = redirects.get(_id(cite), _id(cite))
        if doc_id not in corpus_ids:
            build.problem(path, record, f"{where}[{i}]", f"doc_id {_id(cite)!r} is not in the corpus")
            continue
        out.append(doc_id)
    # a paper and its merged-away duplicate both cited are one cited paper (Coverage counts each gold cite)
    return list(dict.fromkeys(out))


def read_surveys(path: Path, corpus_ids: set[str], redirects: Mapping[str, str],
                 build: UpstreamBuild) -> list[dict[str, Any]]:
    """SurGE's surveys.json as survey records (their ``queries`` empty until `attach_queries`)."""
    surveys = []
    for n, raw in enumerate(_read_array(path)):
        record = f"#{n}"
        if not isinstance(raw, Mapping):
            build.problem(path, record, "", "not an object")
            continue
        record = f"survey_id={_id(raw.get('survey_id'))}" if raw.get("survey_id") is not None else record
        missing = [name for name in REQUIRED_SURVEY_FIELDS if name not in raw]
        if missing:
            for name in missing:
                build.problem(path, record, name, "missing")
            continue
        surveys.append({
            "paper_id": _id(raw["survey_id"]),
            "title": _text(raw["survey_title"]),
            "authors": parse_authors(raw.get("authors")),
            "year": parse_year(raw.get("year")) or parse_year(raw.get("date")),
            "date": _text(raw.get("date")),
            "category": _text(raw.get("category")),
            "abstract": _text(raw.get("abstract")),
            "structure": _structure(path, record, raw["structure"], build),
            "all_cites": _cites(path, record, "all_cites", raw["all_cites"], corpus_ids, redirects, build),
            "queries": [],
        })
    build.n_surveys = len(surveys)
    return surveys


def attach_queries(path: Path, surveys: list[dict[str, Any]], corpus_ids: set[str], redirects: Mapping[str, str],
                   build: UpstreamBuild) -> None:
    """Each entry of SurGE's queries.json under the survey whose section it comes from (``original_id``)."""
    survey_of_section = {section["id"]: survey for survey in surveys for section in survey["structure"]}
    for n, raw in enumerate(_read_array(path)):
        record = f"query_id={_id(raw.get('query_id'))}" if isinstance(raw, Mapping) else f"#{n}"
        if not isinstance(raw, Mapping):
            build.problem(path, record, "", "not an object")
            continue
        missing = [name for name in REQUIRED_QUERY_FIELDS if name not in raw]
        if missing:
            for name in missing:
                build.problem(path, record, name, "missing")
            continue
        survey = survey_of_section.get(_id(raw["original_id"]))
        if survey is None:
            build.n_queries_unplaced += 1
            build.problem(path, record, "original_id", f"{_id(raw['original_id'])!r} is no section of any survey")
            continue
        titles = raw.get("prefix_titles") or []
        survey["queries"].append({
            "query_id": _id(raw.get("query_id")),
            "section_id": _id(raw["original_id"]),
            "prefix_titles": [_text(t[-1]) if isinstance(t, list) and t else _text(t) for t in titles],
            "query": _text(raw.get("prefix_titles_query")),
            "cites": _cites(path, record, "cites", raw["cites"], corpus_ids, redirects, build),
        })
        build.n_queries += 1


def build_surge_folder(surveys: str | Path, queries: str | Path | None, corpus: str | Path, out: str | Path,
                       show_progress: bool = True) -> dict[str, Any]:
    """Read SurGE's three files, check them against each other and write the ``surveys`` and ``corpus`` configs
    to `out` with a card and ``build_report.json``; returns the report's figures.

    Raises:
        InputError: A file is missing or not JSON, or its records have problems (all of them listed, one line
            each, naming the file, the record and the field); nothing is written then.
    """
    surveys_path, corpus_path = Path(surveys), Path(corpus)
    queries_path = Path(queries) if queries else None
    for path in (surveys_path, corpus_path, *([queries_path] if queries_path else [])):
        if not path.is_file():
            raise InputError("no such file", Where(path), hint=f"download SurGE's data folder ({UPSTREAM_FILES_URL})")
    build = UpstreamBuild()
    records: Iterable[dict[str, Any]] = read_surge_corpus(corpus_path)
    rows, build.corpus = assemble_corpus(tqdm(records, desc="reading corpus.json", unit=" records",
                                              disable=not show_progress))
    corpus_ids = {row["doc_id"] for row in rows}
    survey_records = read_surveys(surveys_path, corpus_ids, build.corpus.redirects, build)
    if queries_path is not None:
        attach_queries(queries_path, survey_records, corpus_ids, build.corpus.redirects, build)
    for path, kept in ((surveys_path, survey_records), (corpus_path, rows)):
        if not kept and not build.problems:  # an empty array: `datasets` cannot write (or read back) zero rows
            build.problems.append(f"{Where(path)}: no usable record")
    if build.problems:
        shown = "\n  ".join(build.problems[:SHOWN_PROBLEMS])
        more = len(build.problems) - SHOWN_PROBLEMS
        raise InputError(f"{len(build.problems)} problem(s) in SurGE's files; nothing was written:\n  {shown}"
                         + (f"\n  ... and {more} more" if more > 0 else ""))
    figures = {"surveys": build.n_surveys, "queries": build.n_queries, "corpus_documents": len(rows),
               "corpus_records_read": build.corpus.n_in, "corpus_skipped": dict(build.corpus.counts)}
    with_expert_texts(survey_records, rows)  # the expert survey as Markdown, its titles from the corpus
    tables = {"surveys": Dataset.from_list(survey_records, features=SURVEY_FEATURES),
              "corpus": Dataset.from_list(rows, features=CORPUS_FEATURES)}
    folder = write_dataset_folder(out, tables, upstream_card(card_configs_yaml(list(tables)), figures))
    write_json(folder / REPORT_FILE, {"figures": figures, "corpus_examples": build.corpus.examples,
                                      "redirects": build.corpus.redirects})
    logger.info("wrote SurGE to %s", folder)
    return figures


__all__ = ["REPORT_FILE", "UpstreamBuild", "attach_queries", "build_surge_folder", "read_surveys"]
