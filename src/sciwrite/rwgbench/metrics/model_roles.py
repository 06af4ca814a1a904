"""RWGBench's model roles, declared beside its metrics (`sciwrite.rwgbench.metrics.specs` names them by
`ModelRole.name`): the job each model does, the checkpoint each profile uses for it, and why (the paper's words,
or that the choice is ours). `ROLES` is what ``--model-role ROLE=ID`` may name and `sciwrite models` lists.
"""

from __future__ import annotations

from sciwrite.models.registry import PACKAGED_CITATION_FRAME_MINILM, PACKAGED_MINILM, ModelRole

SCIBERT = ModelRole(
    "scibert",
    "Scientific-text encoder for topical relevance, positioning-structure blocks and BERTScore.",
    {"paper": "allenai/scibert_scivocab_uncased", "lite": PACKAGED_MINILM},
    basis='RWGBench §4.1.3, §5.1: "SciBERT" (TRT, PSS, BERTScore)',  # SciIG's BERTScore has a role of its own
)
# The paper says only "a DeBERTa-v3 NLI model" (§4.1.2, §5.1). Our choice: DeBERTa-v3-large fine-tuned on MNLI,
# FEVER-NLI, ANLI, LingNLI and WANLI: three-way (entailment / neutral / contradiction) as Eqs. 2-3 need, the
# large size, and robust beyond MNLI's genres, which scientific claims need.
# No NLI model ships in a package, so the lite profile has none: NLI metrics report "not computed".
NLI = ModelRole(
    "nli",
    "Three-way NLI classifier for soft citation recall and claim-support consistency.",
    {"paper": "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli"},
    basis=('RWGBench §4.1.2: "a DeBERTa-v3 NLI model"; the checkpoint (large; MNLI, FEVER, ANLI, LingNLI, WANLI)'
           ' is our choice'),
)
# The paper names only "a MultiCite-trained citation-function classifier" (§4.3.2, §5.1): ours is DeBERTa-v3-large
# fine-tuned multi-label on the seven MultiCite frames. The lite
# profile uses a small one trained here on MultiCite (scripts/train_citation_frame_classifier.py --kind head):
# all-MiniLM-L6-v2 embeddings + one logistic regression per frame; weaker, but it runs offline on CPU.
CITATION_FRAME = ModelRole(
    "citation_frame",
    "Multi-label MultiCite citation-frame classifier for citation frame alignment.",
    {"paper": "BFTree/rwgbench-citation-frame-classifier", "lite": PACKAGED_CITATION_FRAME_MINILM},
    basis=('RWGBench §4.3.2: "a MultiCite-trained classifier"; DeBERTa-v3-large fine-tuned multi-label is our '
           'choice'),
)
# An API model, not Hub weights: the paper's default LLM-as-Judge scorer is GPT-5.5 (§5.1), OpenAI's model id
# "gpt-5.5", asked for at any OpenAI-compatible endpoint (SCIWRITE_LLM_BASE_URL / SCIWRITE_LLM_API_KEY);
# override it with SCIWRITE_MODEL_JUDGE or the `model` argument. Offline there is no API, so `lite` has no judge.
JUDGE = ModelRole(
    "judge",
    "Chat model behind the RWGBench LLM judge, served by an OpenAI-compatible API "
    "(set SCIWRITE_LLM_API_KEY, and SCIWRITE_LLM_BASE_URL for a non-OpenAI endpoint).",
    {"paper": "gpt-5.5"},
    api=True,
    basis='RWGBench §5.1: "GPT-5.5 is the default scorer"',
)

#: Every role RWGBench's metrics need, in the order `sciwrite models` lists them.
ROLES: tuple[ModelRole, ...] = (SCIBERT, NLI, CITATION_FRAME, JUDGE)

__all__ = ["CITATION_FRAME", "JUDGE", "NLI", "ROLES", "SCIBERT"]
