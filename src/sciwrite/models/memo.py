"""Models that remember their outputs, so a split's reference side is computed once however many systems are scored.

Comparing systems on one split repeats most of the model work: the reference sections' blocks, windows and
citation contexts, the target abstracts and the corpus papers are the same for every system. The suite wraps
its loaded models in these memos; every scorer calls them as it calls the models, and only texts not seen
before reach the model. Outputs are kept for the life of the wrapper (one `RWGBenchModels`), in memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sciwrite.models.citation_frames import FRAMES
from sciwrite.models.nli import soft_scores


class MemoProxy:
    """Everything not overridden is the wrapped model's own attribute."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.memo: dict[Any, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class MemoSentenceEncoder(MemoProxy):
    """A sentence-transformers model whose `encode` embeds each distinct text once (normalised or not)."""

    def encode(self, texts: list[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False, **kwargs: Any) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if (t, normalize_embeddings) not in self.memo]
        if missing:
            vectors = self.inner.encode(missing, batch_size=batch_size, normalize_embeddings=normalize_embeddings,
                                        convert_to_numpy=True, show_progress_bar=show_progress_bar, **kwargs)
            self.memo.update({(t, normalize_embeddings): v for t, v in zip(missing, vectors)})
        return np.stack([self.memo[(t, normalize_embeddings)] for t in texts])


class MemoTokenEncoder(MemoProxy):
    """A BERTScore `TokenEncoder` whose windows are encoded once per distinct text."""

    def token_embeddings_many(self, texts: list[str], batch_size: int = 16,
                              show_progress: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if missing:
            self.memo.update(zip(missing, self.inner.token_embeddings_many(missing, batch_size,
                                                                           show_progress=show_progress)))
        return [self.memo[t] for t in texts]

    def token_embeddings(self, text: str, batch_size: int = 16) -> tuple[np.ndarray, np.ndarray]:
        return self.token_embeddings_many([text], batch_size)[0]


class MemoNLI(MemoProxy):
    """An `NLIModel` that classifies each distinct (premise, hypothesis) pair once."""

    def probabilities(self, premises: list[str], hypotheses: list[str], batch_size: int = 32) -> np.ndarray:
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        pairs = list(zip(premises, hypotheses))
        missing = [p for p in dict.fromkeys(pairs) if p not in self.memo]
        if missing:
            probs = self.inner.probabilities([p for p, _ in missing], [h for _, h in missing], batch_size)
            self.memo.update(zip(missing, probs))
        return np.stack([self.memo[p] for p in pairs]) if pairs else np.zeros((0, 3), dtype=np.float32)

    def soft_scores(self, premises: list[str], hypotheses: list[str], batch_size: int = 32) -> np.ndarray:
        return soft_scores(self.probabilities(premises, hypotheses, batch_size))


class MemoFrameClassifier(MemoProxy):
    """A citation-frame classifier that labels each distinct context once."""

    def predict(self, contexts: list[str], batch_size: int = 64) -> np.ndarray:
        missing = [c for c in dict.fromkeys(contexts) if c not in self.memo]
        if missing:
            self.memo.update(zip(missing, np.asarray(self.inner.predict(missing, batch_size=batch_size), dtype=bool)))
        if not contexts:
            return np.zeros((0, len(FRAMES)), dtype=bool)
        return np.stack([self.memo[c] for c in contexts])
