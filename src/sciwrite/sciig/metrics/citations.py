"""SciIG citation correctness: do a generated introduction's citations name the paper's cited works?

The paper (§4.2) extracts the citations of a generated introduction with LLaMA-4 Maverick, using its Table 8
prompt, and matches them against the original Related Works list. Two extractors, the summary names which one ran
(``citation_extractor``):

- LLM (`llm_citation_keys`, the ``citation_extractor`` model role; paper profile
  ``openrouter:meta-llama/llama-4-maverick``, any OpenAI-compatible endpoint via `ChatClient`, JSONL-cached so a
  long run resumes). The Table 8 prompt (`sciwrite.sciig.data.llm_map.table8_messages`) gets the paper's title and
  abstract, the generated introduction, and as "provided citation records" the high-confidence list: the neighbors
  the offline extractor below finds in the generation (key, title, authors). The model then scans the introduction
  for additional citations. Each returned identifier is matched to a neighbor by its title (normalised exact match),
  else by its key as below.
- ``regex (offline fallback)`` (`offline_citation_keys`): author-year citations
  (`sciwrite.sources.apa.extract_citation_keys`) and year-less ones ("(Smith et al.)", "(Smith and Lee)",
  "Smith et al. propose", "(Smith)": `sciwrite.sources.apa.find_yearless_keys`), which the paper's own generation
  prompts ask for.

Matching (`resolve_keys`). Author-year keys match a neighbor key up to case, accents, "&" vs "and", spacing,
punctuation and the year's suffix letter ("Li et al., 2022b" = "li et al. 2022"), so two works of one first author
in one year count as one key; a multi-word surname's last word stands for the full one when that is unambiguous.
A year-less key matches the neighbor with the same first surname and the same form ("et al." / second author /
single author) when exactly one neighbor has them; an ambiguous or unmatched year-less "et al." or two-author
citation counts as a citation outside the neighbors, an unmatched single surname ("(Smith)") is not counted (too
often not a citation).

Precision is |cited ∩ neighbors| / |cited| (a citation to a work outside the neighbors counts against it), recall
|cited ∩ neighbors| / |neighbors|. A generation with no citation scores 0 on both and is flagged; a paper without
neighbors is an error, since recall is undefined.

Unmatched citations (`unmatched_citations`), reported apart from precision: the automatic counterpart of the
"Hallucinated Citations" criterion of the SciIG human rubric (Table 7: "Are any citations fabricated, irrelevant,
or inaccurately attributed?"). A citation outside the neighbors whose first surname is no neighbor's ("(Smith et
al., 2021)" with no Smith among them) is *unmatched*, a fabrication as far as the inputs tell; one whose surname a
neighbor has but whose year or author form differs ("Li et al., 2019" for "Li et al., 2022") is a *near miss*, a
real input cited inaccurately. Each is listed with the text around it. The paper's rate is unmatched / |cited|, so
1 - precision = unmatched rate + near-miss rate; a generation with no citation has no rate (None).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.core.metric_spec import board_groups
from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.summary import Interval, Summary
from sciwrite.llm.client import ChatClient
from sciwrite.metrics.judge import JUDGE_SEED
from sciwrite.sciig.data.llm_map import normalise_title, parse_table8_neighbors, table8_messages
from sciwrite.sciig.metrics.row_fields import (
    CITATION_EXTRACTOR,
    CITATION_EXTRACTOR_ERROR,
    NEAR_MISS_CITATIONS,
    NO_CITATION,
    NOT_IN_NEIGHBORS,
    UNMATCHED_CITATIONS,
)
from sciwrite.sciig.metrics.specs import METRICS, UNMATCHED_CITATION_RATE
from sciwrite.sources.apa import (
    comparison_key,
    extract_citation_keys,
    find_yearless_keys,
    first_author,
    fold,
    yearless_comparison_key,
)

OFFLINE_EXTRACTOR = "regex (offline fallback)"
EXTRACTOR_MAX_TOKENS = 4096
CONTEXT_CHARS = 80  # characters of the generation kept on each side of an unmatched citation
#: The keys of precision and recall in `citation_correctness`'s fields (the suite's rows name them by their metrics:
#: ``citation_precision``, ``citation_recall``).
PRECISION, RECALL = "precision", "recall"


def _neighbor_keys(neighbors: Sequence[Any]) -> list[str]:
    """Keys from a list of key strings or of ``{"key": ...}`` neighbor records."""
    return [n["key"] if isinstance(n, Mapping) else n for n in neighbors]


def offline_citation_keys(prediction: str) -> list[str]:
    """The offline extractor: author-year keys, then year-less ones, each once."""
    return [*extract_citation_keys(prediction), *find_yearless_keys(prediction)]


def _is_yearless(key: str) -> bool:
    return first_author(key) is None


def resolve_keys(keys: Sequence[str], neighbors: Sequence[Any]) -> tuple[set[str], list[str], list[str]]:
    """(comparison keys cited, the cited keys outside the neighbors, the unmatched single surnames dropped)."""
    neighbor_keys = [k for k in _neighbor_keys(neighbors) if isinstance(k, str) and k.strip()]
    gold = {comparison_key(k) for k in neighbor_keys}
    tails = _surname_tails(neighbor_keys)
    yearless: dict[str, set[str]] = {}
    for key in neighbor_keys:
        yearless.setdefault(yearless_comparison_key(key), set()).add(comparison_key(key))
        first = first_author(key)
        if first and len(first.split()) > 1:
            tail = key.replace(first, first.split()[-1], 1)
            yearless.setdefault(yearless_comparison_key(tail), set()).add(comparison_key(key))
    cited: set[str] = set()
    outside: list[str] = []
    dropped: list[str] = []
    for key in keys:
        if _is_yearless(key):
            form = yearless_comparison_key(key)
            match = yearless.get(form, set())
            if len(match) == 1:
                cited.add(next(iter(match)))
            elif " " not in form and not match:
                dropped.append(key)
            else:
                cited.add(f"{form} (no year)")
                outside.append(key)
            continue
        resolved = comparison_key(key)
        resolved = resolved if resolved in gold else tails.get(resolved, resolved)
        cited.add(resolved)
        if resolved not in gold:
            outside.append(key)
    return cited, outside, dropped


def citation_correctness(prediction: str, neighbors: Sequence[Any], record: str = "paper",
                         keys: Sequence[str] | None = None) -> dict[str, Any]:
    """Precision, recall and counts for one generation against one paper's neighbors (keys or records); `keys`
    are the citations an extractor found (default: the offline extractor's)."""
    if not isinstance(prediction, str):
        raise TypeError(f"{record}: the prediction must be a string, got {type(prediction).__name__}")
    gold = {comparison_key(k) for k in _neighbor_keys(neighbors) if isinstance(k, str) and k.strip()}
    if not gold:
        raise ValueError(f"{record}: `neighbors` has no citation key, so citation recall is undefined; "
                         "leave the paper out or give its cited works")
    cited_keys = offline_citation_keys(prediction) if keys is None else list(dict.fromkeys(keys))
    cited, outside, dropped = resolve_keys(cited_keys, neighbors)
    correct = cited & gold
    unmatched, near_misses = unmatched_citations(prediction, outside, neighbors)
    return {
        PRECISION: len(correct) / len(cited) if cited else 0.0,
        RECALL: len(correct) / len(gold),
        "n_cited": len(cited),
        "n_correct": len(correct),
        "n_neighbors": len(gold),
        NO_CITATION: not cited,
        NOT_IN_NEIGHBORS: sorted(outside),
        "cited_keys": cited_keys,
        "dropped_single_surnames": dropped,
        UNMATCHED_CITATIONS: unmatched,
        NEAR_MISS_CITATIONS: near_misses,
        UNMATCHED_CITATION_RATE.key: len(unmatched) / len(cited) if cited else None,
    }


def _citation_surname(key: str) -> str:
    """The first surname of an author-year or year-less key, folded ("Gašić et al., 2021" -> "gasic")."""
    first = first_author(key)
    if first is None:
        first = re.split(r"\s+(?:et\s*al\b\.?|and|&)\s*", key.strip(), maxsplit=1, flags=re.IGNORECASE)[0]
    return fold(first)


def _surname_forms(key: str) -> set[str]:
    """A key's first surname folded whole and by its last word ("van der Berg" -> {"vanderberg", "berg"})."""
    first = first_author(key) or key
    words = first.split()
    return {fold(first), fold(words[-1])} if words else {fold(first)}


def citation_context(prediction: str, key: str, chars: int = CONTEXT_CHARS) -> str | None:
    """The generation's text around the first mention of `key`'s first surname (None when it is not in the text,
    as for an identifier only an LLM extractor returned)."""
    first = first_author(key) or re.split(r"\s+(?:et\s*al\b\.?|and|&)\s*", key.strip(), maxsplit=1,
                                          flags=re.IGNORECASE)[0]
    match = re.search(rf"(?<!\w){re.escape(first.strip())}(?!\w)", prediction) if first.strip() else None
    if match is None:
        return None
    start, end = max(0, match.start() - chars), min(len(prediction), match.end() + chars)
    text = " ".join(prediction[start:end].split())
    return f"{'…' if start else ''}{text}{'…' if end < len(prediction) else ''}"


def unmatched_citations(prediction: str, outside: Sequence[str], neighbors: Sequence[Any]
                        ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The citations outside the neighbors, split: (unmatched: no neighbor has the first surname, near misses: one
    does, so the year or author form is wrong), each once per cited work with the text around it; a near miss
    also names the neighbors it is near."""
    by_surname: dict[str, list[str]] = {}
    for key in _neighbor_keys(neighbors):
        if isinstance(key, str) and key.strip():
            for form in _surname_forms(key):
                by_surname.setdefault(form, []).append(key)
    unmatched: list[dict[str, Any]] = []
    near: list[dict[str, Any]] = []
    seen: set[str] = set()
    for key in outside:
        work = comparison_key(key) if first_author(key) else f"{yearless_comparison_key(key)} (no year)"
        if work in seen:
            continue
        seen.add(work)
        surname = _citation_surname(key)
        named = sorted({k for form in ({surname} | _surname_forms(key)) for k in by_surname.get(form, [])})
        entry = {"citation": key, "text": citation_context(prediction, key)}
        if named and surname:
            near.append({**entry, "neighbors": named})
        else:
            unmatched.append(entry)
    return unmatched, near


def _surname_tails(keys: Sequence[str]) -> dict[str, str]:
    """comparison key with only the last word of a multi-word first surname -> the full key's comparison key, for
    the tails that stand for exactly one key."""
    tails: dict[str, list[str]] = {}
    for key in keys:
        first = first_author(key)
        words = first.split() if first else []
        if first and len(words) > 1:
            tail = key.replace(first, words[-1], 1)
            tails.setdefault(comparison_key(tail), []).append(comparison_key(key))
    return {tail: full[0] for tail, full in tails.items() if len(set(full)) == 1}


# --- the LLM extractor (Table 8 prompt) -----------------------------------------------------------------------------


def _neighbor_records(neighbors: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(n) if isinstance(n, Mapping) else {"key": n} for n in neighbors]


def extraction_messages(prediction: str, neighbors: Sequence[Any], title: str = "", abstract: str = ""
                        ) -> list[dict[str, str]]:
    """The Table 8 prompt for one generation; the provided records are the neighbors the offline extractor finds in
    it (the high-confidence list)."""
    records = _neighbor_records(neighbors)
    cited, _, _ = resolve_keys(offline_citation_keys(prediction), records)
    high = [{"paper_id": r["key"], "title": r.get("title") or "", "authors": r.get("authors") or [],
             "raw_text": r["key"]} for r in records if comparison_key(r["key"]) in cited]
    return table8_messages(title, abstract, [], prediction, high)


def keys_from_answer(answer: Sequence[Mapping[str, str]], neighbors: Sequence[Any]) -> list[str]:
    """Neighbor keys for the answer's citations whose title names a neighbor; the identifier otherwise."""
    by_title: dict[str, set[str]] = {}
    for record in _neighbor_records(neighbors):
        if record.get("title"):
            by_title.setdefault(normalise_title(record["title"]), set()).add(record["key"])
    keys = []
    for item in answer:
        named = by_title.get(normalise_title(item.get("title") or ""), set())
        keys.append(next(iter(named)) if len(named) == 1 else item["identifier"])
    return list(dict.fromkeys(keys))


def llm_citation_keys(predictions: Sequence[str], neighbors: Sequence[Sequence[Any]], client: ChatClient,
                      titles: Sequence[str] | None = None, abstracts: Sequence[str] | None = None, *,
                      workers: int = 8, show_progress: bool = False) -> list[tuple[list[str] | None, str | None]]:
    """Per generation: (the citation keys the LLM extracted, None) or (None, why the answer is unusable). One
    batched `complete` call; the client's JSONL cache makes a rerun resume."""
    n = len(predictions)
    conversations = [extraction_messages(predictions[i], neighbors[i], titles[i] if titles else "",
                                         abstracts[i] if abstracts else "") for i in range(n)]
    results = client.complete(conversations, temperature=0.0, max_tokens=EXTRACTOR_MAX_TOKENS, workers=workers,
                              show_progress=show_progress, desc="extracting citations (Table 8)", seed=JUDGE_SEED)
    out: list[tuple[list[str] | None, str | None]] = []
    for i, result in enumerate(results):
        if not result.ok:
            out.append((None, f"API error: {result.error}"))
            continue
        answer = parse_table8_neighbors(result.content)
        if answer is None:
            out.append((None, f"no 'neighbors' JSON object in reply: {(result.content or '')[:200]!r}"))
        else:
            out.append((keys_from_answer(answer, neighbors[i]), None))
    return out


def score_citation_correctness(predictions: Sequence[str], neighbors: Sequence[Sequence[Any]],
                               paper_ids: Sequence[str] | None = None, extractor: ChatClient | None = None,
                               titles: Sequence[str] | None = None, abstracts: Sequence[str] | None = None,
                               ) -> list[dict[str, Any]]:
    """`citation_correctness` for each paper, with the LLM `extractor` when given (a paper whose answer is
    unusable falls back to the offline extractor, flagged ``citation_extractor_error``), else the offline one.
    Errors name the paper (its id, else its position). Each row says which extractor ran."""
    if len(predictions) != len(neighbors):
        raise ValueError(f"predictions ({len(predictions)}) and neighbors ({len(neighbors)}) must have the same length")
    if paper_ids is not None and len(paper_ids) != len(predictions):
        raise ValueError(f"paper_ids ({len(paper_ids)}) and predictions ({len(predictions)}) must have the same length")
    names = [f"paper {p!r}" for p in paper_ids] if paper_ids is not None else [f"record {i}" for i in range(len(predictions))]
    extracted: list[tuple[list[str] | None, str | None]] = [(None, None)] * len(predictions)
    if extractor is not None:
        extracted = llm_citation_keys(predictions, neighbors, extractor, titles, abstracts)
    rows = []
    for p, n, name, (keys, error) in zip(predictions, neighbors, names, extracted):
        row = citation_correctness(p, n, name, keys)
        row[CITATION_EXTRACTOR] = OFFLINE_EXTRACTOR if keys is None else str(getattr(extractor, "model", "llm"))
        if error is not None:
            row[CITATION_EXTRACTOR_ERROR] = error
        rows.append(row)
    return rows


def summarize_citation_correctness(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Macro means of precision and recall (no-citation generations count as 0), the no-citation rate, and the
    unmatched citations apart (`summarize_unmatched`)."""
    n, unmatched = len(rows), summarize_unmatched(typed_rows(rows))
    if not n:
        return {PRECISION: 0.0, RECALL: 0.0, "no_citation_rate": 0.0, **unmatched}
    return {PRECISION: sum(r[PRECISION] for r in rows) / n, RECALL: sum(r[RECALL] for r in rows) / n,
            "no_citation_rate": sum(r[NO_CITATION] for r in rows) / n, **unmatched}


#: The summary's counts beside the unmatched-citation rate: citations of a surname no cited work has, near misses
#: (a cited work's surname, another year or form), and the papers that cite anything.
N_UNMATCHED = "n_unmatched_citations"
N_NEAR_MISS = "n_near_miss_citations"
N_PAPERS_CITING = "n_papers_citing"


def summarize_unmatched(rows: Sequence[PaperRow]) -> dict[str, Any]:
    """The system's unmatched citations, apart from precision: ``unmatched_citation_rate`` (the mean of the papers'
    rates, over the papers that cite anything; None when none does), ``n_unmatched_citations``,
    ``n_near_miss_citations`` and ``n_papers_citing``."""
    rates = [rate for r in rows if (rate := r.value(UNMATCHED_CITATION_RATE.key)) is not None]
    return {UNMATCHED_CITATION_RATE.key: sum(rates) / len(rates) if rates else None,
            N_UNMATCHED: sum(len(r.details.get(UNMATCHED_CITATIONS) or []) for r in rows),
            N_NEAR_MISS: sum(len(r.details.get(NEAR_MISS_CITATIONS) or []) for r in rows),
            N_PAPERS_CITING: len(rates)}


#: The leaderboard's grounding column (`Benchmark.presentation.board_groups`): the unmatched-citation rate, apart from precision.
BOARD_GROUPS = board_groups(METRICS)  # declared with each metric (`sciwrite.sciig.metrics.specs`)


#: The summary field of the unmatched-citation rate's interval (SciIG's own, beside ``intervals``).
UNMATCHED_INTERVAL = "unmatched_citation_interval"


def board_values(summary: Summary) -> dict[str, tuple[Any, Any, Any]]:
    """(mean, low, high) of the unmatched-citation rate from a SciIG summary (None when not computed); the interval
    is SciIG's own field, ``unmatched_citation_interval``."""
    interval = Interval.from_json(summary.details.get(UNMATCHED_INTERVAL))
    key = UNMATCHED_CITATION_RATE.key
    return {key: (summary.reported(key), interval.low, interval.high)}



