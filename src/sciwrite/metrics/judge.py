"""LLM-judge machinery shared by the benchmarks' judges: data tags the judged text cannot forge, a lenient and
strict reader of 1-5 scores, one send-read-retry loop over a chat client, and the judge's client for a profile.

Each benchmark keeps its own rubric and prompts (`sciwrite.rwgbench.metrics.judge`, `sciwrite.sciig.metrics.judge`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import JudgeCheckRecord, JudgeRecord, LLMUsage
from sciwrite.core.summary import JudgePanel as SummaryPanel
from sciwrite.llm.client import ChatClient
from sciwrite.llm.ledger import Totals, UsageLedger
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.metrics.judge_panel import JudgePanel
from sciwrite.models.plan import ModelPlan, resolve_plan
from sciwrite.models.registry import ModelRole, ModelUnavailableError

K = TypeVar("K")

MAX_SECTION_CHARS = 24_000  # about 3,500-4,000 words: several times a typical related-work section
JUDGE_MAX_TOKENS = 300
#: Sent with every judge request (the papers' seed), for endpoints that sample reproducibly with one; an endpoint
#: that refuses the parameter gets none (`sciwrite.llm.capabilities`), and that is recorded.
JUDGE_SEED = 42

_TAG_LIKE = re.compile(r"<(?=\s*/?\s*(?:section|title))", re.IGNORECASE)


def normalise_score(score: float) -> float:
    """Map the 1-5 scale onto [0, 1]: (s - 1) / 4."""
    return (score - 1) / 4


def neutralise(text: str) -> str:
    """Escape anything that looks like a section or title tag, so the text cannot open or close a data block."""
    return _TAG_LIKE.sub("&lt;", text)


def truncate_section(text: str, max_chars: int = MAX_SECTION_CHARS) -> tuple[str, bool]:
    """The text cut to at most `max_chars` at a word boundary, and whether it was cut."""
    if len(text) <= max_chars:
        return text, False
    head = text[:max_chars]
    space = max(head.rfind(" "), head.rfind("\n"))
    return (head[:space] if space > max_chars // 2 else head).rstrip(), True


# --- reading the score --------------------------------------------------------------------------------------------

_NUMBER = r"(\d+(?:\.\d+)?)"
_END = r"(?!\.?\d)(?!\s*[-\u2013]\s*\d)"  # a whole number, not the start of a range such as 3-4
_DENOMINATOR = rf"(?:\s*(?:/|out\s+of)\s*{_NUMBER}{_END})?"
_QUOTE = r"[\s*\"'`]*"
_LABELLED = re.compile(rf"\b(?:overall[ _]?)?(?:score|rating)\b(?:\s*\([^)]{{0,20}}\))?{_QUOTE}(?:[:=]|\bis\b|\bof\b){_QUOTE}"
                       rf"{_NUMBER}{_END}{_DENOMINATOR}", re.IGNORECASE)
_FRACTION = re.compile(rf"(?<![\d.-]){_NUMBER}\s*(?:/|out\s+of)\s*{_NUMBER}{_END}", re.IGNORECASE)
_LONE = re.compile(rf"^[\s*\"'`(\[]*{_NUMBER}[\s*\"'`)\].!]*$")
_SCORE_KEYS = ("score", "overall_score", "rating")


def _on_scale(value: Any, denominator: str | None = None) -> int | float | None:
    """A 1-5 score (whole or half point) from a number or numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        match = re.fullmatch(rf"\s*{_NUMBER}{_DENOMINATOR}\s*", value)
        if not match:
            return None
        value, denominator = match.group(1), match.group(2) or denominator
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    if denominator is not None and float(denominator) != 5:
        return None
    if not math.isfinite(score) or not 1 <= score <= 5 or (score * 2) % 1:
        return None
    return int(score) if score.is_integer() else score


def _agreed(candidates: list[int | float | None]) -> int | float | None:
    """The one score all candidates agree on; None when any is off the scale or they differ."""
    if any(c is None for c in candidates) or len(set(candidates)) != 1:
        return None
    return candidates[0]


def _json_objects(reply: str) -> list[dict[str, Any]]:
    """Every JSON object embedded in the reply (in code fences or among text)."""
    decoder, found, position = json.JSONDecoder(), [], 0
    while (start := reply.find("{", position)) != -1:
        try:
            obj, end = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
        position = end
    return found


