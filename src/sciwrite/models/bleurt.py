"""BLEURT-20 (PyTorch port, e.g. `lucadiliello/BLEURT-20-D12`) loaded onto transformers' BERT, and run on texts of
any length: the `bleurt` role's model (SciIG's BLEURT is scored by `sciwrite.sciig.metrics.bleurt`).

The port's own package (`bleurt-pytorch`) does not import with transformers 5, so its checkpoints are loaded
here: a BLEURT checkpoint is a BERT encoder whose embeddings are factorised (vocabulary embeddings of
`embedding_size`, then a linear projection to `hidden_size`), BERT's tanh pooler on [CLS], and a linear
regression head. `BleurtRegressor` is transformers' `BertModel` with those embeddings swapped in; the weights
are renamed onto it and loaded strictly. The tokenizer is the checkpoint's SentencePiece model (`spm.model`),
read with `sentencepiece` as BLEURT's own code reads it; the input is [CLS] reference [SEP] candidate [SEP], token
types 0 then 1.

BLEURT reads at most 512 tokens, and an introduction pair is longer. `bleurt_windows` keeps a pair whole when it
fits; otherwise it cuts reference and candidate into the same number k of consecutive, near-equal pieces so that
each reference piece + candidate piece fits the window (each piece at most (512 - 3) // 2 tokens), scores piece i
of the candidate against piece i of the reference, and reports the unweighted mean over the k pairs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sciwrite.models.encoders import length_batches, tokens_per_batch
from sciwrite.models.plan import load_for_profile
from sciwrite.models.registry import ModelRole, ModelUnavailableError, model_location, torch_device

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILE = "spm.model"


class BleurtEmbeddings(nn.Module):
    """Word + position + token-type embeddings of `embedding_size`, layer-normalised, projected to the hidden size."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        size = config.get("embedding_size") or config["hidden_size"]
        self.word_embeddings = nn.Embedding(config["vocab_size"], size, padding_idx=config.get("pad_token_id", 0))
        self.position_embeddings = nn.Embedding(config.get("max_position_embeddings", 512), size)
        self.token_type_embeddings = nn.Embedding(config.get("type_vocab_size", 2), size)
        self.LayerNorm = nn.LayerNorm(size, eps=config.get("layer_norm_eps", 1e-12))
        self.dropout = nn.Dropout(config.get("hidden_dropout_prob", 0.1))
        self.projection = nn.Linear(size, config["hidden_size"]) if size != config["hidden_size"] else nn.Identity()

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None, **_: Any) -> torch.Tensor:
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        embedded = self.word_embeddings(input_ids) + self.position_embeddings(position_ids) + self.token_type_embeddings(token_type_ids)
        return self.projection(self.dropout(self.LayerNorm(embedded)))


class BleurtRegressor(nn.Module):
    """transformers' BertModel with BLEURT's embeddings, and a linear head on the pooled [CLS]: one score per pair."""

    def __init__(self, config: dict[str, Any]) -> None:
        from transformers import BertConfig, BertModel

        super().__init__()
        keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                "hidden_act", "max_position_embeddings", "type_vocab_size", "layer_norm_eps", "pad_token_id")
        self.bert = BertModel(BertConfig(**{k: config[k] for k in keys if k in config}), add_pooling_layer=True)
        self.bert.add_module("embeddings", BleurtEmbeddings(config))  # BLEURT's own embeddings replace BERT's
        self.classifier = nn.Linear(config["hidden_size"], config.get("num_labels", 1))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        pooled = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).pooler_output
        return self.classifier(pooled)[:, 0]


def port_key(name: str) -> str | None:
    """The `BleurtRegressor` parameter a BLEURT port weight goes to (None: a buffer, not a weight)."""
    if name.endswith(("position_ids", "embeddings.token_type_ids")):
        return None
    name = name.replace("bleurt.encoder.embedding_projection.", "bleurt.embeddings.projection.")
    return "bert." + name.removeprefix("bleurt.") if name.startswith("bleurt.") else name


def read_weights(folder: Path) -> dict[str, torch.Tensor]:
    """The checkpoint's state dict, from safetensors or a (weights-only) PyTorch pickle."""
    for name in WEIGHT_FILES:
        path = folder / name
        if path.is_file():
            if name.endswith(".safetensors"):
                from safetensors.torch import load_file

                return load_file(str(path))
            return torch.load(path, map_location="cpu", weights_only=True)
    raise ModelUnavailableError(f"no BLEURT weights ({' or '.join(WEIGHT_FILES)}) in {folder}")


def checkpoint_folder(model_id: str) -> Path:
    """A local folder holding the checkpoint: the path itself, or the Hub snapshot (downloaded or cached)."""
    location = Path(model_location(model_id))
    if location.is_dir():
        return location
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model_id, allow_patterns=["*.json", "*.model", *WEIGHT_FILES]))
    except Exception as err:  # offline, unknown repo, gated...
        raise ModelUnavailableError(f"cannot load the BLEURT model {model_id!r} ({type(err).__name__}: {err})") from err


def load_regressor(folder: Path) -> BleurtRegressor:
    """Build the model from config.json and load the port's weights strictly (renamed by `port_key`)."""
    config = json.loads((folder / "config.json").read_text())
    if config.get("model_type") != "bleurt":
        raise ModelUnavailableError(f"{folder} is not a BLEURT checkpoint (model_type {config.get('model_type')!r})")
    model = BleurtRegressor(config)
    state = {key: value for name, value in read_weights(folder).items() if (key := port_key(name)) is not None}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ModelUnavailableError(f"BLEURT weights in {folder} do not fit: missing {missing[:5]}, unexpected {unexpected[:5]}")
    return model


