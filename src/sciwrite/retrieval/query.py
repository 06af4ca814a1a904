"""What text stands for a document in the index and for a target paper as a query (the paper's choice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def document_text(doc: Mapping[str, Any]) -> str:
    """A corpus document as indexed: title and abstract."""
    return "\n".join(part for part in (doc.get("title") or "", doc.get("abstract") or "") if part).strip()


def indexed_text(doc: Mapping[str, Any], position: int | None = None) -> str:
    """The text an index holds for a corpus record (title + abstract); a record with neither is an error naming
    its doc_id (and its row `position` where known). Every engine (one process, `sciwrite.scale`'s Ray actors)
    indexes exactly this text."""
    text = document_text(doc)
    if not text:
        where = "corpus record" if position is None else f"corpus record {position}"
        raise ValueError(f"{where} (doc_id {doc.get('doc_id')!r}) has no title and no abstract to index")
    return text


def build_query(paper: Mapping[str, Any], include_introduction: bool = False) -> str:
    """A target paper as a query: title + abstract, optionally followed by the introduction."""
    parts = [paper.get("title") or "", paper.get("abstract") or ""]
    if include_introduction:
        parts.append(paper.get("introduction") or "")
    return "\n".join(p for p in parts if p).strip()
