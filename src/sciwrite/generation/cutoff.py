"""No looking ahead: the date before which a target paper's agent may see the corpus, and which corpus papers pass.
Shared by every benchmark whose agent searches a corpus; a benchmark whose targets are dated otherwise builds its own
`Cutoff`.

The cutoff of a target paper (`target_cutoff`) is, in this order:

- its ``published`` date (``YYYY-MM-DD``; the fresh arXiv splits carry the first version's): source ``published``.
  One that is not a date is the paper's error (it lands in the failures file): guessing would move the cutoff;
- its ``year``: source ``year``;
- the year its ACL Anthology id names (``2020.aacl-main.33``, ``P19-1081``; for a target without ``year``: the
  offline sample's papers now carry the year their id names): source ``paper_id (ACL Anthology id)``. Other ids
  (arXiv's ``2403.01234`` included) give no year;
- none: ``cutoff`` None, source ``none: the target has no date`` (then only the target itself is held back).

A corpus paper passes (`Cutoff.allows`) when it was published before the target: with a full date on both sides,
strictly before; otherwise by year, **the same year included** (a corpus may have only years, and a paper cites
works of its own year: excluding them would hide gold citations); a corpus paper with no date at all is kept (the
corpus does not say it is later). Its date is its ``published`` or ``date`` column (``YYYY-MM-DD``) when the corpus
has one and it reads, else its ``year``. Dates read as `sciwrite.metrics.cutoff.published_date` reads them (``evaluate
--cutoff``), years as `sciwrite.sources.bibliography.parse_year`. The target itself never passes: not by its doc_id (the target's ``paper_id``), nor as
another record with the same normalised title (`sciwrite.sources.titles.normalize_title`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sciwrite.metrics.cutoff import published_date
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.titles import normalize_title

#: The cutoff source of a target paper without any date.
NO_DATE = "none: the target has no date"
#: The cutoff source of a year read from an ACL Anthology id.
ANTHOLOGY_ID = "paper_id (ACL Anthology id)"
#: Corpus columns holding a full date, in the order they are read (before ``year``).
DATE_COLUMNS = ("published", "date")

_NEW_ANTHOLOGY_ID = re.compile(r"(\d{4})\.[a-z][a-z0-9-]*\.\d+")  # 2020.aacl-main.33
_OLD_ANTHOLOGY_ID = re.compile(r"[A-Z](\d{2})-\d{4}")  # P19-1081, W06-1672


def corpus_date(value: Any) -> dt.date | None:
    """A corpus record's date column as a date; None when it holds none, or none that reads (its year is used)."""
    try:
        return published_date(value)
    except ValueError:
        return None


def anthology_year(paper_id: Any) -> int | None:
    """The year an ACL Anthology id names: ``2020.aacl-main.33`` -> 2020, ``P19-1081`` -> 2019 (two digits: 19xx from
    60 on, as the Anthology's old ids run from 1965 to 2019); None for any other id."""
    if not isinstance(paper_id, str):
        return None
    match = _NEW_ANTHOLOGY_ID.fullmatch(paper_id)
    if match:
        return int(match.group(1))
    match = _OLD_ANTHOLOGY_ID.fullmatch(paper_id)
    if match:
        two = int(match.group(1))
        return (1900 if two >= 60 else 2000) + two
    return None


def doc_date(row: Mapping[str, Any]) -> tuple[dt.date | None, int | None]:
    """A corpus record's (full date, year): its ``published``/``date`` column when it holds a date, else its ``year``."""
    for column in DATE_COLUMNS:
        date = corpus_date(row.get(column))
        if date is not None:
            return date, date.year
    return None, parse_year(row.get("year"))


@dataclass(frozen=True)
class Cutoff:
    """What one target paper's agent may see: works published before `date` (or up to `year`), never the target."""

    paper_id: str
    title_key: str  # the target's normalised title ("" when it has none)
    date: dt.date | None
    year: int | None
    source: str

    @property
    def value(self) -> str | int | None:
        """The cutoff as the record keeps it: ``YYYY-MM-DD``, a year, or None."""
        return self.date.isoformat() if self.date is not None else self.year

    def is_target(self, doc_id: str, title: Any) -> bool:
        """Whether a corpus record is the target paper: its id, or its title once normalised."""
        return doc_id == self.paper_id or bool(self.title_key and normalize_title(title) == self.title_key)

    def before(self, row: Mapping[str, Any]) -> bool:
        """Whether a corpus record was published before the target (see the module docstring)."""
        if self.year is None:
            return True
        date, year = doc_date(row)
        if date is not None and self.date is not None:
            return date < self.date
        return year is None or year <= self.year

    def allows(self, doc_id: str, row: Mapping[str, Any]) -> bool:
        """Whether the agent may be shown this corpus record: not the target, published before it."""
        return not self.is_target(doc_id, row.get("title")) and self.before(row)


def target_cutoff(record: Mapping[str, Any]) -> Cutoff:
    """The cutoff of a target paper record (see the module docstring); a ``published`` value that is not a date is
    a ValueError naming the paper."""
    paper_id = str(record.get("paper_id") or "")
    key = normalize_title(record.get("title") if isinstance(record.get("title"), str) else None)
    try:
        date = published_date(record.get("published"))
    except ValueError as err:
        raise ValueError(f"paper {paper_id!r}, field 'published': {err}; the agent's cutoff needs it (or none)") \
            from None
    if date is not None:
        return Cutoff(paper_id, key, date, date.year, "published")
    year = parse_year(record.get("year"))
    if year is not None:
        return Cutoff(paper_id, key, None, year, "year")
    year = anthology_year(paper_id)
    if year is not None:
        return Cutoff(paper_id, key, None, year, ANTHOLOGY_ID)
    return Cutoff(paper_id, key, None, None, NO_DATE)


__all__ = ["ANTHOLOGY_ID", "DATE_COLUMNS", "NO_DATE", "Cutoff", "anthology_year", "corpus_date", "doc_date",
           "target_cutoff"]
