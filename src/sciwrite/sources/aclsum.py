"""The 250 GROBID-parsed ACL papers that the `aclsum` package ships: where they are, and their venues."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

# Old-style ACL Anthology ids start with a letter naming the venue (P18-1001 is ACL 2018).
_ANTHOLOGY_LETTERS = {
    "P": "ACL", "N": "NAACL", "D": "EMNLP", "E": "EACL", "C": "COLING", "Q": "TACL", "J": "CL", "K": "CoNLL",
    "S": "SemEval/*SEM", "W": "ACL workshop", "L": "LREC", "I": "IJCNLP", "H": "HLT", "A": "ANLP", "Y": "PACLIC",
    "R": "RANLP", "U": "ALTA", "O": "ROCLING", "M": "MUC", "T": "TINLAP", "X": "TIPSTER",
}


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
