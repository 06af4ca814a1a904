r"""A local bibliographic snapshot, read into `BibRecord`s for the offline reference checker, and cached.

A snapshot is a file the user gives, its format told by its suffix:

- JSON Lines (``.jsonl``, ``.ndjson``, either ``.gz``): HALLMARK's entry shape (``bibtex_key``, ``bibtex_type``,
  ``fields`` with BibTeX field names) or a flat line (``title``, ``authors``, ``year``, ``venue``, ``doi``,
  ``arxiv_id``, ``id``). A HALLMARK line labelled other than ``VALID`` (a hallucinated entry) is skipped and counted.
- BibTeX (``.bib``), read by bibtexparser with LaTeX decoded (``{\"o}`` -> ``ö``).
- A DBLP XML dump (``.xml``, ``.xml.gz``), streamed (`sciwrite.grounding.dblp_xml`).

Every record is cleaned the same way: the title without its trailing period, authors without DBLP's homonym
numbers (``Wei Wang 0001``), the year as a number, the DOI lower-cased without ``https://doi.org/`` (an arXiv
DOI without a version, as arXiv mints them), the arXiv id without its version (from an eprint field, an arXiv DOI
``10.48550/arXiv.X`` or an arxiv.org link), and the venue "" for a preprint (CoRR, arXiv, or no venue but an arXiv
id).

Bad records are not skipped silently: every one is collected, and reading raises one `ValueError` naming each
(``FILE:LINE (key K): field 'title' ...``, the first 20 and how many more), so one run shows all there is to fix.

`load_snapshot` reads a snapshot once and keeps the records in a pickle under ``cache_root()/snapshots``, keyed by
the file's resolved path, size and modification time: a changed file is read again.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import logging
import os
import pickle
import re
import tempfile
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware
from bibtexparser.model import ParsingFailedBlock
from lxml import etree
from tqdm.auto import tqdm

from sciwrite.core.jsonl import parse_json_lines
from sciwrite.core.paths import cache_root
from sciwrite.grounding.dblp_xml import DblpEntry, iter_dblp_entries
from sciwrite.sources.bib_record import BibRecord

log = logging.getLogger(__name__)

JSONL, BIBTEX, DBLP_XML = "jsonl", "bibtex", "dblp-xml"
#: Suffixes read, and the format each names.
FORMATS: dict[str, str] = {".jsonl": JSONL, ".ndjson": JSONL, ".jsonl.gz": JSONL, ".ndjson.gz": JSONL,
                           ".bib": BIBTEX, ".xml": DBLP_XML, ".xml.gz": DBLP_XML}
MAX_LISTED_PROBLEMS = 20
#: Part of every cache key: raise it when the records read from a file change, so old pickles are not reused.
CACHE_VERSION = 1

_HOMONYM = re.compile(r"\s+\d{4}$")
_AND = re.compile(r"\s+and\s+")
_YEAR = re.compile(r"\s*(\d{4})")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_DOI_IN_LINK = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+)$", re.I)
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_BARE = re.compile(rf"^(?:arxiv:\s*)?{_ARXIV_ID}$", re.I)
_ARXIV_DOI = re.compile(rf"^10\.48550/arxiv\.{_ARXIV_ID}$", re.I)
_ARXIV_LINK = re.compile(rf"arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}(?:\.pdf)?/?$", re.I)
_PREPRINT_VENUE = re.compile(r"^(?:corr|arxiv)\b", re.I)


@dataclass(frozen=True)
class Snapshot:
    """The records of one snapshot file.

    Attributes:
        path: The file.
        records: Its records, in file order.
        skipped: Why records were left out, and how many for each reason (``www``, ``proceedings``,
            ``no title`` for a DBLP dump; ``label HALLUCINATED`` for a HALLMARK file).
        format: ``jsonl``, ``bibtex`` or ``dblp-xml``.
    """

    path: Path
    records: tuple[BibRecord, ...]
    skipped: Mapping[str, int]
    format: str


def snapshot_format(path: str | Path) -> str:
    """The format a snapshot's suffix names; a `ValueError` listing the accepted suffixes for any other."""
    name = Path(path).name.lower()
    for suffix, kind in sorted(FORMATS.items(), key=lambda item: -len(item[0])):
        if name.endswith(suffix):
            return kind
    accepted = ", ".join(FORMATS)
    raise ValueError(f"{path}: not a snapshot format sciwrite reads (accepted: {accepted})")


