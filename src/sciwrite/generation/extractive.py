"""Extractive writers for RWGBench and SciIG: a FLOOR, not a model.

These writers call no language model. They copy sentences out of the input abstracts, pick them by maximal
marginal relevance (MMR) and attach the citation each copied sentence owes to the work it came from. They exist
so that the quick start runs end to end, generation included, on a machine with no model at all, and as a
non-LLM lower bound that every real method must beat. Their scores say nothing about what a model can do; never
report them as a baseline model.

How a prediction is made:

1. Pool. RWGBench: the sentences of every candidate's abstract (a candidate with an empty abstract contributes
   its title instead). SciIG: the sentences of the paper's own abstract and of every neighbor's abstract (its
   title when the abstract is empty). Sentences come from `sciwrite.metrics.text.split_sentences` (Punkt with
   fixed parameters: no download). Sentences of fewer than `min_words` words are left out unless nothing else
   remains; a sentence repeated verbatim keeps its first occurrence only (the earliest candidate / neighbor).
   RWGBench: numeric brackets in copied text become parentheses (`neutralize_markers`), so that only the
   writer's own markers read as citations. SciIG: a copied sentence holding an author–year citation of its
   own is left out, since the citation would be attributed to the wrong work.
2. Relevance. The query (the target's title + abstract) and the whole pool are embedded in ONE `embed` call
   per paper with the packaged all-MiniLM-L6-v2 (L2-normalised, so a dot product is a cosine).
3. MMR. Repeatedly pick the sentence maximising ``lambda * cos(s, query) - (1 - lambda) * max cos(s, picked)``
   (ties: the earliest sentence of the pool), until `n_sentences` are picked; sentences closer than
   `max_redundancy` to one already picked are never picked (near-duplicates).
4. Writing. RWGBench: sentences grouped by candidate, candidates in their rank order, one paragraph per
   candidate, each sentence in its abstract order and ending with the marker ``[i]`` of its candidate (i = the
   1-based position in ``candidate_docs``). SciIG: the first picked own-abstract sentence opens the text, the
   neighbor sentences follow (neighbors in record order), each ending with ``(Key)`` where Key is the
   neighbor's ``key`` verbatim, and the remaining own-abstract sentences close it, in abstract order. At most
   `max_own_sentences` come from the paper's own abstract (they are always the most relevant to a query built
   from that abstract, and would otherwise crowd the citations out). A paper with no neighbors gets an
   introduction made of its own abstract's sentences only, with no citation (SciIG's citation metrics then
   score it 0); a paper with neither neighbors nor an abstract is a failure (ValueError naming it).

SciIG records carry the reference introduction: this module never reads it except to copy it, untouched, to
the output's ``label`` field (reading it would leak the answer).

Concurrency: the runner calls `run` for several papers at once from asyncio. The CPU/GPU-bound part
(splitting, one embedding call, MMR) runs in `asyncio.to_thread` under a per-instance `threading.Lock`: the
event loop stays free to write finished papers and update the progress bar, the encoder is loaded exactly
once per instance (lazily, inside the lock) and only one paper embeds at a time, since the encoder already
uses every core (or the GPU) for one batch.
"""

from __future__ import annotations

import asyncio
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from sciwrite.generation.runner import Generated, PaperLLM
from sciwrite.metrics.text import split_sentences
from sciwrite.models.encoders import embed, shared_sentence_encoder
from sciwrite.models.memo import MemoSentenceEncoder
from sciwrite.sources.apa import find_citations
from sciwrite.sources.markers import neutralize_markers

WRITER = "extractive-mmr"
DEFAULT_ENCODER = "packaged:all-MiniLM-L6-v2"

#: Where a pool sentence came from: an index into candidate_docs / neighbors (int), or, in SciIG's pool, None for
#: the paper's own abstract. RWGBench's pool is `Source[int]`: every sentence there has a candidate to cite.
SourceIndex = TypeVar("SourceIndex", bound=int | None)


@dataclass(frozen=True)
class Source(Generic[SourceIndex]):
    """One sentence of the pool: its text, the work it came from (None = the paper itself) and its position."""

    text: str
    source: SourceIndex  # index into candidate_docs / neighbors; None for the paper's own abstract
    position: int  # sentence index within its abstract (0 for a title)


