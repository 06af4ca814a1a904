"""BERTScore over whole long texts: token embeddings computed window by window, then BERTScore's greedy match.

`bert_score` truncates every text at the model's window (512 tokens), which drops most of a related-work
section. Here a text is cut into consecutive windows of at most `window - 2` tokens, each encoded with its
own [CLS]/[SEP] (as bert_score encodes a text), and the token embeddings of all windows are matched
greedily as bert_score matches them: cosine, no idf weighting, [CLS]/[SEP] embeddings available as match
targets but left out of the averages (bert_score's zero idf weight for them). For a text
that fits one window the result equals bert_score's; `tests/rwgbench/test_text_quality.py` checks that against the
library. Tokens near a window boundary see less context than in one long pass, which no 512-token model
can give. The windowed token encoder itself is a model (`sciwrite.models.token_encoder`).
"""

from __future__ import annotations

import numpy as np

from sciwrite.models.token_encoder import TokenEncoder


def greedy_match(candidate: tuple[np.ndarray, np.ndarray], reference: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
    """BERTScore precision, recall and F1 of two `token_embeddings` results (0s if either has no token)."""
    (cand, cand_content), (ref, ref_content) = candidate, reference
    if not cand_content.any() or not ref_content.any():
        return 0.0, 0.0, 0.0
    sim = cand @ ref.T
    precision = float(sim[cand_content].max(axis=1).mean())
    recall = float(sim[:, ref_content].max(axis=0).mean())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def bertscore(candidates: list[str], references: list[str], encoder: TokenEncoder,
              batch_size: int = 16, show_progress: bool = False) -> list[tuple[float, float, float]]:
    """(precision, recall, F1) for each candidate-reference pair; each distinct text is encoded once, and the
    windows of all texts are batched together (`show_progress`: a bar over the windows)."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
    unique = list(dict.fromkeys([*candidates, *references]))
    embedded = dict(zip(unique, encoder.token_embeddings_many(unique, batch_size, show_progress=show_progress)))
    return [greedy_match(embedded[c], embedded[r]) for c, r in zip(candidates, references)]
