"""The usage and cost ledger: every request's tokens and cost, appended to a JSON Lines file beside the predictions
(``<out>/usage.jsonl``) or the evaluation (``<eval out>/usage.jsonl``) as it comes back, with running sums.

Each line is one request that came back (cached replies cost nothing and are not written): ``time``, ``purpose``
(generate, judge, sciig_judge, citation_extractor, llm_map), ``model`` (as the user wrote it), ``snapshot`` (the
reply's model), ``attempts`` (HTTP requests it took), prompt / completion / reasoning / cached tokens, ``cost_usd``
and ``cost_source`` (``endpoint``: OpenRouter's ``usage.cost``; ``price table``: tokens times `PriceTable`;
``worst case``: the reply's usage was malformed, or under a budget missing (no ``usage``, no price for it;
``usage_problem`` says which), so the request is charged what it could have cost at most; null: no price known;
a valid ``usage.cost`` is charged even when another usage field is malformed), and the caller's tags (``paper_id``,
``run``).

A ledger opened on an existing file continues its sums, so ``max_cost`` is a budget for the whole folder, and the
spend never passes it: before a request is sent, its worst case (`worst_case`: a bound on the prompt's tokens plus
the request's completion limit, at the model's price) is *reserved* (`BudgetGate`), and the request waits while
the reservations in flight leave no room for it; the reply is charged its real usage and the rest of its
reservation is freed. When a reservation does not fit even with nothing else in flight, or once the spend has
reached the budget, nothing more is sent.

Settlement compares what a reply is charged with what its request reserved, and a line under a budget records both
(``reserved_usd`` beside ``cost_usd``). A reply can cost more only when the endpoint bills more than the request
allowed (more tokens than its limit, a ``usage.cost`` above the price table's): that is charged as billed, the line
says why (``overrun``), a warning names the request and both amounts, and the ledger sends nothing more (`Overrun`;
the requests already in flight are settled and recorded). An endpoint that bills more per token than the table
raises that model's later reservations by the same ratio (`UsageLedger.price_scale`, learnt from every line, the
file's earlier ones included). `UsageLedger.breach` says afterwards whether and why the budget was not kept. A
model with no price whose endpoint reports the cost itself (OpenRouter) cannot be bounded beforehand: its requests
go one at a time, each only while the spend is under the budget, so such a run ends at most one request over it
(`--prices` makes it exact).
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import math
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import append_whole_line, ends_mid_line, iter_json_lines
from sciwrite.llm.types import BudgetExceededError, Completion, Message

logger = logging.getLogger(__name__)

PRICES_VARIABLE = "SCIWRITE_PRICES"
#: Tokens a chat template may add to a request (a default system prompt, the reply's opening) and to each message
#: (role markers), over the bytes of the messages themselves: the margin of `prompt_token_bound`.
REQUEST_OVERHEAD_TOKENS = 64
MESSAGE_OVERHEAD_TOKENS = 8
#: Tokens a chat template adds when a request offers tools: the instruction on how to call them around their JSON
#: (e.g. Qwen's "# Tools ... <tools></tools> ... <tool_call>" preamble, about 150), with a margin.
TOOLS_OVERHEAD_TOKENS = 256
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Price:
    """A model's price in USD per million tokens: input, output and (when it differs) cached input."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, prompt: int, completion: int, cached: int = 0) -> float:
        """USD of `prompt` and `completion` tokens, `cached` of the prompt tokens at the cached rate."""
        cached = min(max(cached, 0), prompt)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((prompt - cached) * self.input + cached * cached_rate + completion * self.output) / 1e6


