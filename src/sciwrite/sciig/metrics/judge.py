"""SciIG LLM-as-judge: the three prompts of the SciIG paper (Garg et al., Table 6), verbatim, each answered with
a JSON object of named float scores in [0.0, 1.0].

- ``reference`` ("Content Coverage & Consistency"): the generated introduction against the actual (reference)
  introduction;
- ``metadata`` ("Faithfulness & Citation Context Quality"): against the paper's metadata (title, abstract,
  related papers);
- ``narrative`` ("Narrative Quality"): the introduction on its own.

Prompt text: Table 6 of Garg et al., "Let's Use ChatGPT To Write Our Paper! Benchmarking LLMs To Write the
Introduction of a Research Paper" (arXiv:2508.14273), quoted word for word, sent as the only (user) message, as
the paper gives them ("LLM Prompt (User Message)"); the PDF table flattens line breaks, so the line breaks are
ours. ``{pred}``, ``{label}`` and ``{Title, Abstract, Related Papers}`` are filled in; the metadata is a JSON object
``{"Title": ..., "Abstract": ..., "Related Papers": [...]}`` (one string per cited work: key, title, abstract).

No data tags or anti-injection rule are added (they would change the paper's wording); the only safeguard is
that a triple quote inside an inserted text is written ``'\'\'`` so that it cannot close the paper's
``\"\"\"`` delimiters. Scores are read as floats in [0, 1] (a number or numeric string under the score's JSON key,
key spelling loose; else a labelled value ``Consistency: 0.8``); a reply that lacks one of its prompt's scores, or
gives one off the 0-1 scale, is unreadable: it is retried with a follow-up (`retries`), and what still fails is
None with the reason, left out of the means, never scored 0. Generated introductions longer than
`MAX_SECTION_CHARS` are cut at a word boundary and flagged ``truncated``. Under a judge panel
(`sciwrite.metrics.judge_panel`) each judge that gave a prompt no usable answer is named in the row's
``judge_panel_errors`` (judge -> ``prompt: why``), even when the others' aggregate stands as the score.
"""  # noqa: D301 - it quotes the escaped triple quotes the prompts use

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.core.paper_row import JUDGE_PANEL, PaperRow
from sciwrite.llm.client import ChatClient
from sciwrite.metrics.judge import (
    MAX_SECTION_CHARS,
    JudgeClient,
    _json_objects,
    judge_for_profile,
    read_replies,
    truncate_section,
)
from sciwrite.metrics.judge_panel import JUDGE_PANEL_ERRORS, JUDGE_PANEL_SNAPSHOTS, add_panel_snapshots
from sciwrite.sciig.metrics.inputs import check_same_length, check_sciig_inputs
from sciwrite.sciig.metrics.model_roles import SCIIG_JUDGE
from sciwrite.sciig.metrics.row_fields import (
    JUDGE_ERRORS,
    JUDGE_RATIONALES,
    JUDGE_REPLIES,
    JUDGE_SNAPSHOTS,
    JUDGE_SYSTEM_FINGERPRINTS,
    TRUNCATED,
    judge_raw_key,
    judge_score_key,
)

MAX_CITED_CHARS = 16_000
MAX_TITLE_CHARS = 500
JUDGE_MAX_TOKENS = 800  # the paper asks for bullet-style rationales next to each score

# Table 6 of the SciIG paper, verbatim (line breaks ours). Placeholders: {pred}, {label}, {metadata}.
TABLE6_REFERENCE = """Generated Introduction:
\"\"\"
{pred}
\"\"\"

Actual Introduction:
\"\"\"
{label}
\"\"\"

You will evaluate a Generated Introduction against the Actual Introduction and output ONLY this JSON:
{
  "Content Coverage": "float (0.0–1.0)",
  "Content Coverage Rationale": "bullet-style justification",
  "Consistency": float (0.0–1.0),
  "Consistency Rationale": "bullet-style justification"
}
---
Scale: 0.0 = no alignment, 1.0 = perfect match
Content Coverage checks how many core claims and supporting facts from the Actual Introduction appear in the Generated Introduction.
Consistency checks for hallucinations or internal contradictions.
Partial scores are allowed."""

