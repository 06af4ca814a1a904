"""`sciwrite models [--profile P]`: every model role, which benchmark uses it, the model a run would load (and
where that id came from), its revision (the cached Hub snapshot's commit, or a packaged model's version) and why
this checkpoint: the paper's words, or that the choice is ours. The same resolution a run's model plan makes
(`sciwrite.models.plan`), without loading anything."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.tables import format_table, write_table
from sciwrite.models.plan import choose
from sciwrite.models.registry import PROFILES, ROLES, current_profile

#: Roles no benchmark's evaluation names, and what uses them.
OTHER_USES = {"dense_encoder": "dense retrieval"}


def model_rows(profile: str | None = None) -> list[dict[str, str | None]]:
    """One row per role, as `sciwrite models` prints it."""
    rows = []
    for name, role in ROLES.items():
        choice = choose(name, None, profile)
        users = [bench.name for bench in BENCHMARKS.values() if name in bench.suite.model_roles]
        paper = role.defaults.get("paper")
        if choice.model_id is None:
            why = f"none under {current_profile(profile)!r}: its metrics are reported not computed"
        elif choice.model_id == paper:
            why = role.basis
        else:
            why = f"{choice.why}, in place of the paper profile's {paper}"
        rows.append({"role": name, "used by": ", ".join(users) or OTHER_USES.get(name, ""),
                     "model": choice.model_id or "-", "source": choice.source or "-",
                     "revision": choice.revision or ("api" if role.api else "-"), "why": why,
                     "paper profile": f"{paper}: {role.basis}"})
    return rows


def cmd_models(args: argparse.Namespace) -> None:
    profile = current_profile(args.profile)
    rows = model_rows(profile)
    print(f"Model roles under the {profile!r} profile (override with --model ROLE=ID or SCIWRITE_MODEL_<ROLE>):\n")
    shown = ["role", "used by", "model", "source", "revision", "why"]
    print(format_table(rows, shown, left=len(shown)))
    print("\nWhy each paper-profile checkpoint (the paper's words, or our choice):")
    for row in rows:
        print(f"  {row['role']}: {row['paper profile']}")
    if args.out:
        json_path, csv_path = write_table(rows, args.out)
        print(f"\nwrote {json_path} and {csv_path}")


def add_models_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="every model role: benchmark, model id, revision and why (paper or our choice)")
    p.add_argument("--profile", choices=PROFILES, help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--out", metavar="STEM", help="also write the table to STEM.json and STEM.csv")
    p.set_defaults(func=cmd_models)
