"""The LLM judge of sciwrite's Inspect tasks on Inspect's ``grader`` model role: a chat client with the interface the
scoring core's judges use (`sciwrite.metrics.judge.read_replies`: ``complete``, ``model``, ``provenance``), whose
requests go through ``get_model(role="grader")``, so Inspect's cache (``--cache``), retries, timeouts and connection
limits apply to them, the log shows them as the grader's and their tokens count in the sample's usage (Inspect
enforces a sample's token limit on its solvers, not on scoring). The prompts are the scoring core's, unchanged.

The scoring core is synchronous and runs in a worker thread of the async scorer (`anyio.to_thread.run_sync`); each
batch of requests is sent concurrently on Inspect's event loop (`anyio.from_thread.run`). A request that fails
comes back as a `ChatResult` carrying the error, as `ChatClient`'s do, so one failure never loses a batch; a
limit that is hit is Inspect's to handle, and is raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
from inspect_ai.model import GenerateConfig, Model, get_model, model_roles
from inspect_ai.util import LimitExceededError

from sciwrite.harness.inspect_model import chat_messages
from sciwrite.llm.client import ChatResult
from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Message
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig

#: The Inspect model role that answers the judge (``--model-role grader=...``, ``Task(model_roles=...)``).
GRADER = "grader"


def grader_model(role: str = GRADER) -> Model:
    """The model bound to `role` in the running task; a `ValueError` saying how to bind one when none is."""
    if role not in model_roles():
        raise ValueError(f"the LLM judge answers through Inspect's {role!r} model role, and none is bound: pass "
                         f"-T judge=<model>, or -T judge={role} with --model-role {role}=<model>")
    return get_model(role=role, required=True)


class InspectGrader:
    """A judge's chat client on Inspect's `role` model: `model` is the id the run's model plan gave it."""

    def __init__(self, model: str, *, role: str = GRADER, purpose: str = "judge") -> None:
        self.model = model
        self.role = role
        self.purpose = purpose
        self._snapshots: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"InspectGrader(model={self.model!r}, role={self.role!r})"

    def provenance(self) -> dict[str, Any]:
        """The Inspect role that answered and the snapshots that did (the log has each request)."""
        return {"inspect_model_role": self.role, "snapshots": dict(self._snapshots), "system_fingerprints": {}}

    def complete(self, conversations: Sequence[Sequence[Message]], *, temperature: float = 0.0,
                 max_tokens: int | None = 1024, workers: int = 8, show_progress: bool = True, desc: str = "LLM",
                 seed: int | None = None) -> list[ChatResult]:
        """One `ChatResult` per conversation, in order, from the grader, all sent at once (Inspect's connection
        limit, not `workers`, bounds them; Inspect shows the progress). Called from the scorer's worker thread."""
        config = GenerateConfig(temperature=temperature, max_tokens=max_tokens, seed=seed)
        return anyio.from_thread.run(self._complete_all, list(conversations), config)

    async def _complete_all(self, conversations: list[Sequence[Message]], config: GenerateConfig) -> list[ChatResult]:
        model = grader_model(self.role)
        results: list[ChatResult] = [ChatResult(error="not sent")] * len(conversations)

        async def one(index: int) -> None:
            results[index] = await self._complete_one(model, conversations[index], config)

        try:
            async with anyio.create_task_group() as group:
                for index in range(len(conversations)):
                    group.start_soon(one, index)
        except ExceptionGroup as failed:  # a sample limit hit: raised as itself, for Inspect to end the sample
            limit = next((e for e in failed.exceptions if isinstance(e, LimitExceededError)), None)
            if limit is None:
                raise
            raise limit from None
        return results

    async def _complete_one(self, model: Model, messages: Sequence[Message], config: GenerateConfig) -> ChatResult:
        try:
            output = await model.generate(chat_messages(messages), config=config)
        except LimitExceededError:
            raise
        except Exception as error:  # after Inspect's retries: the item carries it, as ChatClient's do
            return ChatResult(error=f"{type(error).__name__}: {error}")
        if output.error:
            return ChatResult(error=f"the model answered with an error: {output.error}", snapshot=output.model or None)
        text, _ = split_reasoning(output.completion)
        snapshot = output.model or None
        if snapshot:
            self._snapshots[snapshot] = self._snapshots.get(snapshot, 0) + 1
        return ChatResult(text, finish_reason=output.stop_reason, snapshot=snapshot)


@dataclass(frozen=True)
class GraderClients:
    """The judge's client factory (`JudgeConfig.client_factory`, `sciwrite.metrics.judge_config.ChatClientFactory`):
    an `InspectGrader` on `role`. Equal factories make the same clients, so the models cache keeps one suite."""

    role: str = GRADER

    def __call__(self, model_id: str, purpose: str) -> InspectGrader:
        return InspectGrader(model_id, role=self.role, purpose=purpose)


def grader_judge(judge: str | None) -> JudgeConfig:
    """The scoring request's judge config for a task's ``judge`` argument: the grader's clients (no judge: the
    defaults, unused since the task leaves the judge's metrics out)."""
    return JudgeConfig(client_factory=GraderClients()) if judge else DEFAULT_JUDGE


def grader_roles(judge: str | None) -> dict[str, str] | None:
    """The task's model roles for its ``judge`` argument: a model name is bound to the grader role; ``grader``
    (or None) binds nothing, the role is the one ``inspect eval --model-role grader=...`` gives."""
    return {GRADER: judge} if judge and judge != GRADER else None


__all__ = ["GRADER", "GraderClients", "InspectGrader", "grader_judge", "grader_model", "grader_roles"]