class PriceTable:
    """Model -> `Price` (USD per million tokens), from the packaged ``prices.yaml`` and, over it, a user's file."""

    def __init__(self, prices: dict[str, Price], sources: list[str]) -> None:
        self.prices = prices
        self.sources = sources

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> PriceTable:
        """The packaged table, with `path` (else ``$SCIWRITE_PRICES``) merged over it model by model."""
        packaged = resources.files("sciwrite.llm").joinpath("prices.yaml")
        prices = _read_prices(packaged.read_text(encoding="utf-8"), "sciwrite/llm/prices.yaml")
        sources = ["sciwrite/llm/prices.yaml"]
        user = path or os.environ.get(PRICES_VARIABLE)
        if user:
            try:
                text = Path(user).read_text(encoding="utf-8")
            except OSError as err:
                raise ValueError(f"price table {user}: cannot read it ({err.strerror or err})") from None
            prices.update(_read_prices(text, str(user)))
            sources.append(str(user))
        return cls(prices, sources)

    def lookup(self, *names: str | None) -> tuple[str, Price] | None:
        """The first of `names` (then each without a trailing ``-YYYY-MM-DD``) the table prices."""
        candidates = [n for n in names if n]
        for name in [*candidates, *(_DATE_SUFFIX.sub("", n) for n in candidates)]:
            if name in self.prices:
                return name, self.prices[name]
        return None


def _read_prices(text: str, where: str) -> dict[str, Price]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"price table {where}: not valid YAML ({err})") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise ValueError(f"price table {where}: expected a mapping with a 'models' mapping of model -> "
                         "{input, output[, cached_input]} (USD per million tokens)")
    prices = {}
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ValueError(f"price table {where}: model {name!r}: expected {{input, output[, cached_input]}}")
        values = {}
        for key in ("input", "output", "cached_input"):
            value = entry.get(key)
            if value is None and key == "cached_input":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise ValueError(f"price table {where}: model {name!r}: field {key!r} must be a finite number >= 0 "
                                 f"(USD per million tokens), got {value!r}")
            values[key] = float(value)
        prices[str(name)] = Price(**values)
    return prices


def usage_number(value: Any) -> float | None:
    """`value` when it is a finite number >= 0 (a token count or a cost), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def usd(amount: float) -> str:
    """`amount` in dollars as a person reads a budget: cents when that is exact ($0.50), else as many digits as
    it has ($0.045)."""
    if round(amount, 2) == amount:
        return f"${amount:.2f}"
    return f"${amount:.8f}".rstrip("0") if round(amount, 8) else f"${amount:.2g}"  # $0.0000001 stays readable


def check_max_cost(value: float | None) -> float | None:
    """`value` as a budget in USD: None (no budget) or a finite number >= 0; else `InputError`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"the budget must be a finite number of USD >= 0, got {value!r}", Where(field="max_cost"),
                         hint="pass e.g. --max-cost 5")
    return float(value)