TABLE6_METADATA = """Generated Introduction:
\"\"\"
{pred}
\"\"\"

Metadata: {metadata}

You are evaluating a Generated Introduction against its Metadata and output ONLY this JSON:
{
  "Faithfulness": "float (0.0–1.0)",
  "Faithfulness Rationale": "bullet-style justification",
  "Citation Context Quality": "float (0.0–1.0)",
  "Citation Context Quality Rationale": "bullet-style justification"
}
Faithfulness checks if each claim is supported by the Title, Abstract, or cited papers.
Citation Quality checks if cited sentences accurately reflect cited metadata."""

TABLE6_NARRATIVE = """Generated Introduction:
\"\"\"
{pred}
\"\"\"

Scale: 0.0 = disfluent, 1.0 = highly fluent and readable
Output ONLY JSON:
{
  "Narrative Quality": "float (0.0–1.0)",
  "Narrative Quality Rationale": "bullet-style justification"
}
Evaluation includes grammar, logical flow, academic tone, and readability.
Deduct points for issues; provide justification in bullet style."""


@dataclass(frozen=True)
class JudgePrompt:
    """One SciIG judge prompt: its Table 6 template and its scores (row name -> the JSON key the paper uses)."""

    name: str
    scores: tuple[str, ...]
    keys: tuple[str, ...]
    template: str

    @property
    def answer_format(self) -> str:
        fields = ", ".join(f'"{k}": <float 0.0-1.0>, "{k} Rationale": "..."' for k in self.keys)
        return f"Output ONLY the JSON object {{{fields}}}."


PROMPTS = (
    JudgePrompt("reference", ("coverage", "consistency"), ("Content Coverage", "Consistency"), TABLE6_REFERENCE),
    JudgePrompt("metadata", ("faithfulness", "citation_quality"), ("Faithfulness", "Citation Context Quality"),
                TABLE6_METADATA),
    JudgePrompt("narrative", ("narrative_quality",), ("Narrative Quality",), TABLE6_NARRATIVE),
)
PROMPT_OF = {p.name: p for p in PROMPTS}
#: The judge's Table 6 templates, for the provenance block's template hash.
JUDGE_TEMPLATES = {f"judge_{p.name}": p.template for p in PROMPTS}
SCORE_NAMES = tuple(s for p in PROMPTS for s in p.scores)


def _quoted(text: str) -> str:
    """`text` with any triple double quote replaced, so it cannot close the prompt's quote delimiters."""
    return (text or "").replace('"""', "'''")


def metadata_json(title: str | None, abstract: str | None, cited: Sequence[str] | None) -> str:
    """The ``{Title, Abstract, Related Papers}`` slot of Table 6's metadata prompt, as a JSON object."""
    works = [w.strip() for w in (cited or []) if w and w.strip()]
    text = json.dumps({"Title": " ".join((title or "").split())[:MAX_TITLE_CHARS], "Abstract": (abstract or "").strip(),
                       "Related Papers": works}, ensure_ascii=False, indent=1)
    return truncate_section(text, MAX_CITED_CHARS)[0]


def sciig_judge_messages(prompt: JudgePrompt, introduction: str, *, reference: str | None = None,
                         title: str | None = None, abstract: str | None = None,
                         cited: Sequence[str] | None = None, truncated_at: int | None = None) -> list[dict[str, str]]:
    """The single user message of `prompt`: its Table 6 text with the inputs filled in (`truncated_at` is only
    recorded by the caller: the paper's wording is not extended with a note)."""
    filled = {"{pred}": _quoted(introduction), "{label}": _quoted(reference or ""),
              "{metadata}": _quoted(metadata_json(title, abstract, cited))}
    content = re.sub(r"\{pred\}|\{label\}|\{metadata\}", lambda m: filled[m.group(0)], prompt.template)
    return [{"role": "user", "content": content}]


def _key(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name.strip().lower())


