"""One resumable runner for every generation method of both benchmarks.

A `Method` turns one paper record into a prediction, calling the model through a `PaperLLM` as often as it
needs (once for a prompt, several times for AUTOCOT or Workflow, never for the extractive floor). The runner:

- skips papers whose ``paper_id`` is already in the output file (resume), and drops a last line cut short by a
  crash before appending;
- runs up to ``settings.concurrency`` papers at once and writes each finished paper as one JSON line, flushed
  at once — a crash loses at most the papers in flight;
- writes a paper that fails (a request that failed after its retries, a model that answered with nothing, a
  record the method cannot use) to ``failed_samples_<output stem>.jsonl`` with the original record and the
  error, so ``retry_failed=True`` reruns exactly those; nothing is dropped silently. The file holds one record
  per paper still failed (the latest); a paper leaves it once written, and a run killed part-way removes none.
  A plain rerun (resume) also retries them, since they are not in the output;
- writes a method's trace of a paper (`Generated.extra[TRACE]`, e.g. an agent's tool calls) to
  ``<output stem>.traces.jsonl``, one line per paper written, never into the prediction line; a paper that fails
  (or stops at the budget) has its trace there too, with its ``error`` (a method hands it over with `traced`);
- keeps every line where the user finds it: a file deleted mid-run is written again at its path with every line it
  held; an output replaced by another file stops the run, and this run's papers go to the failures file with their
  predictions (`PaperWriter.output_replaced`); a write that fails (a full disk) names the file and the paper and
  says what to do (`sciwrite.generation.run_files.WriteFailedError`), and what was written stays for the rerun;
- shows a progress bar with papers/s, failures, token counts and the cost so far;
- with a `UsageLedger`, writes every request's usage to it (``usage.jsonl`` beside the output) and keeps the spend
  within its budget (``--max-cost``): each API request reserves its worst case before it is sent (the prompt's
  token bound plus the request's completion limit at the model's price, `sciwrite.llm.ledger`), is charged its
  real usage when it comes back, and waits while the requests in flight leave no room; once a reservation cannot
  fit, or a reply was charged more than its reservation (an endpoint billing past what the request allowed; the
  requests in flight are settled and their papers written), nothing more is sent, and the report says whether and
  why the budget was not kept (`RunReport.budget_breach`). The papers not yet written stay out of the output and
  out of the failures file, so a rerun (with a higher budget) resumes them, and nothing is written twice. A model
  without a price (and whose endpoint reports no cost) or a request without a completion limit cannot be budgeted:
  the run refuses to start;
- writes the run's metadata to ``<output stem>.meta.json``: settings, how requests were built (the model family,
  the user's options, every parameter not applied as asked and why), the counts, tokens, cost and snapshots.

Every output line carries ``paper_id``, ``pred`` (the prediction; a thinking model's trace is never part of it),
``desc`` (the exact prompt of the request that produced it), the run's metadata (``model``, ``method``,
``retriever``, ``seed``, ...), what the method adds (``label``, ``candidates`` ...), ``usage`` and, for a model,
``model_snapshot`` (the snapshot that answered its last request) and, with ``keep_reasoning``, ``reasoning``
(the traces of its requests, in order).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import iter_json_lines, line_ref, parse_json_lines
from sciwrite.generation.run_files import DELETED, REPLACED, LineFile, WriteFailedError, replace_text
from sciwrite.llm.backends import scrub_keys
from sciwrite.llm.ledger import BudgetGate, Reservation, UsageLedger, breach_line, usd
from sciwrite.llm.types import Backend, BudgetExceededError, Completion, GenerationError, GenerationSettings, Message

logger = logging.getLogger(__name__)


@dataclass
class Generated:
    """A method's output for one paper: the prediction, the prompt that produced it, and extra fields."""

    pred: str
    desc: str
    extra: dict[str, Any] = field(default_factory=dict)
    #: the messages of the request whose reply is `pred`, when it is not the last one sent (a staged method's)
    request: list[Message] | None = None


class Method(Protocol):
    """A way of producing one prediction per paper."""

    name: str

    def prompt(self, record: Mapping[str, Any]) -> list[Message]:
        """The (first) request's messages for `record`: what ``--dry-run`` prints."""
        ...

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated: ...


