"""SciIG's BLEU as the paper reports it: corpus BLEU of the papers' summed sacrebleu statistics (``bleu_stats`` on
each per-paper row), sacrebleu's 0-100 divided by 100. Apart from the suite so that BLEU's declaration
(`sciwrite.sciig.metrics.specs`) can name how its summary value is aggregated."""

from __future__ import annotations

from collections.abc import Sequence

from sciwrite.core.paper_row import PaperRow
from sciwrite.sciig.metrics.row_fields import BLEU_STATS


def bleu_statistics(predictions: Sequence[str], references: Sequence[str]) -> list[list[int]]:
    """sacrebleu's per-sentence sufficient statistics (its corpus BLEU sums them), as `score_bleu` configures it."""
    from sacrebleu.metrics import BLEU

    stats = BLEU()._extract_corpus_statistics(list(predictions), [list(references)])
    return [[int(x) for x in s] for s in stats]


def corpus_bleu(stats: Sequence[Sequence[int]]) -> float:
    """Corpus BLEU of the summed sufficient statistics of some rows, on the paper's 0-1 scale (sacrebleu / 100)."""
    from sacrebleu.metrics import BLEU

    if not stats:
        return 0.0
    total = [sum(column) for column in zip(*stats)]
    return float(BLEU()._compute_score_from_stats(total).score) / 100


def rows_corpus_bleu(rows: Sequence[PaperRow]) -> float | None:
    """Corpus BLEU (0-1) of the rows' ``bleu_stats``, as the summary computes it (None: no row has them)."""
    stats = [found for row in rows if (found := row.details.get(BLEU_STATS)) is not None]
    return corpus_bleu(stats) if stats else None


__all__ = ["bleu_statistics", "corpus_bleu", "rows_corpus_bleu"]
