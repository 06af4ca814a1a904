"""One local Ray (2 CPUs) for the whole session, started on first use; the tests skip when Ray is missing. The tests
that use it share one file (`test_ray_equals_one_process.py`), so under `make test`'s two workers (``--dist
loadfile``) one worker starts it."""

from __future__ import annotations

import logging

import pytest

from sciwrite.core.engine import ray_available

RAY_MISSING = "the Ray engine needs Ray Data: install sciwrite[scale] (pip install 'ray[data]')"


@pytest.fixture(autouse=True, scope="module")
def _no_embedding_cache():
    """Both engines encode every text for real: no on-disk embedding cache serves the second one what the first
    computed (the variable reaches the actors with the rest of the driver's environment)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCIWRITE_EMBEDDING_CACHE", "off")
        yield


@pytest.fixture(scope="session")
def local_ray():
    """`ray`, initialised with 2 CPUs and no dashboard; shut down at the end of the session."""
    if not ray_available():
        pytest.skip(RAY_MISSING)
    ray = pytest.importorskip("ray", reason=RAY_MISSING)
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def engine(local_ray):
    """The Ray engine's functions (`sciwrite.scale.ray_engine`)."""
    from sciwrite.core.engine import ray_engine

    return ray_engine()