def prompt_text(messages: Sequence[Message]) -> str:
    """The text of a request: a lone user message verbatim, else each message under its role."""
    if len(messages) == 1 and messages[0].get("role") == "user":
        return messages[0]["content"]
    return "\n\n".join(f"[{m['role']}]\n{m.get('content') or ''}" for m in messages)


class PaperLLM:
    """The model as one paper's method sees it: `await llm(messages)` -> reply text, or `await llm.complete(messages,
    tools=...)` -> the `Completion` with its tool calls; counts requests, tokens and cost, writes each request's
    usage to the run's ledger and refuses to send once its budget is spent. `tools_refused` is True once the
    endpoint refused tool calling and a request offering tools was sent without them."""

    def __init__(self, backend: Backend | None, settings: GenerationSettings, semaphore: asyncio.Semaphore,
                 ledger: UsageLedger | None = None, tags: Mapping[str, Any] | None = None,
                 gate: BudgetGate | None = None) -> None:
        self._backend = backend
        self._settings = settings
        self._semaphore = semaphore
        self._ledger = ledger
        self._gate = gate if gate is not None or ledger is None else BudgetGate(ledger)
        self._tags = dict(tags or {})
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.reasoning_tokens = 0
        self.cost_usd: float | None = None
        self.snapshot: str | None = None
        self.reasoning: list[str | None] = []
        self.tools_refused = False

    async def complete(self, messages: Sequence[Message], *, tools: list[dict[str, Any]] | None = None,
                       tool_choice: str | dict[str, Any] | None = None, **overrides: Any) -> Completion:
        """The full `Completion`; `tools` (OpenAI's chat ``tools``) and `tool_choice` are offered to the model, and
        their JSON counts in the request's worst case; `overrides` change settings for this request (e.g.
        ``max_tokens``)."""
        if self._backend is None:
            raise GenerationError("this method needs a language model, but the run has none (model 'extractive')")
        settings = self._settings if not overrides else replace(self._settings, **overrides)
        tools = list(tools) if tools else None  # an empty list is no tools (OpenAI refuses `"tools": []`)
        offered = tools is not None or tool_choice is not None
        policy = getattr(self._backend, "policy", None)
        async with self._semaphore:
            sent_tools = tools if policy is None or not policy.refused("tools") else None
            reservation = worst_case(self._backend, self._ledger, messages, settings, sent_tools)
            if reservation is None and self._ledger is not None and self._ledger.exhausted:
                raise BudgetExceededError(f"the usage ledger reached the budget of {usd(self._ledger.max_cost or 0.0)}")
            if reservation is not None and self._gate is not None:
                await self._gate.hold(reservation)
            try:
                if offered:  # only API backends take `params`; a local one refuses tools (`HFBackend.complete`)
                    result = await self._backend.complete(messages, settings,
                                                          params={"tools": tools, "tool_choice": tool_choice})
                else:
                    result = await self._backend.complete(messages, settings)
            except GenerationError as err:
                if err.completion is not None:  # a reply came back (and was billed) but was unusable
                    self._count(err.completion, reservation)
                raise
            else:
                self._count(result, reservation)
            finally:
                if reservation is not None and self._gate is not None:
                    await self._gate.free(reservation)
                if tools and policy is not None and policy.refused("tools"):
                    self.tools_refused = True
        return result

    def _count(self, result: Completion, reservation: Reservation | None = None) -> None:
        self.requests += 1
        self.prompt_tokens += result.prompt_tokens or 0
        self.completion_tokens += result.completion_tokens or 0
        self.reasoning_tokens += result.reasoning_tokens or 0
        self.snapshot = result.snapshot or self.snapshot
        self.reasoning.append(result.reasoning)
        cost = result.cost
        if self._ledger is not None:
            cost = self._ledger.record(result, model=getattr(self._backend, "model", "?"), purpose="generate",
                                       reservation=reservation, **self._tags)["cost_usd"]
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    async def __call__(self, messages: Sequence[Message], **overrides: Any) -> str:
        return (await self.complete(messages, **overrides)).text

    def usage(self) -> dict[str, Any]:
        usage: dict[str, Any] = {"requests": self.requests, "prompt_tokens": self.prompt_tokens,
                                 "completion_tokens": self.completion_tokens}
        if self._backend is not None:
            usage.update(reasoning_tokens=self.reasoning_tokens,
                         cost_usd=None if self.cost_usd is None else round(self.cost_usd, 8))
        return usage


