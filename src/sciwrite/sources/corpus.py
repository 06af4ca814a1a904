"""A benchmark's corpus of papers: its features, the readers of its sources, its assembly, its title index.

Every corpus row has the same features (`CORPUS_FEATURES`). The readers turn a source into such rows (SurGE's
`corpus.json`, arXiv records); `assemble_corpus` merges record streams into one deduplicated corpus (a corpus may be
SurGE's plus arXiv records fetched for cited papers it lacks, or the works an offline sample's bibliographies list),
and `CorpusTitleIndex` aligns cited titles to it. Every record that does not make it into the corpus is counted by
reason in an `AssemblyReport`, so that nothing is dropped silently.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from datasets import Dataset, Features, Sequence, Value

from sciwrite.core.jsonl import iter_json_lines
from sciwrite.sources.bibliography import parse_authors, parse_year
from sciwrite.sources.titles import normalize_title

logger = logging.getLogger(__name__)

CORPUS_FEATURES = Features(
    {
        "doc_id": Value("string"),
        "title": Value("string"),
        "abstract": Value("string"),
        "authors": Sequence(Value("string")),
        "year": Value("int32"),
        "source": Value("string"),
    }
)
"""The corpus documents' features: what a prediction cites (`doc_id`) and what retrieval indexes."""

