"""Agreement in a human study, per dimension: how far the people agree with each other, and, when a model answered
too (an ``llm:<model>`` annotator), how its answers compare with theirs.

- The **items** are the tasks: a pairwise task (one pair in one presentation order) coded A, B or tie as the
  annotator answered it, a rating task (one system's text) coded by its 1-5 rating. A pair's two orders are two
  items: each is a question every annotator answered on its own.
- **People**: Krippendorff's alpha (nominal for A/B/tie, ordinal for 1-5, with the scale as its value domain),
  its bootstrap interval over tasks, Cohen's kappa when exactly two people answered the dimension (unweighted for
  A/B/tie, linear-weighted for ratings), and their pairwise percent agreement. A model's answers never enter these.
- **A model beside the people**: its agreement with the people's majority (tasks whose top answers tie are left
  out and counted), and, the fair comparison, each person's agreement with the majority of the *other* people
  beside the model's agreement with those same majorities, and their difference with a paired interval. With two
  people "the others' majority" is the other person. Alpha with the model as one more annotator is shown too.

`sciwrite.stats_agreement` computes every figure; this module picks the answers and lays the figures out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciwrite.core.tables import MISSING_CELL, format_table, write_table
from sciwrite.human_eval.answers import LLM_ANNOTATOR_PREFIX, split_answers
from sciwrite.human_eval.study import CHOICES, PAIRWISE, STARS, HumanStudy
from sciwrite.stats_agreement import (
    INTERVAL_METHOD,
    KAPPA_WEIGHTS,
    NOMINAL,
    ORDINAL,
    agreement_with_majority,
    alpha_interval,
    cohen_kappa,
    leave_one_out,
    pairwise_agreement,
    reliability_matrix,
)

NAME = "agreement"
MODELS_NAME = "agreement_models"


@dataclass(frozen=True)
class Scale:
    """How a design's answers are coded for agreement: the level, the codes (the value domain) and the answer
    field read."""

    level: str
    domain: tuple[float, ...]
    unit: str

    def code(self, answer: Mapping[str, Any]) -> float:
        """An answer's numeric code: a choice's index, or the rating."""
        return float(CHOICES.index(answer["choice"])) if self.level == NOMINAL else float(answer["rating"])


def scale_of(design: str) -> Scale:
    """A/B/tie choices are nominal (coded 0, 1, 2); 1-5 ratings are ordinal."""
    if design == PAIRWISE:
        return Scale(NOMINAL, tuple(float(i) for i in range(len(CHOICES))), "A/B/tie per task")
    return Scale(ORDINAL, tuple(float(s) for s in STARS), "1-5 rating per task")


def _codes(answers: Sequence[Mapping[str, Any]], dimension: str, scale: Scale) -> dict[str, dict[str, float]]:
    """annotator -> task_id -> code, on `dimension`."""
    out: dict[str, dict[str, float]] = {}
    for answer in answers:
        if answer["dimension"] == dimension:
            out.setdefault(answer["annotator"], {})[answer["task_id"]] = scale.code(answer)
    return out


def _share_row(share: Any, prefix: str) -> dict[str, Any]:
    return {f"{prefix}{'' if k == 'share' else '_' + k}": v for k, v in asdict(share).items()}


def study_agreement(study: HumanStudy, answers: Sequence[Mapping[str, Any]], n_resamples: int = 1000,
                    confidence: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """How far a study's annotators agree, per dimension, and how any model annotator compares with them.

    People's answers give Krippendorff's alpha with its bootstrap interval over tasks, Cohen's kappa when exactly
    two people answered, and their pairwise agreement; a model's answers (an ``llm:<model>`` annotator) never
    enter those and are compared with the people's majorities instead. Each dimension draws its bootstrap from
    ``default_rng([seed, its position])``, so one dimension's interval does not depend on the others'.

    Args:
        study: The study the answers belong to.
        answers: The answers, people's and models' (`read_answers`).
        n_resamples: Bootstrap resamples.
        confidence: The intervals' coverage.
        seed: The bootstrap's seed.

    Returns:
        ``people`` (a row per answered dimension), ``models`` (a row per dimension and model) and how the figures
        were computed; `format_agreement` prints it, `write_agreement` writes it.
    """
    scale = scale_of(study.design)
    people, models = split_answers(answers)
    model_ids = sorted({a["annotator"] for a in models})
    people_rows, model_rows = [], []
    for position, dimension in enumerate(study.dimensions):
        human = _codes(people, dimension.key, scale)
        machine = _codes(models, dimension.key, scale)
        if not human and not machine:
            continue  # a dimension nobody answered
        annotators = sorted(human)
        tasks = sorted({t for codes in (*human.values(), *machine.values()) for t in codes})
        matrix = reliability_matrix(human, annotators, tasks)
        rng_seed = [seed, position]
        alpha = alpha_interval(matrix, scale.level, scale.domain, n_resamples, confidence, rng_seed)
        kappa = (cohen_kappa(matrix[0], matrix[1], scale.level, scale.domain) if len(annotators) == 2 else None)
        pairwise = pairwise_agreement(matrix, n_resamples, confidence, rng_seed)
        people_rows.append({"dimension": dimension.key, "name": dimension.name, "level": scale.level,
                            "annotators": len(annotators), "items": alpha.n_items, "alpha": alpha.alpha,
                            "alpha_low": alpha.low, "alpha_high": alpha.high,
                            "kappa": None if kappa is None else kappa.kappa,
                            "kappa_items": None if kappa is None else kappa.n_items,
                            "kappa_weights": None if kappa is None else kappa.weights or "unweighted",
                            **_share_row(pairwise, "pairwise")})
        for model in model_ids:
            if model not in machine:
                continue
            answers_of = reliability_matrix(machine, [model], tasks)[0]
            versus = agreement_with_majority(answers_of, matrix, n_resamples, confidence, rng_seed)
            fair = leave_one_out(matrix, answers_of, n_resamples, confidence, rng_seed)
            with_model = alpha_interval(np.vstack([matrix, answers_of]), scale.level, scale.domain, 0)
            model_rows.append({"dimension": dimension.key, "name": dimension.name, "model": model,
                               "people": len(annotators), **_share_row(versus, "majority"),
                               **_share_row(fair.humans, "people_vs_others"),
                               **_share_row(fair.model, "model_vs_others"),
                               "difference": fair.difference, "difference_low": fair.difference_low,
                               "difference_high": fair.difference_high, "alpha_people": alpha.alpha,
                               "alpha_with_model": with_model.alpha})
    return {"level": scale.level, "unit": scale.unit, "kappa_weights": KAPPA_WEIGHTS[scale.level] or "unweighted",
            "interval_method": INTERVAL_METHOD, "n_resamples": n_resamples, "confidence": confidence, "seed": seed,
            "model_prefix": LLM_ANNOTATOR_PREFIX, "model_annotators": model_ids,
            "people_annotators": sorted({a["annotator"] for a in people}), "people": people_rows,
            "models": model_rows}


def _number(value: float | None, decimals: int = 3) -> str:
    return MISSING_CELL if value is None else f"{value:.{decimals}f}"


def _interval(low: float | None, high: float | None, percent: bool = False) -> str:
    if low is None or high is None:
        return MISSING_CELL
    return f"[{100 * low:.1f}, {100 * high:.1f}]" if percent else f"[{low:.3f}, {high:.3f}]"


def _percent(row: Mapping[str, Any], prefix: str) -> str:
    """"71.7% [60.0, 81.7] (43/60)" of a share's fields under `prefix`."""
    share = row[prefix]
    if share is None:
        return f"{MISSING_CELL} (0/0)"
    return (f"{100 * share:.1f}% {_interval(row[prefix + '_low'], row[prefix + '_high'], True)} "
            f"({row[prefix + '_agree']}/{row[prefix + '_n']})")