def worst_case(backend: Backend | None, ledger: UsageLedger | None, messages: Sequence[Message],
               settings: GenerationSettings, tools: Sequence[Mapping[str, Any]] | None = None) -> Reservation | None:
    """What one API request (offering `tools`) may cost at most (see `sciwrite.llm.ledger`); None for a local model
    (which costs nothing) or without a ledger. Under a budget, an unpriced model whose endpoint reports the cost
    gets an exclusive reservation (sent alone); any other request that cannot be bounded is an `InputError`."""
    policy = getattr(backend, "policy", None)
    if ledger is None or policy is None or backend is None:
        return None
    if ledger.max_cost is not None:  # a refused completion limit is renamed, never dropped (the cost needs it)
        policy.keep_completion_limit = True
    limit = policy.completion_limit(messages, settings)
    reservation = ledger.worst_case(backend.model, messages, limit, tools)
    if reservation is not None or ledger.max_cost is None:
        return reservation
    problem = budget_problem(backend, ledger, limit)
    if problem is not None:
        raise problem
    return Reservation(0.0, exclusive=True)


def budget_problem(backend: Backend, ledger: UsageLedger, limit: int | None) -> InputError | None:
    """Why requests to `backend` cannot be kept within `ledger`'s budget, or None when they can."""
    policy = getattr(backend, "policy", None)
    if limit is None:
        return InputError(f"model {backend.model!r} is sent no completion limit, so a request's cost has no bound",
                          Where(field="max_cost"),
                          hint="under --max-cost, keep --max-tokens (do not pass --model-option max_tokens=null) or "
                               "set --model-option max_completion_tokens=N")
    if ledger.price_of(backend.model) is None and getattr(policy, "provider", None) != "openrouter":
        return InputError(f"model {backend.model!r} has no price in the price table ({', '.join(ledger.prices.sources)}) "
                          "and its endpoint reports no cost, so --max-cost cannot be kept", Where(field="max_cost"),
                          hint=f"add `{backend.model}: {{input: USD, output: USD}}` (per million tokens) under `models:` "
                               "in a YAML file and pass it with --prices FILE")
    return None


def check_budget(backend: Backend | None, ledger: UsageLedger | None, settings: GenerationSettings) -> None:
    """Before anything is sent: `InputError` when the run's budget could not be kept (see `budget_problem`)."""
    policy = getattr(backend, "policy", None)
    if backend is None or ledger is None or ledger.max_cost is None or policy is None:
        return
    policy.keep_completion_limit = True  # a refused completion limit is renamed, never dropped (the cost needs it)
    problem = budget_problem(backend, ledger, policy.completion_limit([], settings))
    if problem is not None:
        raise problem
    if ledger.price_of(backend.model) is None:
        logger.warning("%s has no price in the price table: its endpoint reports each request's cost, but not "
                       "beforehand, so requests go one at a time and the run may end one request over --max-cost; "
                       "pass --prices FILE with its price to keep the budget exactly at full concurrency",
                       backend.model)


@dataclass
class RunReport:
    """What one run did."""

    out_path: Path
    failures_path: Path
    n_papers: int  # in scope (the split, after --limit; or the failures file with retry_failed)
    n_already_done: int
    n_written: int
    n_failed: int  # papers that failed in this run (written to failures_path)
    n_failed_earlier: int = 0  # failures of earlier runs left in failures_path (outside this run's scope)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_seconds: float = 0.0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0  # of the requests whose cost is known (the endpoint's, else the price table's)
    stopped: str | None = None  # why the run stopped before the end ("max_cost"), None when it ran to the end
    n_not_started: int = 0  # papers left for a rerun when it stopped
    stop_detail: str | None = None  # what stopped it: the spend, the budget and the request that did not fit
    file_events: list[str] = field(default_factory=list)  # a file deleted or replaced mid-run, and what was done
    budget_breach: str | None = None  # the budget was not kept: by how much and why (`UsageLedger.breach`)
    meta_path: Path | None = None
    adjustments: list[dict[str, Any]] = field(default_factory=list)  # parameters not applied as asked

    def as_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in self.__dict__.items()}, "out_path": str(self.out_path),
                "failures_path": str(self.failures_path),
                "meta_path": None if self.meta_path is None else str(self.meta_path),
                "cost_usd": round(self.cost_usd, 6)}


