"""One paper as a bibliographic service describes it, the same record whichever service answered."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class OnlineWork:
    """A paper a service knows: which service (`source`), its id there, title, author names, year and a link."""

    source: str
    id: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "authors": list(self.authors)}


__all__ = ["OnlineWork"]
