"""Optional LLM step of the SciIG build: map citations that cite_spans and author–year matching could not
resolve to a bibliography entry, by asking a model (any OpenAI-compatible endpoint via `ChatClient`).

The prompt gives the citation string, its paragraph and the numbered candidate entries, and asks for
``{"entry_id": "<id>"}`` (or ``null``). An answer naming no candidate is rejected, never guessed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.sources.apa import Citation
from sciwrite.sources.grobid import author_names

SYSTEM_PROMPT = ("You link in-text citations of a scientific paper to entries of its bibliography. "
                 "Answer with JSON only.")
_MAX_CONTEXT_CHARS = 1500


@dataclass(frozen=True)
class MappingRequest:
    """One unresolved citation: the paper, the citation, its paragraph, the candidate entries and where it stands."""

    paper_id: str
    citation: Citation
    context: str
    candidates: Mapping[str, Mapping[str, Any]]
    position: tuple[int, int] = (0, 0)  # (paragraph index, character offset) in the introduction


def _describe(ref_id: str, entry: Mapping[str, Any]) -> str:
    authors = ", ".join(author_names(entry.get("authors"))) or "unknown authors"
    return f"- {ref_id}: {authors} ({entry.get('year') or 'n.d.'}). {(entry.get('title') or '').strip() or 'untitled'}"


def mapping_messages(request: MappingRequest) -> list[dict[str, str]]:
    """The chat messages asking which entry `request.citation` refers to."""
    context = request.context if len(request.context) <= _MAX_CONTEXT_CHARS else request.context[:_MAX_CONTEXT_CHARS] + " ..."
    entries = "\n".join(_describe(ref, entry) for ref, entry in request.candidates.items())
    user = (f'In-text citation: "{request.citation.text.strip()}" (read as {request.citation.key})\n\n'
            f"Paragraph:\n{context}\n\nBibliography entries:\n{entries}\n\n"
            'Which entry does the citation refer to? Reply with {"entry_id": "<id from the list>"}, '
            'or {"entry_id": null} if none fits.')
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_entry_id(reply: str, candidates: Mapping[str, Any]) -> str | None:
    """The entry id in a reply such as ``{"entry_id": "BIBREF3"}`` (code fences tolerated); None unless it
    names one of `candidates`."""
    match = re.search(r"\{.*?\}", reply, re.DOTALL)
    if not match:
        return None
    try:
        value = json.loads(match.group(0)).get("entry_id")
    except (json.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, str) and value in candidates else None


def map_with_llm(requests: Sequence[MappingRequest], client: Any | None, *, show_progress: bool = False
                 ) -> tuple[list[str | None], Counter]:
    """One ref_id (or None) per request, and counts: mapped, rejected (no/invalid id), error, skipped (no client).

    `client` is a `sciwrite.llm.client.ChatClient` (or anything with its `complete`); None skips the step.
    """
    counts: Counter = Counter()
    if client is None or not requests:
        counts["skipped"] += len(requests)
        return [None] * len(requests), counts
    results = client.complete([mapping_messages(r) for r in requests], max_tokens=64, show_progress=show_progress,
                              desc="mapping citations")
    out: list[str | None] = []
    for request, result in zip(requests, results):
        if not result.ok:
            counts["error"] += 1
            out.append(None)
            continue
        ref_id = parse_entry_id(result.content or "", request.candidates)
        counts["mapped" if ref_id else "rejected"] += 1
        out.append(ref_id)
    return out, counts