def read_snapshot(path: str | Path, show_progress: bool = False) -> Snapshot:
    """Every record of the snapshot at `path` (see the module's docstring for the formats).

    Raises:
        FileNotFoundError: There is no such file.
        ValueError: The suffix is not one of `FORMATS`; records cannot be read (all of them named, one a line);
            the XML is not well-formed (its line and column named); the file holds no record.
    """
    path = Path(path)
    kind = snapshot_format(path)
    if not path.is_file():
        raise FileNotFoundError(f"no snapshot {path}")
    skipped: Counter[str] = Counter()
    problems: list[str] = []
    try:
        with _opened(path, show_progress) as stream:
            if kind == JSONL:
                records = _jsonl_records(path, stream, skipped, problems)
            elif kind == BIBTEX:
                records = _bibtex_records(path, stream, problems)
            else:
                records = _dblp_records(path, stream, skipped)
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:  # not gzip, or cut short
        raise ValueError(f"{path}: not a whole gzip file ({err}); unpack it or fetch it again") from None
    if problems:
        raise ValueError(_problems_message(path, problems))
    if not records:
        left = f" ({', '.join(f'{reason}: {n}' for reason, n in sorted(skipped.items()))} skipped)" if skipped else ""
        raise ValueError(f"{path}: no records in the snapshot{left}")
    return Snapshot(path=path, records=tuple(records), skipped=dict(skipped), format=kind)


def load_snapshot(path: str | Path, cache_dir: str | Path | None = None, show_progress: bool = False) -> Snapshot:
    """The snapshot at `path`, read once and then taken from a cached copy while the file is unchanged.

    The copy is a pickle in `cache_dir` (default ``cache_root()/snapshots``) named by a hash of the file's resolved
    path, size and modification time, so a changed file is read again. A cache file that cannot be read is ignored
    and rewritten; one that cannot be written leaves the snapshot read, uncached. Errors are those of `read_snapshot`.
    """
    path = Path(path)
    snapshot_format(path)
    if not path.is_file():
        raise FileNotFoundError(f"no snapshot {path}")
    folder = Path(cache_dir) if cache_dir is not None else cache_root() / "snapshots"
    cached = folder / f"{_cache_key(path)}.pickle"
    snapshot = _read_cache(cached)
    if snapshot is not None:
        return replace(snapshot, path=path)
    key = cached.stem
    snapshot = read_snapshot(path, show_progress=show_progress)
    if _cache_key(path) == key:  # not changed while it was read: a copy of what it held then would be stale
        _write_cache(cached, snapshot)
    return snapshot


# --- reading the bytes ---


class _Counting(io.RawIOBase):
    """A binary file that moves a progress bar by the bytes read from it."""

    def __init__(self, raw: io.BufferedReader, bar: Any) -> None:
        super().__init__()
        self._raw, self._bar = raw, bar

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._raw.readinto(buffer)
        self._bar.update(n)
        return n


@contextlib.contextmanager
def _opened(path: Path, show_progress: bool) -> Iterator[io.BufferedIOBase]:
    """The file's bytes, unpacked when it ends in ``.gz``; the bar counts bytes of the file as stored."""
    with (path.open("rb") as raw,
          tqdm(total=path.stat().st_size, desc=f"read {path.name}", unit="B", unit_scale=True,
               disable=not show_progress) as bar,
          io.BufferedReader(_Counting(raw, bar), buffer_size=1 << 20) as counted):
        if path.name.lower().endswith(".gz"):
            with gzip.GzipFile(fileobj=counted, mode="rb") as unpacked:
                yield unpacked
        else:
            yield counted


