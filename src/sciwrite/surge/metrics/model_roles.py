"""SurGE's model roles, declared beside its metrics (`sciwrite.surge.metrics.specs` names them): the job each model
does, the checkpoint each profile uses for it, and why (SurGE's code and paper name every one).

SurGE's evaluator (``src/evaluator.py``) loads ``cross-encoder/nli-deberta-v3-base`` for the three relevance levels,
``BAAI/bge-large-en-v1.5`` (FlagEmbedding) for SH-Recall and asks ``gpt-4o`` for Structure Quality and Logic. Offline
(`lite`) no package ships the NLI model, so the relevance levels are not computed and the reason names the model;
SH-Recall uses the packaged MiniLM, and the summary's model list says so.
"""

from __future__ import annotations

from sciwrite.models.registry import PACKAGED_MINILM, ModelRole

SURGE_NLI = ModelRole(
    "surge_nli",
    "Three-way NLI cross-encoder behind SurGE's paper-, section- and sentence-level relevance.",
    {"paper": "cross-encoder/nli-deberta-v3-base"},
    basis="SurGE src/evaluator.py: nli_model_path defaults to 'cross-encoder/nli-deberta-v3-base'",
)
HEADING_ENCODER = ModelRole(
    "heading_encoder",
    "Sentence encoder of section headings for SurGE's soft heading recall (SH-Recall).",
    {"paper": "BAAI/bge-large-en-v1.5", "lite": PACKAGED_MINILM},
    basis=("SurGE src/evaluator.py: flag_model_path defaults to 'BAAI/bge-large-en-v1.5'; lite: the packaged "
           "MiniLM, our substitute, labelled in the summary's models"),
)
SURGE_JUDGE = ModelRole(
    "surge_judge",
    "Chat model behind SurGE's Structure Quality and Logic judges (its prompts, 0-5), served by an "
    "OpenAI-compatible API (set SCIWRITE_LLM_API_KEY, and SCIWRITE_LLM_BASE_URL for another endpoint).",
    {"paper": "gpt-4o"},
    api=True,
    basis="SurGE src/structureFuncs.py and src/informationFuncs.py: chat_openai(model='gpt-4o')",
)

#: Every role SurGE's metrics need, in the order `sciwrite models` lists them.
ROLES: tuple[ModelRole, ...] = (SURGE_NLI, HEADING_ENCODER, SURGE_JUDGE)

__all__ = ["HEADING_ENCODER", "ROLES", "SURGE_JUDGE", "SURGE_NLI"]
