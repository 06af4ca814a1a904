"""A local transformers causal LM as a generation backend (``hf:<model id or path>``).

Requests arrive one at a time through the async `complete`, like API requests; a batcher collects those that
are waiting (up to `batch_size`, same settings) into one left-padded ``generate`` call run in a worker thread, so
the runner's concurrency turns into batches on the GPU (or CPU) without the runner knowing. The model is loaded
once. Prompts use the tokenizer's chat template when it has one, else the messages' contents joined by blank
lines. A ``<think>`` trace in the decoded text is kept apart from the answer (`sciwrite.llm.reasoning`). Sampling is seeded per batch (``torch.manual_seed``): a batch's samples are reproducible for the same
batch composition, which concurrency can change — use temperature 0 (greedy) for exact reproducibility.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings, Message
from sciwrite.models.registry import ModelUnavailableError, torch_device

logger = logging.getLogger(__name__)

#: A waiting request: its messages, its settings and the future its completion is set on.
_Request = tuple[list[Message], GenerationSettings, asyncio.Future[Completion]]


class HFBackend:
    """Batched ``generate`` on a local causal LM."""

    def __init__(self, model_id: str, *, model_label: str | None = None, device: str | None = None,
                 batch_size: int = 8, dtype: str | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.model = model_label or f"hf:{model_id}"
        self.device = device or torch_device()
        self.batch_size = max(1, batch_size)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_id)
            torch_dtype = getattr(torch, dtype) if dtype else (torch.bfloat16 if self.device == "cuda" else None)
            model = AutoModelForCausalLM.from_pretrained(model_id, dtype=torch_dtype)
            # PreTrainedModel.to is decorated with functools.wraps, which mypy reads as an unbound function.
            self.lm = model.to(self.device).eval()  # type: ignore[arg-type]
        except Exception as err:
            raise ModelUnavailableError(f"cannot load the local model {model_id!r} for {self.model}: "
                                        f"{type(err).__name__}: {err}") from err
        self.tokenizer.padding_side = "left"  # generation continues from the right end of every row
        if self.tokenizer.pad_token_id is None:
            fallback = self.tokenizer.eos_token or self.tokenizer.unk_token or self.tokenizer.bos_token
            if fallback is None:
                raise ModelUnavailableError(f"the tokenizer of {model_id!r} has no pad, eos, unk or bos token to pad "
                                            "batches with")
            self.tokenizer.pad_token = fallback
        # Generation stops at any of the model's end-of-sequence ids (several for some chat models).
        eos = getattr(getattr(self.lm, "generation_config", None), "eos_token_id", None)
        eos_ids = set(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])
        if self.tokenizer.eos_token_id is not None:
            eos_ids.add(self.tokenizer.eos_token_id)
        self.stop_ids = frozenset(int(i) for i in eos_ids)
        self._queue: asyncio.Queue[_Request] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"HFBackend(model={self.model!r}, device={self.device!r}, batch_size={self.batch_size})"

    def prompt_text(self, messages: Sequence[Message]) -> str:
        """The text the model is given for `messages`."""
        if getattr(self.tokenizer, "chat_template", None):
            return _one_text(self.tokenizer.apply_chat_template([dict(m) for m in messages], tokenize=False,
                                                                add_generation_prompt=True))
        return "\n\n".join(m["content"] for m in messages)

    async def complete(self, messages: Sequence[Message], settings: GenerationSettings, *,
                       params: Mapping[str, Any] | None = None) -> Completion:
        """The reply to `messages`. `params` is the API backends' (request parameters): a local model takes none, and
        tool calling (``tools``) is refused with the way to get it (serve the model on an OpenAI-compatible server)."""
        asked = sorted(k for k, v in (params or {}).items() if v is not None)
        if asked:
            what = "tool calling" if {"tools", "tool_choice"} & set(asked) else f"request parameters {asked}"
            raise GenerationError(f"{self.model}: {what} is not supported for local transformers models (hf:); serve "
                                  "the model on an OpenAI-compatible server with tool calling on (vLLM with "
                                  "--enable-auto-tool-choice --tool-call-parser ..., or Ollama) and pass --base-url")
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop:  # a new event loop (e.g. a second asyncio.run)
            self._queue, self._worker, self._loop = asyncio.Queue(), None, loop
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._batch_loop())
        future: asyncio.Future[Completion] = loop.create_future()
        await self._queue.put((list(messages), settings, future))
        return await future

    async def _batch_loop(self) -> None:
        assert self._queue is not None
        while True:
            first = await self._queue.get()
            await asyncio.sleep(0)  # let requests issued in the same tick join the batch
            batch: list[_Request] = [first]
            held: list[_Request] = []  # requests with other settings
            while len(batch) < self.batch_size and not self._queue.empty():
                item = self._queue.get_nowait()
                (batch if item[1] == first[1] else held).append(item)
            for item in held:  # other settings wait for the next batch
                self._queue.put_nowait(item)
            try:
                results = await asyncio.to_thread(self.generate_batch, [m for m, _, _ in batch], first[1])
            except asyncio.CancelledError:  # closing: nobody waits forever on this batch
                for _, _, future in batch:
                    if not future.done():
                        future.set_exception(GenerationError(f"{self.model}: the backend was closed"))
                raise
            except Exception as err:  # noqa: BLE001 - every request of the batch gets the error
                for _, _, future in batch:
                    if not future.done():
                        future.set_exception(GenerationError(f"{self.model}: {type(err).__name__}: {err}"))
                continue
            for (_, _, future), result in zip(batch, results):
                if future.done():
                    continue
                if isinstance(result, GenerationError):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    def generate_batch(self, conversations: Sequence[Sequence[Message]],
                       settings: GenerationSettings) -> list[Completion | GenerationError]:
        """One ``generate`` call for all `conversations` (synchronous; the batcher runs it in a thread)."""
        import torch

        texts = [self.prompt_text(m) for m in conversations]
        encoded = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        sample = settings.temperature > 0
        if settings.seed is not None:
            torch.manual_seed(settings.seed)
        kwargs: dict[str, Any] = {"max_new_tokens": settings.max_tokens, "do_sample": sample,
                                  "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            kwargs["temperature"] = settings.temperature
        with torch.inference_mode():
            output = self.lm.generate(**encoded, **kwargs)
        new_tokens = output[:, encoded["input_ids"].shape[1]:]
        prompt_lengths = encoded["attention_mask"].sum(dim=1).tolist()
        results: list[Completion | GenerationError] = []
        for row, prompt_tokens in zip(new_tokens.tolist(), prompt_lengths):
            length = next((i for i, token in enumerate(row) if token in self.stop_ids), len(row))
            # A local thinking model (Qwen3, R1 distills) writes its <think> block into the text: kept apart.
            text, reasoning = split_reasoning(_one_text(self.tokenizer.decode(row[:length], skip_special_tokens=True)))
            finish = "stop" if length < len(row) else "length"
            completion = Completion(text, self.model, int(prompt_tokens), length, finish, reasoning=reasoning,
                                    snapshot=self.model)
            if not text:
                results.append(GenerationError(f"{self.model}: the model answered with nothing (finish_reason={finish})",
                                               completion=completion))
            else:
                results.append(completion)
        return results

    async def aclose(self) -> None:
        """Stop the batcher; requests still waiting fail with `GenerationError` instead of hanging."""
        if self._worker is not None and self._loop is asyncio.get_running_loop():
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # closing: its errors went to the futures
                await self._worker
        if self._queue is not None and self._loop is asyncio.get_running_loop():
            while not self._queue.empty():
                _, _, future = self._queue.get_nowait()
                if not future.done():
                    future.set_exception(GenerationError(f"{self.model}: the backend was closed"))
        self._worker = self._queue = self._loop = None


def _one_text(value: object) -> str:
    """The text a tokenizer call returned for one untokenized prompt or one row of ids (transformers types the
    return as every shape its arguments allow)."""
    if not isinstance(value, str):
        raise TypeError(f"the tokenizer returned {type(value).__name__}, not the text of one prompt")
    return value