def _decoded(path: Path, stream: io.BufferedIOBase, problems: list[str]) -> Iterator[str]:
    """The stream's lines as text (a byte-order mark dropped); a line that is not UTF-8 is a problem, read as ""."""
    for number, raw in enumerate(stream, start=1):
        data = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
        try:
            yield data.decode("utf-8")
        except UnicodeDecodeError as err:
            problems.append(f"{path}:{number}: not UTF-8 text (byte 0x{data[err.start]:02x} at column {err.start + 1}); "
                            "save the file as UTF-8")
            yield ""


def _problems_message(path: Path, problems: Sequence[str]) -> str:
    """One problem as its line; several as a heading and the first `MAX_LISTED_PROBLEMS`, one a line."""
    if len(problems) == 1:
        return problems[0]
    listed = "\n".join(f"  {problem}" for problem in problems[:MAX_LISTED_PROBLEMS])
    more = len(problems) - MAX_LISTED_PROBLEMS
    return (f"{path}: {len(problems)} records cannot be read; fix them and read the snapshot again:\n{listed}"
            + (f"\n  ... and {more} more" if more > 0 else ""))


# --- JSON Lines ---


def _jsonl_records(path: Path, stream: io.BufferedIOBase, skipped: Counter[str], problems: list[str]) -> list[BibRecord]:
    records = []
    source = f"snapshot:{path.name}"
    for number, _, value, problem in parse_json_lines(_decoded(path, stream, problems)):
        where = f"{path}:{number}"
        if problem is not None:
            problems.append(f"{where}: {problem}")
            continue
        if not isinstance(value, dict):
            problems.append(f"{where}: not a JSON object (a snapshot line is one record: an object with a 'title')")
            continue
        hallmark = "fields" in value
        key = value.get("bibtex_key") if hallmark else value.get("id", value.get("key"))
        where += f" (key {key})" if key is not None else ""
        label = value.get("label")
        if hallmark and label is not None and label != "VALID":
            skipped[f"label {label}"] += 1
            continue
        fields = value.get("fields") if hallmark else _flat_fields(value)
        if not isinstance(fields, dict):
            problems.append(f"{where}: field 'fields' must be an object of BibTeX fields, not {type(fields).__name__}")
            continue
        entry_type = value.get("bibtex_type") if hallmark else value.get("entry_type", value.get("type"))
        try:
            records.append(_record(source, str(key) if key is not None else f"{path.name}:{number}",
                                   str(entry_type) if entry_type is not None else None, fields))
        except _FieldError as err:
            problems.append(f"{where}: {err}")
    return records


def _flat_fields(value: dict[str, Any]) -> dict[str, Any]:
    """A flat line's fields under BibTeX's names."""
    fields: dict[str, Any] = {name: value[name] for name in ("title", "year", "booktitle", "journal", "doi", "url", "eprint")
              if name in value}
    for flat, bibtex in (("authors", "author"), ("author", "author"), ("venue", "venue"), ("arxiv_id", "eprint")):
        if flat in value:
            fields[bibtex] = value[flat]
    return fields


# --- BibTeX ---


def _bibtex_records(path: Path, stream: io.BufferedIOBase, problems: list[str]) -> list[BibRecord]:
    text = "".join(_decoded(path, stream, problems)).replace("\r\n", "\n")
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.ERROR)  # its own warnings count lines from 0: each failed block is named here instead
    try:
        library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    finally:
        logger.setLevel(level)
    source = f"snapshot:{path.name}"
    records = []
    for entry in library.entries:
        fields = {name.lower(): field.value for name, field in entry.fields_dict.items()}
        try:
            records.append(_record(source, entry.key, entry.entry_type.lower(), fields))
        except _FieldError as err:
            problems.append(f"{_line(path, entry.start_line)} (key {entry.key}): {err}")
    for block in library.failed_blocks:
        problems.append(_failed_block(path, block))
    return records


