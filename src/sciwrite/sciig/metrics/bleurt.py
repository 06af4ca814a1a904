"""SciIG BLEURT: each generated introduction scored against its reference introduction by BLEURT-20.

The model (`sciwrite.models.bleurt`: the PyTorch port of BLEURT-20 loaded onto transformers' BERT, the `bleurt`
role) reads at most 512 tokens, and an introduction pair is longer. `sciwrite.models.bleurt.bleurt_windows` keeps
a pair whole when it fits; otherwise it cuts reference and candidate into the same number k of consecutive,
near-equal pieces so that each reference piece + candidate piece fits the window (each piece at most
(512 - 3) // 2 tokens), scores piece i of the candidate against piece i of the reference, and reports the
unweighted mean over the k pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sciwrite.models.bleurt import Bleurt
from sciwrite.sciig.metrics.lexical import check_reference_pairs
from sciwrite.sciig.metrics.specs import BLEURT


def score_bleurt(predictions: Sequence[str], references: Sequence[str], bleurt: Bleurt,
                 batch_size: int = 16) -> list[dict[str, Any]]:
    """Per paper: BLEURT of the generated introduction against the reference (windowed as documented above)."""
    check_reference_pairs(predictions, references)
    return [{BLEURT.key: score, "windows": n} for score, n in bleurt.score(references, predictions, batch_size)]
