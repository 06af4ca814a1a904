"""SurGE's two LLM-judge prompts (structure quality, logic) and the inputs upstream builds for them.

Prompt texts, call settings and input rules from SurGE (Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE
src/structureFuncs.py ``gen_title_structure_compare_prompt``, ``get_target_title_structure``,
``get_generate_title_structure``, ``eval_structure_quality_client``, ``chat_openai``; src/informationFuncs.py
``get_logic_check_prompt``, ``eval_logic_client``, ``chat_openai``). The prompts are upstream's f-strings as
`str.format` templates, word for word (trailing double spaces included; they hold no literal brace).
No model is called here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

#: The system message, model and reply budget of upstream's ``chat_openai`` (both judge prompts).
SYSTEM_MESSAGE = "You are a helpful assistant"
JUDGE_MODEL = "gpt-4o"
MAX_TOKENS = 100
#: Upstream gives up after 5 tries in its local-model ``chat`` (returns None at try 5); its OpenAI ``chat_openai``
#: only prints "Failed to get valid response after 5 tries." at try 5 and keeps retrying. 5 is the cap to apply.
MAX_TRIES = 5

#: Upstream scores the structure only when the generated outline text has at least 5 characters (else 0, unasked).
MIN_OUTLINE_CHARS = 5
#: Logic: at most 20 generated paragraphs, drawn with seed 42, each cut to 1000 characters.
LOGIC_SAMPLE_SIZE = 20
LOGIC_SEED = 42
LOGIC_MAX_CHARS = 1000

_SCORE = re.compile(r"^[0-5]$")

#: structureFuncs.gen_title_structure_compare_prompt, verbatim. Fields: {target_titles}, {generated_titles}.
STRUCTURE_PROMPT = """You are an AI evaluator. Your task is to compare the generated titles with the target titles and assign a score from 0 to 5 based on their similarity in structure, meaning, and wording.

### Target Titles:
{target_titles}

### Generated Titles:
{generated_titles}

## **Scoring Criteria:**

- **0 – Completely Different:**  
  - Nearly no words in common.  
  - Completely different meanings.  
  - No similarity in structure or phrasing.  

- **1 – Somewhat Different:**  
  - Few words overlap, but they are not key terms.  
  - The meaning is somewhat related but mostly different.  
  - The sentence structures are significantly different.  

- **2 – Somewhat Similar:**  
  - Some key words are shared, but others are different.  
  - The general topic is the same, but the emphasis may differ.  
  - The sentence structures are different but not entirely unrelated.  

- **3 – Similar:**  
  - Several key words are shared.  
  - The meaning is largely the same with slight variations.  
  - The structure is somewhat similar, but there may be word substitutions.  

- **4 – Very Similar:**  
  - Most key words match.  
  - The meaning is nearly identical.  
  - The phrasing and structure are very close, with minor rewording.  

- **5 – Almost Identical:**  
  - Nearly all key words match exactly.  
  - The meaning is fully preserved.  
  - The phrasing and structure are identical or differ only in trivial ways.  

### **Instructions:**  
Analyze the generated titles based on the criteria above and provide a single score between 0 and 5.  
**Output only the score as a number, without any additional explanation or comments.**
"""

#: informationFuncs.get_logic_check_prompt, verbatim. Field: {sentence} (one paragraph).
LOGIC_PROMPT = """You are an advanced AI language evaluator. Your task is to assess the logical coherence and clarity of text based on the following criteria:

1. **Fluency & Coherence** – Does the text flow naturally? Are the sentences well-connected and easy to read?
2. **Logical Clarity** – Is the reasoning clear and structured? Does the argument progress logically without contradictions?
3. **Avoidance of Redundancy** – Does the text avoid unnecessary repetition?
4. **Clarity of Description** – Are ideas, concepts, or events described in a way that is easy to understand?
5. **Absence of Errors** – Does the text contain grammatical mistakes, spelling errors, or factual inconsistencies?

You will provide a **score from 0 to 5** based on these criteria, along with no explanation.

### **Scoring Guide**

