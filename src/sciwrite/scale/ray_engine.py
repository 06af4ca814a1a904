"""The Ray engine's entry points, imported by name through `sciwrite.core.engine.ray_engine` (this module imports
``ray``): building a dense index and scoring any benchmark's papers on Ray Data."""

from __future__ import annotations

from sciwrite.scale.ray_evaluate import score_on_ray
from sciwrite.scale.ray_index import build_dense_index

__all__ = ["build_dense_index", "score_on_ray"]