def mmr_select(relevance: np.ndarray, similarity: np.ndarray, k: int, lam: float,
               max_redundancy: float = 1.0, allowed: Any = None) -> list[int]:
    """Indices picked by maximal marginal relevance, in order of picking.

    `relevance[i]` is sentence i's similarity to the query, `similarity` the sentence-by-sentence matrix.
    A sentence whose similarity to a picked one exceeds `max_redundancy` is never picked. `allowed(i, picked)`,
    when given, can veto a pick (used for SciIG's cap on own-abstract sentences). Ties go to the lowest index.
    """
    n = len(relevance)
    picked: list[int] = []
    redundancy = np.full(n, -np.inf, dtype=np.float64)
    available = np.ones(n, dtype=bool)
    while len(picked) < k:
        if allowed is not None:
            for i in np.flatnonzero(available):
                if not allowed(int(i), picked):
                    available[i] = False
        if not available.any():
            break
        penalty = np.where(np.isfinite(redundancy), redundancy, 0.0)
        score = lam * relevance - (1.0 - lam) * penalty
        score = np.where(available, score, -np.inf)
        best = int(np.argmax(score))  # first maximum: deterministic
        picked.append(best)
        available[best] = False
        redundancy = np.maximum(redundancy, similarity[best])
        available &= ~(similarity[best] > max_redundancy)
    return picked


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _with_citation(sentence: str, citation: str) -> str:
    """'A result.' + '[3]' -> 'A result [3].'; a sentence without final punctuation gets a period."""
    sentence = sentence.rstrip()
    match = re.search(r"[.!?]+$", sentence)
    body, end = (sentence[: match.start()].rstrip(), match.group(0)) if match else (sentence, ".")
    return f"{body} {citation}{end}" if citation else f"{body}{end}"


class _ExtractiveBase(ABC):
    """The shared machinery: lazy encoder, the lock, splitting, one embedding call and MMR."""

    name = WRITER

    def __init__(self, encoder: Any = None, n_sentences: int = 8, mmr_lambda: float = 0.7,
                 max_redundancy: float = 0.95, min_words: int = 5) -> None:
        if n_sentences < 1:
            raise ValueError(f"n_sentences must be >= 1, got {n_sentences}")
        if not 0.0 <= mmr_lambda <= 1.0:
            raise ValueError(f"mmr_lambda must lie in [0, 1], got {mmr_lambda}")
        self._encoder_arg = DEFAULT_ENCODER if encoder is None else encoder
        self._encoder: Any = None if isinstance(self._encoder_arg, str) else self._encoder_arg
        self.n_sentences = n_sentences
        self.mmr_lambda = mmr_lambda
        self.max_redundancy = max_redundancy
        self.min_words = min_words
        self._lock = threading.Lock()

    @property
    def encoder_name(self) -> str:
        return self._encoder_arg if isinstance(self._encoder_arg, str) else type(self._encoder_arg).__name__

    def _model(self) -> Any:
        """The encoder, loaded on first use (callers hold the lock); one process-wide copy per model id."""
        if self._encoder is None:
            # The memo embeds each distinct sentence once per writer: candidate lists of several retrievers (and
            # papers citing the same work) share most of their sentences.
            self._encoder = MemoSentenceEncoder(
                shared_sentence_encoder(self._encoder_arg, role="extractive writer encoder"))
        return self._encoder

    def _split(self, text: str) -> list[str]:
        return split_sentences(text)

    def _filter(self, pool: list[Source[SourceIndex]], keep: Any = None) -> list[Source[SourceIndex]]:
        """Verbatim repeats out (first occurrence kept), then sentences `keep` rejects, then short ones (unless
        that would leave nothing)."""
        seen: set[str] = set()
        unique = []
        for item in pool:
            key = _normalise(item.text)
            if key and key not in seen and (keep is None or keep(item)):
                seen.add(key)
                unique.append(item)
        long_enough = [s for s in unique if len(s.text.split()) >= self.min_words or s.position < 0]
        return long_enough or unique

    def _select(self, query: str, pool: list[Source[SourceIndex]], allowed: Any = None) -> list[int]:
        """Embed query + pool in one call and run MMR; indices into `pool` in order of picking."""
        vectors = embed(self._model(), [query, *[s.text for s in pool]])
        q, sentences = vectors[0], vectors[1:]
        relevance = sentences @ q
        similarity = sentences @ sentences.T
        return mmr_select(relevance.astype(np.float64), similarity.astype(np.float64), self.n_sentences,
                          self.mmr_lambda, self.max_redundancy, allowed)

    def _settings_text(self) -> str:
        return (f"up to {self.n_sentences} sentences by MMR with lambda={self.mmr_lambda} and near-duplicates "
                f"above cosine {self.max_redundancy} excluded; relevance = cosine to the target's title + "
                f"abstract with {self.encoder_name}")

    async def run(self, record: Mapping[str, Any], llm: PaperLLM | None = None) -> Generated:
        """The prediction for one paper; `llm` is never called."""

        def work() -> Generated:
            with self._lock:
                return self.generate(record)

        return await asyncio.to_thread(work)

    @abstractmethod
    def generate(self, record: Mapping[str, Any]) -> Generated:
        """The prediction for one paper (synchronous: `run` calls it in a worker thread)."""


