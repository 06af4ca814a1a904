"""QA-based (Q²-style) faithfulness and consistency of a generated introduction, as SciIG reports them.

Q² (Honovich et al., EMNLP 2021) asks questions about a generated text and checks whether a source answers them
the same way. Here, per paper:

1. Candidate answer spans are taken from the generated introduction (`candidate_spans`, below).
2. One question per span by answer-aware question generation (``question_generation`` role, T5 fed
   ``"answer: {span}  context: {sentence}"``: the sentence holding the span is the context, so that an
   introduction of 1,000+ words never has to fit the QG model's 512-token window).
3. Question validation (Q²'s filter, on by default): the question is answered over the generated introduction
   itself and kept only when that answer equals the span after SQuAD normalisation; a question that does not
   lead back to its own span is not a question about that span.
4. Each kept question is answered by an extractive SQuAD 2.0 model (``question_answering`` role) over the
   source: title + abstract for ``qa_faithfulness``, the reference introduction for ``qa_consistency``.
   Contexts longer than the QA window are read in overlapping windows (`stride`); the best span over the
   windows is the answer unless the no-answer score (the [CLS] position, lowest over windows as in the
   transformers SQuAD 2.0 post-processing) beats it, and then the answer is empty.
5. Score per question (`answer_score`): 0 when the answer is empty (unanswerable from the source), 1 when the
   SQuAD-normalised answer equals the normalised span, else their SQuAD token F1. Q² falls back to an NLI model
   for answers that differ; SciIG names no NLI model for this metric, so token F1 (Q²'s own "F1 variant") is used.
6. The paper's score is the mean over its kept questions; a paper with no kept question has ``None`` and
   ``qa_reason`` says why (no candidate span, or no question survived validation).

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

Cost: the QG inputs of all papers go through one length-sorted, token-budgeted batched `generate`; the
validation questions then form one batched QA call, and the faithfulness and consistency questions of all papers
a second one. Each model is loaded once per process; both models, their loaders and
`qa_models_for_profile` are in `sciwrite.models.qa`, this module holds the spans and the scoring.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sciwrite.metrics.text import split_sentences
from sciwrite.models.qa import QAModels
from sciwrite.sciig.metrics.inputs import check_sciig_inputs, source_text

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
             abstracts: Sequence[str], models: QAModels, validate_questions: bool = True,
             max_spans: int = MAX_SPANS, batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper: ``qa_faithfulness`` (QA over title + abstract), ``qa_consistency`` (QA over the reference
    introduction), each the mean Q² score of the kept questions or ``None`` (``qa_reason`` says why);
    ``qa_spans`` / ``qa_questions`` (candidate spans, kept questions) and ``qa_items``, one record per span
    (span, question, the generation's own answer and whether it validated, and each source's answer and score).
    """
    n = check_sciig_inputs(predictions, references, titles, abstracts)
    titles = [""] * n if titles is None else titles
    sources = [source_text(t, a) for t, a in zip(titles, abstracts)]
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
    for k, faith, consist in zip(kept, answers[:len(kept)], answers[len(kept):]):
        items[k].update({"valid": True, "faithfulness_answer": faith["answer"],
                         "faithfulness_score": answer_score(faith["answer"], jobs[k][1]),
                         "consistency_answer": consist["answer"],
                         "consistency_score": answer_score(consist["answer"], jobs[k][1])})
    per_paper: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for (i, _, _), item in zip(jobs, items):
        per_paper[i].append(item)
    rows = []
    for i in range(n):
        scored = [item for item in per_paper[i] if "faithfulness_score" in item]
        reason = None
        if not spans[i]:
            reason = "no candidate answer span in the generated introduction"
        elif not scored:
            reason = ("no generated question passed validation (answered over the generation with its own span)"
                      if validate_questions else "no question could be generated")
        rows.append({"qa_faithfulness": _mean(scored, "faithfulness_score"),
                     "qa_consistency": _mean(scored, "consistency_score"),
                     "qa_spans": len(spans[i]), "qa_questions": len(scored), "qa_reason": reason,
                     "qa_items": per_paper[i]})
    return rows
