"""RWGBench's own per-paper row fields (`sciwrite.core.paper_row.PaperRow.details`), declared once: the scorers
write them under these keys and the summary, the judge check and the drill-down read them by the same names. The
metric values of a row are keyed by their specs (`sciwrite.rwgbench.metrics.specs`)."""

from __future__ import annotations

#: The LLM judge's record of a section: why it failed (None when it did not), its raw reply, the 1-5 score read
#: from it, the model snapshot and system fingerprint that answered, whether the section was cut to fit, and
#: whether it was empty (scored the lowest without asking).
JUDGE_ERROR = "judge_error"
JUDGE_REPLY = "judge_reply"
LLM_JUDGE_RAW = "llm_judge_raw"
JUDGE_SNAPSHOT = "judge_snapshot"
JUDGE_SYSTEM_FINGERPRINT = "judge_system_fingerprint"
TRUNCATED = "truncated"
EMPTY_SECTION = "empty_section"
#: Whether the prediction had no candidate list (Direct).
NO_CANDIDATES = "no_candidates"


def not_applicable_key(metric: str) -> str:
    """The row's key saying why `metric` does not apply to the paper (CSC, TRT without candidates)."""
    return f"{metric}_not_applicable"


__all__ = ["EMPTY_SECTION", "JUDGE_ERROR", "JUDGE_REPLY", "JUDGE_SNAPSHOT", "JUDGE_SYSTEM_FINGERPRINT", "LLM_JUDGE_RAW",
           "NO_CANDIDATES", "TRUNCATED", "not_applicable_key"]
