"""DOIs and arXiv ids as references write them, reduced to comparable keys, and the DOI registrant prefixes known to
exist (a DOI under a prefix that no registration agency has issued cannot resolve)."""

from __future__ import annotations

import re
import urllib.parse

_DOI = re.compile(r"(10\.\d{4,9}/\S+)", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_ID = re.compile(r"(?:arxiv[:/.\s]*|abs/|pdf/)?(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[a-z]{2})?/\d{7})(v\d+)?",
                       re.IGNORECASE)

#: Registrant prefixes of the publishers and agencies that computer-science references cite most (the prefix is the
#: part of a DOI before "/"; each is issued by a registration agency, Crossref or DataCite). A checker adds the
#: prefixes of every record it knows (`KnownPrefixes`).
KNOWN_DOI_PREFIXES = frozenset({
    "10.1109", "10.1145", "10.1007", "10.1016", "10.18653", "10.1609", "10.24963", "10.48550", "10.1038", "10.1126",
    "10.1073", "10.1162", "10.5555", "10.1111", "10.1002", "10.1093", "10.1017", "10.1080", "10.1137", "10.1214",
    "10.1103", "10.1371", "10.3389", "10.3390", "10.1613", "10.2139", "10.1101", "10.5281", "10.1088", "10.1063",
    "10.1098", "10.1177", "10.1561", "10.1142", "10.1049", "10.1117", "10.1364", "10.21437", "10.4230", "10.1515",
    "10.14778", "10.7551", "10.52202", "10.26615", "10.1186", "10.1155", "10.48448", "10.3233",
    "10.5120", "10.15607", "10.31219", "10.36227", "10.21105", "10.7717", "10.1287", "10.6084", "10.20944"})


def normalize_doi(doi: str | None) -> str | None:
    """A DOI as a key: the ``10.x/y`` part of a DOI, a ``doi:`` or ``https://doi.org/`` form (percent-escapes
    decoded), lower case (DOIs are case-insensitive); None when there is none."""
    if not doi:
        return None
    match = _DOI.search(urllib.parse.unquote(doi.strip()))
    return match.group(1).rstrip(".,;").lower() if match else None


def doi_prefix(doi: str) -> str:
    """The registrant prefix of a normalised DOI (``10.1109/cvpr.2021.1`` -> ``10.1109``)."""
    return doi.split("/", 1)[0]


def arxiv_id_of(text: str | None) -> tuple[str | None, str | None]:
    """The arXiv id in `text` (an id, an ``arXiv:`` form, an arxiv.org link or an arXiv DOI) without its version,
    and the version ("v2") when given."""
    if not text:
        return None, None
    doi = normalize_doi(text)
    if doi:
        match = _ARXIV_DOI.match(doi)
        if not match:
            return None, None
        text = match.group(1)
    match = _ARXIV_ID.search(text.strip())
    if not match:
        return None, None
    return match.group(1).lower(), (match.group(2) or None) and match.group(2).lower()


def same_doi(a: str | None, b: str | None) -> bool | None:
    """Whether two DOIs name one work: equal keys; for arXiv DOIs, the same id whatever the version. None when
    either is missing."""
    ka, kb = normalize_doi(a), normalize_doi(b)
    if not ka or not kb:
        return None
    if ka == kb:
        return True
    ia, ib = arxiv_id_of(ka)[0], arxiv_id_of(kb)[0]
    return bool(ia) and ia == ib


__all__ = ["KNOWN_DOI_PREFIXES", "arxiv_id_of", "doi_prefix", "normalize_doi", "same_doi"]