def _paper_name(record: Mapping[str, Any]) -> str:
    return f"paper {record.get('paper_id')!r}"


def _query(record: Mapping[str, Any]) -> str:
    return "\n".join(t for t in (_text(record.get("title")), _text(record.get("abstract"))) if t)


class ExtractiveRWGBench(_ExtractiveBase):
    """RWGBench floor: a related-work section copied from the candidates' abstracts, cited ``[i]``.

    Sentences come from the first `pool_candidates` candidates (all with None): a retriever's top of the list,
    which keeps the floor cheap (one short embedding call per paper) and its citations where retrieval is best.
    """

    def __init__(self, encoder: Any = None, n_sentences: int = 8, mmr_lambda: float = 0.7,
                 max_redundancy: float = 0.95, min_words: int = 5, pool_candidates: int | None = 20) -> None:
        super().__init__(encoder, n_sentences, mmr_lambda, max_redundancy, min_words)
        if pool_candidates is not None and pool_candidates < 1:
            raise ValueError(f"pool_candidates must be >= 1 or None, got {pool_candidates}")
        self.pool_candidates = pool_candidates

    def _pool(self, record: Mapping[str, Any]) -> list[Source[int]]:
        candidates = record.get("candidate_docs") or []
        if not candidates:
            raise ValueError(f"{_paper_name(record)} has no candidate_docs: the extractive writer has nothing "
                             "to copy from")
        pool: list[Source[int]] = []
        for i, doc in enumerate(candidates[: self.pool_candidates]):
            abstract, title = _text(doc.get("abstract")), _text(doc.get("title"))
            if abstract:
                pool.extend(Source(neutralize_markers(s), i, j) for j, s in enumerate(self._split(abstract)))
            elif title:
                pool.append(Source(neutralize_markers(title), i, -1))  # a title is never too short
        pool = self._filter(pool)
        if not pool:
            raise ValueError(f"{_paper_name(record)}: none of its {len(candidates)} candidate_docs has a title "
                             "or an abstract")
        return pool

    def generate(self, record: Mapping[str, Any]) -> Generated:
        candidates = list(record.get("candidate_docs") or [])
        pool = self._pool(record)
        picked = self._select(_query(record), pool)
        chosen = sorted((pool[i] for i in picked), key=lambda s: (s.source, s.position))
        paragraphs: list[str] = []
        current: int | None = None
        for item in chosen:
            sentence = _with_citation(item.text, f"[{item.source + 1}]")
            if item.source == current:
                paragraphs[-1] += " " + sentence
            else:
                paragraphs.append(sentence)
                current = item.source
        cited = sorted({item.source + 1 for item in chosen})
        desc = (f"No LLM prompt: the {WRITER} floor (extractive, no language model) selected {len(chosen)} of "
                f"{len(pool)} candidate sentences [{self._settings_text()}], citing candidates "
                f"{', '.join(f'[{i}]' for i in cited)} of {len(candidates)}.")
        return Generated("\n\n".join(paragraphs), desc,
                         {"candidates": [doc.get("doc_id") for doc in candidates], "writer": WRITER})

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """What this writer will do for `record` (no model is called: this is a description, not a prompt)."""
        candidates = record.get("candidate_docs") or []
        lines = [f"[{i}] {_text(d.get('title'))} (doc_id {d.get('doc_id')}; "
                 f"{'abstract' if _text(d.get('abstract')) else 'no abstract: title only'})"
                 for i, d in enumerate(candidates, 1)]
        pool = "" if self.pool_candidates is None else f" first {self.pool_candidates}"
        text = (f"No language model is called. The {WRITER} floor (extractive, not a model) will copy "
                f"{self._settings_text()}, from the abstracts of the{pool} candidates below, and cite each copied "
                f"sentence with its candidate's marker [i].\n\nTarget: {_text(record.get('title'))}\n"
                f"{_text(record.get('abstract'))}\n\nCandidates:\n"
                + ("\n".join(lines) if lines else "(none: this paper will fail)"))
        return [{"role": "user", "content": text}]


