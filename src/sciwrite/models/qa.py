"""The two models of SciIG's QA-based (Q²-style) faithfulness and consistency (`sciwrite.sciig.metrics.qa`), each
loaded once per process, on GPU in fp16 when present.

The two models:

- `QuestionGenerator` (``question_generation`` role): an answer-aware seq2seq model (T5); one question per
  input, inputs length-sorted into token-budgeted batches, one batched `generate` each.
- `ExtractiveQA` (``question_answering`` role): an extractive SQuAD 2.0 model. Contexts longer than the QA window
  are read in overlapping windows (`stride`); the best span over the windows is the answer unless the no-answer
  score (the [CLS] position, lowest over windows as in the transformers SQuAD 2.0 post-processing) beats it, and
  then the answer is empty.

`qa_models_for_profile` loads both (`QAModels`), with the BERTScore token encoder that scores each answer against
the generation (SciIG Appendix A: sim_k = BERTScore(a_k, G)), or says why the profile has none; the three roles
(`QARoles`) are the benchmark's, which passes them in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sciwrite.models.encoders import length_batches, load_transformer, tokens_per_batch
from sciwrite.models.plan import ModelPlan, resolve_plan
from sciwrite.models.registry import ModelRole, ModelUnavailableError
from sciwrite.models.token_encoder import load_token_encoder

QG_PREFIX = re.compile(r"^\s*question\s*:\s*", re.IGNORECASE)


@dataclass
class QuestionGenerator:
    """An answer-aware seq2seq question generator (T5) with its tokenizer."""

    model_id: str
    model: Any
    tokenizer: Any
    device: str
    max_input_length: int = 512
    max_new_tokens: int = 64
    num_beams: int = 4

    def generate(self, inputs: Sequence[str], batch_size: int = 32) -> list[str]:
        """One question per input; inputs are length-sorted into token-budgeted batches, one `generate` each."""
        import torch

        if not inputs:
            return []
        encoded = self.tokenizer(list(inputs), truncation=True, max_length=self.max_input_length,
                                 verbose=False)["input_ids"]
        out = [""] * len(inputs)
        pad = self.tokenizer.pad_token_id or 0
        budget = tokens_per_batch(self.device) // max(self.num_beams, 1)
        for rows in length_batches([len(ids) for ids in encoded], batch_size, max(budget, self.max_input_length)):
            width = max(len(encoded[i]) for i in rows)
            ids = torch.tensor([encoded[i] + [pad] * (width - len(encoded[i])) for i in rows], device=self.device)
            mask = torch.tensor([[1] * len(encoded[i]) + [0] * (width - len(encoded[i])) for i in rows],
                                device=self.device)
            with torch.inference_mode():
                generated = self.model.generate(input_ids=ids, attention_mask=mask, num_beams=self.num_beams,
                                                max_new_tokens=self.max_new_tokens, do_sample=False)
            for i, text in zip(rows, self.tokenizer.batch_decode(generated, skip_special_tokens=True)):
                out[i] = QG_PREFIX.sub("", text).strip()
        return out


@dataclass
class ExtractiveQA:
    """An extractive QA model trained with no-answer examples (SQuAD 2.0), read in strided windows."""

    model_id: str
    model: Any
    tokenizer: Any
    device: str
    max_length: int = 384
    stride: int = 128
    max_question_tokens: int = 64
    max_answer_tokens: int = 30

    def answer(self, questions: Sequence[str], contexts: Sequence[str], batch_size: int = 32) -> list[dict[str, Any]]:
        """Per (question, context): ``answer`` ('' for no answer), ``score`` (best span logit sum over windows),
        ``null_score`` (lowest no-answer logit sum over windows) and ``windows``."""
        import torch

        if len(questions) != len(contexts):
            raise ValueError(f"questions ({len(questions)}) and contexts ({len(contexts)}) must have the same length")
        results: list[dict[str, Any]] = [{"answer": "", "score": float("-inf"), "null_score": float("inf"),
                                          "windows": 0} for _ in questions]
        if not questions:
            return results
        features = self._features(list(questions), list(contexts))
        pad = self.tokenizer.pad_token_id or 0
        for rows in length_batches([len(f["input_ids"]) for f in features], batch_size, tokens_per_batch(self.device)):
            batch = [features[i] for i in rows]
            width = max(len(f["input_ids"]) for f in batch)
            inputs = {"input_ids": torch.tensor([f["input_ids"] + [pad] * (width - len(f["input_ids"])) for f in batch],
                                                device=self.device),
                      "attention_mask": torch.tensor([[1] * len(f["input_ids"]) + [0] * (width - len(f["input_ids"]))
                                                      for f in batch], device=self.device)}
            if "token_type_ids" in batch[0]:
                inputs["token_type_ids"] = torch.tensor(
                    [f["token_type_ids"] + [0] * (width - len(f["token_type_ids"])) for f in batch], device=self.device)
            with torch.inference_mode():
                output = self.model(**inputs)
                start, end = output.start_logits.float(), output.end_logits.float()
                context_mask = torch.tensor([f["context_mask"] + [False] * (width - len(f["context_mask"]))
                                             for f in batch], device=self.device)
                pair = start[:, :, None] + end[:, None, :]
                positions = torch.arange(width, device=self.device)
                length = positions[None, :] - positions[:, None]  # end - start
                allowed = (length >= 0) & (length < self.max_answer_tokens)
                allowed = allowed[None] & context_mask[:, :, None] & context_mask[:, None, :]
                pair = pair.masked_fill(~allowed, float("-inf"))
                best, flat = pair.view(len(batch), -1).max(dim=1)
                cls = torch.tensor([f["cls_index"] for f in batch], device=self.device)
                null = start.gather(1, cls[:, None])[:, 0] + end.gather(1, cls[:, None])[:, 0]
            for f, score, index, null_score in zip(batch, best.tolist(), flat.tolist(), null.tolist()):
                result = results[f["example"]]
                result["windows"] += 1
                result["null_score"] = min(result["null_score"], null_score)
                if score > result["score"]:
                    s, e = divmod(index, width)
                    result["score"] = score
                    result["text"] = f["context"][f["offsets"][s][0]:f["offsets"][e][1]]
        for result in results:
            text = result.pop("text", "")
            result["answer"] = text.strip() if result["score"] > result["null_score"] else ""
        return results

    def _features(self, questions: list[str], contexts: list[str]) -> list[dict[str, Any]]:
        """Tokenised windows of every (question, context) pair: the question (cut to `max_question_tokens`) and a
        slice of the context, consecutive slices overlapping by `stride` tokens."""
        tok = self.tokenizer
        cut = []
        for q in questions:
            ids = tok(q, add_special_tokens=False, verbose=False)["input_ids"]
            cut.append(q if len(ids) <= self.max_question_tokens else tok.decode(ids[:self.max_question_tokens]))
        longest = max(len(tok(q, add_special_tokens=False, verbose=False)["input_ids"]) for q in cut)
        room = self.max_length - longest - tok.num_special_tokens_to_add(pair=True)
        if room < 8:
            raise ValueError(f"QA window of {self.max_length} tokens leaves no room for the context")
        stride = max(min(self.stride, room // 2), 1)
        encoded = tok(cut, contexts, truncation="only_second", max_length=self.max_length, stride=stride,
                      return_overflowing_tokens=True, return_offsets_mapping=True, padding=False, verbose=False)
        features = []
        for k, ids in enumerate(encoded["input_ids"]):
            example = encoded["overflow_to_sample_mapping"][k]
            sequence_ids = encoded.sequence_ids(k)
            cls_id = tok.cls_token_id
            features.append({
                "example": example, "context": contexts[example], "input_ids": ids,
                "offsets": encoded["offset_mapping"][k],
                "context_mask": [s == 1 for s in sequence_ids],
                "cls_index": ids.index(cls_id) if cls_id is not None and cls_id in ids else 0,
                **({"token_type_ids": encoded["token_type_ids"][k]} if "token_type_ids" in encoded else {}),
            })
        return features


@dataclass
class QAModels:
    """The question generator, the QA model and the BERTScore token encoder of one profile."""

    qg: Any
    qa: Any
    model_ids: dict[str, str] = field(default_factory=dict)
    encoder: Any = None  # sim_k = BERTScore(a_k, G)


@lru_cache(maxsize=2)
def load_question_generator(model_id: str) -> QuestionGenerator:
    """The QG model, loaded once per process (GPU fp16 when present)."""
    from transformers import AutoModelForSeq2SeqLM

    model, tokenizer, device = load_transformer(model_id, AutoModelForSeq2SeqLM, "question generation model")
    limit = getattr(tokenizer, "model_max_length", 512) or 512
    return QuestionGenerator(model_id, model, tokenizer, device, max_input_length=min(int(limit), 512))


@lru_cache(maxsize=2)
def load_extractive_qa(model_id: str) -> ExtractiveQA:
    """The extractive QA model, loaded once per process (GPU fp16 when present); it needs a fast tokenizer
    (character offsets). Window 384 tokens with 128 overlap (the SQuAD defaults), less for a smaller model."""
    from transformers import AutoModelForQuestionAnswering

    model, tokenizer, device = load_transformer(model_id, AutoModelForQuestionAnswering, "question answering model")
    if not getattr(tokenizer, "is_fast", False):
        raise ModelUnavailableError(f"the question answering model {model_id!r} has no fast tokenizer "
                                    "(character offsets are needed to extract answers)")
    positions = getattr(model.config, "max_position_embeddings", 512) or 512
    limit = min(int(getattr(tokenizer, "model_max_length", 512) or 512), int(positions), 384)
    if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        limit = min(limit, int(positions) - 2)  # RoBERTa positions start after the padding index
    return ExtractiveQA(model_id, model, tokenizer, device, max_length=limit, stride=min(128, limit // 3))


@dataclass(frozen=True)
class QARoles:
    """The three roles of the QA-based metrics, as the benchmark that uses them declares them: the question
    generator, the QA model, and the BERTScore encoder of the answer similarity."""

    question_generation: ModelRole
    question_answering: ModelRole
    bertscore: ModelRole

    @property
    def all(self) -> tuple[ModelRole, ModelRole, ModelRole]:
        """The three roles, the question generator first."""
        return self.question_generation, self.question_answering, self.bertscore

    @property
    def names(self) -> tuple[str, ...]:
        """The three roles' names, the question generator first."""
        return tuple(role.name for role in self.all)


