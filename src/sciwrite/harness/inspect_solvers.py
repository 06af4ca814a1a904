"""The solver of sciwrite's Inspect tasks: the generation method of ``sciwrite generate`` on one sample's paper, with
Inspect's model in `PaperLLM`'s place (`sciwrite.harness.inspect_model.InspectLLM`), so every request is the one
the CLI sends."""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from sciwrite.generation.jobs import GenerationJob
from sciwrite.harness.inspect_model import InspectLLM
from sciwrite.llm.types import GenerationSettings

#: Where a sample's metadata keeps what the method returned besides the prediction.
GENERATED = "sciwrite"


@solver
def run_method(job: GenerationJob, settings: GenerationSettings) -> Solver:
    """The job's method on the sample's paper, Inspect's model in `PaperLLM`'s place: the prediction is the
    output; the prompt of the request that produced it (``desc``) and what the method adds are in the metadata."""
    records = {record["paper_id"]: record for record in job.records}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        result = await job.method.run(records[str(state.sample_id)], InspectLLM(model, settings))
        if not isinstance(result.pred, str) or not result.pred.strip():
            raise ValueError(f"{job.method.name} produced an empty prediction for {state.sample_id}")
        state.messages.append(ChatMessageAssistant(content=result.pred))
        state.output = ModelOutput.from_content(model=str(model), content=result.pred)
        state.metadata[GENERATED] = {"method": job.method.name, "desc": result.desc, "extra": dict(result.extra)}
        return state

    return solve


__all__ = ["GENERATED", "run_method"]