def meta_path_for(out_path: str | Path) -> Path:
    """``<stem>.meta.json`` beside the output file: the run's metadata."""
    out_path = Path(out_path)
    return out_path.with_name(f"{out_path.stem}.meta.json")


def failures_path_for(out_path: str | Path) -> Path:
    """``failed_samples_<stem>.jsonl`` beside the output file."""
    out_path = Path(out_path)
    return out_path.with_name(f"failed_samples_{out_path.stem}.jsonl")


#: The key of `Generated.extra` under which a method hands over its trace of one paper (an agent's tool calls): the
#: runner writes it to `traces_path_for` the output, never into the prediction line.
TRACE = "trace"
#: The attribute under which the error of a paper that failed carries the method's trace of it (`traced`).
_FAILED_TRACE = "sciwrite_trace"


@contextmanager
def traced(trace: list[Any]) -> Iterator[list[Any]]:
    """A method's trace of one paper, handed to the runner with any error raised inside (`failed_trace`), so that a
    paper that fails has its calls in the traces file too, beside its failure."""
    try:
        yield trace
    except Exception as err:
        setattr(err, _FAILED_TRACE, trace)
        raise


def failed_trace(err: BaseException, trace: Any = None) -> Any:
    """The trace of a paper that failed: `trace` when the method returned one, else the one its error carries."""
    return trace if trace is not None else getattr(err, _FAILED_TRACE, None)


def traces_path_for(out_path: str | Path) -> Path:
    """``<stem>.traces.jsonl`` beside the output file: one line ``{"paper_id", "trace"}`` per paper written, and
    ``{"paper_id", "trace", "error"}`` per paper not written (failed, or stopped at the budget)."""
    out_path = Path(out_path)
    return out_path.with_name(f"{out_path.stem}.traces.jsonl")


def keep_traces(path: Path, done: set[str]) -> None:
    """Before a run: the latest trace line of each paper in the output, and of each paper not in it whose latest
    attempt failed (the line with its error, until the paper is run again). A paper's trace is written just before
    its line, so a run killed in between leaves a trace without a line or error: it goes, and the paper's rerun
    writes it once. Unreadable lines (one cut short) go too."""
    if not path.exists():
        return
    kept: dict[str, dict[str, Any]] = {}
    for number, _, item, problem in iter_json_lines(path):
        if problem is None and isinstance(item, dict) and (item.get("paper_id") in done) != ("error" in item):
            kept.pop(item["paper_id"], None)
            kept[item["paper_id"]] = item
        elif problem is not None:
            logger.warning("%s: %s; dropped", line_ref(path, number), problem)
    _rewrite_jsonl(path, kept.values())


def written_paper_ids(out_path: Path) -> set[str]:
    """paper_ids already in the output; a last line cut short by a crash is removed from the file first."""
    if not out_path.exists():
        return set()
    with out_path.open("rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            logger.warning("%s: dropping an unfinished last line (%d bytes) left by an interrupted run", out_path,
                           len(data) - cut)
            f.truncate(cut)
            data = data[:cut]
    done = set()
    for number, _, record, problem in parse_json_lines(data.decode("utf-8").splitlines()):
        if problem is not None:
            raise ValueError(f"{line_ref(out_path, number)}: {problem}; fix or remove the line to resume")
        if isinstance(record, dict) and isinstance(record.get("paper_id"), str):
            done.add(record["paper_id"])
    return done


def read_failures(path: Path) -> list[dict[str, Any]]:
    """The failure records of earlier runs, the latest per paper_id (unreadable lines are skipped with a warning)."""
    if not path.exists():
        return []
    failures: dict[str, dict[str, Any]] = {}
    for number, _, item, problem in iter_json_lines(path):
        if problem is not None:
            logger.warning("%s: %s; skipped", line_ref(path, number), problem)
            continue
        if isinstance(item, dict) and isinstance(item.get("record"), dict) \
                and isinstance(item["record"].get("paper_id"), str):
            failures.pop(item["record"]["paper_id"], None)  # the latest attempt wins, in its own position
            failures[item["record"]["paper_id"]] = item
    return list(failures.values())


