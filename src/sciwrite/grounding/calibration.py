"""Calibrating the resolver's threshold on the corpus itself.

A calibration set is drawn from the corpus's titles (seeded). **Real** references are each title written the ways
people and models mistype one, and the paper it names is known: lower case, punctuation dropped, a typo (two
letters swapped or one dropped), a word dropped, a word added, the subtitle dropped, a venue and year appended.
**Fabricated** references name no paper: two real titles spliced (the first half of one, the second half of
another) and titles invented from the corpus's own vocabulary. Each is resolved; a threshold's precision is the
share of ``found`` verdicts that name the right paper, its recall the share of real references found as their paper.
`choose_threshold` takes the lowest threshold whose precision is at least `TARGET_PRECISION`: the most real papers
found while at most one found reference in a hundred is wrong.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from sciwrite.grounding.index import TitleIndex
from sciwrite.grounding.resolver import FOUND, Reference, ReferenceResolver

#: The precision the chosen threshold must reach on the calibration set.
TARGET_PRECISION = 0.99
#: The thresholds tried, 0.70 to 0.99.
THRESHOLDS = tuple(round(0.70 + 0.01 * i, 2) for i in range(30))
VARIANTS = ("exact", "lower case", "no punctuation", "typo", "word dropped", "word added", "subtitle dropped",
            "venue appended")
FABRICATIONS = ("spliced", "invented")
_ADDED_WORDS = ("a", "novel", "towards", "improved", "neural", "efficient")


@dataclass(frozen=True)
class CalibrationItem:
    """One reference of the set: its kind (a variant or a fabrication) and the doc_id it names (None: none)."""

    kind: str
    title: str
    doc_id: str | None


def _variant(title: str, kind: str, rng: random.Random) -> str | None:
    words = title.split()
    if kind == "exact":
        return title
    if kind == "lower case":
        return title.lower()
    if kind == "no punctuation":
        return "".join(ch for ch in title if ch.isalnum() or ch.isspace())
    if kind == "typo":
        i = rng.randrange(max(len(title) - 1, 1))
        return title[:i] + title[i + 1] + title[i] + title[i + 2:] if rng.random() < 0.5 else title[:i] + title[i + 1:]
    if kind == "word dropped":
        return " ".join(w for j, w in enumerate(words) if j != rng.randrange(len(words))) if len(words) >= 5 else None
    if kind == "word added":
        j = rng.randrange(len(words) + 1)
        return " ".join([*words[:j], rng.choice(_ADDED_WORDS), *words[j:]])
    if kind == "subtitle dropped":
        head, sep, _ = title.partition(":")
        return head if sep and len(head.split()) >= 2 else None
    if kind == "venue appended":
        return f"{title}. In Proceedings of ACL {rng.randint(2000, 2024)}"
    raise ValueError(f"unknown variant {kind!r}")


def calibration_set(index: TitleIndex, n_papers: int = 300, seed: int = 0) -> list[CalibrationItem]:
    """A calibration set drawn from the index's own titles: real references and as many fabrications.

    The real references are every variant (`VARIANTS`) of `n_papers` titles of at least four words whose
    normalised title is unique in the index; the fabrications are half spliced from two real titles, half invented
    from the corpus's vocabulary. Seeded by `seed`.
    """
    rng = random.Random(seed)
    unique = [p for p in index.papers if len(p.title.split()) >= 4 and len(index.by_key.get(p.key, [])) == 1]
    chosen = rng.sample(unique, min(n_papers, len(unique)))
    items = [CalibrationItem(kind, text, paper.doc_id) for paper in chosen for kind in VARIANTS
             if (text := _variant(paper.title, kind, rng))]
    vocabulary = sorted({w for p in index.papers for w in p.title.split() if w.isalpha()})
    n_real = len(items)
    for i in range(n_real):
        if i % 2 == 0:
            a, b = rng.sample(chosen, 2)
            wa, wb = a.title.split(), b.title.split()
            text = " ".join(wa[:len(wa) // 2] + wb[len(wb) // 2:])
            items.append(CalibrationItem("spliced", text, None))
        else:
            items.append(CalibrationItem("invented", " ".join(rng.sample(vocabulary, rng.randint(5, 10))), None))
    return items


@dataclass(frozen=True)
class Operating:
    """Precision and recall at one threshold, and recall per variant.

    Attributes:
        threshold: The threshold.
        precision: The share of ``found`` verdicts that name the right paper.
        recall: The share of real references found as their paper.
        n_found: ``found`` verdicts.
        false_found: ``found`` verdicts that name the wrong paper (or a fabricated reference).
        recall_by_kind: Variant -> its recall.
    """

    threshold: float
    precision: float
    recall: float
    n_found: int
    false_found: int
    recall_by_kind: dict[str, float]

    def as_dict(self) -> dict[str, object]:
        """The operating point as a JSON object."""
        return dict(self.__dict__)


def evaluate_thresholds(index: TitleIndex, items: Sequence[CalibrationItem],
                        thresholds: Sequence[float] = THRESHOLDS) -> list[Operating]:
    """Each threshold's operating point on `items`, the references scored once and decided at each threshold."""
    resolver = ReferenceResolver(index)
    scored = resolver.score([Reference(i.title) for i in items])
    points = []
    for threshold in thresholds:
        verdicts = [resolver.decide(s, threshold) for s in scored]
        found = [(item, v) for item, v in zip(items, verdicts) if v.verdict == FOUND]
        wrong = sum(1 for item, v in found if v.doc_id != item.doc_id)
        real = [item for item in items if item.doc_id is not None]
        right = {id(item) for item, v in found if v.doc_id == item.doc_id}
        by_kind = {kind: round(sum(1 for i in real if i.kind == kind and id(i) in right)
                               / max(sum(1 for i in real if i.kind == kind), 1), 4) for kind in VARIANTS}
        points.append(Operating(threshold, round((len(found) - wrong) / len(found), 4) if found else 1.0,
                                round(len(right) / max(len(real), 1), 4), len(found), wrong, by_kind))
    return points


def choose_threshold(points: Sequence[Operating], target: float = TARGET_PRECISION) -> Operating:
    """The lowest threshold whose precision reaches `target` (the highest threshold when none does)."""
    good = [p for p in points if p.precision >= target]
    return min(good, key=lambda p: p.threshold) if good else max(points, key=lambda p: p.threshold)


__all__ = ["FABRICATIONS", "TARGET_PRECISION", "THRESHOLDS", "VARIANTS", "CalibrationItem", "Operating",
           "calibration_set", "choose_threshold", "evaluate_thresholds"]
