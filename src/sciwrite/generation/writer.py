"""How a generation run calls its writer model: the backend each job gets (`WriterModel`) and the settings every
job runs with (`RunOptions`: sampling, the usage ledger's prices and budget, reasoning traces, progress bars).

`sciwrite.generation.generate.generate` takes both; ``sciwrite generate`` reads them from its flags, the quick start
uses the defaults. A run with a language model writes every request's usage to ``usage.jsonl`` beside its output
(`sciwrite.llm.ledger`), priced with the packaged table (and ``prices`` over it) where the endpoint reports no cost,
and never spends past ``max_cost`` (see `sciwrite.generation.runner`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.llm.backends import APIBackend, RequestPolicy, make_backend, parse_model_id, policy_for
from sciwrite.llm.ledger import LEDGER_NAME, PriceTable, UsageLedger
from sciwrite.llm.types import Backend, GenerationSettings


@dataclass
class WriterModel:
    """The language model a run writes with, as a maker of backends: one new backend per job (the runner closes it
    when the job ends). The API backends of one run share the request policy made with the first of them, so that a
    parameter the endpoint refused is not sent again by the run's later jobs.

    Attributes:
        model: A model id (`sciwrite.llm.backends.parse_model_id`: ``openai:``, ``openrouter:``, ``hf:`` or a bare
            id with `base_url`).
        base_url: The server of a bare id.
        model_options: Parameters of every API request, over the model family's table (``--model-option``).
        batch_size: The generate() batch size of an ``hf:`` model.
    """

    model: str
    base_url: str | None = None
    model_options: Mapping[str, Any] = field(default_factory=dict)
    batch_size: int = 8
    _policy: RequestPolicy | None = field(default=None, init=False, repr=False)

    def backend(self) -> Backend:
        """A new backend for one job."""
        if self.model.startswith("hf:"):
            return make_backend(self.model, base_url=self.base_url, model_options=dict(self.model_options),
                                batch_size=self.batch_size)
        spec = parse_model_id(self.model, self.base_url)
        if self._policy is None:
            self._policy = policy_for(spec, dict(self.model_options))
        return APIBackend(spec, policy=self._policy)


@dataclass(frozen=True)
class RunOptions:
    """How every job of a run is executed (what it writes is the `GenerationRequest`'s).

    Attributes:
        settings: The sampling and request settings (`sciwrite.llm.types.GenerationSettings`: temperature, token
            limit, request seed, concurrency, timeouts, retries).
        prices: A YAML price table merged over the packaged one, for the usage ledger.
        max_cost: The ledger's budget in USD, earlier runs in the same ledger included (None: no budget).
        keep_reasoning: Keep a thinking model's reasoning traces in each output line.
        show_progress: Show the runner's progress bar.
    """

    settings: GenerationSettings = field(default_factory=GenerationSettings)
    prices: str | None = None
    max_cost: float | None = None
    keep_reasoning: bool = False
    show_progress: bool = True

    def ledger(self, out_path: Path) -> UsageLedger:
        """The usage ledger of a job writing `out_path`: ``usage.jsonl`` beside it, with the run's prices and budget."""
        return UsageLedger(out_path.parent / LEDGER_NAME, prices=PriceTable.load(self.prices), max_cost=self.max_cost)


__all__ = ["LEDGER_NAME", "RunOptions", "WriterModel"]