def _unit_float(value: Any) -> float | None:
    """A score in [0, 1] from a number or numeric string ("0.8", "0.8 (good)" is not), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d*\.?\d+)\s*", value)
        if not match:
            return None
        value = match.group(1)
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    return score if math.isfinite(score) and 0.0 <= score <= 1.0 else None


def _agreed(candidates: list[float | None]) -> float | None:
    if any(c is None for c in candidates) or len(set(candidates)) != 1:
        return None
    return candidates[0]


def parse_named_scores(reply: str | None, names: Sequence[str]) -> dict[str, float | None]:
    """Each named 0.0-1.0 score in a judge's reply (None where absent, off the scale or ambiguous).

    `names` are the paper's JSON keys ("Content Coverage") or our row names ("coverage"); key spelling is loose
    (case, spaces, underscores). Per name, the first kind present decides: keys of JSON objects in the reply
    (bare, fenced or among text), else labelled values (``Consistency: 0.8``, ``"Consistency": "0.8"``). A
    "<name> Rationale" key is never taken for the score. Several different values give None."""
    if not reply or not reply.strip():
        return {name: None for name in names}
    objects = _json_objects(reply)
    scores: dict[str, float | None] = {}
    for name in names:
        in_json = [value for obj in objects for key, value in obj.items()
                   if isinstance(key, str) and _key(key) == _key(name)]
        if in_json:
            scores[name] = _agreed([_unit_float(v) for v in in_json])
            continue
        label = r"[\s_-]*".join(map(re.escape, _key(name).split("_")))
        pattern = re.compile(rf"\b{label}\b[\s*\"'`]*[:=][\s*\"'`]*(\d*\.?\d+)(?![\d.]*\d)", re.IGNORECASE)
        matches = pattern.findall(reply)
        scores[name] = _agreed([_unit_float(n) for n in matches]) if matches else None
    return scores


def parse_prompt_reply(prompt: JudgePrompt, reply: str | None) -> dict[str, float | None]:
    """`prompt`'s scores (row names) from a reply keyed as the paper asks ("Content Coverage" ...)."""
    by_key = parse_named_scores(reply, prompt.keys)
    return {score: by_key[key] for score, key in zip(prompt.scores, prompt.keys)}


