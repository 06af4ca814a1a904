"""The usage and cost ledger: every request's tokens and cost, appended to a JSON Lines file beside the predictions
(``<out>/usage.jsonl``) or the evaluation (``<eval out>/usage.jsonl``) as it comes back, with running sums.

Each line is one request that came back (cached replies cost nothing and are not written): ``time``, ``purpose``
(generate, judge, sciig_judge, citation_extractor, llm_map), ``model`` (as the user wrote it), ``snapshot`` (the
reply's model), ``attempts`` (HTTP requests it took), prompt / completion / reasoning / cached tokens, ``cost_usd`` and ``cost_source`` (``endpoint``:
OpenRouter's ``usage.cost``; ``price table``: tokens times `PriceTable`; null: no price known), and the caller's
tags (``paper_id``, ``run``). A ledger opened on an existing file continues its sums, so ``max_cost`` is a budget for
the whole folder: `exhausted` turns true once the total reaches it, and the callers then send nothing more.
Requests already in flight still finish and are written, so a run may end above the cap by those.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.jsonl import append_whole_line, ends_mid_line, iter_json_lines
from sciwrite.llm.types import Completion

PRICES_VARIABLE = "SCIWRITE_PRICES"
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, prompt: int, completion: int, cached: int = 0) -> float:
        cached = min(max(cached, 0), prompt)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((prompt - cached) * self.input + cached * cached_rate + completion * self.output) / 1e6


class PriceTable:
    """Model -> `Price`, from the packaged ``prices.yaml`` and, over it, a user's file."""

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
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"price table {where}: model {name!r}: field {key!r} must be a number >= 0 "
                                 f"(USD per million tokens), got {value!r}")
            values[key] = float(value)
        prices[str(name)] = Price(**values)
    return prices


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
    by_model: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, entry: dict[str, Any]) -> None:
        self.requests += 1
        for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"):
            setattr(self, name, getattr(self, name) + int(entry.get(name) or 0))
        cost = entry.get("cost_usd")
        if cost is None:
            self.unpriced_requests += 1
        else:
            self.cost_usd += float(cost)
        model = self.by_model.setdefault(str(entry.get("model")), {"requests": 0, "cost_usd": 0.0,
                                                                   "snapshots": {}})
        model["requests"] += 1
        model["cost_usd"] += float(cost or 0)
        snapshot = entry.get("snapshot")
        if snapshot:
            model["snapshots"][snapshot] = model["snapshots"].get(snapshot, 0) + 1

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **match: Any) -> Totals:
        """The sums of the ledger lines at `path` whose fields equal `match` (e.g. ``run=...``)."""
        totals = cls()
        if Path(path).exists():
            for _, _, entry, problem in iter_json_lines(path):
                if problem is None and isinstance(entry, dict) and all(entry.get(k) == v for k, v in match.items()):
                    totals.add(entry)
        return totals

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["cost_usd"] = round(self.cost_usd, 6)
        out["by_model"] = {m: {**v, "cost_usd": round(v["cost_usd"], 6)} for m, v in self.by_model.items()}
        return out


class UsageLedger:
    """Append-only usage file with its running sums (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], *, prices: PriceTable | None = None,
                 max_cost: float | None = None, tags: dict[str, Any] | None = None) -> None:
        if max_cost is not None and max_cost < 0:
            raise ValueError(f"max cost must be >= 0 USD, got {max_cost}")
        self.path = Path(path)
        self.prices = prices if prices is not None else PriceTable.load()
        self.max_cost = max_cost
        self.tags = dict(tags or {})  # written on every line (e.g. the evaluation's run id)
        self.total = Totals.from_file(self.path)  # every line of the file, earlier runs included
        self.session = Totals()  # the lines this object wrote
        self._lock = threading.Lock()
        self._needs_newline = ends_mid_line(self.path)

    def __getstate__(self) -> dict[str, Any]:  # travels to Ray actors: each appends to the same file
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def exhausted(self) -> bool:
        """True once the ledger's total cost has reached `max_cost`."""
        return self.max_cost is not None and self.total.cost_usd >= self.max_cost

    def record(self, completion: Completion, *, model: str, purpose: str, **tags: Any) -> dict[str, Any]:
        """Write one request's usage (its cost from the endpoint, else the price table) and add it to the sums."""
        cost, source = completion.cost, "endpoint" if completion.cost is not None else None
        if cost is None and (completion.prompt_tokens is not None or completion.completion_tokens is not None):
            found = self.prices.lookup(model, model.partition(":")[2] or None, completion.snapshot)
            if found is not None:
                cost = found[1].cost(completion.prompt_tokens or 0, completion.completion_tokens or 0,
                                     completion.cached_tokens or 0)
                source = "price table"
        entry = {"time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
                 "purpose": purpose, "model": model, "snapshot": completion.snapshot,
                 "attempts": completion.attempts,  # requests sent for it: retries and refused parameters included
                 "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
                 "reasoning_tokens": completion.reasoning_tokens, "cached_tokens": completion.cached_tokens,
                 "cost_usd": None if cost is None else round(cost, 8), "cost_source": source,
                 **self.tags, **{k: v for k, v in tags.items() if v is not None}}
        line = json.dumps(entry, ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_whole_line(self.path, ("\n" if self._needs_newline else "") + line)
            self._needs_newline = False
            self.total.add(entry)
            self.session.add(entry)
        return entry

    def summary(self) -> dict[str, Any]:
        """This process's sums (``session``), the file's (``total``), the cap and where the prices came from."""
        return {"ledger": str(self.path), "session": self.session.as_dict(), "total": self.total.as_dict(),
                "max_cost_usd": self.max_cost, "prices": self.prices.sources}


def open_ledger(ledger: UsageLedger | str | os.PathLike[str] | None) -> UsageLedger | None:
    """A ledger object from a ledger or a path (priced by the default table); None stays None."""
    if ledger is None or isinstance(ledger, UsageLedger):
        return ledger
    return UsageLedger(ledger)


__all__ = ["PRICES_VARIABLE", "Price", "PriceTable", "Totals", "UsageLedger", "open_ledger"]