_ARXIV_PREFIX = re.compile(r"^(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _first(record: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if record.get(key) is not None:
            return record[key]
    return None


# ---------------------------------------------------------------- readers


def _iter_json_records(path: str | Path) -> Iterator[Any]:
    """Records of a JSON array file (streamed with ijson when installed) or of a JSON Lines file."""
    path = Path(path)
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        yield from _iter_json_array(path)
        return
    for lineno, _, record, problem in iter_json_lines(path):
        if problem is not None:
            raise ValueError(f"{path}:{lineno}: not a JSON array nor valid JSON Lines ({problem})")
        yield record


def _iter_json_array(path: Path) -> Iterator[Any]:
    try:
        import ijson  # optional: streams a 1M-record array without loading it whole
    except ImportError:
        with path.open("r", encoding="utf-8-sig") as fh:
            yield from json.load(fh)
        return
    with path.open("rb") as fh:
        yield from ijson.items(fh, "item", use_float=True)


def read_surge_corpus(path: str | Path) -> Iterator[dict[str, Any]]:
    """Corpus rows (`source="surge"`) from SurGE's `corpus.json` (JSON array or JSON Lines).

    SurGE fields: doc_id, Title, Authors, Year, Date, Abstract, Category. `Year` falls back to `Date`;
    `Category` has no place in the schema. Non-object entries are passed through for
    `assemble_corpus` to count as malformed.
    """
    for record in _iter_json_records(path):
        if not isinstance(record, Mapping):
            yield {"_malformed": record}
            continue
        doc_id = _first(record, "doc_id", "docid", "id")
        yield {
            "doc_id": _text(doc_id),
            "title": _text(_first(record, "Title", "title")),
            "abstract": _text(_first(record, "Abstract", "abstract")),
            "authors": parse_authors(_first(record, "Authors", "authors")),
            "year": parse_year(_first(record, "Year", "year")) or parse_year(_first(record, "Date", "date")),
            "source": "surge",
        }


def arxiv_doc_id(arxiv_id: Any) -> str:
    """'arxiv:<id>' with any URL or 'arXiv:' prefix and version suffix removed ('' for no id)."""
    raw = _ARXIV_PREFIX.sub("", _text(arxiv_id))
    raw = _ARXIV_VERSION.sub("", raw)
    return f"arxiv:{raw}" if raw else ""


def read_arxiv_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Corpus rows (`doc_id="arxiv:<id>"`, `source="arxiv"`) from arXiv records in JSON Lines.

    Fields: `id` or `arxiv_id`, title, abstract (or summary), authors (list or string),
    `year` or a `published` date.
    """
    for record in _iter_json_records(path):
        if not isinstance(record, Mapping):
            yield {"_malformed": record}
            continue
        yield {
            "doc_id": arxiv_doc_id(_first(record, "arxiv_id", "id")),
            "title": " ".join(_text(record.get("title")).split()),
            "abstract": " ".join(_text(_first(record, "abstract", "summary")).split()),
            "authors": parse_authors(record.get("authors")),
            "year": parse_year(record.get("year")) or parse_year(record.get("published")),
            "source": "arxiv",
        }


# ---------------------------------------------------------------- assembly


@dataclass
class AssemblyReport:
    """What `assemble_corpus` did with each input record: kept, merged or skipped, by reason."""

    n_in: int = 0
    n_out: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    # doc_id of a record merged away as a duplicate title -> doc_id of the record it was merged into.
    redirects: dict[str, str] = field(default_factory=dict)
    max_examples: int = 5

    def add(self, reason: str, example: str) -> None:
        """Count one record under `reason`, keeping the first few `example` ids."""
        self.counts[reason] = self.counts.get(reason, 0) + 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < self.max_examples:
            shown.append(example)

    def summary(self) -> str:
        """One line per reason, after the in/out totals."""
        lines = [f"corpus assembly: {self.n_in} records in, {self.n_out} out"]
        for reason in sorted(self.counts):
            lines.append(f"  {reason}: {self.counts[reason]} (e.g. {', '.join(self.examples[reason])})")
        return "\n".join(lines)


def _coerce_row(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "doc_id": _text(record.get("doc_id")),
        "title": _text(record.get("title")),
        "abstract": _text(record.get("abstract")),
        "authors": parse_authors(record.get("authors")),
        "year": parse_year(record.get("year")),
        "source": _text(record.get("source")) or "unknown",
    }


def assemble_corpus(
    *record_iterables: Iterable[Mapping[str, Any]], log: logging.Logger | None = None
) -> tuple[list[dict[str, Any]], AssemblyReport]:
    """Merge record streams (earlier ones take precedence) into one corpus with unique doc_ids and titles.

    Skipped and counted: non-objects ("malformed"), no usable title ("no-title"), no doc_id
    ("no-doc_id"), a doc_id seen before ("duplicate-doc_id", first kept). A record whose normalised
    title was seen before is merged into the first ("duplicate-title"): the first record's empty
    abstract, authors or year are filled from it, and `report.redirects` maps its doc_id to the kept one.
    """
    log = log or logger
    report = AssemblyReport()
    rows: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    row_of_title: dict[str, int] = {}
    for records in record_iterables:
        for record in records:
            report.n_in += 1
            if not isinstance(record, Mapping) or "_malformed" in record:
                report.add("malformed", f"#{report.n_in}")
                log.debug("skipping malformed record #%d", report.n_in)
                continue
            row = _coerce_row(record)
            key = normalize_title(row["title"])
            if not key:
                report.add("no-title", row["doc_id"] or f"#{report.n_in}")
                log.debug("skipping record %r: no title", row["doc_id"])
                continue
            if not row["doc_id"]:
                report.add("no-doc_id", row["title"][:80])
                log.debug("skipping record titled %r: no doc_id", row["title"])
                continue
            if row["doc_id"] in seen_ids:
                report.add("duplicate-doc_id", row["doc_id"])
                log.debug("skipping record %r: duplicate doc_id", row["doc_id"])
                continue
            seen_ids.add(row["doc_id"])
            if key in row_of_title:
                kept = rows[row_of_title[key]]
                for name in ("abstract", "authors", "year"):
                    if not kept[name] and row[name]:
                        kept[name] = row[name]
                report.add("duplicate-title", row["doc_id"])
                report.redirects[row["doc_id"]] = kept["doc_id"]
                log.debug("merging record %r into %r: same title", row["doc_id"], kept["doc_id"])
                continue
            row_of_title[key] = len(rows)
            rows.append(row)
    report.n_out = len(rows)
    if report.counts:
        log.info("%s", report.summary())
    return rows, report


# ---------------------------------------------------------------- title index


@dataclass
class Alignment:
    """Corpus doc_id (or None) per title, and the share of titles aligned."""

    doc_ids: list[str | None]

    @property
    def n_total(self) -> int:
        return len(self.doc_ids)

    @property
    def n_aligned(self) -> int:
        return sum(d is not None for d in self.doc_ids)

    @property
    def coverage(self) -> float:
        """Aligned / total; 1.0 when there is nothing to align."""
        return self.n_aligned / self.n_total if self.doc_ids else 1.0

    @property
    def unaligned(self) -> list[int]:
        """Positions of the titles that found no corpus record."""
        return [i for i, d in enumerate(self.doc_ids) if d is None]


# Title-in-text linking: a corpus title is only looked for inside a bibliography entry's text when it
# has at least this many normalised tokens (shorter titles such as "Layer normalization" occur inside
# too many other entries), and candidates are found through their first `_KEY_TOKENS` tokens.
MIN_TITLE_TOKENS_IN_TEXT = 4
_KEY_TOKENS = 3


@dataclass(frozen=True)
class TitleMatch:
    """A corpus title found inside a text: its doc_id, normalised title and length in tokens."""

    doc_id: str
    title: str
    n_tokens: int


class CorpusTitleIndex:
    """Normalised title -> corpus doc_id, for aligning cited titles to the corpus.

    Built from rows or a `Dataset` with doc_id and title columns. Should two doc_ids share a
    normalised title (possible only for an unassembled corpus), the first is kept and the clash is
    counted in `n_ambiguous` (examples in `ambiguous_examples`).

    `find_in_text` links a free-text bibliography entry to the corpus style-independently: it returns
    the longest corpus title (of at least `min_tokens` normalised tokens) that occurs, on token
    boundaries, inside the normalised entry text. Candidates come from an index of titles by their
    first three tokens, built on first use, so an entry costs one dictionary probe per token position
    plus a prefix check per candidate, never a pass over the corpus.
    """

    def __init__(self, corpus: Dataset | Iterable[Mapping[str, Any]], batch_size: int = 10_000,
                 min_tokens: int = MIN_TITLE_TOKENS_IN_TEXT) -> None:
        if min_tokens < _KEY_TOKENS:
            raise ValueError(f"min_tokens must be at least {_KEY_TOKENS}, got {min_tokens}")
        self.min_tokens = min_tokens
        self._doc_id_of: dict[str, str] = {}
        self._by_prefix: dict[str, list[str]] | None = None
        self.n_ambiguous = 0
        self.ambiguous_examples: list[tuple[str, str]] = []
        if isinstance(corpus, Dataset):
            for batch in corpus.select_columns(["doc_id", "title"]).iter(batch_size=batch_size):
                for doc_id, title in zip(batch["doc_id"], batch["title"]):
                    self._add(doc_id, title)
        else:
            for row in corpus:
                self._add(row.get("doc_id"), row.get("title"))
        if self.n_ambiguous:
            logger.warning(
                "%d corpus titles map to more than one doc_id; kept the first (e.g. %s)",
                self.n_ambiguous,
                self.ambiguous_examples[:3],
            )

    def _add(self, doc_id: Any, title: str | None) -> None:
        key = normalize_title(title)
        if not key or doc_id is None:
            return
        doc_id = str(doc_id)
        kept = self._doc_id_of.setdefault(key, doc_id)
        if kept != doc_id:
            self.n_ambiguous += 1
            if len(self.ambiguous_examples) < 5:
                self.ambiguous_examples.append((kept, doc_id))

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Index more documents (doc_id, title), such as cited works merged into the corpus after it was built."""
        for row in rows:
            self._add(row.get("doc_id"), row.get("title"))
        self._by_prefix = None  # rebuilt on the next find_in_text, with the new titles

    def __len__(self) -> int:
        return len(self._doc_id_of)

    def lookup(self, title: str | None) -> str | None:
        """The doc_id whose normalised title equals that of `title`, or None."""
        key = normalize_title(title)
        return self._doc_id_of.get(key) if key else None

    def align(self, titles: Iterable[str | None]) -> Alignment:
        """Look up every title; None titles count as unaligned."""
        return Alignment([self.lookup(t) for t in titles])

    def _prefix_index(self) -> dict[str, list[str]]:
        """First `_KEY_TOKENS` tokens -> normalised titles of at least `min_tokens` tokens (built once)."""
        if self._by_prefix is None:
            by_prefix: dict[str, list[str]] = {}
            for key in self._doc_id_of:
                tokens = key.split(" ")
                if len(tokens) >= self.min_tokens:
                    by_prefix.setdefault(" ".join(tokens[:_KEY_TOKENS]), []).append(key)
            self._by_prefix = by_prefix
        return self._by_prefix

    def find_in_text(self, text: str | None) -> TitleMatch | None:
        """The longest corpus title contained in `text` (both normalised, on token boundaries), or None.

        Titles shorter than `min_tokens` tokens are never matched. Ties in length go to the title that
        starts first in the text.
        """
        normalized = normalize_title(text)
        if not normalized:
            return None
        by_prefix = self._prefix_index()
        tokens = normalized.split(" ")
        starts = []
        offset = 0
        for token in tokens:
            starts.append(offset)
            offset += len(token) + 1
        best: str | None = None
        for i in range(len(tokens) - self.min_tokens + 1):
            candidates = by_prefix.get(" ".join(tokens[i:i + _KEY_TOKENS]))
            if not candidates:
                continue
            start = starts[i]
            for title in candidates:
                end = start + len(title)
                if (best is None or len(title) > len(best)) and normalized.startswith(title, start) and (
                    end == len(normalized) or normalized[end] == " "
                ):
                    best = title
        if best is None:
            return None
        return TitleMatch(self._doc_id_of[best], best, best.count(" ") + 1)

    def title_in_text(self, text: str | None) -> str | None:
        """The normalised corpus title `find_in_text` finds in `text`, or None (a hook for the parser)."""
        match = self.find_in_text(text)
        return match.title if match else None
