"""The solvers of sciwrite's Inspect tasks: the generation method of ``sciwrite generate`` on one sample's paper,
with Inspect's model in `PaperLLM`'s place (`sciwrite.harness.inspect_model.InspectLLM`), so every request is the
one the CLI sends.

The run is a chain a researcher can read and change in Inspect's terms:

- `retrieve`: the paper's candidate list, as the plan's one batched search over the split found it (the CLI's list,
  by construction), put in the sample's store; a solver of your own in its place changes what the method writes
  over. Only for a job whose method reads a prepared list (`GenerationJob.retrieved_field`);
- a staged method (`sciwrite.generation.stages.StagedMethod`, e.g. RWGBench's Workflow) runs as one solver per
  stage (workflow_plan, workflow_search, workflow_draft, workflow_refine_1, ...), its progress carried from stage to stage; any other method is one
  `write` solver.

The last solver sets the output to the method's prediction; the sample's messages become the request that produced
it and its reply (Inspect's transcript keeps every request of every stage, and an agent's every tool call). The
sample's metadata keeps, under ``sciwrite``, what the method returned (``extra``, the fields of the CLI's line) and
its trace, if any (``trace``: what the CLI writes to ``<run>.traces.jsonl``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from sciwrite.generation.jobs import GenerationJob
from sciwrite.generation.runner import TRACE, Generated
from sciwrite.generation.stages import MethodStage, StagedMethod
from sciwrite.harness.inspect_model import InspectLLM, chat_messages
from sciwrite.llm.types import GenerationSettings

#: Where a sample's metadata keeps what the method returned besides the prediction.
GENERATED = "sciwrite"
#: The store key of the paper's candidate list (what `retrieve` puts there and the method reads).
CANDIDATES = "sciwrite:candidates"


class PaperRecords:
    """The job's records by paper, as the sample's state has them: a candidate list in the store (the `retrieve`
    step's, or one a user's solver put there) replaces the one the plan prepared."""

    def __init__(self, job: GenerationJob) -> None:
        self.field = job.retrieved_field
        self._records = {str(record["paper_id"]): record for record in job.records}

    def prepared(self, state: TaskState) -> Mapping[str, Any]:
        """The record the plan prepared for the sample's paper."""
        return self._records[str(state.sample_id)]

    def of(self, state: TaskState) -> Mapping[str, Any]:
        """The record the method runs on."""
        record = self.prepared(state)
        if self.field is None or CANDIDATES not in state.store:
            return record
        return {**record, self.field: state.store.get(CANDIDATES)}


def finish(state: TaskState, job: GenerationJob, llm: InspectLLM, result: Generated) -> TaskState:
    """The prediction as the sample's output; the request that produced it and the reply as its messages."""
    if not isinstance(result.pred, str) or not result.pred.strip():
        raise ValueError(f"{job.method.name} produced an empty prediction for {state.sample_id}")
    request = result.request or llm.last_request
    if request is not None:
        state.messages = chat_messages(request)
    state.messages.append(ChatMessageAssistant(content=result.pred))
    state.output = ModelOutput.from_content(model=str(llm.model_name), content=result.pred)
    extra = dict(result.extra)
    trace = extra.pop(TRACE, None)  # beside the prediction, as the CLI keeps it beside its line
    state.metadata[GENERATED] = {"method": job.method.name, "desc": result.desc, "extra": extra,
                                 **({"trace": trace} if trace is not None else {})}
    return state


@solver
def retrieve(job: GenerationJob) -> Solver:
    """The paper's candidate list, as ``sciwrite generate`` retrieved it, into the sample's store."""
    records = PaperRecords(job)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if records.field is not None:
            state.store.set(CANDIDATES, list(records.prepared(state).get(records.field) or []))
        return state

    return solve


@solver
def write(job: GenerationJob, settings: GenerationSettings) -> Solver:
    """The job's method on the sample's paper in one solver."""
    records = PaperRecords(job)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        llm = InspectLLM(get_model(), settings)
        return finish(state, job, llm, await job.method.run(records.of(state), llm))

    return solve


class StagedRuns:
    """Each sample's progress through a staged method, between its solvers (keyed by sample and epoch)."""

    def __init__(self, job: GenerationJob) -> None:
        self.job = job
        self.records = PaperRecords(job)
        self._progress: dict[tuple[str, int], Any] = {}

    def key(self, state: TaskState) -> tuple[str, int]:
        return str(state.sample_id), state.epoch

    def start(self, state: TaskState) -> Any:
        progress = self._progress[self.key(state)] = self.job.method.start(self.records.of(state))
        return progress

    def progress(self, state: TaskState) -> Any:
        return self._progress[self.key(state)]

    def done(self, state: TaskState) -> Any:
        return self._progress.pop(self.key(state))


def stage_solver(runs: StagedRuns, stage: MethodStage, settings: GenerationSettings, first: bool,
                 last: bool) -> Solver:
    """One stage of a staged method as a solver named after it (the first starts the paper's run, the last
    finishes it)."""

    @solver(name=f"{runs.job.method.name}_{stage.name}")
    def stage_step() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            progress = runs.start(state) if first else runs.progress(state)
            llm = InspectLLM(get_model(), settings)
            await stage.run(progress, llm)
            if not last:
                if llm.last_request is not None:
                    state.messages = chat_messages(llm.last_request)
                return state
            return finish(state, runs.job, llm, runs.job.method.finish(runs.done(state)))

        return solve

    return stage_step()


def method_solvers(job: GenerationJob, settings: GenerationSettings) -> list[Solver]:
    """The chain that runs `job`'s method on a sample's paper: `retrieve` when the method reads a prepared list,
    then one solver per stage of a staged method, or `write`."""
    chain = [retrieve(job)] if job.retrieved_field is not None else []
    if not isinstance(job.method, StagedMethod):
        return [*chain, write(job, settings)]
    runs = StagedRuns(job)
    stages = job.method.stages()
    return [*chain, *(stage_solver(runs, stage, settings, first=i == 0, last=i == len(stages) - 1)
                      for i, stage in enumerate(stages))]


__all__ = ["CANDIDATES", "GENERATED", "PaperRecords", "method_solvers", "retrieve", "stage_solver", "write"]
