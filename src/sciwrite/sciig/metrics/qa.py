"""QA-based (Q²-style) faithfulness and consistency of a generated introduction, as SciIG defines them.

SciIG, Appendix A: with G the generated introduction and C the source context,
Q = QG(G) = {q_1, ..., q_K}; a_k = QA(q_k, C); sim_k = BERTScore(a_k, G); Faithfulness_QA(G, C) = (1/K) sum_k sim_k.
C is the title + abstract + cited works for ``qa_faithfulness`` and the reference introduction for
``qa_consistency`` (§4.2: consistency mirrors faithfulness with the ground-truth introduction as reference point).
Per paper:

1. Candidate answer spans are taken from G (`candidate_spans`, below): the QG model is answer-aware, so it needs
   spans to ask about.
2. One question per span by answer-aware question generation (``question_generation`` role, T5 fed
   ``"answer: {span}  context: {sentence}"``: the sentence holding the span is the context, so that an
   introduction of 1,000+ words never has to fit the QG model's 512-token window).
3. Optional question validation (Q²'s filter; OFF by default, since Appendix A keeps all K questions): the question
   is answered over G itself and kept only when that answer equals the span after SQuAD normalisation.
4. Each question is answered by an extractive SQuAD 2.0 model (``question_answering`` role) over C. Contexts longer
   than the QA window are read in overlapping windows (`stride`); the best span over the windows is the answer
   unless the no-answer score beats it, and then the answer is empty.
5. Score per question: sim_k = BERTScore F1 of the answer a_k (candidate) against G (reference), by the suite's
   ``bertscore`` role token encoder (`sciwrite.metrics.bertscore`: bert_score's greedy cosine matching, no idf, no
   rescaling, G read in 512-token windows). An empty answer (unanswerable from C) has no token and scores 0.
6. The paper's score is the mean over its questions; a paper with no question has ``None`` and ``qa_reason`` says
   why (no candidate span, or no question survived validation).

A different quantity is kept under its own names, never under the paper's: ``qa_faithfulness_f1`` /
``qa_consistency_f1``, the mean SQuAD token F1 of each answer against the span it was asked about (0 for no
answer, 1 for a normalised exact match), i.e. Q²'s own "F1 variant".

Candidate spans. Q² takes spaCy noun chunks and named entities; offline there is no POS tagger or spaCy model
(and the project must not depend on a download), and KeyBERT's keyphrases are stop-word-filtered n-grams that
need not occur contiguously in the text, so they cannot serve as answer spans. The rule used instead: within a
sentence, with parenthesised / bracketed text (citations) left out, a span is a maximal run of whitespace-
separated content words (not in `STOP_WORDS`, no punctuation between them) cut to its last `MAX_SPAN_WORDS`
words (English noun phrases are head-final, so the tail of a run is its most noun-like part); it is kept when it
has two or more words, or one word that looks like a name (a digit, an inner capital, or a capital not at the
start of the sentence: "BERT", "GPT-4", "ImageNet", "25%"), since a lone lower-case word is as often a verb as a
noun. Spans are deduplicated by their normalised form; a text with more than `MAX_SPANS` keeps `MAX_SPANS`
spread evenly over it.

Cost: the QG inputs of all papers go through one length-sorted, token-budgeted batched `generate`; the optional
validation questions form one batched QA call, and the faithfulness and consistency questions of all papers a
second one; all BERTScores (every answer against its G) are one batched `bertscore` call, each distinct text
encoded once. Each model is loaded once per process; the models, their loaders and `qa_models_for_profile` are in
`sciwrite.models.qa`, this module holds the spans and the scoring.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sciwrite.metrics.bertscore import bertscore
from sciwrite.metrics.text import split_sentences
from sciwrite.models.qa import QAModels
from sciwrite.sciig.metrics.inputs import check_sciig_inputs, faithfulness_context
from sciwrite.sciig.metrics.specs import QA_CONSISTENCY, QA_FAITHFULNESS

MAX_SPANS = 32
MAX_SPAN_WORDS = 4
#: Function words (and citation Latin) that end a content-word run.
_STOP_WORDS_TEXT = """
a about above after again against all also although am among an and another any are as at be because been
before being below between both but by can could did do does doing done down during each either et al etc
even ever every few for from further had has have having he her here hers herself him himself his how however
i if in into is it its itself just less many may me might more most much must my myself neither no nor not of
off often on once one only or other others our ours ourselves out over own per rather same she should since so
some such than that the their theirs them themselves then there therefore these they this those though through
thus to too toward towards under until up upon us very via was we well were what when where whether which while
who whom whose why will with within without would yet you your yours
e.g i.e cf vs
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
_TOKEN = re.compile(r"[A-Za-z0-9](?:[\w\-./%']*[\w%])?")
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