@dataclass
class PieceTokenizer:
    """The checkpoint's SentencePiece model with BLEURT's special pieces, as BLEURT's own code reads it."""

    processor: Any
    lower_case: bool
    cls_token_id: int
    sep_token_id: int
    pad_token_id: int

    def encode(self, text: str) -> list[int]:
        """Piece ids of `text`, without special tokens."""
        text = text.strip()
        return list(self.processor.encode(text.lower() if self.lower_case else text)) if text else []


def load_tokenizer(folder: Path) -> PieceTokenizer:
    """`spm.model` of the checkpoint; [CLS], [SEP] and [PAD] must be pieces of it (BLEURT-20's are)."""
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor(model_file=str(folder / TOKENIZER_FILE))
    settings_file = folder / "tokenizer_config.json"
    settings = json.loads(settings_file.read_text()) if settings_file.is_file() else {}
    ids = {piece: processor.piece_to_id(piece) for piece in ("[CLS]", "[SEP]", "[PAD]")}
    unknown = [piece for piece, i in ids.items() if i == processor.unk_id()]
    if unknown:
        raise ModelUnavailableError(f"{folder / TOKENIZER_FILE} has no {unknown} piece(s); not a BLEURT-20 vocabulary")
    return PieceTokenizer(processor, bool(settings.get("do_lower_case", False)), ids["[CLS]"], ids["[SEP]"], ids["[PAD]"])


def split_even(ids: list[int], k: int) -> list[list[int]]:
    """`ids` cut into k consecutive pieces whose lengths differ by at most one."""
    bounds = [round(i * len(ids) / k) for i in range(k + 1)]
    return [ids[bounds[i]:bounds[i + 1]] for i in range(k)]


def bleurt_windows(reference: list[int], candidate: list[int], max_length: int = 512) -> list[tuple[list[int], list[int]]]:
    """(reference piece, candidate piece) pairs: the whole pair when it fits with its 3 special tokens, else k
    aligned near-equal pieces of each, every piece at most (max_length - 3) // 2 tokens."""
    budget = max_length - 3
    if len(reference) + len(candidate) <= budget:
        return [(reference, candidate)]
    k = math.ceil(max(len(reference), len(candidate)) / (budget // 2))
    return list(zip(split_even(reference, k), split_even(candidate, k)))


@dataclass
class Bleurt:
    """A loaded BLEURT checkpoint: scores (reference, candidate) pairs of any length."""

    model_id: str
    model: BleurtRegressor
    tokenizer: PieceTokenizer
    device: str
    max_length: int = 512

    def encode_pair(self, reference: list[int], candidate: list[int]) -> tuple[list[int], list[int]]:
        """Token ids and token types of [CLS] reference [SEP] candidate [SEP]."""
        cls, sep = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        return [cls, *reference, sep, *candidate, sep], [0] * (len(reference) + 2) + [1] * (len(candidate) + 1)

    def _padded(self, rows: list[list[int]], fill: int) -> torch.Tensor:
        width = max(len(r) for r in rows)
        return torch.tensor([r + [fill] * (width - len(r)) for r in rows], device=self.device)

    def score(self, references: Sequence[str], candidates: Sequence[str], batch_size: int = 16) -> list[tuple[float, int]]:
        """(BLEURT score, number of windows) of each pair: the mean over its aligned windows."""
        encode = self.tokenizer.encode
        pairs = [(p, self.encode_pair(r, c)) for p, (ref, cand) in enumerate(zip(references, candidates))
                 for r, c in bleurt_windows(encode(ref), encode(cand), self.max_length)]
        scores: list[list[float]] = [[] for _ in references]
        pad = self.tokenizer.pad_token_id
        for rows in length_batches([len(e[0]) for _, e in pairs], batch_size, tokens_per_batch(self.device)):
            batch = [pairs[i][1] for i in rows]
            with torch.inference_mode():
                out = self.model(input_ids=self._padded([i for i, _ in batch], pad),
                                 token_type_ids=self._padded([t for _, t in batch], 0),
                                 attention_mask=self._padded([[1] * len(i) for i, _ in batch], 0)).float().cpu().tolist()
            for i, value in zip(rows, out):
                scores[pairs[i][0]].append(value)
        return [(sum(s) / len(s), len(s)) for s in scores]


@lru_cache(maxsize=1)
def load_bleurt(model_id: str) -> Bleurt:
    """Load a BLEURT port checkpoint once per process: eval mode, on GPU in fp16 when present."""
    folder = checkpoint_folder(model_id)
    try:
        model, tokenizer = load_regressor(folder), load_tokenizer(folder)
    except ModelUnavailableError:
        raise
    except (OSError, KeyError, ValueError, RuntimeError) as err:  # a broken config, vocabulary or weight file
        raise ModelUnavailableError(f"cannot load the BLEURT model {model_id!r} ({type(err).__name__}: {err})") from err
    device = torch_device()
    model.eval().to(device)
    if device == "cuda":
        model.half()
    max_length = min(model.bert.embeddings.position_embeddings.num_embeddings, 512)
    return Bleurt(model_id, model, tokenizer, device, max_length)


def bleurt_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                       ) -> tuple[Bleurt | None, str | None]:
    """The BLEURT model of `role` (SciIG's ``bleurt``), or (None, why) when the profile has none (the offline
    `lite` profile)."""
    return load_for_profile(role, load_bleurt, model, profile)
