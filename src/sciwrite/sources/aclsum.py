"""The 250 GROBID-parsed ACL papers that the `aclsum` package ships: where they are, their venues and years, and the
corpus records of the works their bibliographies list."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.grobid import author_names, bib_title
from sciwrite.sources.titles import title_doc_id

# Old-style ACL Anthology ids start with a letter naming the venue (P18-1001 is ACL 2018).
_ANTHOLOGY_LETTERS = {
    "P": "ACL", "N": "NAACL", "D": "EMNLP", "E": "EACL", "C": "COLING", "Q": "TACL", "J": "CL", "K": "CoNLL",
    "S": "SemEval/*SEM", "W": "ACL workshop", "L": "LREC", "I": "IJCNLP", "H": "HLT", "A": "ANLP", "Y": "PACLIC",
    "R": "RANLP", "U": "ALTA", "O": "ROCLING", "M": "MUC", "T": "TINLAP", "X": "TIPSTER",
}
_NEW_STYLE_ID = re.compile(r"(\d{4})\.[a-z][a-z0-9-]*\.\d+")  # 2020.aacl-main.33
_OLD_STYLE_ID = re.compile(r"[A-Z](\d{2})-\d{4}")  # P18-1001, W99-0101


def aclsum_paper_dir() -> Path:
    """Where the aclsum package keeps its grobid2json papers (found without importing the package)."""
    spec = importlib.util.find_spec("aclsum")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the offline sample needs the `aclsum` package: pip install aclsum")
    path = Path(next(iter(spec.submodule_search_locations))) / "dataset" / "paper_jsons"
    if not path.is_dir():
        raise FileNotFoundError(f"the aclsum package has no paper folder at {path}")
    return path


def anthology_venue(paper_id: str) -> str:
    """Venue from an ACL Anthology id: '2020.aacl-main.33' -> 'AACL', 'P18-1001' -> 'ACL'."""
    new_style = re.match(r"^\d{4}\.([a-z]+)-", paper_id)
    if new_style:
        return new_style.group(1).upper()
    return _ANTHOLOGY_LETTERS.get(paper_id[:1].upper(), "unknown")


def anthology_year(paper_id: str) -> int | None:
    """The year an ACL Anthology id names: '2020.aacl-main.33' -> 2020, 'P18-1001' -> 2018, 'W99-0101' -> 1999.

    Old-style ids carry two digits, read as 19xx from 60 on (they run from 1965 to 2019); any other id gives None.
    The aclsum papers' own ``year`` is empty, so this is where their year comes from.
    """
    match = _NEW_STYLE_ID.fullmatch(paper_id)
    if match:
        return int(match.group(1))
    match = _OLD_STYLE_ID.fullmatch(paper_id)
    if match:
        two = int(match.group(1))
        return (1900 if two >= 60 else 2000) + two
    return None


def cited_work_records(bibs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Corpus records of the titled works a bibliography lists (``doc_id`` from the title, no abstract: GROBID
    bibliographies have none). Every offline sample built from these papers builds its corpus with them, so that a
    cited work has one doc_id in all of them."""
    records = []
    for entry in bibs.values():
        title = bib_title(entry)
        if title:
            records.append({"doc_id": title_doc_id(title, "aclbib"), "title": title, "abstract": "",
                            "authors": author_names(entry.get("authors")), "year": parse_year(entry.get("year")),
                            "source": "aclsum-bibliography"})
    return records