def check_records(records: Sequence[Mapping[str, Any]]) -> None:
    """Every record needs a string paper_id, unique in the split: resume is keyed on it."""
    if not records:
        raise ValueError("the split has no papers to generate for")
    seen: set[str] = set()
    for i, record in enumerate(records):
        paper_id = record.get("paper_id") if isinstance(record, Mapping) else None
        if not isinstance(paper_id, str) or not paper_id:
            raise ValueError(f"record {i}: field 'paper_id' must be a non-empty string")
        if paper_id in seen:
            raise ValueError(f"record {i}: paper_id {paper_id!r} appears twice in the split; resume needs unique ids")
        seen.add(paper_id)


def dry_run(records: Sequence[Mapping[str, Any]], method: Method, limit: int | None = 1) -> list[tuple[str, str]]:
    """(paper_id, exact prompt text) of the first request of the first `limit` papers; no model is called."""
    check_records(records)
    chosen = list(records)[: limit or 1]
    return [(r["paper_id"], prompt_text(method.prompt(r))) for r in chosen]


@dataclass(frozen=True)
class RunScope:
    """What a run is asked to do, once resume and retry have been read: the papers in scope, those not yet written,
    and the failure records of earlier runs that stay in the failures file."""

    records: list[dict[str, Any]]  # in scope: the split (or the failures, retried), after the limit
    todo: list[dict[str, Any]]  # in scope and not yet in the output
    done: set[str]  # paper_ids already in the output
    old_failures: list[dict[str, Any]]  # of papers not in the output


def run_scope(records: Sequence[Mapping[str, Any]], out_path: Path, failures_path: Path, *, limit: int | None,
              retry_failed: bool) -> RunScope:
    """The papers a run writes: `records` (or, with `retry_failed`, the failed ones) after `limit`, less those
    already in the output (a last line cut short by a crash is dropped from it first). Failures stay in their file
    until the paper is written or fails again (then its newest record wins), so a run killed part-way loses none;
    papers already in the output leave the file."""
    chosen = [dict(r) for r in records]
    done = written_paper_ids(out_path)
    old_failures = [item for item in read_failures(failures_path) if item["record"]["paper_id"] not in done]
    if retry_failed:
        chosen = [dict(item["record"]) for item in old_failures]
        if not chosen:
            logger.warning("%s holds no failed samples: nothing to retry", failures_path)
    if limit is not None:
        chosen = chosen[:limit]
    return RunScope(chosen, [r for r in chosen if r["paper_id"] not in done], done, old_failures)