def prompt_token_bound(messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> int:
    """At most how many prompt tokens `messages` (and the `tools` offered) are billed: one per UTF-8 byte of each
    role and content (a byte-level BPE token covers at least one byte), of the JSON of a message's other fields
    (an assistant's tool calls, a tool result's call id, the reasoning sent back) and of each tool's JSON, plus the
    chat template's tokens (`REQUEST_OVERHEAD_TOKENS`, `MESSAGE_OVERHEAD_TOKENS` per message and per tool call or
    tool, `TOOLS_OVERHEAD_TOKENS` once tools are offered). No tokenizer is needed, and none could be right for
    every endpoint."""
    bound = REQUEST_OVERHEAD_TOKENS + sum(_message_bound(m) for m in messages)
    if tools:
        bound += TOOLS_OVERHEAD_TOKENS + sum(MESSAGE_OVERHEAD_TOKENS + _json_bytes(tool) for tool in tools)
    return bound


def _message_bound(message: Message) -> int:
    """`prompt_token_bound`'s share of one message."""
    bound = MESSAGE_OVERHEAD_TOKENS + len(str(message.get("role") or "").encode()) \
        + len(str(message.get("content") or "").encode())
    others = {k: v for k, v in message.items() if k not in ("role", "content") and v is not None}
    if others:
        calls = others.get("tool_calls")
        bound += _json_bytes(others) + MESSAGE_OVERHEAD_TOKENS * (len(calls) if isinstance(calls, list) else 0)
    return bound


def _json_bytes(value: Any) -> int:
    """Bytes of `value` as JSON with spaces after separators and non-ASCII escaped: at least as long as the compact
    or UTF-8 renderings a chat template may use."""
    return len(json.dumps(value, default=str).encode())


@dataclass(frozen=True)
class Reservation:
    """What one request may cost at most: its prompt bound and completion limit at the model's price (USD), times
    `price_scale` when its endpoint was seen billing more per token than the table (`UsageLedger.price_scale`).
    `exclusive`: the model has no price (its endpoint reports the cost), so the request is sent alone."""

    cost_usd: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    exclusive: bool = False
    price_scale: float = 1.0


@dataclass(frozen=True)
class Overrun:
    """A reply charged more than its request reserved: which request, both amounts (USD), and why."""

    model: str
    purpose: str
    request: str  # "paper <id>", "prompt <hash>", or "" when the caller did not say
    reserved_usd: float
    cost_usd: float
    why: str

    @property
    def excess_usd(self) -> float:
        """How much more the reply cost than its reservation."""
        return self.cost_usd - self.reserved_usd

    def describe(self) -> str:
        """The request, both amounts and why, in one phrase."""
        request = f" ({self.request})" if self.request else ""
        return (f"{self.purpose} request to {self.model}{request} reserved ${self.reserved_usd:.4f} and was charged "
                f"${self.cost_usd:.4f}: {self.why}")


@dataclass(frozen=True)
class BudgetBreach:
    """A budget that was not kept: the spend went past it, or a reply was charged more than its reservation."""

    spent_usd: float
    budget_usd: float
    reasons: tuple[str, ...]
    ledger: str

    @property
    def excess_usd(self) -> float:
        """USD spent past the budget (0 when a reply overran its reservation but the spend stayed within it)."""
        return max(0.0, self.spent_usd - self.budget_usd)

    def line(self) -> str:
        """The command's last line: by how much the budget was exceeded (or that a reservation was), and why."""
        spent = f"spent ${self.spent_usd:.4f} of {usd(self.budget_usd)} in {self.ledger}"
        why = "; ".join(self.reasons)
        if self.spent_usd > _with_margin(self.budget_usd):
            return f"budget exceeded by ${self.excess_usd:.4f}: {why} ({spent})"
        return f"budget kept ({spent}), but {why}; nothing more was sent"


@dataclass
class Totals:
    """Sums over ledger lines."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_requests: int = 0  # requests whose cost is unknown (no endpoint cost, no price)
    overruns: int = 0  # replies charged more than their reservation (``cost_usd`` > ``reserved_usd``)
    overrun_usd: float = 0.0  # how much more, in all
    by_model: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, entry: dict[str, Any]) -> None:
        """Count one ledger line; a count or cost that is not a number >= 0 (a hand-edited line) adds nothing."""
        self.requests += 1
        for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"):
            setattr(self, name, getattr(self, name) + int(usage_number(entry.get(name)) or 0))
        cost = usage_number(entry.get("cost_usd"))
        if cost is None:
            self.unpriced_requests += 1
        else:
            self.cost_usd += cost
        reserved = usage_number(entry.get("reserved_usd"))
        if cost is not None and reserved is not None and cost > reserved:
            self.overruns += 1
            self.overrun_usd += cost - reserved
        model = self.by_model.setdefault(str(entry.get("model")), {"requests": 0, "cost_usd": 0.0,
                                                                   "snapshots": {}})
        model["requests"] += 1
        model["cost_usd"] += cost or 0.0
        snapshot = entry.get("snapshot")
        if snapshot:
            model["snapshots"][snapshot] = model["snapshots"].get(snapshot, 0) + 1

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **match: Any) -> Totals:
        """The sums of the ledger lines at `path` whose fields equal `match` (e.g. ``run=...``)."""
        totals = cls()
        for entry in ledger_entries(path):
            if all(entry.get(k) == v for k, v in match.items()):
                totals.add(entry)
        return totals

    def as_dict(self) -> dict[str, Any]:
        """The sums as a JSON object, costs rounded to 6 decimals."""
        out = dict(self.__dict__)
        out["cost_usd"] = round(self.cost_usd, 6)
        out["overrun_usd"] = round(self.overrun_usd, 6)
        out["by_model"] = {m: {**v, "cost_usd": round(v["cost_usd"], 6)} for m, v in self.by_model.items()}
        return out


#: A usage ledger's file name: beside a generation's predictions (``<out>/usage.jsonl``), under an evaluation's
#: output folder, beside a study's answers.
LEDGER_NAME = "usage.jsonl"


class UsageLedger:
    """An append-only usage file (``usage.jsonl``) with its running sums, and an optional budget.

    Every request that came back is one line: its tokens, its cost and where the cost came from (the endpoint, the
    price table, or the request's worst case), and under a budget what the request reserved. Opened on an existing
    file, a ledger continues its sums, so `max_cost` is a budget for the whole folder, and requests reserve their
    worst case before they are sent so that the spend never passes it; a reply charged more than its reservation
    (an endpoint billing more than the request allowed) closes the ledger: nothing more is sent (`Overrun`).

    Args:
        path: The JSON Lines file.
        prices: The price table; None: `PriceTable.load()` (the packaged table, ``$SCIWRITE_PRICES`` over it).
        max_cost: The budget in USD; None for no budget.
        tags: Fields written on every line (e.g. the run's id).
    """

    def __init__(self, path: str | os.PathLike[str], *, prices: PriceTable | None = None,
                 max_cost: float | None = None, tags: dict[str, Any] | None = None) -> None:
        self.max_cost = check_max_cost(max_cost)
        self.path = Path(path)
        self.prices = prices if prices is not None else PriceTable.load()
        self.tags = dict(tags or {})  # written on every line (e.g. the evaluation's run id)
        self.price_scales: dict[str, float] = {}  # model -> how many times the table's price its endpoint billed
        self.total = Totals()  # every line of the file, earlier runs included
        for entry in ledger_entries(self.path):
            self.total.add(entry)
            self._learn_price(entry)
        self.spent_before = self.total.cost_usd  # what the file held when this object opened it
        self.session = Totals()  # the lines this object wrote
        self._lock = threading.Lock()
        self._needs_newline = ends_mid_line(self.path)
        self.reserved = 0.0  # USD held by the requests in flight (`reserve`)
        self.in_flight = 0  # reservations not yet settled
        self._exclusive = False  # an unpriced request is in flight: nothing else is sent
        self.overruns: list[Overrun] = []  # this object's replies charged more than their reservation
        self.unbounded: set[str] = set()  # models charged with no bound (no price: the endpoint's cost afterwards)

    def __getstate__(self) -> dict[str, Any]:  # travels to Ray actors: each appends to the same file
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def exhausted(self) -> bool:
        """True once nothing more may be sent under `max_cost`: the total cost has reached it, or a reply was charged
        more than its reservation."""
        return self.max_cost is not None and (self.total.cost_usd >= self.max_cost or bool(self.overruns))

    @property
    def left(self) -> float | None:
        """USD of the budget neither spent nor reserved; None without a budget."""
        return None if self.max_cost is None else self.max_cost - self.total.cost_usd - self.reserved

    def price_of(self, model: str) -> Price | None:
        """The price of `model` as the user wrote it, or of the name sent (without the provider prefix)."""
        found = self.prices.lookup(model, model.partition(":")[2] or None)
        return None if found is None else found[1]

    def price_scale(self, model: str) -> float:
        """How many times the table's price `model`'s endpoint was seen billing for the tokens it reported (at
        least 1): its reservations are priced that much higher."""
        return self.price_scales.get(model, 1.0)

    def worst_case(self, model: str, messages: Sequence[Message], completion_limit: int | None,
                   tools: Sequence[Mapping[str, Any]] | None = None) -> Reservation | None:
        """What a request of `messages` (offering `tools`) with `completion_limit` may cost at most, at the table's
        price or what its endpoint was seen billing, whichever is higher; None when `model` has no price or the
        request no completion limit (its cost then has no bound)."""
        price = self.price_of(model)
        if price is None or completion_limit is None:
            return None
        prompt = prompt_token_bound(messages, tools)
        scale = self.price_scale(model)
        cost = math.ceil(price.cost(prompt, completion_limit) * scale * 1e8) / 1e8  # as the ledger rounds, never below
        return Reservation(cost, prompt, completion_limit, price_scale=scale)

    def reserve(self, reservation: Reservation) -> bool | None:
        """Hold `reservation` against the budget: True when it fits; False when it does not fit now but requests
        in flight may free room; None when it cannot fit (nothing in flight, the budget reached, or a reply charged
        past its reservation)."""
        with self._lock:
            if self.max_cost is None:
                self.reserved += reservation.cost_usd
                self.in_flight += 1
                return True
            if self.exhausted:
                return None
            if reservation.exclusive:
                if self.in_flight:
                    return False
                self._exclusive = True
            elif self._exclusive:
                return False
            elif self.total.cost_usd + self.reserved + reservation.cost_usd > self.max_cost * (1 + 1e-12):
                return False if self.in_flight else None
            self.reserved += reservation.cost_usd
            self.in_flight += 1
            return True

    def release(self, reservation: Reservation) -> None:
        """Free `reservation` (its request was charged by `record`, or came back with nothing billed)."""
        with self._lock:
            self.reserved = max(0.0, self.reserved - reservation.cost_usd)
            self.in_flight = max(0, self.in_flight - 1)
            if reservation.exclusive:
                self._exclusive = False
            if not self.in_flight:
                self.reserved = 0.0

    def record(self, completion: Completion, *, model: str, purpose: str, reservation: Reservation | None = None,
               **tags: Any) -> dict[str, Any]:
        """Write one request's usage and add it to the sums, settling it against its `reservation`: under a budget
        the line holds both amounts, and a reply charged more than its reservation is an `Overrun` (said in the
        line and in a warning naming the request; nothing more is sent)."""
        bound = reservation.cost_usd if reservation is not None and not reservation.exclusive else None
        cost, source, problem = self._charge(completion, model, bound)
        overrun = self._overrun(completion, model, purpose, reservation, cost, source, tags)
        entry = {"time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
                 "purpose": purpose, "model": model, "snapshot": completion.snapshot,
                 "attempts": completion.attempts,  # requests sent for it: retries and refused parameters included
                 "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
                 "reasoning_tokens": completion.reasoning_tokens, "cached_tokens": completion.cached_tokens,
                 "cost_usd": None if cost is None else round(cost, 8),
                 **({"reserved_usd": bound} if bound is not None and self.max_cost is not None else {}),
                 "cost_source": source,
                 **({"usage_problem": problem} if problem else {}),
                 **({"overrun": overrun.why} if overrun is not None else {}),
                 **self.tags, **{k: v for k, v in tags.items() if v is not None}}
        line = json.dumps(entry, ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_whole_line(self.path, ("\n" if self._needs_newline else "") + line)
            self._needs_newline = False
            self.total.add(entry)
            self.session.add(entry)
            self._learn_price(entry)
            if overrun is not None:
                self.overruns.append(overrun)
            if reservation is not None and reservation.exclusive:
                self.unbounded.add(model)
        if overrun is not None:
            logger.warning("over budget: %s; nothing more is sent (--max-cost %s, %s)", overrun.describe(),
                           usd(self.max_cost or 0.0), self.path)
        return entry

    def _charge(self, completion: Completion, model: str, bound: float | None) -> tuple[float | None, str | None,
                                                                                         str | None]:
        """(cost, its source, the usage problem) of a reply: the endpoint's cost, else the price table's; the
        reservation's worst case `bound` when the reply's usage is malformed, or under a budget when no cost can
        be worked out (no usage, or no price)."""
        cost, source = completion.cost, "endpoint" if completion.cost is not None else None
        problem = completion.usage_problem  # malformed usage; under a budget also usage or a price missing
        if cost is None and problem is None:
            prompt, output = completion.prompt_tokens, completion.completion_tokens
            found = None
            if prompt is not None or output is not None:
                found = self.prices.lookup(model, model.partition(":")[2] or None, completion.snapshot)
                if found is not None:
                    cost = found[1].cost(prompt or 0, output or 0, completion.cached_tokens or 0)
                    source = "price table"
            if self.max_cost is not None and bound is not None:  # never charge less than it may have cost
                if prompt is None and output is None:
                    problem = "no usage in the reply"
                elif prompt is None or output is None:
                    problem = f"no usage.{'prompt_tokens' if prompt is None else 'completion_tokens'} in the reply"
                elif found is None:
                    problem = f"no price for {model!r} (snapshot {completion.snapshot!r}) in the price table"
        if problem is not None and source != "endpoint":  # the endpoint's own cost stands when it is valid
            cost, source = bound, "worst case" if bound is not None else None
        return cost, source, problem

    def _overrun(self, completion: Completion, model: str, purpose: str, reservation: Reservation | None,
                 cost: float | None, source: str | None, tags: Mapping[str, Any]) -> Overrun | None:
        """The `Overrun` of a reply charged more than its reservation under a budget, else None."""
        if self.max_cost is None or reservation is None or reservation.exclusive or cost is None:
            return None
        if round(cost, 8) <= reservation.cost_usd:
            return None
        return Overrun(model, purpose, request_label(tags), reservation.cost_usd, round(cost, 8),
                       self._why_over(completion, model, reservation, cost, source))

    def _why_over(self, completion: Completion, model: str, reservation: Reservation, cost: float,
                  source: str | None) -> str:
        """Why a reply cost more than its reservation: more tokens than the request allowed, or an endpoint's
        ``usage.cost`` above the table's price for the tokens it reported."""
        prompt, output = completion.prompt_tokens or 0, completion.completion_tokens or 0
        reasons = []
        if output > reservation.completion_tokens:
            reasons.append(f"the endpoint reported {output} completion tokens for a limit of "
                           f"{reservation.completion_tokens}")
        if prompt > reservation.prompt_tokens:
            reasons.append(f"{prompt} prompt tokens for a prompt of at most {reservation.prompt_tokens}")
        price = self.price_of(model)
        if source == "endpoint" and price is not None:
            table = price.cost(prompt, output, completion.cached_tokens or 0)
            if cost > table:
                times = f"{cost / table:.1f} times " if table > 0 else "above "
                reasons.append(f"its usage.cost ${cost:.4f} is {times}the price table's ${table:.4f} for the tokens "
                               "it reported")
        return "; ".join(reasons) or "the endpoint billed more than the request allowed"

    def _learn_price(self, entry: Mapping[str, Any]) -> None:
        """Raise the price scale of `entry`'s model when its endpoint billed more than the table's price for the
        tokens it reported, so that the model's later reservations hold what the endpoint bills."""
        if entry.get("cost_source") != "endpoint":
            return
        model = str(entry.get("model"))
        price = self.price_of(model)
        cost, prompt, output = (usage_number(entry.get(k)) for k in ("cost_usd", "prompt_tokens", "completion_tokens"))
        if price is None or cost is None or prompt is None or output is None:
            return
        table = price.cost(int(prompt), int(output), int(usage_number(entry.get("cached_tokens")) or 0))
        if table > 0 and cost > table + 1e-8:  # beyond the ledger's rounding of costs to 8 decimals
            self.price_scales[model] = max(self.price_scale(model), cost / table)

    def breach(self) -> BudgetBreach | None:
        """Whether and why the budget was not kept: the total went past `max_cost`, or a reply was charged more than
        its reservation; None when it was kept (or there is no budget)."""
        if self.max_cost is None or (self.total.cost_usd <= _with_margin(self.max_cost) and not self.overruns):
            return None
        return BudgetBreach(self.total.cost_usd, self.max_cost, tuple(self._breach_reasons()), str(self.path))

    def _breach_reasons(self) -> list[str]:
        """Why the spend went past the budget, or a reservation was exceeded: the first cause first."""
        assert self.max_cost is not None
        reasons = []
        if self.spent_before > _with_margin(self.max_cost):
            reasons.append(f"the ledger already held ${self.spent_before:.4f} when this run began")
        if len(self.overruns) == 1:
            reasons.append(f"a reply was charged more than its reservation: {self.overruns[0].describe()}")
        elif self.overruns:  # the first stopped the run; the others were in flight with it
            reasons.append(f"{len(self.overruns)} replies were charged "
                           f"${sum(o.excess_usd for o in self.overruns):.4f} more than their reservations (the "
                           f"first: {self.overruns[0].describe()})")
        if self.total.cost_usd > _with_margin(self.max_cost):
            reasons.extend(f"{model} has no price, so each request's cost was known only once it came back (pass "
                           "--prices FILE with its price to keep the budget exactly)"
                           for model in sorted(self.unbounded))
        return reasons or [f"the lines of {self.path} add up to more"]

    def summary(self) -> dict[str, Any]:
        """This process's sums (``session``), the file's (``total``), the cap, where the prices came from, the
        replies charged past their reservation and the price scales learnt from the endpoints."""
        return {"ledger": str(self.path), "session": self.session.as_dict(), "total": self.total.as_dict(),
                "max_cost_usd": self.max_cost, "prices": self.prices.sources,
                "overruns": [asdict(o) for o in self.overruns], "price_scales": dict(self.price_scales)}


def breach_line(ledger: UsageLedger | None) -> str | None:
    """By how much and why `ledger`'s budget was not kept (`UsageLedger.breach`): a command's last line; None when
    it was kept, or there is no ledger."""
    breach = ledger.breach() if ledger is not None else None
    return None if breach is None else breach.line()


def request_label(tags: Mapping[str, Any]) -> str:
    """The request a ledger line's tags name: its paper, else its prompt's hash; "" when they name neither."""
    if tags.get("paper_id"):
        return f"paper {tags['paper_id']}"
    return f"prompt {tags['prompt_id']}" if tags.get("prompt_id") else ""


def ledger_entries(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The lines of the ledger at `path` that are JSON objects (none when it does not exist)."""
    if Path(path).exists():
        for _, _, entry, problem in iter_json_lines(Path(path)):
            if problem is None and isinstance(entry, dict):
                yield entry


def _with_margin(budget: float) -> float:
    """`budget` and the ledger's rounding of costs (8 decimals): a spend above it went past the budget."""
    return budget + 1e-8


class BudgetGate:
    """Reservations against one ledger for the requests of one event loop: `hold` waits while the requests in
    flight leave no room and raises `BudgetExceededError` when the reservation cannot fit; `free` lets the waiting
    ones try again."""

    def __init__(self, ledger: UsageLedger) -> None:
        self.ledger = ledger
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def hold(self, reservation: Reservation) -> None:
        """Reserve `reservation`, waiting for room; `BudgetExceededError` saying what is spent and needed."""
        changed = self._condition()
        async with changed:
            while True:
                fits = self.ledger.reserve(reservation)
                if fits:
                    return
                if fits is None:
                    raise BudgetExceededError(self.refusal(reservation))
                await changed.wait()

    async def free(self, reservation: Reservation) -> None:
        """Release `reservation` and wake the requests waiting for room."""
        self.ledger.release(reservation)
        changed = self._condition()
        async with changed:
            changed.notify_all()

    def refusal(self, reservation: Reservation) -> str:
        """Why `reservation` is not sent: a reply charged past its reservation, or the spend, the budget and what
        the request could cost."""
        ledger = self.ledger
        if ledger.overruns:
            return f"nothing more is sent once a reply costs more than its reservation: {ledger.overruns[0].describe()}"
        left = max(0.0, (ledger.max_cost or 0.0) - ledger.total.cost_usd)
        if reservation.exclusive or ledger.exhausted:
            return f"${left:.4f} left of {usd(ledger.max_cost or 0.0)}: nothing more is sent"
        scaled = f", priced {reservation.price_scale:.2f} times the table as its endpoint bills" \
            if reservation.price_scale > 1 else ""
        return (f"${left:.4f} left of {usd(ledger.max_cost or 0.0)}, and the next request may cost up to "
                f"${reservation.cost_usd:.4f} ({reservation.prompt_tokens} prompt tokens at most + "
                f"{reservation.completion_tokens} completion tokens{scaled})")


def open_ledger(ledger: UsageLedger | str | os.PathLike[str] | None) -> UsageLedger | None:
    """A ledger object from a ledger or a path (priced by the default table); None stays None."""
    if ledger is None or isinstance(ledger, UsageLedger):
        return ledger
    return UsageLedger(ledger)


__all__ = ["LEDGER_NAME", "MESSAGE_OVERHEAD_TOKENS", "PRICES_VARIABLE", "REQUEST_OVERHEAD_TOKENS",
           "TOOLS_OVERHEAD_TOKENS", "BudgetBreach", "BudgetGate", "Overrun", "Price", "PriceTable", "Reservation",
           "Totals", "UsageLedger", "breach_line", "check_max_cost", "ledger_entries", "open_ledger",
           "prompt_token_bound", "request_label", "usage_number", "usd"]
