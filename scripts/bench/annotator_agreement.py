"""Krippendorff's alpha of a simulated annotation study with a known agreement level: does `sciwrite.stats_agreement`
recover it, and do its bootstrap intervals cover it?

The model: every item has a latent true answer, uniform over the scale (A/B/tie: 3 values, nominal; 1-5 stars:
5 values, ordinal). Each annotator, independently on each item, copies the true answer with probability p, else
answers uniformly at random over the scale.

Expected alpha, analytically: two annotators answer the same item identically-by-copying with probability p^2;
otherwise at least one of them answered at random, independently of the other's answer, and since the latent
answer is uniform, so is every marginal, so the pair is then distributed exactly as two independent draws from
the marginal. The observed disagreement is therefore (1 - p^2) times the expected one, for any distance (nominal
or ordinal alike), and alpha = 1 - D_o / D_e = p^2 (up to alpha's small-sample correction). A large simulation
(`--large` items) checks it.

For each scale and p the script prints the expected alpha, the large simulation's, one study of `--items` items
(alpha and its 95% percentile bootstrap interval over items), and the share of `--studies` independent studies
whose interval covers p^2.

    .venv/bin/python scripts/bench/annotator_agreement.py                 # 200 items, 3 annotators
    .venv/bin/python scripts/bench/annotator_agreement.py --studies 0     # no coverage run (seconds)
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from sciwrite.core.tables import format_table
from sciwrite.stats_agreement import NOMINAL, ORDINAL, alpha, alpha_interval

#: (scale name, level, values)
SCALES = (("A/B/tie", NOMINAL, (0.0, 1.0, 2.0)), ("1-5 stars", ORDINAL, (1.0, 2.0, 3.0, 4.0, 5.0)))


def simulate(rng: np.random.Generator, values: tuple[float, ...], p: float, annotators: int, items: int) -> np.ndarray:
    """The annotators x items matrix of the model (see the module)."""
    domain = np.asarray(values)
    truth = rng.choice(domain, size=items)
    copies = rng.random((annotators, items)) < p
    return np.where(copies, truth, rng.choice(domain, size=(annotators, items)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200, help="items of one study (default 200)")
    parser.add_argument("--annotators", type=int, default=3, help="annotators (default 3)")
    parser.add_argument("--p", type=float, nargs="+", default=[0.5, 0.7, 0.9], help="copy probabilities")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--large", type=int, default=50_000, help="items of the large simulation (default 50000)")
    parser.add_argument("--studies", type=int, default=200,
                        help="independent studies for the coverage of the intervals (default 200; 0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the rows as JSON here")
    args = parser.parse_args()

    rows, started = [], time.perf_counter()
    for s, (name, level, values) in enumerate(SCALES):
        for k, p in enumerate(args.p):
            rng = np.random.default_rng([args.seed, s, k])
            large = alpha(simulate(rng, values, p, args.annotators, args.large), level, values)
            study = alpha_interval(simulate(rng, values, p, args.annotators, args.items), level, values,
                                   args.resamples, seed=[args.seed, s, k])
            covered = [(r.low <= p * p <= r.high) for i in range(args.studies)
                       if (r := alpha_interval(simulate(rng, values, p, args.annotators, args.items), level, values,
                                               args.resamples, seed=[args.seed, s, k, i])).low is not None]
            rows.append({"scale": f"{name} ({level})", "p": f"{p:g}", "expected alpha": f"{p * p:.3f}",
                         f"large simulation ({args.large} items)": f"{large:.3f}",
                         f"one study ({args.items} items)": f"{study.alpha:.3f}",
                         "95% CI": f"[{study.low:.3f}, {study.high:.3f}]", "CI width": f"{study.high - study.low:.3f}",
                         "coverage of p^2": (f"{100 * np.mean(covered):.1f}% of {len(covered)}" if covered else "-")})
    print(f"Krippendorff's alpha of a simulated study: {args.annotators} annotators, each copying a latent uniform "
          f"answer with probability p, else answering uniformly at random; expected alpha = p^2.\n"
          f"One study: {args.items} items, 95% percentile bootstrap interval over items ({args.resamples} "
          f"resamples). Coverage: the share of {args.studies} independent studies whose "
          f"interval holds p^2.\n")
    print(format_table(rows, left=1))
    print(f"\n{time.perf_counter() - started:.1f} s")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
