"""Thinking models' traces kept apart from their answers, so that a prediction, a judge's parser and a citation
extractor only ever see the answer.

Thinking models served through OpenAI-compatible APIs give their reasoning in one of three ways:

- a ``<think>…</think>`` block in ``content`` (DeepSeek-R1, Qwen3, QwQ and their distills on vLLM, TGI, Ollama
  or llama.cpp without a reasoning parser); some chat templates open the block in the prompt, so the reply
  carries only the closing tag; a reply cut off by the token limit carries an opening tag that never closes;
- a ``reasoning_content`` field beside ``content`` (DeepSeek's API, vLLM with ``--reasoning-parser``);
- a ``reasoning`` field (OpenRouter).

`split_reasoning` handles all three. Nothing here is a library's: no maintained package parses these traces out of
chat replies, and the rules are the few above.
"""

from __future__ import annotations

import re

_TAGS = r"(?:think|thinking)"
_BLOCK = re.compile(rf"<(?P<tag>{_TAGS})>(?P<trace>.*?)</(?P=tag)>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(rf"<{_TAGS}>", re.IGNORECASE)
_CLOSE = re.compile(rf"</{_TAGS}>", re.IGNORECASE)


def split_reasoning(content: str | None, *fields: str | None) -> tuple[str, str | None]:
    """(the answer, the reasoning or None) of a reply's `content` and its reasoning `fields`
    (``reasoning_content``, ``reasoning``).

    Every complete ``<think>…</think>`` (or ``<thinking>``) block is taken out of the answer; a closing tag with no
    opening one ends a trace that began in the prompt; an opening tag that never closes starts a trace that runs to
    the end of the reply (the answer is then what came before it, often nothing).
    """
    text = content or ""
    traces = [f.strip() for f in fields if isinstance(f, str) and f.strip()]
    if "<" in text:
        close = _CLOSE.search(text)
        opening = _OPEN.search(text)
        if close is not None and (opening is None or close.start() < opening.start()):
            traces.append(text[:close.start()].strip())
            text = text[close.end():]
        pieces: list[str] = []
        position = 0
        for block in _BLOCK.finditer(text):
            pieces.append(text[position:block.start()])
            traces.append(block.group("trace").strip())
            position = block.end()
        rest = text[position:]
        unclosed = _OPEN.search(rest)
        if unclosed is not None:
            traces.append(rest[unclosed.end():].strip())
            rest = rest[:unclosed.start()]
        text = "".join(pieces) + rest
    reasoning = "\n\n".join(dict.fromkeys(t for t in traces if t))  # one copy of a trace sent both ways
    return text.strip(), reasoning or None


__all__ = ["split_reasoning"]
