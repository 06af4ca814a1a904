"""arXiv's per-paper licences: a short name for each licence URL arXiv records, and whether a paper's text may be
published in a dataset split.

An author chooses one of arXiv's licences at submission. Only the Creative Commons licences that allow adapted
text to be shared (CC0, CC BY, CC BY-SA; CC BY-NC and CC BY-NC-SA for non-commercial releases) allow a split that
carries extracted, re-marked sections. arXiv's own licence (``nonexclusive-distrib``) lets arXiv alone distribute the
paper, and the ND ("no derivatives") licences forbid the re-marked sections a benchmark record holds, so those
papers stay local: usable for one's own evaluation, left out of a published split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: arXiv's licence URLs -> short names (https://info.arxiv.org/help/license/index.html)
_NAMES = (
    (re.compile(r"publicdomain/zero"), "cc0-1.0"),
    (re.compile(r"licenses/by-nc-nd/"), "cc-by-nc-nd-4.0"),
    (re.compile(r"licenses/by-nc-sa/"), "cc-by-nc-sa-4.0"),
    (re.compile(r"licenses/by-nc/"), "cc-by-nc-4.0"),
    (re.compile(r"licenses/by-nd/"), "cc-by-nd-4.0"),
    (re.compile(r"licenses/by-sa/"), "cc-by-sa-4.0"),
    (re.compile(r"licenses/by/"), "cc-by-4.0"),
    (re.compile(r"arxiv\.org/licenses/nonexclusive-distrib"), "arxiv-nonexclusive-distrib"),
    (re.compile(r"arxiv\.org/licenses/assumed-1991-2003"), "arxiv-assumed-1991-2003"),
)
UNKNOWN = "unknown"
OPEN = frozenset({"cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0"})
NON_COMMERCIAL = frozenset({"cc-by-nc-4.0", "cc-by-nc-sa-4.0"})


def licence_name(url: str) -> str:
    """'http://creativecommons.org/licenses/by/4.0/' -> 'cc-by-4.0'; an empty or unknown URL -> 'unknown'."""
    for pattern, name in _NAMES:
        if pattern.search(url or ""):
            return name
    return UNKNOWN


def redistributable(name: str, allow_non_commercial: bool = False) -> bool:
    """Whether a paper under licence `name` may go into a published split (see the module docstring)."""
    return name in OPEN or (allow_non_commercial and name in NON_COMMERCIAL)


@dataclass(frozen=True)
class LicenceRule:
    """Which licences a fresh split may hold (`redistributable`), as a build's options say."""

    allow_non_commercial: bool = False
    keep_all: bool = False  # a folder for one's own evaluation, not for publishing

    def allows(self, name: str) -> bool:
        return self.keep_all or redistributable(name, self.allow_non_commercial)

    def split_licence(self, names: set[str]) -> str:
        """The card's ``license:``: "other" for a keep-all folder (not for redistribution)."""
        return "other" if self.keep_all else split_licence(names)


def split_licence(names: set[str]) -> str:
    """The Hub card's ``license:`` for a split holding papers under `names`: the most restrictive one needed."""
    if not names:
        return "cc-by-4.0"
    if names <= {"cc0-1.0"}:
        return "cc0-1.0"
    if names & NON_COMMERCIAL:
        return "cc-by-nc-sa-4.0" if "cc-by-nc-sa-4.0" in names or "cc-by-sa-4.0" in names else "cc-by-nc-4.0"
    if names <= OPEN:
        return "cc-by-sa-4.0" if "cc-by-sa-4.0" in names else "cc-by-4.0"
    return "other"


__all__ = ["NON_COMMERCIAL", "OPEN", "UNKNOWN", "LicenceRule", "licence_name", "redistributable", "split_licence"]