def _method(report: Mapping[str, Any]) -> str:
    level = f"{100 * report['confidence']:g}%"
    return (f"{level} CI: percentile bootstrap over tasks, {report['n_resamples']} resamples, seed "
            f"{report['seed']}")


def people_table(report: Mapping[str, Any]) -> str:
    """The people's agreement per dimension, as printed."""
    rows = [{"dimension": r["name"], "people": str(r["annotators"]), "tasks": str(r["items"]),
             "alpha": _number(r["alpha"]), "alpha 95% CI": _interval(r["alpha_low"], r["alpha_high"]),
             "Cohen's kappa": (MISSING_CELL if r["kappa_weights"] is None else
                               f"{_number(r['kappa'])} ({r['kappa_weights']}, {r['kappa_items']} tasks)"),
             "pairwise agreement": _percent(r, "pairwise")} for r in report["people"]]
    return format_table(rows)


def models_table(report: Mapping[str, Any]) -> str:
    """Each model beside the people, per dimension, as printed."""
    rows = [{"dimension": r["name"], "model": r["model"], "model vs people's majority": _percent(r, "majority"),
             "ties": str(r["majority_ties"]), "people vs others' majority": _percent(r, "people_vs_others"),
             "model vs the same majorities": _percent(r, "model_vs_others"),
             "model - people": (MISSING_CELL if r["difference"] is None else
                                f"{100 * r['difference']:+.1f} pts "
                                f"{_interval(r['difference_low'], r['difference_high'], True)}"),
             "alpha people": _number(r["alpha_people"]), "alpha with model": _number(r["alpha_with_model"])}
            for r in report["models"]]
    return format_table(rows, left=2)