class ExtractiveSciIG(_ExtractiveBase):
    """SciIG floor: an introduction copied from the paper's own abstract and its neighbors', cited ``(Key)``."""

    def __init__(self, encoder: Any = None, n_sentences: int = 8, mmr_lambda: float = 0.7,
                 max_redundancy: float = 0.95, min_words: int = 5, max_own_sentences: int = 3) -> None:
        super().__init__(encoder, n_sentences, mmr_lambda, max_redundancy, min_words)
        if max_own_sentences < 0:
            raise ValueError(f"max_own_sentences must be >= 0, got {max_own_sentences}")
        self.max_own_sentences = max_own_sentences

    def _pool(self, record: Mapping[str, Any]) -> tuple[list[Source[int | None]], list[Mapping[str, Any]]]:
        neighbors = [n for n in (record.get("neighbors") or []) if isinstance(n, Mapping) and _text(n.get("key"))]
        pool: list[Source[int | None]] = [Source(s, None, j)
                                          for j, s in enumerate(self._split(_text(record.get("abstract"))))]
        for i, neighbor in enumerate(neighbors):
            abstract, title = _text(neighbor.get("abstract")), _text(neighbor.get("title"))
            if abstract:
                pool.extend(Source(s, i, j) for j, s in enumerate(self._split(abstract)))
            elif title:
                pool.append(Source(title, i, -1))
        # A copied author-year citation would be credited to the wrong work (or to none of the neighbors).
        pool = self._filter(pool, keep=lambda s: not find_citations(s.text))
        if not pool:
            raise ValueError(f"{_paper_name(record)} has neither an abstract nor neighbors with a title or "
                             "abstract: the extractive writer has nothing to copy from")
        return pool, neighbors

    def generate(self, record: Mapping[str, Any]) -> Generated:
        pool, neighbors = self._pool(record)
        # The cap on own-abstract sentences only applies when there is neighbor text to cite instead.
        cap = self.max_own_sentences if any(s.source is not None for s in pool) else self.n_sentences

        def allowed(i: int, picked: list[int]) -> bool:
            return pool[i].source is not None or sum(pool[j].source is None for j in picked) < cap

        picked = [pool[i] for i in self._select(_query(record), pool, allowed)]
        own = sorted((s for s in picked if s.source is None), key=lambda s: s.position)
        # (neighbor index, sentence) of the sentences copied from a neighbor, in neighbor then abstract order.
        cited = sorted(((s.source, s) for s in picked if s.source is not None), key=lambda c: (c[0], c[1].position))
        middle = " ".join(_with_citation(s.text, f"({_text(neighbors[i]['key'])})") for i, s in cited)
        if neighbors:
            parts = [_with_citation(own[0].text, "")] if own else []
            parts += [middle] if middle else []
            parts += [" ".join(_with_citation(s.text, "") for s in own[1:])] if own[1:] else []
        else:
            parts = [" ".join(_with_citation(s.text, "") for s in own)]
        keys = list(dict.fromkeys(_text(neighbors[i]["key"]) for i, _ in cited))
        if keys:
            citing = f"citing {'; '.join(keys)}."
        else:
            citing = "(no citation: the paper has no neighbors)." if not neighbors else "(no citation)."
        desc = (f"No LLM prompt: the {WRITER} floor (extractive, no language model) selected {len(picked)} of "
                f"{len(pool)} sentences [{self._settings_text()}; at most {cap} from the paper's own abstract]: "
                f"{len(own)} from the abstract, {len(cited)} from neighbors {citing}")
        return Generated("\n\n".join(parts), desc, {"label": record.get("introduction"), "writer": WRITER})

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """What this writer will do for `record` (no model is called: this is a description, not a prompt)."""
        neighbors = record.get("neighbors") or []
        lines = [f"({_text(n.get('key'))}) {_text(n.get('title'))}"
                 f"{'' if _text(n.get('abstract')) else ' [no abstract: title only]'}" for n in neighbors]
        text = (f"No language model is called. The {WRITER} floor (extractive, not a model) will copy "
                f"{self._settings_text()}, from the paper's own abstract (at most {self.max_own_sentences} "
                "sentences) and from its neighbors' abstracts, citing each neighbor sentence as (Key).\n\n"
                f"Paper: {_text(record.get('title'))}\n{_text(record.get('abstract'))}\n\nNeighbors:\n"
                + ("\n".join(lines) if lines else "(none: the introduction will be the abstract's sentences, "
                   "uncited)"))
        return [{"role": "user", "content": text}]