**5 – Excellent**
- The text is highly fluent, with smooth transitions and a natural flow.
- The logical progression is clear, well-structured, and easy to follow.
- There is no redundancy; each sentence contributes meaningfully.
- Descriptions are precise and unambiguous.
- No spelling, grammatical, or factual errors.

**Example (5/5):**
"The rise of artificial intelligence has transformed industries worldwide. From healthcare to finance, AI-driven innovations have streamlined processes and improved efficiency. As companies integrate AI technologies, they must also address ethical concerns to ensure responsible use."

---

**4 – Good**
- The text is mostly fluent, with minor awkward transitions.
- Logical progression is clear but may contain slight inconsistencies.
- Some minor redundancy or repetition.
- Descriptions are mostly clear, with minor ambiguities.
- Very few spelling or grammatical errors.

**Example (4/5):**
"Artificial intelligence is changing industries such as healthcare and finance. AI helps improve efficiency, and many businesses are adopting AI. However, ethical concerns remain, and companies must ensure responsible AI use."

---

**3 – Average**
- The text is understandable but has noticeable awkward phrasing.
- Logical flow is inconsistent; some points may feel out of place.
- Some redundancy or repetition that slightly affects readability.
- Certain descriptions are vague or unclear.
- Contains some spelling or grammatical mistakes but remains readable.

**Example (3/5):**
"Artificial intelligence has many applications. In healthcare, finance, and many other sectors, AI helps a lot. Companies are using AI more and more. But AI has risks, and companies need to consider them. AI can be useful if used correctly."

---

**2 – Poor**
- The text is difficult to read due to awkward structure and poor fluency.
- Logical inconsistencies make the argument unclear.
- Repetitive phrases make the content tedious.
- Descriptions are vague, making it hard to understand key points.
- Multiple grammatical and spelling errors.

**Example (2/5):**
"AI is being used in many places. AI is in healthcare. AI is in finance. AI is also used in business. Many people use AI, and AI is useful. But AI has risks. AI must be used in the right way. AI is good, but it can be bad."

---

**1 – Very Poor**
- The text is highly disjointed, making it hard to read.
- Logical flow is almost nonexistent, with abrupt topic shifts.
- Redundant sentences add no value.
- Descriptions are confusing or overly vague.
- Frequent spelling and grammatical mistakes.

**Example (1/5):**
"AI is good. AI is everywhere. In finance. In hospitals. People use AI. Many companies AI. But AI risk. AI must be safe. AI can help. AI problem big. AI future."

---

**0 – Incoherent**
- The text is completely nonsensical or unreadable.
- No logical progression or coherence.
- Extreme redundancy or word salad.
- Severe errors make it impossible to understand.

**Example (0/5):**
"AI good. Many AI. Business AI. Finance hospital AI. More AI need. AI problem bad. Future AI better. AI help. Risk AI."

---
### **Instruction**  
Now evaluate the following paragraph based on the criteria above and provide a score from 0 to 5.  

### **Paragraph:**  
{sentence}  

