"""Sizing the actor pools: one actor per GPU when the cluster has GPUs, CPU actors otherwise."""

from __future__ import annotations

import pytest

from sciwrite.core.engine import ray_available

pytestmark = pytest.mark.skipif(not ray_available(), reason="the Ray engine needs sciwrite[scale]")


@pytest.fixture
def session(monkeypatch):
    from sciwrite.scale import ray_session

    monkeypatch.setenv("SCIWRITE_PROFILE", "lite")
    monkeypatch.setenv("SOME_OTHER_VARIABLE", "x")
    return ray_session


def test_one_actor_per_gpu(session, monkeypatch):
    monkeypatch.setattr(session.ray, "cluster_resources", lambda: {"CPU": 64.0, "GPU": 4.0})
    options = session.actor_options()
    assert options["num_gpus"] == 1 and "num_cpus" not in options and session.pool_size(options) == 4
    assert session.pool_size(session.actor_options(actors=2)) == 2
    env = options["runtime_env"]["env_vars"]
    assert env["SCIWRITE_PROFILE"] == "lite" and "SOME_OTHER_VARIABLE" not in env


def test_cpu_actors_without_gpus(session, monkeypatch):
    monkeypatch.setattr(session.ray, "cluster_resources", lambda: {"CPU": 2.0})
    options = session.actor_options()
    assert options["num_cpus"] == 1 and "num_gpus" not in options and session.pool_size(options) == 2
    elastic = session.actor_options(elastic=True)["compute"]
    assert (elastic.min_size, elastic.max_size) == (1, 2)  # reading tasks get a CPU before the pool grows
    with pytest.raises(ValueError, match="at least one actor"):
        session.actor_options(actors=0)


def test_an_actor_error_keeps_its_message(session):
    text = ("ray::MapWorker(MapBatches(F)).submit() (pid=1)\n  File \"x.py\", line 5, in __call__\n"
            "ValueError: corpus record (doc_id 'x') has no title and no abstract to index\n\nThe above exception was "
            "the direct cause of the following exception:\n\nray.exceptions.UserCodeException: UDF failed to process")
    assert session.actor_error(RuntimeError(text)) == \
        "ValueError: corpus record (doc_id 'x') has no title and no abstract to index"
    assert session.actor_error(RuntimeError("ray.exceptions.UserCodeException: UDF failed")) == \
        "ray.exceptions.UserCodeException: UDF failed"
