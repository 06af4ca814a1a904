"""The on-disk embedding cache: hits and misses, keys, atomic shards under two writing processes, damaged files
skipped, merging, and the folder setting."""

from __future__ import annotations

import hashlib
import multiprocessing
import os

import numpy as np
import pytest

from sciwrite.models import embedding_cache
from sciwrite.models.embedding_cache import (
    CACHE_ENV,
    SUFFIX,
    EmbeddingCache,
    embedding_cache_dir,
    namespace_of,
    text_key,
    write_shard,
)

NAMESPACE = namespace_of("test-model", "weights-sha", 256, "mean")


def _vectors(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def test_hit_and_miss_within_a_process_and_after_a_flush(tmp_path):
    cache = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    keys = [text_key(NAMESPACE, t) for t in ("a", "b", "c")]
    vectors = _vectors(3)
    assert cache.get(keys) == {}
    cache.put(keys[:2], vectors[:2])
    found = cache.get(keys)
    assert set(found) == set(keys[:2]) and np.array_equal(found[keys[1]], vectors[1])
    assert not list(cache.folder.glob(f"*{SUFFIX}"))  # buffered until a flush
    cache.flush()
    assert len(list(cache.folder.glob(f"*{SUFFIX}"))) == 1
    again = EmbeddingCache(tmp_path, NAMESPACE, dim=8)  # what another process (or the next run) sees
    found = again.get(keys)
    assert set(found) == set(keys[:2])
    assert np.array_equal(found[keys[0]], vectors[0]) and found[keys[0]].dtype == np.float32


def test_a_reader_sees_shards_another_writer_adds_later(tmp_path):
    reader = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    writer = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    key = text_key(NAMESPACE, "late")
    assert reader.get([key]) == {}
    writer.put([key], _vectors(1))
    writer.flush()
    assert np.array_equal(reader.get([key])[key], _vectors(1)[0])


def test_keys_change_with_the_text_and_with_any_part_of_the_namespace():
    assert text_key(NAMESPACE, "neural network") != text_key(NAMESPACE, "neural networks")
    assert text_key(NAMESPACE, "x") == text_key(NAMESPACE, "x") and len(text_key(NAMESPACE, "x")) == 32
    other_weights = namespace_of("test-model", "other-weights-sha", 256, "mean")
    other_pooling = namespace_of("test-model", "weights-sha", 256, "cls")
    assert len({NAMESPACE, other_weights, other_pooling}) == 3
    assert text_key(NAMESPACE, "x") != text_key(other_weights, "x")
    assert namespace_of("ab", "c") != namespace_of("a", "bc")  # parts are length-prefixed


def test_flushing_the_same_rows_twice_writes_one_file(tmp_path):
    keys = [text_key(NAMESPACE, "a")]
    first = write_shard(tmp_path, keys, _vectors(1))
    assert write_shard(tmp_path, keys, _vectors(1)) == first
    assert len(list(tmp_path.glob(f"*{SUFFIX}"))) == 1


def test_damaged_partial_and_foreign_files_are_skipped(tmp_path, caplog):
    folder = tmp_path / NAMESPACE[:32]
    good_keys = [text_key(NAMESPACE, t) for t in ("good 1", "good 2")]
    write_shard(folder, good_keys, _vectors(2, seed=1))
    damaged_key, partial_key = text_key(NAMESPACE, "damaged"), text_key(NAMESPACE, "partial")
    damaged = write_shard(folder, [damaged_key], _vectors(1, seed=2))
    data = bytearray(damaged.read_bytes())
    data[-1] ^= 0xFF  # one flipped bit in a vector: the checksum no longer matches
    damaged.write_bytes(bytes(data))
    partial = write_shard(folder, [partial_key], _vectors(1, seed=3))
    partial.write_bytes(partial.read_bytes()[:-7])  # cut short
    (folder / f"{'0' * 64}{SUFFIX}").write_bytes(b"not a shard at all")
    (folder / f"{'1' * 64}{SUFFIX}").write_bytes(b"")
    cache = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    found = cache.get([*good_keys, damaged_key, partial_key])
    assert set(found) == set(good_keys)
    assert np.array_equal(found[good_keys[1]], _vectors(2, seed=1)[1])
    assert "checksum mismatch" in caplog.text and "skipping" in caplog.text
    assert EmbeddingCache(tmp_path, NAMESPACE, dim=16).get(good_keys) == {}  # another dimension: not ours


def test_many_shards_are_merged_into_one_when_opened(tmp_path, monkeypatch):
    monkeypatch.setattr(embedding_cache, "MAX_SHARDS", 3)
    folder = tmp_path / NAMESPACE[:32]
    keys = [text_key(NAMESPACE, f"text {i}") for i in range(6)]
    vectors = _vectors(6)
    for i in range(6):
        write_shard(folder, [keys[i]], vectors[i:i + 1])
    cache = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    assert len(list(folder.glob(f"*{SUFFIX}"))) == 1
    found = cache.get(keys)
    assert all(np.array_equal(found[k], v) for k, v in zip(keys, vectors))


def _write_from_a_process(root: str, worker: int, barrier, n: int) -> None:
    """Each process writes its own rows and rows both write, in many small shards, while the other does too."""
    cache = EmbeddingCache(root, NAMESPACE, dim=8, flush_rows=7)
    barrier.wait()
    for start in range(0, n, 10):
        texts = [f"shared {i}" for i in range(start, start + 10)]
        texts += [f"worker {worker} {i}" for i in range(start, start + 10)]
        cache.put([text_key(NAMESPACE, t) for t in texts], np.stack([_vector_of(t) for t in texts]))
    cache.flush()


def _vector_of(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")  # the same in every process
    return np.random.default_rng(seed).standard_normal(8).astype(np.float32)


def test_two_processes_writing_at_once_leave_a_consistent_cache(tmp_path):
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    n = 200
    workers = [context.Process(target=_write_from_a_process, args=(str(tmp_path), w, barrier, n)) for w in (0, 1)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(60)
        assert p.exitcode == 0
    folder = tmp_path / NAMESPACE[:32]
    assert not [f for f in os.listdir(folder) if f.startswith(".tmp-")]  # no temporary file left behind
    texts = [f"shared {i}" for i in range(n)] + [f"worker {w} {i}" for w in (0, 1) for i in range(n)]
    found = EmbeddingCache(tmp_path, NAMESPACE, dim=8).get([text_key(NAMESPACE, t) for t in texts])
    assert len(found) == len(texts)
    assert all(np.array_equal(found[text_key(NAMESPACE, t)], _vector_of(t)) for t in texts)


def test_the_folder_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("SCIWRITE_CACHE_DIR", str(tmp_path / "root"))
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert embedding_cache_dir() == tmp_path / "root" / "embeddings"
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "elsewhere"))
    assert embedding_cache_dir() == tmp_path / "elsewhere"
    for off in ("off", "0", "OFF", "none"):
        monkeypatch.setenv(CACHE_ENV, off)
        assert embedding_cache_dir() is None


def test_put_checks_its_arguments(tmp_path):
    cache = EmbeddingCache(tmp_path, NAMESPACE, dim=8)
    with pytest.raises(ValueError, match="2 keys but 1 vectors"):
        cache.put([text_key(NAMESPACE, "a"), text_key(NAMESPACE, "b")], _vectors(1))
    with pytest.raises(ValueError, match="keys of 32 bytes"):
        write_shard(tmp_path, [b"short"], _vectors(1))
