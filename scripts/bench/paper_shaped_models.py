"""Models of the `paper` profile's sizes with random weights, built from configs (no download), for cost planning.

Each model role (the benchmarks' `suite.roles`) that the `paper` profile fills with Hub weights gets a folder that
the project's own loader reads (`--model role=<folder>` / the suites' ``models={role: folder}``): the same
architecture, depth, width, heads and vocabulary size as the real checkpoint, random weights. Scores on them mean
nothing; their cost (FLOPs per token, memory) is the real models'.

Tokenizer: every transformers model gets the packaged all-MiniLM-L6-v2 WordPiece tokenizer (uncased BERT
vocabulary, 30,522 pieces; the loaders read any tokenizer through `AutoTokenizer`), so token counts are BERT
WordPiece counts, not each model's own (BPE / SentencePiece counts of English text are within a few tens of
percent of them). The embedding tables keep the real vocabulary sizes (ids above 30,521 are never used; the size
of the table does not change the compute per token). BLEURT's loader needs a SentencePiece ``spm.model`` with
[CLS] / [SEP] / [PAD] pieces: one is trained on the given text (8,000 pieces), and the config keeps BLEURT-20's
119,547-entry vocabulary.

Deviations from the real configs, forced by the shared tokenizer (none changes the cost measurably): ALBERT's
vocabulary 30,000 -> 30,522 (ids up to 30,521 occur); RoBERTa's token types 1 -> 2 (the BERT tokenizer emits
segment ids); the pad id of RoBERTa / Longformer is 0, the BERT tokenizer's.

`build_role(role, cache, scale=...)` builds one folder (reused when its manifest exists); ``scale`` > 1 divides
widths and depths, for tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path("/tmp/sciwrite-paper-shaped")
MANIFEST = "paper_shaped.json"
WORDPIECE_VOCAB = 30522


@dataclass(frozen=True)
class Shape:
    """The real checkpoint a role stands for and the sizes copied from its config."""

    role: str
    real_model: str
    family: str  # which builder
    sizes: dict[str, Any]
    published_params_m: float | None = None  # parameter count the model card / paper gives, in millions


SHAPES: dict[str, Shape] = {
    "nli": Shape("nli", "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli", "deberta_v3",
                 {"vocab_size": 128100, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                  "intermediate_size": 4096, "labels": ("entailment", "neutral", "contradiction")}, 435),
    "citation_frame": Shape("citation_frame", "DeBERTa-v3-large, multi-label over the 7 MultiCite frames", "deberta_v3",
                            {"vocab_size": 128100, "hidden_size": 1024, "num_hidden_layers": 24,
                             "num_attention_heads": 16, "intermediate_size": 4096, "labels": "frames"}, 435),
    "scibert": Shape("scibert", "allenai/scibert_scivocab_uncased", "bert",
                     {"vocab_size": 31090, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                      "intermediate_size": 3072}, 110),
    "bertscore": Shape("bertscore", "roberta-large (SciIG's BERTScore, bert_score's English default)", "bert",
                       {"vocab_size": 50265, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                        "intermediate_size": 4096}, 355),
    "dense_encoder": Shape("dense_encoder", "BAAI/bge-large-en-v1.5", "bert_cls_sentence",
                           {"vocab_size": 30522, "hidden_size": 1024, "num_hidden_layers": 24,
                            "num_attention_heads": 16, "intermediate_size": 4096}, 335),
    "gpt2": Shape("gpt2", "openai-community/gpt2", "gpt2",
                  {"vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024}, 124),
    "bleurt": Shape("bleurt", "lucadiliello/BLEURT-20-D12", "bleurt",
                    {"vocab_size": 119547, "embedding_size": 768, "hidden_size": 768, "num_hidden_layers": 12,
                     "num_attention_heads": 12, "intermediate_size": 3072}, 167),
    "contextual_encoder": Shape("contextual_encoder", "allenai/longformer-base-4096", "longformer",
                                {"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
                                 "num_attention_heads": 12, "intermediate_size": 3072, "attention_window": 512,
                                 "max_position_embeddings": 4098}, 149),
    "summac_nli": Shape("summac_nli", "tals/albert-xlarge-vitaminc-mnli", "albert",
                        {"vocab_size": WORDPIECE_VOCAB, "embedding_size": 128, "hidden_size": 2048,
                         "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 8192}, 59),
    "question_generation": Shape("question_generation", "mrm8488/t5-base-finetuned-question-generation-ap", "t5",
                                 {"vocab_size": 32128, "d_model": 768, "d_kv": 64, "d_ff": 3072, "num_layers": 12,
                                  "num_heads": 12}, 223),
    "question_answering": Shape("question_answering", "deepset/roberta-base-squad2", "roberta_qa",
                                {"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
                                 "num_attention_heads": 12, "intermediate_size": 3072}, 124),
}
RWGBENCH_ROLES = ("scibert", "nli", "citation_frame")
SCIIG_ROLES = ("bertscore", "bleurt", "contextual_encoder", "summac_nli", "question_generation", "question_answering",
               "gpt2")


def scaled(sizes: dict[str, Any], scale: int) -> dict[str, Any]:
    """Widths, depths and heads divided by `scale` (at least 1; widths stay multiples of the heads); vocabularies
    and positions kept. ``scale=1`` is the real shape."""
    if scale == 1:
        return dict(sizes)
    out = dict(sizes)
    heads_key = next((k for k in ("num_attention_heads", "n_head", "num_heads") if k in sizes), None)
    heads = max(1, sizes[heads_key] // scale) if heads_key else 1
    if heads_key:
        out[heads_key] = heads
    for key in ("hidden_size", "n_embd", "d_model", "intermediate_size", "d_ff", "embedding_size", "d_kv"):
        if key in sizes:
            width = max(heads * 4, sizes[key] // scale)
            out[key] = width - width % heads if key != "d_kv" else max(4, sizes[key] // scale)
    for key in ("num_hidden_layers", "n_layer", "num_layers"):
        if key in sizes:
            out[key] = max(1, sizes[key] // scale)
    if "attention_window" in sizes:
        out["attention_window"] = max(8, sizes["attention_window"] // scale)
    return out


def _labels(spec: Any) -> dict[int, str]:
    from sciwrite.models.citation_frames import FRAMES

    names = FRAMES if spec == "frames" else spec
    return dict(enumerate(names))


def _deberta(sizes: dict[str, Any]) -> Any:
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    labels = _labels(sizes["labels"])
    config = DebertaV2Config(
        vocab_size=sizes["vocab_size"], hidden_size=sizes["hidden_size"], num_hidden_layers=sizes["num_hidden_layers"],
        num_attention_heads=sizes["num_attention_heads"], intermediate_size=sizes["intermediate_size"],
        max_position_embeddings=512, type_vocab_size=0, relative_attention=True, position_buckets=256,
        norm_rel_ebd="layer_norm", share_att_key=True, pos_att_type=["p2c", "c2p"], position_biased_input=False,
        max_relative_positions=-1, layer_norm_eps=1e-7, pad_token_id=0, num_labels=len(labels), id2label=labels,
        label2id={v: k for k, v in labels.items()},
        problem_type="multi_label_classification" if sizes["labels"] == "frames" else "single_label_classification")
    return DebertaV2ForSequenceClassification(config)


def _bert(sizes: dict[str, Any]) -> Any:
    from transformers import BertConfig, BertModel

    keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
    return BertModel(BertConfig(**{k: sizes[k] for k in keys}))


def _gpt2(sizes: dict[str, Any]) -> Any:
    from transformers import GPT2Config, GPT2LMHeadModel

    return GPT2LMHeadModel(GPT2Config(**sizes, pad_token_id=0))


def _longformer(sizes: dict[str, Any]) -> Any:
    from transformers import LongformerConfig, LongformerModel

    config = LongformerConfig(**{k: v for k, v in sizes.items()}, type_vocab_size=1, pad_token_id=0,
                              bos_token_id=101, eos_token_id=102)
    return LongformerModel(config, add_pooling_layer=False)


def _albert(sizes: dict[str, Any]) -> Any:
    from transformers import AlbertConfig, AlbertForSequenceClassification

    labels = _labels(("entailment", "neutral", "contradiction"))
    config = AlbertConfig(**sizes, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()},
                          pad_token_id=0, hidden_act="gelu_new")
    return AlbertForSequenceClassification(config)


def _t5(sizes: dict[str, Any], tokenizer: Any) -> Any:
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(**sizes, num_decoder_layers=sizes["num_layers"], pad_token_id=tokenizer.pad_token_id,
                      eos_token_id=tokenizer.sep_token_id, decoder_start_token_id=tokenizer.pad_token_id)
    return T5ForConditionalGeneration(config)


def _roberta_qa(sizes: dict[str, Any]) -> Any:
    from transformers import RobertaConfig, RobertaForQuestionAnswering

    return RobertaForQuestionAnswering(RobertaConfig(**sizes, max_position_embeddings=514, type_vocab_size=2,
                                                     pad_token_id=0, bos_token_id=101, eos_token_id=102))


def wordpiece_tokenizer(max_length: int = 512) -> Any:
    """The packaged MiniLM tokenizer, with the window the model reads."""
    from transformers import AutoTokenizer

    from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    tokenizer.model_max_length = max_length
    return tokenizer


def parameter_count(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


def _save_transformers(model: Any, tokenizer: Any, folder: Path) -> int:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return parameter_count(model)


def _save_dense(sizes: dict[str, Any], folder: Path) -> int:
    """BGE-style sentence-transformers folder: BERT, CLS pooling, normalisation."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers import models as st_models

    raw = folder / "transformer"
    count = _save_transformers(_bert(sizes), wordpiece_tokenizer(), raw)
    word = st_models.Transformer(str(raw), max_seq_length=512)
    pooling = st_models.Pooling(word.get_word_embedding_dimension(), pooling_mode="cls")
    SentenceTransformer(modules=[word, pooling, st_models.Normalize()], device="cpu").save(str(folder))
    return count


