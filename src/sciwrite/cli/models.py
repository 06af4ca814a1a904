"""`sciwrite models [--profile P]`: every model role, which benchmark uses it, the model a run would load (and
where that id came from), its revision (the cached Hub snapshot's commit, or a packaged model's version) and why
this checkpoint: the paper's words, or that the choice is ours. The same resolution a run's model plan makes
(`sciwrite.models.plan`), without loading anything."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.flags import PROFILE, TABLE_OUT
from sciwrite.core.tables import format_table, write_table
from sciwrite.models.plan import choose
from sciwrite.models.registry import SHARED_ROLES, ModelRole, current_profile, role_table


def every_role() -> dict[str, ModelRole]:
    """Every model role by name: shared code's (`SHARED_ROLES`), then each benchmark's in its declaration order; a
    role two benchmarks declare is listed once (they must declare the same facts: `role_table`)."""
    return role_table([*SHARED_ROLES, *(role for bench in BENCHMARKS.values() for role in bench.suite.roles)])


def model_rows(profile: str | None = None) -> list[dict[str, str]]:
    """One row per role, as `sciwrite models` prints it."""
    rows = []
    uses = {role.name: use for role, use in SHARED_ROLES.items()}
    for name, role in every_role().items():
        choice = choose(role, None, profile)
        users = [bench.name for bench in BENCHMARKS.values() if name in bench.suite.model_roles]
        paper = role.defaults.get("paper")
        if choice.model_id is None:
            why = f"none under {current_profile(profile)!r}: its metrics are reported not computed"
        elif choice.model_id == paper:
            why = role.basis
        else:
            why = f"{choice.why}, in place of the paper profile's {paper}"
        rows.append({"role": name, "used by": ", ".join(users) or uses.get(name, ""),
                     "model": choice.model_id or "-", "source": choice.source or "-",
                     "revision": choice.revision or ("api" if role.api else "-"), "why": why,
                     "paper profile": f"{paper}: {role.basis}"})
    return rows


def cmd_models(args: argparse.Namespace) -> None:
    profile = current_profile(args.profile)
    rows = model_rows(profile)
    print(f"Model roles under the {profile!r} profile (override with --model-role ROLE=ID or SCIWRITE_MODEL_<ROLE>):\n")
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
    PROFILE.add(p)
    TABLE_OUT.add(p)
    p.set_defaults(func=cmd_models)