### **Output Format:**  
Provide only the score as a single number (0-5), without any additional explanation or comments.
"""


def structure_prompt(target_titles: str, generated_titles: str) -> str:
    """The structure-quality prompt for two outlines (`target_outline`, `generated_outline`)."""
    return STRUCTURE_PROMPT.format(target_titles=target_titles, generated_titles=generated_titles)


def logic_prompt(paragraph: str) -> str:
    """The logic prompt for one paragraph (from `logic_paragraphs`)."""
    return LOGIC_PROMPT.format(sentence=paragraph)


def parse_score(reply: str | None) -> int | None:
    r"""The 0-5 score of a judge reply, or None (upstream then asks again, up to `MAX_TRIES`).

    Upstream accepts a reply only if ``re.match(r'^[0-5]$', reply)`` does; kept exactly, so the reply must be one
    digit 0-5 with no other character, except that Python's ``$`` also matches before a final newline: "3\n" is
    accepted (``int`` reads it), while " 3", "3 ", "3." and "Score: 3" are rejected. A None reply (no content)
    is rejected (upstream's ``re.match`` raises and its handler retries).
    """
    if reply is None or not _SCORE.match(reply):
        return None
    return int(reply)


def target_outline(structure: Sequence[Mapping[str, str]]) -> str:
    r"""Upstream's ``get_target_title_structure`` from the root section (the first titled "root"; "" if none):
    each child of a section, in structure order, as "#" * level + " " + title + "\n" (level 1 for the root's
    children), then its own subtree, then one more "\n" after that subtree."""
    children: dict[str, list[Mapping[str, str]]] = {}
    for section in structure:
        children.setdefault(section["parent_id"], []).append(section)
    root = next((section for section in structure if section["title"] == "root"), None)
    if root is None:
        return ""

    def subtree(parent_id: str, level: int, seen: frozenset[str]) -> str:
        if parent_id in seen:
            raise ValueError(f"section {parent_id!r} is its own ancestor")
        text = ""
        for child in children.get(parent_id, []):
            text += "#" * level + " " + child["title"] + "\n"
            text += subtree(child["id"], level + 1, seen | {parent_id})
            text += "\n"
        return text

    return subtree(root["id"], 1, frozenset())


def generated_outline(headings: Iterable[tuple[int, str]]) -> str:
    r"""Upstream's ``get_generate_title_structure(root, 1)`` from (depth, title) headings in document order,
    depth 1 for a child of the parsed survey's root: each heading as "#" * (depth + 1) + " " + title + "\n" (upstream
    starts the root at level 1, so top-level sections get "##"), with no blank line between subtrees. The caller
    leaves out, as upstream, headings whose title contains "root" or "Abstract:"."""
    return "".join("#" * (depth + 1) + " " + title + "\n" for depth, title in headings)


def structure_quality_applies(generated_outline: str) -> bool:
    """Whether upstream asks the judge at all: it returns 0 unasked when the generated outline text is shorter
    than `MIN_OUTLINE_CHARS` characters."""
    return len(generated_outline) >= MIN_OUTLINE_CHARS


def truncate_paragraph(text: str) -> str:
    """Upstream's cut of a logic paragraph: over `LOGIC_MAX_CHARS` characters, keep the first 1000; if that does
    not end with ".", cut again before its last "." (with no "." at all, ``rfind`` is -1 and upstream's slice
    drops just the last character, leaving 999)."""
    if len(text) <= LOGIC_MAX_CHARS:
        return text
    text = text[:LOGIC_MAX_CHARS]
    if text[-1] != ".":
        text = text[: text.rfind(".")]
    return text


def logic_paragraphs(paragraphs: Sequence[str], k: int = LOGIC_SAMPLE_SIZE, seed: int = LOGIC_SEED) -> list[str]:
    """Upstream's ``eval_logic_client`` sample: ``np.random.seed(42)``, then ``np.random.choice(psgs, min(len,
    20), replace=False)``, each drawn paragraph cut by `truncate_paragraph`.

    A local ``np.random.RandomState(seed)`` draws the same indices as the seeded global generator (the tests
    check it against upstream's exact calls) without touching global state. `paragraphs` is upstream's
    ``get_content_list`` of the generated survey (section texts of at least 100 characters, document order).
    An empty list gives [] (upstream divides by zero then).
    """
    if not paragraphs:
        return []
    draw = np.random.RandomState(seed).choice(len(paragraphs), min(len(paragraphs), k), replace=False)
    return [truncate_paragraph(paragraphs[int(i)]) for i in draw]


__all__ = [
    "JUDGE_MODEL",
    "LOGIC_MAX_CHARS",
    "LOGIC_PROMPT",
    "LOGIC_SAMPLE_SIZE",
    "LOGIC_SEED",
    "MAX_TOKENS",
    "MAX_TRIES",
    "MIN_OUTLINE_CHARS",
    "STRUCTURE_PROMPT",
    "SYSTEM_MESSAGE",
    "generated_outline",
    "logic_paragraphs",
    "logic_prompt",
    "parse_score",
    "structure_prompt",
    "structure_quality_applies",
    "target_outline",
    "truncate_paragraph",
]