def qa_models_for_profile(roles: QARoles, qg_model: str | None = None, qa_model: str | None = None,
                          profile: str | None = None, bertscore_model: str | None = None,
                          bertscore_layer: int | None = None) -> tuple[QAModels | None, str | None]:
    """`qa_models_for_plan` for the QA metric by itself (a metric module's): the named models over the
    profile's."""
    plan = resolve_plan(roles.all, profile, {roles.question_generation.name: qg_model,
                                             roles.question_answering.name: qa_model,
                                             roles.bertscore.name: bertscore_model})
    return qa_models_for_plan(plan, roles, bertscore_layer, fingerprint=False)


def qa_models_for_plan(plan: ModelPlan, roles: QARoles, bertscore_layer: int | None = None,
                       fingerprint: bool = True) -> tuple[QAModels | None, str | None]:
    """Both models and the `roles`' BERTScore token encoder, or (None, why) when the plan lacks the QG or QA model
    (offline `lite`): the metrics are then not computed, and `why` names the models needed. A named model that
    cannot load raises."""
    qg, qa, bertscore = roles.names
    reasons = [plan.choices[role].why for role in (qg, qa) if plan.choices[role].model_id is None]
    if reasons:
        return None, "; ".join(reasons)
    ids = {role: plan.model_id(role) for role in roles.names}
    models = QAModels(load_question_generator(ids[qg]), load_extractive_qa(ids[qa]), ids,
                      load_token_encoder(ids[bertscore], bertscore_layer))
    if fingerprint:
        plan.record(qg, models.qg)
        plan.record(qa, models.qa)
        if bertscore not in plan.fingerprints:
            plan.record(bertscore, models.encoder)
    return models, None