class PaperWriter:
    """Where a run's papers go as they finish: a line in the output (its trace first), or a failure record (its trace
    too, with the error); and the report's counts and the progress bar kept up to date with each. The output is
    checked before each line (`check_output`), every file once more at the end (`finish`): a file deleted mid-run is
    written again where it was, and an output replaced by another file is never appended to (`output_replaced`)."""

    def __init__(self, report: RunReport, files: RunFiles, bar: Any, base: Mapping[str, Any],
                 ledger: UsageLedger | None, written: set[str], records: Mapping[str, dict[str, Any]]) -> None:
        self.report, self.files, self.bar = report, files, bar
        self.base, self.ledger, self.records = base, ledger, records
        self.written = written  # the caller's set: it stays current if the run is interrupted
        self.replaced = False  # the output path names another file: this run's papers go to the failures file
        self.started = time.perf_counter()

    def progress(self) -> None:
        report = self.report
        self.bar.update()
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        postfix = {"failed": report.n_failed, "tok_in": report.prompt_tokens,
                   "tok_out": report.completion_tokens, "tok_s": f"{report.completion_tokens / elapsed:.0f}"}
        if report.reasoning_tokens:
            postfix["tok_reason"] = report.reasoning_tokens
        if self.ledger is not None:
            postfix["cost"] = f"${self.ledger.session.cost_usd:.4f}"
        self.bar.set_postfix(postfix, refresh=False)

    def tally(self, llm: PaperLLM) -> None:
        """Add one paper's tokens and cost to the report."""
        self.report.prompt_tokens += llm.prompt_tokens
        self.report.completion_tokens += llm.completion_tokens
        self.report.reasoning_tokens += llm.reasoning_tokens
        self.report.cost_usd += llm.cost_usd or 0.0

    def fail(self, record: dict[str, Any], err: BaseException, llm: PaperLLM, trace: Any = None) -> None:
        """Record a paper that failed, with its record and the error, for ``retry_failed``; its trace (the calls
        it made before failing) goes to the traces file with the error."""
        self.tally(llm)
        self.report.n_failed += 1
        error = scrub_keys(f"{type(err).__name__}: {err}")
        logger.warning("paper %s failed: %s", record["paper_id"], error)
        self.trace_line(record["paper_id"], trace, error)
        self.failure_line(record, error, llm.usage(), attempts=getattr(err, "attempts", None))
        self.progress()

    def failure_line(self, record: Mapping[str, Any], error: str | None, usage: Any, **kept: Any) -> None:
        """One record of the failures file: the paper's record, why it is not in the output, and `kept` fields."""
        line = {"paper_id": record["paper_id"], "error": error, "attempts": None, "usage": usage, **self.base,
                **kept, "record": record}
        self.keep_in_place(self.files.failed)
        self.files.failed.append(json.dumps(line, ensure_ascii=False, default=str), record["paper_id"])

    def stop(self, record: Mapping[str, Any], err: BudgetExceededError, llm: PaperLLM, trace: Any = None) -> None:
        """Not a failure: the budget cannot take the paper's next request, so it waits for a larger budget (the
        calls it made are traced, with why it stopped)."""
        self.tally(llm)
        self.trace_line(record["paper_id"], trace, f"{type(err).__name__}: {err}")
        self.report.stopped = "max_cost"
        self.report.stop_detail = self.report.stop_detail or str(err)
        self.report.n_not_started += 1

    def write(self, record: Mapping[str, Any], text: str, trace: Any, llm: PaperLLM) -> None:
        """Write a finished paper: its trace first (see `keep_traces`), then its line, flushed at once; once the
        output was replaced, the paper (its prediction too) goes to the failures file instead."""
        self.tally(llm)
        self.check_output()
        if self.replaced:
            self.report.n_failed += 1
            self.trace_line(record["paper_id"], trace, self.report.stop_detail)
            self.failure_line(record, self.report.stop_detail, llm.usage(), prediction=json.loads(text))
            self.progress()
            return
        self.report.n_written += 1
        self.trace_line(record["paper_id"], trace)
        self.files.out.append(text, record["paper_id"])
        self.written.add(record["paper_id"])
        self.progress()

    def trace_line(self, paper_id: str, trace: Any, error: str | None = None) -> None:
        """A paper's trace (none: no line), with `error` when the paper is not written (failed or stopped)."""
        if trace is None:
            return
        item = {"paper_id": paper_id, "trace": trace, **({"error": error} if error is not None else {})}
        self.keep_in_place(self.files.traces)
        self.files.traces.append(json.dumps(item, ensure_ascii=False, default=str), paper_id)

    def check_output(self) -> None:
        """The output path still names the file being written; deleted, it is written again with every line it held
        and the run goes on there; replaced by another file, `output_replaced`."""
        moved = None if self.replaced else self.files.out.moved()
        if moved == DELETED:
            self.keep_in_place(self.files.out)
        elif moved == REPLACED:
            self.output_replaced()

    def keep_in_place(self, file: LineFile) -> None:
        """A run's file deleted (or, a failures or traces file, replaced) mid-run is written at its path again with
        every line it held, and the run goes on there; the report says so."""
        moved = file.moved()
        if moved is None:
            return
        n_lines = file.reattach()
        event = f"{file.path} was {moved} mid-run: its {n_lines} lines were written there again"
        logger.warning("%s", event)
        self.report.file_events.append(event)

    def output_replaced(self) -> None:
        """The output path names a file this run did not write: the run stops (nothing is appended to that file),
        and each paper this run wrote that the new file does not hold goes to the failures file with its line
        (``prediction``), so a rerun resumes it and nothing is lost."""
        self.replaced = True
        out = self.files.out
        there = {item.get("paper_id") for _, _, item, problem in iter_json_lines(out.path)
                 if problem is None and isinstance(item, dict)}
        detail = (f"{out.path} was replaced by another file mid-run: this run stopped writing there, and its papers "
                  f"not in that file are in {self.files.failed.path} with their predictions (field 'prediction'); "
                  "rerun to resume them")
        self.report.stopped, self.report.stop_detail = "output_replaced", detail
        self.report.file_events.append(detail)
        logger.warning("%s", detail)
        for _, _, item, problem in parse_json_lines(out.held().splitlines()):
            paper_id = item.get("paper_id") if problem is None and isinstance(item, dict) else None
            if paper_id in self.written and paper_id not in there:
                self.written.discard(paper_id)
                self.report.n_written -= 1
                self.report.n_failed += 1
                self.failure_line(self.records[paper_id], detail, item.get("usage"), prediction=item)
        out.close()

    def finish(self) -> None:
        """At the end of the run: every file still where it was opened (see `check_output`)."""
        self.check_output()
        self.keep_in_place(self.files.failed)
        self.keep_in_place(self.files.traces)


