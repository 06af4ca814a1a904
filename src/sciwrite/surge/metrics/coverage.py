"""SurGE's reference resolution, Coverage and citation precision, as pure functions of plain inputs.

Definitions from SurGE (Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/evaluator.py ``normalize_string`` and
``SurGEvaluator.__init__``/``single_eval``, src/informationFuncs.py ``eval_coverage``). A generated survey's
reference is matched to a corpus paper only by exact equality of normalised titles (ASCII letters, lower-cased);
a reference that matches no title stays unresolved (``None`` here; upstream keeps its title string, which can
never equal a doc id).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

_ASCII_LETTER = re.compile(r"[a-zA-Z]")


def surge_normalize(title: str) -> str:
    """SurGE's ``normalize_string``: the title's ASCII letters only, lower-cased (digits, spaces, punctuation and
    accented letters dropped: "BERT-2: Pre-training" -> "bertpretraining")."""
    return "".join(_ASCII_LETTER.findall(title)).lower()


@dataclass(frozen=True)
class ExactTitleIndex:
    """Normalised corpus title -> doc id, SurGE's ``title2docid``.

    Upstream fills a dict in corpus order, so when two corpus papers share a normalised title the LAST one wins;
    `from_records` keeps that rule. A title with no ASCII letter normalises to "" and is indexed like any other
    (upstream does the same), so a reference without letters resolves to the last such corpus paper.
    """

    by_title: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_records(cls, records: Iterable[tuple[str, str]]) -> ExactTitleIndex:
        """Index (doc_id, title) records in order; a later record with the same normalised title replaces an
        earlier one."""
        by_title: dict[str, str] = {}
        for doc_id, title in records:
            by_title[surge_normalize(title)] = doc_id
        return cls(MappingProxyType(by_title))

    def resolve(self, title: str) -> str | None:
        """The doc id whose normalised title equals `title`'s, or None (an unresolved reference)."""
        return self.by_title.get(surge_normalize(title))

    def __len__(self) -> int:
        return len(self.by_title)


def coverage(gold_cites: Sequence[str], cited: Collection[str]) -> float | None:
    """SurGE's Coverage (``eval_coverage``): the share of the gold cites found among the survey's resolved
    references. `cited` holds resolved doc ids only (unresolved references cannot match a gold doc id upstream).

    Gold cites are counted as a list, as upstream does: a doc id listed twice in ``all_cites`` counts twice in the
    numerator and the denominator. None when there is no gold cite (upstream divides by zero).
    """
    if not gold_cites:
        return None
    found = set(cited)
    return sum(1 for cite in gold_cites if cite in found) / len(gold_cites)


def reference_precision(resolved: Sequence[str | None], gold_cites: Collection[str]) -> float | None:
    """The share of the survey's references that resolve to a gold cite ("cited papers that are in all_cites").

    `resolved` has one entry per reference of the survey (its doc id, or None when unresolved). Choice: duplicate
    references count once each, like every other entry, because upstream's reference map (``refid2docid``, one
    entry per reference number) can map several numbers to one doc id and its paper-level relevance counts each
    entry; so this precision is exactly the NLI-free part of paper-level relevance. None when the survey has no
    reference.
    """
    if not resolved:
        return None
    gold = set(gold_cites)
    return sum(1 for doc_id in resolved if doc_id is not None and doc_id in gold) / len(resolved)


__all__ = ["ExactTitleIndex", "reference_precision", "coverage", "surge_normalize"]