def _rationales(prompt: JudgePrompt, reply: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for obj in _json_objects(reply or ""):
        for score, key in zip(prompt.scores, prompt.keys):
            for k, v in obj.items():
                if isinstance(k, str) and _key(k) == _key(f"{key} Rationale"):
                    found[score] = v
    return found


def judge_sciig(predictions: Sequence[str], references: Sequence[str], titles: Sequence[str] | None,
                abstracts: Sequence[str], client: ChatClient, cited: Sequence[Sequence[str]] | None = None, *,
                prompts: Sequence[str] = tuple(PROMPT_OF), max_chars: int = MAX_SECTION_CHARS, retries: int = 1,
                workers: int = 8, max_tokens: int = JUDGE_MAX_TOKENS, show_progress: bool = True) -> list[dict[str, Any]]:
    """Per paper: each score of the chosen prompts as ``judge_<score>`` (the judge's float in [0, 1], or None),
    ``judge_<score>_raw`` (the same value as read; kept for the row layout), ``judge_rationales`` (score -> the
    reply's bullet-style rationale), ``judge_errors`` / ``judge_replies`` / ``judge_snapshots`` /
    ``judge_system_fingerprints`` (prompt -> reason / reply / the model snapshot that answered / its fingerprint) and ``truncated``. Every (paper, prompt) request goes to the client in one concurrent pass; up to `retries` more
    passes resend the failed ones (unreadable replies with a follow-up asking for the JSON answer)."""
    n = check_sciig_inputs(predictions, references, titles, abstracts)
    check_same_length(predictions=predictions, cited=cited)
    unknown = [p for p in prompts if p not in PROMPT_OF]
    if unknown:
        raise ValueError(f"unknown judge prompt(s) {unknown}; choose from {list(PROMPT_OF)}")
    if cited is not None:
        for i, works in enumerate(cited):
            if isinstance(works, str) or not all(isinstance(w, str) for w in works):
                raise ValueError(f"record {i}: field 'cited' must be a list of strings (one text per cited work)")
    rows: list[dict[str, Any]] = []
    pending: dict[tuple[int, str], list[dict[str, str]]] = {}
    for i in range(n):
        text, truncated = truncate_section(predictions[i], max_chars)
        row: dict[str, Any] = {TRUNCATED: truncated, JUDGE_ERRORS: {}, JUDGE_REPLIES: {}, JUDGE_RATIONALES: {},
                               JUDGE_SNAPSHOTS: {}, JUDGE_SYSTEM_FINGERPRINTS: {}}
        for name in prompts:
            for score in PROMPT_OF[name].scores:
                row[judge_score_key(score)] = row[judge_raw_key(score)] = None
            pending[i, name] = sciig_judge_messages(
                PROMPT_OF[name], text, reference=references[i], title=titles[i] if titles is not None else None,
                abstract=abstracts[i], cited=cited[i] if cited is not None else None,
                truncated_at=max_chars if truncated else None)
        rows.append(row)

    def read(key: tuple[int, str], reply: str | None) -> tuple[dict[str, Any] | None, str | None]:
        scores = parse_prompt_reply(PROMPT_OF[key[1]], reply)
        missing = [s for s, v in scores.items() if v is None]
        return (None, f"no readable {missing} in reply: {(reply or '')[:200]!r}") if missing else (scores, None)

    def follow_up(key: tuple[int, str]) -> str:
        return "Not every score could be read from that reply. " + PROMPT_OF[key[1]].answer_format

    readings = read_replies(client, pending, read, follow_up, retries=retries, workers=workers,
                            max_tokens=max_tokens, show_progress=show_progress, desc="SciIG judge")
    for (i, name), reading in readings.items():
        row = rows[i]
        if reading.reply is not None:
            row[JUDGE_REPLIES][name] = reading.reply
            row[JUDGE_SNAPSHOTS][name] = reading.snapshot
            row[JUDGE_SYSTEM_FINGERPRINTS][name] = reading.system_fingerprint
            if reading.value is not None:
                row[JUDGE_RATIONALES].update(_rationales(PROMPT_OF[name], reading.reply))
        if reading.error is not None:
            row[JUDGE_ERRORS][name] = reading.error
        for score, value in (reading.value or {}).items():
            row[judge_raw_key(score)] = row[judge_score_key(score)] = value
        for judge, values in (reading.panel or {}).items():  # a judge panel: each judge's samples, per score
            scores = row.setdefault(JUDGE_PANEL, {}).setdefault(judge, {})
            for score in PROMPT_OF[name].scores:
                scores[judge_score_key(score)] = [None if v is None else v.get(score) for v in values]
        for judge, why in (reading.panel_errors or {}).items():  # the judges with no usable answer to this prompt
            failed = row.setdefault(JUDGE_PANEL_ERRORS, {})
            failed[judge] = "; ".join(filter(None, (failed.get(judge), f"{name}: {why}")))
        if reading.panel_snapshots:  # every panel judge's snapshots, over the prompts
            add_panel_snapshots(row.setdefault(JUDGE_PANEL_SNAPSHOTS, {}), reading.panel_snapshots)
    return rows


def summarize_sciig_judgements(rows: Sequence[PaperRow]) -> dict[str, Any]:
    """Per score: the mean over papers judged on it (None if none was); judged / failed counts and failures."""
    summary: dict[str, Any] = {}
    for score in SCORE_NAMES:
        key = judge_score_key(score)
        values = [value for r in rows if (value := r.value(key)) is not None]
        if any(key in r.values for r in rows):
            summary[key] = sum(values) / len(values) if values else None
    failures = [{"index": i, "prompt": name, "reason": reason}
                for i, r in enumerate(rows) for name, reason in (r.details.get(JUDGE_ERRORS) or {}).items()]
    summary.update(n_failed=len(failures), failures=failures)
    return summary


def sciig_judge_for_profile(model: str | None = None, profile: str | None = None,
                            **client_kwargs: Any) -> tuple[JudgeClient | None, str | None]:
    """The `sciig_judge` role's client (the SciIG paper's judge is GPT-4o, §4.2), or (None, why): offline `lite`
    has none."""
    return judge_for_profile(SCIIG_JUDGE, model, profile, **client_kwargs)