def _line(path: Path, start_line: int | None) -> str:
    """``FILE:LINE`` of a block bibtexparser read (it counts lines from 0)."""
    return str(path) if start_line is None else f"{path}:{start_line + 1}"


def _failed_block(path: Path, block: ParsingFailedBlock) -> str:
    head = re.match(r"\s*@(\w+)\s*[{(]\s*([^,\s{}()]+)\s*,", block.raw or "")
    key = f" (key {head.group(2)})" if head else ""
    reason = " ".join(str(block.error or "").split()) or type(block.error).__name__
    return f"{_line(path, block.start_line)}{key}: not a BibTeX entry ({reason[:200].rstrip(' .')})"


# --- DBLP XML ---


def _dblp_records(path: Path, stream: io.BufferedIOBase, skipped: Counter[str]) -> list[BibRecord]:
    source = f"snapshot:{path.name}"
    records = []
    try:
        for entry in iter_dblp_entries(stream, skipped):
            records.append(_record(source, entry.key, entry.tag, _dblp_fields(entry)))
    except etree.XMLSyntaxError as err:
        line, column = err.position
        hint = ("; named entities such as &ouml; need the dump's <!DOCTYPE dblp SYSTEM \"dblp.dtd\">"
                if "Entity" in str(err.msg) and "not defined" in str(err.msg) else "")
        raise ValueError(f"{path}:{line}:{column}: not well-formed XML ({err.msg}){hint}") from None
    except ValueError as err:  # a root other than <dblp>
        raise ValueError(f"{path}: {err}") from None
    return records


def _dblp_fields(entry: DblpEntry) -> dict[str, Any]:
    """A DBLP record's fields under BibTeX's names; a CoRR record is a preprint (venue "")."""
    venue = entry.journal if entry.tag == "article" else entry.booktitle or entry.journal
    if entry.journal == "CoRR":
        venue = ""
    dois = [link for link in entry.ee if _DOI_IN_LINK.match(link)]
    arxiv = [link for link in entry.ee if _ARXIV_LINK.search(link)]
    return {"title": entry.title, "author": list(entry.authors), "year": entry.year, "venue": venue,
            "doi": dois[0] if dois else None, "links": arxiv, "url": f"https://dblp.org/rec/{entry.key}"}


# --- one record, cleaned ---


class _FieldError(ValueError):
    """A field of a record that cannot be read; its message starts ``field 'NAME'``."""


def _record(source: str, key: str, entry_type: str | None, fields: Mapping[str, Any]) -> BibRecord:
    """A record from its fields under BibTeX's names (``title``, ``author``, ``year``, ``booktitle``, ``journal``,
    ``doi``, ``eprint``, ``url``; ``venue`` and ``links`` where the reader already knows them)."""
    title = fields.get("title")
    if not isinstance(title, str) or not title.strip():
        raise _FieldError("field 'title' is missing or empty" if not title else
                          f"field 'title' must be text, not {type(title).__name__}")
    url = _text(fields, "url")
    doi = _doi(_text(fields, "doi"), [url] if url else [])
    links = [link for link in (*fields.get("links", ()), url) if link]
    arxiv_id = _arxiv_id(_text(fields, "eprint"), doi, links)
    if doi is not None and arxiv_id is not None and _ARXIV_DOI.match(doi):  # arXiv's DOIs name no version
        doi = f"10.48550/arxiv.{arxiv_id}"
    return BibRecord(source=source, id=key, title=_clean_title(title), authors=_authors(fields.get("author")),
                     year=_year(fields.get("year")), url=url, venue=_venue(fields, entry_type, arxiv_id), doi=doi,
                     arxiv_id=arxiv_id, entry_type=entry_type)


def _text(fields: Mapping[str, Any], name: str) -> str | None:
    value = fields.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str | int):
        raise _FieldError(f"field {name!r} must be text, not {type(value).__name__}")
    return " ".join(str(value).split()) or None