@dataclass
class RunFiles:
    """The files a run appends to: its output, its failures file and its traces (opened at the first trace)."""

    out: LineFile
    failed: LineFile
    traces: LineFile

    @classmethod
    def opened(cls, out_path: Path) -> RunFiles:
        return cls(LineFile(out_path).open(), LineFile(failures_path_for(out_path)).open(),
                   LineFile(traces_path_for(out_path)))

    def close(self) -> None:
        for file in (self.out, self.failed, self.traces):
            file.close()


def prediction_line(record: Mapping[str, Any], result: Generated, llm: PaperLLM, base: Mapping[str, Any],
                    seconds: float, keep_reasoning: bool) -> str:
    """A finished paper's output line (see the module docstring); an empty prediction is a `GenerationError`."""
    if not isinstance(result.pred, str) or not result.pred.strip():
        raise GenerationError("the method produced an empty prediction")
    line = {"paper_id": record["paper_id"], "pred": result.pred, "desc": result.desc, **base, **result.extra,
            "usage": llm.usage(), "seconds": round(seconds, 3)}
    if llm.snapshot is not None:
        line["model_snapshot"] = llm.snapshot
    if keep_reasoning:
        line["reasoning"] = llm.reasoning
    # the method's extra fields never replace the core ones
    line.update(paper_id=record["paper_id"], pred=result.pred, desc=result.desc)
    return json.dumps(line, ensure_ascii=False)


async def arun_generation(records: Sequence[Mapping[str, Any]], method: Method, backend: Backend | None,
                          out_path: str | Path, *, settings: GenerationSettings | None = None,
                          meta: Mapping[str, Any] | None = None, limit: int | None = None,
                          retry_failed: bool = False, show_progress: bool = True,
                          ledger: UsageLedger | None = None, keep_reasoning: bool = False) -> RunReport:
    """Generate for every paper of `records` not yet in `out_path` (see the module docstring)."""
    settings = settings or GenerationSettings()
    out_path = Path(out_path)
    failures_path = failures_path_for(out_path)
    check_records(records)
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    check_budget(backend, ledger, settings)
    scope = run_scope(records, out_path, failures_path, limit=limit, retry_failed=retry_failed)
    keep_traces(traces_path_for(out_path), scope.done)
    todo_ids = {r["paper_id"] for r in scope.todo}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    _rewrite_jsonl(failures_path, scope.old_failures)
    report = RunReport(out_path, failures_path, len(scope.records), len(scope.records) - len(scope.todo), 0, 0,
                       sum(item["record"]["paper_id"] not in todo_ids for item in scope.old_failures),
                       meta_path=meta_path_for(out_path))
    if not scope.todo:
        return report
    if ledger is not None and ledger.max_cost is not None and ledger.exhausted:  # exhausted: there is a budget
        report.stopped, report.n_not_started = "max_cost", len(scope.todo)
        report.budget_breach = breach_line(ledger)
        logger.warning("%s already holds %s of the %s budget: nothing sent (raise --max-cost to go on)",
                       ledger.path, usd(ledger.total.cost_usd), usd(ledger.max_cost))
        _write_meta(report, meta, settings, backend, ledger)
        return report
    written: set[str] = set()
    started = time.perf_counter()
    try:
        await _run_papers(scope.todo, method, backend, out_path, report, written, settings=settings, meta=meta,
                          ledger=ledger, keep_reasoning=keep_reasoning, show_progress=show_progress)
    finally:
        failing = sys.exc_info()[1]  # an error on its way out (a full disk): what follows must not hide it
        try:
            # One record per paper still failed; the ones written now (or by a parallel run) leave the file.
            _rewrite_jsonl(failures_path, [item for item in read_failures(failures_path)
                                           if item["record"]["paper_id"] not in scope.done | written])
            report.wall_seconds = round(time.perf_counter() - started, 3)
            report.budget_breach = breach_line(ledger)
            _write_meta(report, meta, settings, backend, ledger)
        except WriteFailedError as err:
            if failing is None:
                raise
            logger.warning("%s", err)
    if report.stopped == "max_cost" and ledger is not None and ledger.max_cost is not None:
        logger.warning("stopped: the usage ledger %s holds %s of the %s budget; %d papers left for a rerun "
                       "(raise --max-cost to go on)", ledger.path, usd(ledger.total.cost_usd), usd(ledger.max_cost),
                       report.n_not_started)
    return report