def parse_judge_score(reply: str | None) -> int | float | None:
    """The 1-5 score in a judge's reply, or None when there is none or it is ambiguous.

    Tried in order, the first kind present deciding: a JSON object with a ``score`` key (bare, fenced or among
    text); a labelled score (``Score: 4``, ``"score": 4``, ``rating: 4/5``); a fraction of 5 (``4 / 5``,
    ``4 out of 5``); a reply that is just a number. Off-scale values (0, 7, 4/10, 3.7) and several different
    candidates of the deciding kind give None. Half points (3.5) are kept as floats.
    """
    if not reply or not reply.strip():
        return None
    in_json = [value for obj in _json_objects(reply) for key, value in obj.items()
               if isinstance(key, str) and key.lower() in _SCORE_KEYS]
    if in_json:
        return _agreed([_on_scale(v) for v in in_json])
    for pattern in (_LABELLED, _FRACTION):
        matches = pattern.findall(reply)
        if matches:
            return _agreed([_on_scale(number, denominator or None) for number, denominator in matches])
    lone = _LONE.match(reply)
    return _on_scale(lone.group(1)) if lone else None


@dataclass
class Reading:
    """What came back for one conversation: the value read from the last reply, that reply, and why not if none."""

    value: Any = None
    reply: str | None = None
    error: str | None = None
    snapshot: str | None = None  # the model snapshot that gave the last reply
    system_fingerprint: str | None = None  # and its system fingerprint
    panel: dict[str, list[Any]] | None = None  # a judge panel's: judge -> the value of each of its samples
    panel_errors: dict[str, str] | None = None  # and judge -> why it gave no usable value (the judges that gave none)
    panel_snapshots: dict[str, list[str]] | None = None  # and judge -> the snapshots that answered it, each once


def read_replies(client: ChatClient, conversations: Mapping[K, list[dict[str, str]]],
                 read: Callable[[K, str | None], tuple[Any, str | None]], follow_up: Callable[[K], str], *,
                 retries: int = 1, workers: int = 8, max_tokens: int = JUDGE_MAX_TOKENS, show_progress: bool = True,
                 desc: str = "LLM judge", seed: int | None = JUDGE_SEED) -> dict[K, Reading]:
    """Send every conversation in one concurrent pass, then up to `retries` passes resending only the failed ones.

    `read(key, reply)` gives (value, None) or (None, why the reply is unreadable); an unreadable reply is resent
    with the judge's reply and `follow_up(key)` appended, an API error as it was (the client already retried it).
    """
    if isinstance(client, JudgePanel):  # every judge and sample through this same loop, then their aggregate
        return client.readings(read_replies, conversations, read, follow_up, seed=seed, desc=desc, retries=retries,
                               workers=workers, max_tokens=max_tokens, show_progress=show_progress)
    readings = {key: Reading() for key in conversations}
    pending = dict(conversations)
    for attempt in range(1 + max(0, retries)):
        if not pending:
            break
        order = list(pending)
        results = client.complete([pending[key] for key in order], temperature=0.0, max_tokens=max_tokens,
                                  workers=workers, show_progress=show_progress,
                                  desc=desc if attempt == 0 else f"{desc} (retry {attempt})",
                                  **({"seed": seed} if seed is not None else {}))
        for key, result in zip(order, results):
            reading = readings[key]
            if result.error is not None:
                reading.error = f"API error: {result.error}"
                continue
            reading.reply, reading.snapshot = result.content, result.snapshot
            reading.system_fingerprint = result.system_fingerprint
            value, problem = read(key, result.content)
            if problem is not None:
                reading.error = problem
                pending[key] = [*pending[key], {"role": "assistant", "content": result.content or ""},
                                {"role": "user", "content": follow_up(key)}]
                continue
            reading.value, reading.error = value, None
            del pending[key]
    return readings


#: What serves a judge role: one chat client, or a panel of them when the `JudgeConfig`'s panel `is_panel`.
JudgeClient = ChatClient | JudgePanel


def load_chat_model(plan: ModelPlan, role: str, judge: JudgeConfig = DEFAULT_JUDGE,
                    ledger: UsageLedger | None = None) -> tuple[JudgeClient | None, str | None]:
    """The client of the chat-model `role` of a run's plan, or (None, why) when the plan has no model for it (e.g.
    offline `lite`) or no endpoint is configured; the metric is then reported as not computed. Never a substitute
    model. The clients are made as `judge` says (its ``client_factory``, when given, instead of `ChatClient`), each
    writing its usage to `ledger`; a panel is one client per judge."""
    factory, panel = judge.client_factory, judge.panel
    client_kwargs = judge.client_kwargs(ledger)
    if panel is not None and panel.is_panel:  # each judge its own client (none named: the plan's judge)
        def make(model_id: str) -> Any:
            return factory(model_id, role) if factory is not None else \
                ChatClient(model_id, **{"purpose": role, **client_kwargs})

        def load_panel(model_id: str) -> JudgePanel:
            spec = panel.with_judge(model_id)
            return JudgePanel(spec, [make(judge) for judge in spec.judges])

        return plan.load(role, load_panel, soft=(ModelUnavailableError,))
    if factory is not None:
        return plan.load(role, lambda model_id: factory(model_id, role), soft=(ModelUnavailableError,))
    return plan.load(role, lambda model_id: ChatClient(model_id, **{"purpose": role, **client_kwargs}),
                     soft=(ModelUnavailableError,))  # includes LLMNotConfiguredError


