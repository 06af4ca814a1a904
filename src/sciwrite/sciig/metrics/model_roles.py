"""SciIG's model roles, declared beside its metrics (`sciwrite.sciig.metrics.specs` names them by
`ModelRole.name`): the job each model does, the checkpoint each profile uses for it, and why (the paper's words,
or that the choice is ours). `ROLES` is what ``--model-role ROLE=ID`` may name and `sciwrite models` lists.
"""

from __future__ import annotations

from sciwrite.models.qa import QARoles
from sciwrite.models.registry import PACKAGED_MINILM, ModelRole

# SciIG §4.2 names BERTScore (Zhang et al. 2020) but no model. Its Table 2 (BERTScore F1 0.82-0.85) is on the
# scale of bert_score's default English model, roberta-large at layer 17 without baseline rescaling; SciBERT,
# which RWGBench names for its own BERTScore, gives the same texts far lower scores (RWGBench's 0.53-0.64).
# So SciIG's BERTScore (and Appendix A's sim_k = BERTScore(a_k, G)) has its own role.
BERTSCORE = ModelRole(
    "bertscore",
    "Token encoder of SciIG's BERTScore and of the QA-based metrics' sim_k = BERTScore(a_k, G).",
    {"paper": "roberta-large", "lite": PACKAGED_MINILM},
    basis=('SciIG §4.2 names BERTScore (Zhang et al. 2020) without a model; bert_score\'s default for English '
           '(roberta-large, layer 17, no rescaling) gives the scale of its Table 2 (0.82-0.85): our reading'),
)
# SciIG §4.2: "The LLM-as-a-Judge metric (Liu et al. 2023), using GPT-4o" scores the Table 6 prompts.
SCIIG_JUDGE = ModelRole(
    "sciig_judge",
    "Chat model behind the SciIG LLM judge (Table 6 prompts), served by an OpenAI-compatible API "
    "(set SCIWRITE_LLM_API_KEY, and SCIWRITE_LLM_BASE_URL for a non-OpenAI endpoint).",
    {"paper": "gpt-4o"},
    api=True,
    basis='SciIG §4.2: "The LLM-as-a-Judge metric ..., using GPT-4o"',
)
# SciIG keyphrase metrics: KeyBERT's default encoder; the packaged MiniLM is the same weights.
KEYPHRASE_ENCODER = ModelRole(
    "keyphrase_encoder",
    "Sentence encoder behind KeyBERT extraction and the cosine criterion of SciIG keyphrase matching.",
    {"paper": "sentence-transformers/all-MiniLM-L6-v2", "lite": PACKAGED_MINILM},
    basis='SciIG §4.2: "(e.g., using Sentence-BERT)"; KeyBERT\'s default all-MiniLM-L6-v2 is our choice',
)
# SummaC-ZS's default NLI model ("vitc"): ALBERT-xlarge trained on VitaminC + MNLI. No lite default.
SUMMAC_NLI = ModelRole(
    "summac_nli",
    "Three-way NLI model behind SciIG's SummaC-ZS entailment faithfulness and consistency.",
    {"paper": "tals/albert-xlarge-vitaminc-mnli"},
    basis='SciIG §4.2: "SummaC-ZS (Laban et al. 2022)"; its default NLI model ("vitc")',
)
# SciIG semantic metrics. BLEURT-20-D12 is the 12-layer distilled BLEURT-20 in lucadiliello's PyTorch port
# (sciwrite loads its weights itself: the port's package does not import with transformers 5). No package
# ships it: no lite default, so BLEURT is reported as not computed offline.
BLEURT = ModelRole(
    "bleurt",
    "Learned regression metric (reference, candidate) -> quality for SciIG's BLEURT score.",
    {"paper": "lucadiliello/BLEURT-20-D12"},
    basis=('SciIG §4.2 names BLEURT (Sellam et al. 2020), no checkpoint; BLEURT-20-D12 (BLEURT-20 distilled to '
           '12 layers; its authors recommend BLEURT-20) is our choice, for cost'),
)
# Contextual relevance: the paper mean-pools Longformer over up to 4,096 tokens; lite mean-pools the packaged
# MiniLM over 256-token windows and averages the windows.
CONTEXTUAL_ENCODER = ModelRole(
    "contextual_encoder",
    "Long-text encoder (mean pooling) for SciIG's contextual relevance of an introduction to its sources.",
    {"paper": "allenai/longformer-base-4096", "lite": PACKAGED_MINILM},
    basis='SciIG §4.2 names no model for Contextual Relevance; Longformer mean pooling is our choice',
)
# SciIG QA-based (Q²-style) faithfulness / consistency (sciwrite.sciig.metrics.qa). Answer-aware QG:
# T5-base fine-tuned on SQuAD with inputs "answer: {span}  context: {text}". No package ships it: no lite default.
QUESTION_GENERATION = ModelRole(
    "question_generation",
    "Answer-aware question generator (seq2seq) for SciIG's QA-based faithfulness and consistency.",
    {"paper": "mrm8488/t5-base-finetuned-question-generation-ap"},
    basis='SciIG Appendix A: "a question generation model" (unnamed); T5-base answer-aware QG is our choice',
)
# Extractive QA trained with unanswerable questions (SQuAD 2.0), so "no answer in the source" is a prediction.
# No package ships it: no lite default.
QUESTION_ANSWERING = ModelRole(
    "question_answering",
    "Extractive SQuAD 2.0 question answering model for SciIG's QA-based faithfulness and consistency.",
    {"paper": "deepset/roberta-base-squad2"},
    basis='SciIG Appendix A: "a QA model" (unnamed); RoBERTa-base SQuAD 2.0 is our choice',
)
# SciIG citation correctness (§4.2): citations of a generated introduction extracted by LLaMA-4 Maverick with
# the paper's Table 8 prompt. An API model (OpenRouter id; any OpenAI-compatible endpoint via the override).
# Offline there is no API: `lite` has none, and the regex extractor runs, named as the offline fallback.
CITATION_EXTRACTOR = ModelRole(
    "citation_extractor",
    "Chat model extracting the citations of a generated introduction for SciIG citation correctness "
    "(Table 8 prompt), served by an OpenAI-compatible API.",
    {"paper": "openrouter:meta-llama/llama-4-maverick"},
    api=True,
    basis='SciIG §4.2, Table 8: "with the LLaMA 4-Maverick model"',
)
# Perplexity: GPT-2 small. No package ships it: no lite default.
GPT2 = ModelRole(
    "gpt2",
    "Causal language model for SciIG's perplexity (fluency) of a generated introduction.",
    {"paper": "openai-community/gpt2"},
    basis='SciIG §4.2: "under a language model (GPT-2)"',
)

#: The three roles of the QA-based metrics (SciIG Appendix A): the question generator, the QA model, and the
#: BERTScore encoder of the answer similarity.
QA_ROLES = QARoles(QUESTION_GENERATION, QUESTION_ANSWERING, BERTSCORE)

#: Every role SciIG's metrics need, in the order `sciwrite models` lists them.
ROLES: tuple[ModelRole, ...] = (BERTSCORE, SCIIG_JUDGE, KEYPHRASE_ENCODER, SUMMAC_NLI, BLEURT, CONTEXTUAL_ENCODER,
                                QUESTION_GENERATION, QUESTION_ANSWERING, CITATION_EXTRACTOR, GPT2)

__all__ = ["BERTSCORE", "BLEURT", "CITATION_EXTRACTOR", "CONTEXTUAL_ENCODER", "GPT2", "KEYPHRASE_ENCODER",
           "QA_ROLES", "QUESTION_ANSWERING", "QUESTION_GENERATION", "ROLES", "SCIIG_JUDGE", "SUMMAC_NLI"]
