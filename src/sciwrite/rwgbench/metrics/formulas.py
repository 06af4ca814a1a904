"""RWGBench metric formulas as pure functions, so that anyone can check them by hand.

Each function takes plain numbers, lists or matrices and returns a float (or a pair); the model-backed
scorers compute their inputs (NLI probabilities, embeddings, frame labels) and call these.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from sciwrite.models.citation_frames import FRAMES
from sciwrite.sources.markers import MARKER_NUMBERS, group_spans, marker_numbers

#: BibTeX of the RWGBench paper, cited by every RWGBench metric module.
RWGBENCH_CITATION = """
@article{xie2026rwgbench,
  title   = {RWGBench: Evaluating Scholarly Positioning in Related Work Generation},
  author  = {Xie, Anzhe and Su, Weihang and Mao, Jiaxin and Liu, Yiqun and Ma, Shaoping and Ai, Qingyao},
  journal = {arXiv preprint arXiv:2606.24894},
  year    = {2026}
}
"""

# One pass over every bracket (`re.findall`, no match objects: 1 MB of markers in well under a second), each "["
# read as one of: a well-formed marker group ("[1, 3-5]", `MARKER_GROUP`'s); a bracket that opens with a number but
# is no marker ("[3,]", "[2-]", "[1, a]"): malformed; a negative number ("[-1]"), which no candidate list has:
# out of range, like [0] and [999]. None holds a "[" and each ends at its first "]", so at one "[" at most one
# reading applies, the one three separate scans would find.
_BRACKETS = re.compile(rf"\[(?:({MARKER_NUMBERS})\]|(\s*\d[^\[\]\n]{{0,40}})\]|\s*-\s*(\d{{1,9}})\s*\])")


def parse_citation_markers(text: str) -> list[int]:
    """Every marker number in `text`, in order of occurrence: '[1, 2]' -> 1, 2; '[1-3]' -> 1, 2, 3; '[1][2]'.
    Any text gives a list (no exception), in time linear in its length."""
    return marker_numbers(text or "")


@dataclass
class ResolvedCitations:
    """What the markers of one generated section point to in its candidate list."""

    doc_ids: list[str] = field(default_factory=list)  # resolved, in order of occurrence (with repeats)
    n_markers: int = 0  # marker numbers found, resolved or not
    out_of_range: list[int] = field(default_factory=list)
    n_malformed: int = 0  # brackets opening with a number that are not markers, e.g. "[3,]"

    @property
    def unique_ids(self) -> list[str]:
        """Distinct resolved doc_ids in order of first occurrence."""
        return list(dict.fromkeys(self.doc_ids))

    @property
    def n_unresolved(self) -> int:
        return len(self.out_of_range) + self.n_malformed

    @property
    def is_empty_citation_output(self) -> bool:
        """No marker resolves: the paper scores such an output 0 on the citation metrics."""
        return not self.doc_ids


def resolve_citations(text: str, candidates: Sequence[str]) -> ResolvedCitations:
    """Resolve marker [i] to ``candidates[i-1]``; out-of-range and malformed markers are counted, never fatal."""
    candidates = list(candidates)
    k = len(candidates)
    doc_ids: list[str] = []
    out_of_range: list[int] = []
    negative: list[int] = []
    n_numbers = n_malformed = 0
    for group, malformed, minus in _BRACKETS.findall(text or ""):
        if group.isdigit():  # "[3]", nearly every marker
            n = int(group)
            n_numbers += 1
            doc_ids.append(candidates[n - 1]) if 0 < n <= k else out_of_range.append(n)
        elif group:
            # a range resolves as a slice of the candidates and ranges of numbers outside 1..k, not a number at a
            # time: 1 MB of "[1-100]" is 15 million numbers
            for lo, hi in group_spans(group):
                n_numbers += hi - lo + 1
                if lo == hi:
                    doc_ids.append(candidates[lo - 1]) if 0 < lo <= k else out_of_range.append(lo)
                    continue
                out_of_range.extend(range(lo, min(hi, 0) + 1))
                doc_ids.extend(candidates[max(lo, 1) - 1:max(min(hi, k), 0)])
                out_of_range.extend(range(max(lo, k + 1), hi + 1))
        elif malformed:
            n_malformed += 1
        else:
            negative.append(-int(minus))
    return ResolvedCitations(doc_ids, n_numbers + len(negative), negative + out_of_range, n_malformed)


def citation_precision_recall(generated_ids: Iterable[str], gold_ids: Iterable[str]) -> tuple[float, float]:
    """Precision and recall of the cited set against the gold set; no generated citation gives (0, 0)."""
    generated, gold = set(generated_ids), set(gold_ids)
    if not gold:
        raise ValueError("citation recall is undefined for a paper without gold citations")
    if not generated:
        return 0.0, 0.0
    hits = len(generated & gold)
    return hits / len(generated), hits / len(gold)


def soft_citation_recall(scores: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Mean over reference papers r of the best match over generated papers g.

    ``scores[g][r]`` = P(entailment) + 0.5 * P(neutral) with premise = generated paper g (title +
    abstract) and hypothesis = reference paper r. No generated paper gives 0.
    """
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"scores must be a (generated x reference) matrix, got shape {matrix.shape}")
    if matrix.shape[1] == 0:
        raise ValueError("soft recall is undefined without reference papers")
    if matrix.shape[0] == 0:
        return 0.0
    return float(matrix.max(axis=0).mean())


#: Eq. 3: the NLI label an NLI model predicts (its argmax) -> support score, in [entailment, neutral, contradiction]
#: column order.
NLI_LABEL_SCORES: tuple[float, float, float] = (1.0, 0.5, 0.0)