async def _run_papers(todo: Sequence[dict[str, Any]], method: Method, backend: Backend | None, out_path: Path,
                      report: RunReport, written: set[str], *, settings: GenerationSettings,
                      meta: Mapping[str, Any] | None, ledger: UsageLedger | None, keep_reasoning: bool,
                      show_progress: bool) -> None:
    """Run `method` on each paper of `todo`, ``settings.concurrency`` at a time, writing each as it finishes; the
    counts go in `report` and the paper_ids written in `written` as they happen, so an interrupted run leaves
    them current."""
    from tqdm.auto import tqdm

    semaphore = asyncio.Semaphore(settings.concurrency)
    gate = BudgetGate(ledger) if ledger is not None else None
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for record in todo:
        queue.put_nowait(record)
    base = dict(meta or {})
    base.setdefault("model", getattr(backend, "model", None) or "extractive")
    base.setdefault("method", method.name)
    base.setdefault("seed", settings.seed)
    # Opening two local files blocks the loop for microseconds, before any request is in flight.
    files = RunFiles.opened(out_path)
    with (
        closing(files),
        tqdm(total=len(todo), desc=f"generate {method.name}", unit="paper", disable=not show_progress) as bar,
    ):
        writer = PaperWriter(report, files, bar, base, ledger, written, {r["paper_id"]: r for r in todo})

        async def worker() -> None:
            while report.stopped is None:
                try:
                    record = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                llm = PaperLLM(backend, settings, semaphore, ledger,
                               {"paper_id": record["paper_id"], "run": out_path.stem}, gate)
                paper_start = time.perf_counter()
                trace = None
                try:
                    result = await method.run(record, llm)
                    trace = result.extra.pop(TRACE, None)
                    text = prediction_line(record, result, llm, base, time.perf_counter() - paper_start,
                                           keep_reasoning)
                except (asyncio.CancelledError, KeyboardInterrupt):
                    raise
                except BudgetExceededError as err:
                    writer.stop(record, err, llm, failed_trace(err, trace))
                    continue
                except Exception as err:  # noqa: BLE001 - a paper that fails is recorded, never lost
                    writer.fail(record, err, llm, failed_trace(err, trace))
                    continue
                writer.write(record, text, trace, llm)

        await asyncio.gather(*(worker() for _ in range(min(settings.concurrency, len(todo)))))
        writer.finish()
        report.n_not_started += queue.qsize()


def _write_meta(report: RunReport, meta: Mapping[str, Any] | None, settings: GenerationSettings,
                backend: Backend | None, ledger: UsageLedger | None) -> None:
    """The run's metadata beside its output: what was asked, how requests were built, what it did and cost."""
    policy = getattr(backend, "policy", None)
    report.adjustments = policy.adjustments() if policy is not None else []
    data = {"meta": dict(meta or {}), "model": getattr(backend, "model", None) or "extractive",
            "settings": asdict(settings), "requests": policy.describe() if policy is not None else None,
            "report": report.as_dict(), "usage": ledger.summary() if ledger is not None else None}
    assert report.meta_path is not None
    replace_text(report.meta_path, json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def run_generation(records: Sequence[Mapping[str, Any]], method: Method, backend: Backend | None,
                   out_path: str | Path, **kwargs: Any) -> RunReport:
    """`arun_generation` from synchronous code; closes the backend at the end."""

    async def main() -> RunReport:
        try:
            return await arun_generation(records, method, backend, out_path, **kwargs)
        finally:
            if backend is not None:
                await backend.aclose()

    return asyncio.run(main())


def _rewrite_jsonl(path: Path, items: Iterable[Mapping[str, Any]]) -> None:
    """Replace `path` atomically with `items` as JSON Lines (removing it when there are none)."""
    items = list(items)
    if not items:
        path.unlink(missing_ok=True)
        return
    replace_text(path, "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items))
