"""One work as a bibliographic source describes it, the same record whichever source answered: a service online
(Crossref, DBLP, Semantic Scholar, OpenAlex, arXiv), a local snapshot (HALLMARK JSON Lines, BibTeX, a DBLP XML
dump) or a benchmark's corpus. The reference checker (`sciwrite.grounding.checker`) compares a cited entry with
such records field by field."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class BibRecord:
    """A work a source knows.

    Attributes:
        source: Which source answered (``crossref``, ``dblp``, ``semantic_scholar``, ``openalex``, ``arxiv``,
            ``snapshot:FILE``, ``corpus``).
        id: Its id there (a DOI, a DBLP key, a corpus doc_id, a BibTeX key).
        title: Its title.
        authors: Author names as the source writes them, in order.
        year: Its year of publication.
        url: A link to it.
        venue: Where it was published (a booktitle or journal), as the source names it; None when unknown, and ""
            when the source says it is unpublished (a preprint).
        doi: Its DOI, without ``https://doi.org/``.
        arxiv_id: Its arXiv id, without a version.
        entry_type: The BibTeX entry type (``inproceedings``, ``article``, ``misc``), when known.
    """

    source: str
    id: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    url: str | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    entry_type: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The record as a JSON object, without the fields it does not have."""
        return {k: (list(v) if k == "authors" else v) for k, v in asdict(self).items()
                if v is not None or k in ("source", "id", "title")}


__all__ = ["BibRecord"]