#: Why a metric that needs the cited papers' abstracts has no value for a prediction without a candidate list
#: (the paper's Direct rows print "–" there).
NOT_APPLICABLE_NO_CANDIDATES = ("not applicable: the prediction has no candidate list (Direct), so no citation "
                                "marker resolves to a paper whose abstract the metric compares")
#: The summary's fields of those metrics: metric -> why it applies to no paper, and metric -> papers left out.
NOT_APPLICABLE, N_NOT_APPLICABLE = "not_applicable", "n_not_applicable"


def nli_label_scores(probabilities: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """Eq. 3's s_i of each (entailment, neutral, contradiction) probability row: the PREDICTED label (argmax)
    mapped to 1 / 0.5 / 0. An exact tie goes to the first of the tied labels in that order."""
    probs = np.asarray(probabilities, dtype=float).reshape(-1, 3)
    return np.asarray(NLI_LABEL_SCORES)[probs.argmax(axis=1)] if len(probs) else np.zeros(0)


def claim_support_consistency(scores_per_citation: Sequence[Sequence[float]]) -> float:
    """Eq. 3: CSC = (1 / |C_g|) * sum over the distinct cited papers c_i of s_i.

    ``scores_per_citation[i]`` holds the label scores (1 / 0.5 / 0) of every sentence that cites c_i; s_i is
    their mean (the paper gives one hypothesis per citation; a paper cited in several sentences supports each).
    No cited paper (an empty-citation output) gives 0.
    """
    per_paper = [list(s) for s in scores_per_citation]
    if any(not s for s in per_paper):
        raise ValueError("every cited paper needs at least one citing sentence score")
    return float(sum(sum(s) / len(s) for s in per_paper) / len(per_paper)) if per_paper else 0.0


def topical_relevance(similarities: Sequence[float]) -> float:
    """Eq. 4: TRT = (1 / |C_g|) * sum over the distinct cited papers of cos(a_P, a_ci); no cited paper gives 0."""
    sims = [float(s) for s in similarities]
    return sum(sims) / len(sims) if sims else 0.0


def marker_keys(text: str) -> list[str]:
    """A section's citations when there is no candidate list (Direct): each well-formed marker number is one
    cited item, "[3]" -> "[3]", in order of occurrence with repeats. Eqs. 5-6 count these."""
    return [f"[{n}]" for n in parse_citation_markers(text)]


def citation_density(n_unique_citations: int, n_sentences: int) -> float:
    """|C_g| / N_s: distinct cited papers per sentence of the section (0 for a section with no sentence)."""
    if n_unique_citations < 0 or n_sentences < 0:
        raise ValueError("counts cannot be negative")
    return n_unique_citations / n_sentences if n_sentences else 0.0


def citation_distribution_balance(counts: Mapping[str, int] | Iterable[int]) -> float:
    """Share of cited papers cited exactly once (`counts`: citations per paper, as a mapping or a list).

    A section that cites nothing scores 0.
    """
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    values = [v for v in values if v > 0]
    return sum(1 for v in values if v == 1) / len(values) if values else 0.0


def citation_counts(doc_ids: Iterable[str]) -> Counter:
    """How often each paper is cited (markers with repeats, as `ResolvedCitations.doc_ids` lists them)."""
    return Counter(doc_ids)


def positioning_structure_similarity(sim: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Soft LCS of two ordered block sequences from their m x n cosine-similarity matrix.

    L[i][j] = max(L[i-1][j], L[i][j-1], L[i-1][j-1] + a_ij) with a_ij = max(0, cos_ij);
    PSS = 2 * L[m][n] / (m + n). Either sequence empty gives 0. Cosines are also capped at 1, which they
    exceed only by float rounding, so that identical sections score exactly 1.
    """
    a = np.clip(np.asarray(sim, dtype=float), 0.0, 1.0)
    if a.ndim != 2:
        raise ValueError(f"sim must be an m x n matrix, got shape {a.shape}")
    m, n = a.shape
    if m == 0 or n == 0:
        return 0.0
    lcs = np.zeros((m + 1, n + 1))
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            lcs[i, j] = max(lcs[i - 1, j], lcs[i, j - 1], lcs[i - 1, j - 1] + a[i - 1, j - 1])
    return float(2.0 * lcs[m, n] / (m + n))


def citation_frame_alignment(gen_counts: Mapping[str, int], ref_counts: Mapping[str, int]) -> float:
    """Agreement of two citation-frame count profiles over the seven MultiCite frames.

    For every frame k active (count > 0) in either profile, F_k = 2 * min(g_k, r_k) / (g_k + r_k);
    CFA is the mean of F_k over those frames (a frame absent from both carries no evidence either way
    and is left out, so a section compared with itself scores 1). Two profiles with no active frame are
    identical: 1.
    """
    for name, counts in (("gen_counts", gen_counts), ("ref_counts", ref_counts)):
        unknown = sorted(set(counts) - set(FRAMES))
        if unknown:
            raise ValueError(f"{name} has unknown frames {unknown}; frames are {list(FRAMES)}")
        negative = sorted(k for k, v in counts.items() if v < 0)
        if negative:
            raise ValueError(f"{name} has negative counts for {negative}")
    active = [k for k in FRAMES if gen_counts.get(k, 0) > 0 or ref_counts.get(k, 0) > 0]
    if not active:
        return 1.0
    scores = [2 * min(gen_counts.get(k, 0), ref_counts.get(k, 0)) / (gen_counts.get(k, 0) + ref_counts.get(k, 0))
              for k in active]
    return float(sum(scores) / len(scores))