def judge_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None,
                      ledger: UsageLedger | None = None, **client_kwargs: Any) -> tuple[JudgeClient | None, str | None]:
    """`load_chat_model` for one judge by itself (a metric module's): the chat-model `role` its benchmark declares,
    `model` over the profile's; `client_kwargs` are a `JudgeConfig`'s fields (``base_url``, ``api_key``,
    ``cache_path``, ...)."""
    return load_chat_model(resolve_plan([role], profile, {role.name: model}), role.name,
                           JudgeConfig.from_options(client_kwargs), ledger)


def snapshot_counts(rows: Sequence[PaperRow], field: str) -> dict[str, int]:
    """How many rows each model snapshot (or system fingerprint) answered, from a per-paper `field` holding one value
    or a mapping of prompt -> value: more than one key means the judge changed under the run (a rerun against a
    newer snapshot, or a cache filled by another one)."""
    counts: dict[str, int] = {}
    for row in rows:
        value = row.details.get(field)
        for snapshot in (value.values() if isinstance(value, Mapping) else [value]):
            if snapshot:
                counts[snapshot] = counts.get(snapshot, 0) + 1
    return counts


def judge_record(model: str | None, snapshots: Mapping[str, int] | None, fingerprints: Mapping[str, int] | None,
                 panel: SummaryPanel | None = None, snapshots_by_judge: Mapping[str, Mapping[str, int]] | None = None,
                 check: JudgeCheckRecord | None = None) -> JudgeRecord | None:
    """The provenance's judge: its model and the snapshots and fingerprints that answered (`snapshot_counts`), and
    for a panel (the summary's block) whether it is complete, how many papers each judge scored and failed on
    (the reasons stay in the block and the rows) and every judge's snapshots (`panel_snapshot_counts`); the judge
    check recorded with it (`check`); None when the judge did not run (no snapshots counted)."""
    if snapshots is None:
        return None
    judges = {judge: replace(papers, failures=()) for judge, papers in (panel.papers_by_judge if panel else {}).items()}
    return JudgeRecord(model=model, snapshots=dict(snapshots), system_fingerprints=dict(fingerprints or {}),
                       panel_complete=panel.complete if panel is not None else None, judges=judges,
                       snapshots_by_judge={judge: dict(found) for judge, found in (snapshots_by_judge or {}).items()},
                       check=check)


def llm_usage(ledger: UsageLedger | None) -> LLMUsage | None:
    """What this evaluation's lines in `ledger` add up to (requests, tokens and cost, whichever process wrote them);
    None without a ledger."""
    if ledger is None:
        return None
    totals = Totals.from_file(ledger.path, **ledger.tags)
    rounded = totals.as_dict()  # costs rounded to 6 decimals, as every record of usage has them
    return LLMUsage(ledger=str(ledger.path), requests=totals.requests, prompt_tokens=totals.prompt_tokens,
                    completion_tokens=totals.completion_tokens, reasoning_tokens=totals.reasoning_tokens,
                    cached_tokens=totals.cached_tokens, cost_usd=rounded["cost_usd"],
                    unpriced_requests=totals.unpriced_requests, by_model=rounded["by_model"])


def llm_requests(clients: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Per LLM role whose client ran: its model family, the options sent, the parameters not applied as asked, and
    the snapshots and fingerprints that answered in this process."""
    return {role: client.provenance() for role, client in clients.items() if hasattr(client, "provenance")}


def llm_record(clients: Mapping[str, Any], ledger: UsageLedger | None = None) -> dict[str, Any]:
    """What a command's LLM calls were, as JSON for its own record file: ``llm_usage`` (the ledger's path and its
    `Totals`) and ``llm_requests`` (`llm_requests`)."""
    out: dict[str, Any] = {}
    if ledger is not None:
        out["llm_usage"] = {"ledger": str(ledger.path), **Totals.from_file(ledger.path, **ledger.tags).as_dict()}
    if requests := llm_requests(clients):
        out["llm_requests"] = requests
    return out