def format_agreement(report: Mapping[str, Any]) -> str:
    """The agreement report as `sciwrite human-eval analyze` prints it: the people's table, then the models'."""
    people = report["people_annotators"]
    lines = [f"Agreement among the people ({len(people)} annotator(s); Krippendorff's alpha, {report['level']}, "
             f"{report['unit']}; {_method(report)}):", ""]
    if not report["people"]:
        lines.append("no answers")
    else:
        lines.append(people_table(report))
    lines.append(f"- Cohen's kappa: when exactly two people answered a dimension, on the tasks both answered "
                 f"({report['kappa_weights']}). Pairwise agreement: every two people on the tasks both answered. "
                 f"Answers of {report['model_prefix']}<model> annotators are not in these figures.")
    if report["models"]:
        lines += ["", f"Models beside the people ({', '.join(report['model_annotators'])}; {_method(report)}):", "",
                  models_table(report),
                  "- model vs people's majority: the tasks whose people's answers have a unique majority (ties: "
                  "tasks left out because the top answers tie).",
                  "- people vs others' majority: each person against the majority of the other people (with two "
                  "people, the other one); the model against those very majorities; model - people: the "
                  "difference, with a paired bootstrap interval over tasks.",
                  "- alpha with model: the people's alpha with the model added as one more annotator."]
    return "\n".join(lines)


def alpha_notes(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The lines printed under Table 5 from its ``table5.json``'s ``agreement`` (none when it has none): the
    people's alpha per dimension, with kappa for two people, and each model's agreement with their majority."""
    report = data.get("agreement")
    if not isinstance(report, Mapping) or not report.get("people"):
        return ()
    lines = [f"- Agreement among the people (Krippendorff's alpha, {report['level']}, {report['unit']}; "
             f"{_method(report)}; {report['model_prefix']}<model> answers excluded):"]
    for r in report["people"]:
        kappa = ("" if r.get("kappa_weights") is None else
                 f"; Cohen's kappa {_number(r['kappa'])} ({r['kappa_weights']})")
        lines.append(f"  {r['name']}: alpha {_number(r['alpha'])} {_interval(r['alpha_low'], r['alpha_high'])}"
                     f" ({r['annotators']} people, {r['items']} tasks){kappa}")
    for r in report.get("models") or ():
        lines.append(f"  {r['name']}: {r['model']} agrees with the people's majority {_percent(r, 'majority')}; "
                     f"people with the others' majority {_percent(r, 'people_vs_others')}, the model with the "
                     f"same {_percent(r, 'model_vs_others')}")
    return tuple(lines)


def write_agreement(report: Mapping[str, Any], out: str | Path) -> list[Path]:
    """``<out>/agreement.json`` (the whole report) and ``<out>/agreement.csv`` (the people's rows); when a model
    answered, ``<out>/agreement_models.json`` and ``.csv`` (its rows)."""
    out = Path(out)
    paths = list(write_table(report["people"], out / NAME))
    paths[0].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if report["models"]:
        paths += write_table(report["models"], out / MODELS_NAME)
    return paths


__all__ = ["MODELS_NAME", "NAME", "Scale", "alpha_notes", "format_agreement", "models_table", "people_table",
           "scale_of", "study_agreement", "write_agreement"]
