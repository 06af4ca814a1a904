"""LLM steps that use the SciIG paper's citation prompt (Garg et al., arXiv:2508.14273, Table 8, "LLaMA
4-Maverick Citation Mapping Prompt"), verbatim, at any OpenAI-compatible endpoint (`ChatClient`).

It is used twice:

- Step 4 of the dataset build (`map_with_llm`): the citations that cite_spans and author-year matching could not
  resolve are mapped to bibliography entries. One Table 8 prompt per paper: its metadata, the full introduction and
  the bibliography entries as the "provided citation records"; the model answers ``{"neighbors": [{"<Author et al.,
  Year>": {"title": ..., "reason": ...}}, ...]}``. An unresolved citation is mapped when the answer names its
  identifier (same authors and year, suffix letter ignored) with the title of exactly one candidate entry
  (normalised title match); an answer naming no candidate is rejected, never guessed.
- Citation extraction at evaluation time (`sciwrite.sciig.metrics.citations`), which §4.2 says uses the same
  prompt (`table8_messages`, `parse_table8_neighbors`).

The template's line breaks follow the paper's table; ``{title}``, ``{abstract}``, ``{authors}`` and the records are
filled in, the introduction is placed under its "- Full introduction text." line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.metrics.judge import _json_objects
from sciwrite.sources.apa import Citation, comparison_key
from sciwrite.sources.grobid import author_names

TABLE8_HEAD = """Objective: Extract citations from paper introductions using LLaMA 4-Maverick, returning a JSON object mapping citation identifiers to titles and reasons for inclusion. Respond only with the JSON object, without extra text.

Paper Metadata:
- Title: {title}
- Abstract: {abstract}
- Authors: {authors}

Introduction Data:
- Full introduction text.
{introduction}
- Provided citation records:
{records}"""

TABLE8_RECORD = """- Citation {paper_id}:
- Title: {title}
- Authors: {authors}
- Full Reference: {raw_text}"""

TABLE8_TASK = """Task:
1. Prioritize the high-confidence citation list, then scan the introduction for additional citations.
2. For each citation, create an object with:
- title: The citation’s title.
- reason:
- If in the high-confidence list: “This citation is present in high-confidence list.”
- Otherwise: “Not included in the high-confidence list but cited in Introduction as (Author et al., Year).”
3. Return a JSON object with a single key neighbors, containing an array of citation objects.
4. Each citation object maps the identifier (e.g., “Li et al., 2022”) to a title and reason pair.
5. Do not emit bare arrays, Markdown, comments, or additional text—only the JSON object.

Required Output Example:
{ "neighbors": [ { "Li et al., 2022": { "title": "Convergence of Adam under relaxed assumptions", "reason": "This citation is present in high-confidence list" } }, { "Hashimoto et al., 2018": { "title": "Fairness without demographics in repeated loss minimization", "reason": "This citation is present in high-confidence list" } }, { "Blitzer et al., 2006": { "title": "Domain adaptation with structural correspondence learning", "reason": "Not included in the high-confidence list but cited in Introduction as (Blitzer et al., 2006)" } } ] }"""

_FIELD = re.compile(r"\{(title|abstract|authors|introduction|records|paper_id|raw_text)\}")


def _fill(template: str, values: Mapping[str, str]) -> str:
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _authors_text(authors: Any) -> str:
    if isinstance(authors, str):
        return authors
    names = author_names(authors) if authors and isinstance(authors[0], Mapping) else [str(a) for a in authors or []]
    return ", ".join(names) or "unknown"


def table8_messages(title: str, abstract: str, authors: Any, introduction: str,
                    records: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The Table 8 prompt as one user message. `records`: ``{"paper_id", "title", "authors", "raw_text"}`` each."""
    rendered = "\n".join(_fill(TABLE8_RECORD, {"paper_id": str(r.get("paper_id", "")),
                                               "title": (r.get("title") or "").strip() or "untitled",
                                               "authors": _authors_text(r.get("authors")),
                                               "raw_text": (r.get("raw_text") or "").strip()}) for r in records)
    head = _fill(TABLE8_HEAD, {"title": title.strip(), "abstract": abstract.strip(), "authors": _authors_text(authors),
                               "introduction": introduction.strip(), "records": rendered or "(none)"})
    return [{"role": "user", "content": f"{head}\n\n{TABLE8_TASK}"}]