def _save_bleurt(sizes: dict[str, Any], folder: Path, texts: Iterable[str]) -> int:
    """BLEURT port layout: config.json (model_type bleurt), model.safetensors with `bleurt.*` names, spm.model."""
    import sentencepiece
    from safetensors.torch import save_file

    from sciwrite.models.bleurt import BleurtRegressor

    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(t.replace("\n", " ") for t in texts if t.strip()))
    sentencepiece.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(folder / "spm"), vocab_size=8000, pad_id=0, pad_piece="[PAD]",
        unk_id=1, unk_piece="[UNK]", bos_id=-1, eos_id=-1, user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"],
        minloglevel=2, hard_vocab_limit=False)
    corpus.unlink()
    config = {"model_type": "bleurt", **sizes, "hidden_act": "gelu", "max_position_embeddings": 512,
              "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    model = BleurtRegressor(config)
    state = {_port_name(k): v.contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(folder / "model.safetensors"))
    return parameter_count(model)


def _port_name(key: str) -> str:
    """How lucadiliello's BLEURT port names a `BleurtRegressor` weight (the inverse of `bleurt.port_key`)."""
    if key.startswith("bert.embeddings.projection."):
        return key.replace("bert.embeddings.projection.", "bleurt.encoder.embedding_projection.")
    return "bleurt." + key.removeprefix("bert.") if key.startswith("bert.") else key


def _build(shape: Shape, sizes: dict[str, Any], folder: Path, texts: Callable[[], Iterable[str]]) -> int:
    family = shape.family
    if family == "bert_cls_sentence":
        return _save_dense(sizes, folder)
    if family == "bleurt":
        return _save_bleurt(sizes, folder, texts())
    if family == "longformer":
        return _save_transformers(_longformer(sizes), wordpiece_tokenizer(sizes["max_position_embeddings"] - 2), folder)
    if family == "gpt2":
        return _save_transformers(_gpt2(sizes), wordpiece_tokenizer(sizes["n_positions"]), folder)
    tokenizer = wordpiece_tokenizer()
    builders: dict[str, Callable[[], Any]] = {
        "deberta_v3": lambda: _deberta(sizes), "bert": lambda: _bert(sizes), "albert": lambda: _albert(sizes),
        "t5": lambda: _t5(sizes, tokenizer), "roberta_qa": lambda: _roberta_qa(sizes)}
    return _save_transformers(builders[family](), tokenizer, folder)


def build_role(role: str, cache: str | Path = DEFAULT_CACHE, scale: int = 1,
               texts: Callable[[], Iterable[str]] | None = None, seed: int = 0) -> dict[str, Any]:
    """Build (or reuse) the paper-shaped folder of `role` under `cache`; returns its manifest (path, sizes,
    parameter count, build seconds). `texts` gives the text a SentencePiece vocabulary is trained on (BLEURT)."""
    import time

    import torch

    shape = SHAPES[role]
    folder = Path(cache) / (role if scale == 1 else f"{role}-scale{scale}")
    manifest_file = folder / MANIFEST
    if manifest_file.is_file():
        return json.loads(manifest_file.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    sizes = scaled(shape.sizes, scale)
    torch.manual_seed(seed)
    began = time.perf_counter()
    count = _build(shape, sizes, folder, texts or _default_texts)
    manifest = {"role": role, "real_model": shape.real_model, "path": str(folder), "scale": scale,
                "sizes": {k: v for k, v in sizes.items() if k != "labels"}, "parameters": count,
                "published_params_m": shape.published_params_m, "build_s": round(time.perf_counter() - began, 1),
                "weights": f"random (seed {seed}): the scores mean nothing, only the cost"}
    manifest_file.write_text(json.dumps(manifest, indent=2))
    return manifest


def _default_texts() -> list[str]:
    """Introductions of the offline SciIG sample (what BLEURT's SentencePiece vocabulary is trained on)."""
    from sciwrite.sciig.data.loading import load_sciig

    papers = load_sciig("sample", split="test")
    return [*papers["introduction"], *papers["abstract"]]


def build_roles(roles: Iterable[str], cache: str | Path = DEFAULT_CACHE, scale: int = 1) -> dict[str, dict[str, Any]]:
    """`build_role` for each role, with a progress bar; role -> manifest."""
    from tqdm.auto import tqdm

    out = {}
    for role in tqdm(list(dict.fromkeys(roles)), desc="paper-shaped models", unit="model"):
        out[role] = build_role(role, cache, scale)
    return out