def _clean_title(title: str) -> str:
    """The title on one line, without the period DBLP ends every title with (an ellipsis is kept)."""
    text = " ".join(title.split())
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _authors(value: Any) -> tuple[str, ...]:
    """Author names from a list or a BibTeX ``A and B`` string, without homonym numbers or ``others``."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        names: list[Any] = _AND.split(value.strip())
    elif isinstance(value, list) and all(isinstance(name, str) for name in value):
        names = value
    else:
        raise _FieldError(f"field 'author' must be text (\"A and B\") or a list of names, not {value!r:.60}")
    cleaned = (_HOMONYM.sub("", " ".join(name.split())) for name in names)
    return tuple(name for name in cleaned if name and name.lower() != "others")


def _year(value: Any) -> int | None:
    """The year a field starts with (``2019``, ``"2019a"``, ``"2019--2020"``); None for one without digits."""
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise _FieldError(f"field 'year' must be a year, not {value!r:.60}")
    match = _YEAR.match(value)
    return int(match.group(1)) if match else None


def _doi(field: str | None, links: Sequence[str]) -> str | None:
    """The DOI, lower-cased, without a resolver prefix: the field's, else a doi.org link's."""
    if field:
        return _DOI_PREFIX.sub("", field).strip().lower() or None
    for link in links:
        match = _DOI_IN_LINK.match(link)
        if match:
            return match.group(1).lower()
    return None


def _arxiv_id(eprint: str | None, doi: str | None, links: Sequence[str]) -> str | None:
    """The arXiv id without its version: an eprint field's, an arXiv DOI's, or an arxiv.org link's."""
    for pattern, text in ((_ARXIV_BARE, eprint), (_ARXIV_DOI, doi), *((_ARXIV_LINK, link) for link in links)):
        match = pattern.search(text) if text else None
        if match:
            return match.group(1)
    return None


def _venue(fields: Mapping[str, Any], entry_type: str | None, arxiv_id: str | None) -> str | None:
    """Where it was published (a journal for an article, else a booktitle first); "" for a preprint."""
    if "venue" in fields:
        venue = _text(fields, "venue")
    elif entry_type == "article":
        venue = _text(fields, "journal") or _text(fields, "booktitle")
    else:
        venue = _text(fields, "booktitle") or _text(fields, "journal")
    if venue is None and fields.get("venue") == "":
        return ""
    if venue is not None and _PREPRINT_VENUE.match(venue):
        return ""
    if venue is None and arxiv_id is not None:
        return ""
    return venue


# --- the cache ---


def _cache_key(path: Path) -> str:
    stat = path.stat()
    text = f"{CACHE_VERSION}\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_cache(cached: Path) -> Snapshot | None:
    """The snapshot pickled at `cached`; None when there is none or it cannot be read (it is rewritten then)."""
    try:
        with cached.open("rb") as f:
            snapshot = pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as err:  # noqa: BLE001 - a truncated or foreign pickle raises any of a dozen error types
        log.warning("ignoring the unreadable snapshot cache %s (%s: %s)", cached, type(err).__name__, err)
        return None
    if not isinstance(snapshot, Snapshot) or not isinstance(snapshot.records, tuple):
        log.warning("ignoring the snapshot cache %s: it holds a %s", cached, type(snapshot).__name__)
        return None
    return snapshot


def _write_cache(cached: Path, snapshot: Snapshot) -> None:
    """Pickle `snapshot` to `cached` atomically (a temporary file beside it, then renamed over it)."""
    temporary = None
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=cached.parent, prefix=f".{cached.stem[:16]}-", suffix=".tmp",
                                         delete=False) as f:
            temporary = Path(f.name)
            pickle.dump(snapshot, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, cached)
    except OSError as err:
        log.warning("could not cache the snapshot at %s (%s); it will be read again next time", cached, err)
        if temporary is not None:
            temporary.unlink(missing_ok=True)


__all__ = ["BIBTEX", "CACHE_VERSION", "DBLP_XML", "FORMATS", "JSONL", "MAX_LISTED_PROBLEMS", "Snapshot",
           "load_snapshot", "read_snapshot", "snapshot_format"]