def parse_table8_neighbors(reply: str | None) -> list[dict[str, str]] | None:
    """``[{"identifier", "title", "reason"}, ...]`` from a Table 8 answer (code fences and surrounding text
    tolerated; ``neighbors`` as the paper's array of one-key objects, or as one object mapping identifiers), or None
    when the reply holds no ``neighbors`` object."""
    for obj in _json_objects(reply or ""):
        if "neighbors" not in obj:
            continue
        value = obj["neighbors"]
        pairs: list[tuple[Any, Any]] = []
        if isinstance(value, Mapping):
            pairs = list(value.items())
        elif isinstance(value, list):
            pairs = [kv for item in value if isinstance(item, Mapping) for kv in item.items()]
        else:
            return None
        out = []
        for identifier, body in pairs:
            if not isinstance(identifier, str) or not identifier.strip():
                continue
            title = body.get("title") if isinstance(body, Mapping) else body if isinstance(body, str) else None
            reason = body.get("reason") if isinstance(body, Mapping) else None
            out.append({"identifier": identifier.strip(), "title": str(title or "").strip(),
                        "reason": str(reason or "").strip()})
        return out
    return None


def normalise_title(title: str) -> str:
    """A title for matching: lower case, letters and digits only, single spaces."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", (title or "").lower()).split())


@dataclass(frozen=True)
class MappingRequest:
    """One unresolved citation: the paper, the citation, its paragraph, the candidate entries, where it stands, and
    the paper's metadata for the Table 8 prompt (title, abstract, authors, introduction)."""

    paper_id: str
    citation: Citation
    context: str
    candidates: Mapping[str, Mapping[str, Any]]
    position: tuple[int, int] = (0, 0)  # (paragraph index, character offset) in the introduction
    paper: Mapping[str, Any] = field(default_factory=dict)


def mapping_messages(request: MappingRequest) -> list[dict[str, str]]:
    """The Table 8 prompt for `request`'s paper: its bibliography entries are the provided citation records."""
    paper = request.paper
    records = [{"paper_id": ref_id, "title": entry.get("title"), "authors": entry.get("authors"),
                "raw_text": entry.get("raw_text") or ""} for ref_id, entry in request.candidates.items()]
    return table8_messages(paper.get("title") or "", paper.get("abstract") or "", paper.get("authors") or [],
                           paper.get("introduction") or request.context, records)


def entry_for(citation: Citation, neighbors: Sequence[Mapping[str, str]],
              candidates: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The ref_id of the one candidate whose title the answer gives for `citation`'s identifier, or None."""
    key = comparison_key(citation.key)
    titles = {normalise_title(n["title"]) for n in neighbors if comparison_key(n["identifier"]) == key and n["title"]}
    found = {ref for ref, entry in candidates.items() if normalise_title(entry.get("title") or "") in titles}
    return found.pop() if len(found) == 1 else None


def map_with_llm(requests: Sequence[MappingRequest], client: Any | None, *, show_progress: bool = False
                 ) -> tuple[list[str | None], Counter]:
    """One ref_id (or None) per request, and counts: mapped, rejected (no/invalid answer), error, skipped (no client).

    `client` is a `sciwrite.llm.client.ChatClient` (or anything with its `complete`); None skips the step. One
    Table 8 request per paper (requests of one paper share it)."""
    counts: Counter = Counter()
    if client is None or not requests:
        counts["skipped"] += len(requests)
        return [None] * len(requests), counts
    papers: dict[str, int] = {}
    for request in requests:
        papers.setdefault(request.paper_id, len(papers))
    first = {pid: next(r for r in requests if r.paper_id == pid) for pid in papers}
    results = client.complete([mapping_messages(first[pid]) for pid in papers], max_tokens=4096,
                              show_progress=show_progress, desc="mapping citations (Table 8)")
    out: list[str | None] = []
    for request in requests:
        result = results[papers[request.paper_id]]
        if not result.ok:
            counts["error"] += 1
            out.append(None)
            continue
        neighbors = parse_table8_neighbors(result.content)
        ref_id = entry_for(request.citation, neighbors or [], request.candidates)
        counts["mapped" if ref_id else "rejected"] += 1
        out.append(ref_id)
    return out, counts


__all__ = ["MappingRequest", "TABLE8_HEAD", "TABLE8_RECORD", "TABLE8_TASK", "map_with_llm",
           "mapping_messages", "parse_table8_neighbors", "table8_messages"]