# ---------------------------------------------------------------------------------------------- pure helpers


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles (a / an / the), single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 of two answers after `normalize_answer` (1.0 when both normalise to nothing)."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def answer_score(answer: str, span: str) -> float:
    """Q² score of one question: 0 for no answer, 1 for a normalised exact match, else token F1."""
    if not normalize_answer(answer):
        return 0.0
    if normalize_answer(answer) == normalize_answer(span):
        return 1.0
    return token_f1(answer, span)


def _looks_like_name(word: str, sentence_initial: bool) -> bool:
    return (any(ch.isdigit() for ch in word) or any(ch.isupper() for ch in word[1:])
            or (word[0].isupper() and not sentence_initial))


def sentence_spans(sentence: str) -> list[str]:
    """Candidate answer spans of one sentence, in order (see the module docstring for the rule)."""
    masked = _BRACKETED.sub(lambda m: " " * len(m.group()), sentence)
    spans: list[str] = []
    run: list[tuple[str, bool]] = []  # (word, is the sentence's first word)
    last_end = None

    def close() -> None:
        words = run[-MAX_SPAN_WORDS:]
        if len(words) >= 2 or (words and _looks_like_name(*words[0])):
            spans.append(" ".join(w for w, _ in words))
        run.clear()

    for i, match in enumerate(_TOKEN.finditer(masked)):
        word = match.group()
        gap = masked[last_end:match.start()] if last_end is not None else ""
        if run and gap.strip():  # punctuation between two words ends the run
            close()
        if word.lower() in STOP_WORDS:
            close()
        else:
            run.append((word, i == 0))
        last_end = match.end()
    close()
    return spans


