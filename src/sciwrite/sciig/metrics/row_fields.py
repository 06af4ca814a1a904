"""SciIG's own per-paper row fields (`sciwrite.core.paper_row.PaperRow.details`, and numbers that are no Table 2
metric), declared once: the scorers write them under these keys and the summary, the judge check and the drill-down
read them by the same names. The metric values of a row are keyed by their specs (`sciwrite.sciig.metrics.specs`)."""

from __future__ import annotations

#: The paper's sentence-level BLEU statistics, which corpus BLEU pools over the papers; the summary's mean of the
#: papers' sentence BLEU (beside corpus BLEU, which has no interval of per-paper means).
BLEU_STATS = "bleu_stats"
SENTENCE_BLEU = "sentence_bleu"
#: The number of 512-token windows BLEURT read the pair in.
BLEURT_WINDOWS = "bleurt_windows"
#: The token-F1 variants of the QA-based scores (reported beside the paper's, not in Table 2).
QA_F1_KEYS = ("qa_faithfulness_f1", "qa_consistency_f1")
#: Citation correctness: whether the introduction cites nothing; the keys the extractor read from it; the keys
#: cited outside the paper's cited works; the citations of a surname no cited work has, and the near misses; the
#: extractor that read the citations, and why an LLM extractor's answer was unusable (None when it was usable).
NO_CITATION = "no_citation"
CITED_KEYS = "cited_keys"
NOT_IN_NEIGHBORS = "not_in_neighbors"
UNMATCHED_CITATIONS = "unmatched_citations"
NEAR_MISS_CITATIONS = "near_miss_citations"
CITATION_EXTRACTOR = "citation_extractor"
CITATION_EXTRACTOR_ERROR = "citation_extractor_error"
#: The LLM judge's record, per prompt: why it failed, its reply, its rationale, and the model snapshot and system
#: fingerprint that answered.
JUDGE_ERRORS = "judge_errors"
JUDGE_REPLIES = "judge_replies"
JUDGE_RATIONALES = "judge_rationales"
JUDGE_SNAPSHOTS = "judge_snapshots"
JUDGE_SYSTEM_FINGERPRINTS = "judge_system_fingerprints"
#: Whether the introduction was cut to fit the judge's prompt.
TRUNCATED = "truncated"


def judge_score_key(score: str) -> str:
    """The row's key of the judge's `score` ("coverage" -> ``judge_coverage``, the metric's key)."""
    return f"judge_{score}"


def judge_raw_key(score: str) -> str:
    """The row's key of the judge's `score` as read from the reply (kept for the row layout)."""
    return f"{judge_score_key(score)}_raw"


__all__ = ["BLEURT_WINDOWS", "BLEU_STATS", "CITATION_EXTRACTOR", "CITATION_EXTRACTOR_ERROR", "CITED_KEYS",
           "JUDGE_ERRORS", "JUDGE_RATIONALES", "JUDGE_REPLIES", "JUDGE_SNAPSHOTS", "JUDGE_SYSTEM_FINGERPRINTS",
           "NEAR_MISS_CITATIONS", "NOT_IN_NEIGHBORS", "NO_CITATION", "QA_F1_KEYS", "SENTENCE_BLEU", "TRUNCATED", "UNMATCHED_CITATIONS",
           "judge_raw_key", "judge_score_key"]