def candidate_spans(text: str, max_spans: int = MAX_SPANS) -> list[tuple[str, str]]:
    """(span, the sentence it comes from) of a generated text: deduplicated by normalised span, at most
    `max_spans`, spread evenly over the text when it has more."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for sentence in split_sentences(text):
        for span in sentence_spans(sentence):
            key = normalize_answer(span)
            if key and key not in seen:
                seen.add(key)
                found.append((span, sentence))
    if len(found) > max_spans:
        found = [found[(i * len(found)) // max_spans] for i in range(max_spans)]
    return found


def qg_input(span: str, context: str) -> str:
    """The answer-aware QG input of `mrm8488/t5-base-finetuned-question-generation-ap`."""
    return f"answer: {span}  context: {context}"


def _mean(items: Sequence[dict[str, Any]], key: str) -> float | None:
    return sum(item[key] for item in items) / len(items) if items else None


# ---------------------------------------------------------------------------------------------- scoring


def score_qa(predictions: Sequence[str], references: Sequence[str], titles: Sequence[str] | None,
             abstracts: Sequence[str], models: QAModels, cited: Sequence[Sequence[str]] | None = None,
             validate_questions: bool = False, max_spans: int = MAX_SPANS,
             batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper: ``qa_faithfulness`` (C = title + abstract + `cited` works) and ``qa_consistency`` (C = the
    reference introduction), each (1/K) sum_k BERTScore-F1(a_k, G) over its K questions, or ``None`` (``qa_reason``
    says why); ``qa_faithfulness_f1`` / ``qa_consistency_f1`` (answer-vs-span token F1, a separate variant);
    ``qa_spans`` / ``qa_questions`` and ``qa_items``, one record per span (span, question, each source's answer,
    its BERTScore against G and its token F1 against the span; with validation, the generation's own answer).

    `models.encoder` is the BERTScore token encoder (`sciwrite.models.token_encoder.TokenEncoder` or anything with
    its `token_embeddings_many`)."""
    n = check_sciig_inputs(predictions, references, titles, abstracts)
    if cited is not None and len(cited) != n:
        raise ValueError(f"cited ({len(cited)}) and predictions ({n}) must have the same length")
    if getattr(models, "encoder", None) is None:
        raise ValueError("QA-based faithfulness needs a BERTScore token encoder (QAModels.encoder): "
                         "sim_k = BERTScore(a_k, G)")
    titles = [""] * n if titles is None else titles
    sources = [faithfulness_context(t, a, cited[i] if cited is not None else None)
               for i, (t, a) in enumerate(zip(titles, abstracts))]
    spans = [candidate_spans(p, max_spans) for p in predictions]
    jobs = [(i, span, sentence) for i in range(n) for span, sentence in spans[i]]
    questions = models.qg.generate([qg_input(span, sentence) for _, span, sentence in jobs], batch_size)
    items: list[dict[str, Any]] = [{"span": span, "question": q} for (_, span, _), q in zip(jobs, questions)]
    asked = [k for k, q in enumerate(questions) if q.strip()]
    if validate_questions:
        own = models.qa.answer([questions[k] for k in asked], [predictions[jobs[k][0]] for k in asked], batch_size)
        for k, result in zip(asked, own):
            items[k]["generation_answer"] = result["answer"]
            items[k]["valid"] = bool(result["answer"]) and normalize_answer(result["answer"]) == normalize_answer(
                jobs[k][1])
        kept = [k for k in asked if items[k]["valid"]]
    else:
        kept = asked
    for k in set(range(len(jobs))) - set(asked):
        items[k]["valid"] = False
    answers = models.qa.answer([questions[k] for k in kept] * 2,
                               [sources[jobs[k][0]] for k in kept] + [references[jobs[k][0]] for k in kept],
                               batch_size)
    generations = [predictions[jobs[k][0]] for k in kept] * 2
    sims = bertscore([a["answer"] for a in answers], generations, models.encoder, batch_size) if answers else []
    for j, k in enumerate(kept):
        faith, consist = answers[j], answers[len(kept) + j]
        items[k].update({"valid": True, "faithfulness_answer": faith["answer"],
                         "faithfulness_bertscore": sims[j][2],
                         "faithfulness_f1": answer_score(faith["answer"], jobs[k][1]),
                         "consistency_answer": consist["answer"],
                         "consistency_bertscore": sims[len(kept) + j][2],
                         "consistency_f1": answer_score(consist["answer"], jobs[k][1])})
    per_paper: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for (i, _, _), item in zip(jobs, items):
        per_paper[i].append(item)
    rows = []
    for i in range(n):
        scored = [item for item in per_paper[i] if "faithfulness_bertscore" in item]
        reason = None
        if not spans[i]:
            reason = "no candidate answer span in the generated introduction"
        elif not scored:
            reason = ("no generated question passed validation (answered over the generation with its own span)"
                      if validate_questions else "no question could be generated")
        rows.append({QA_FAITHFULNESS.key: _mean(scored, "faithfulness_bertscore"),
                     QA_CONSISTENCY.key: _mean(scored, "consistency_bertscore"),
                     "qa_faithfulness_f1": _mean(scored, "faithfulness_f1"),
                     "qa_consistency_f1": _mean(scored, "consistency_f1"),
                     "qa_spans": len(spans[i]), "qa_questions": len(scored), "qa_reason": reason,
                     "qa_items": per_paper[i]})
    return rows
