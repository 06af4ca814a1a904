"""A content-addressed on-disk cache of text embeddings, shared by every run and process on the machine.

A vector is stored under ``sha256(namespace, text)``, where the namespace names everything that decides the
vector besides the text: the model (its id and a fingerprint of its weights, config and tokenizer), the pooling
and normalisation, the backend that runs it. A new model, new weights or another text is a new key, so nothing is
ever invalidated by hand and a stale vector cannot be read back.

On disk a namespace is a folder of immutable shard files, each holding many (key, vector) rows::

    <root>/<namespace[:32]>/<sha256 of the payload>.emb
    magic (8 bytes) | n (uint64) | dim (uint32) | sha256 of the payload (32 bytes)
    | keys (n x 32 bytes) | vectors (n x dim float32, little-endian)

Writers never change a file: a shard is written to a temporary file in the same folder and moved into place with
`os.replace` (atomic on POSIX), so a reader sees a whole shard or none. A file whose size or checksum does not
match its header (a crash on a filesystem without ordered writes, a disk error, a stray file) is skipped, never
read as vectors. Concurrent runs therefore need no lock: two processes writing the same vectors write the same
file name (content addressing), different vectors different files. When a namespace holds too many shards, the
next process that opens it merges them into one (written the same atomic way, then the old files removed; a
reader that loses a race to a removed file just sees a miss and reloads the folder).
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import mmap
import os
import struct
import tempfile
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from sciwrite.core.paths import cache_root

logger = logging.getLogger(__name__)

#: Environment variable naming the cache folder; ``off`` (or ``0``, ``none``, ``false``) disables the cache.
CACHE_ENV = "SCIWRITE_EMBEDDING_CACHE"
OFF_VALUES = ("off", "0", "none", "false", "no")
MAGIC = b"SWEMB01\n"
_HEADER = struct.Struct("<8sQI32s")
KEY_BYTES = 32
SUFFIX = ".emb"
#: Rows buffered in memory before a shard is written (a few large shards, not one file per encoder call).
FLUSH_ROWS = 65536
#: A namespace with more shard files than this is merged into one when a process opens it.
MAX_SHARDS = 32


def embedding_cache_dir() -> Path | None:
    """``$SCIWRITE_EMBEDDING_CACHE`` (None when it says ``off``), else ``<cache_root()>/embeddings``."""
    named = os.environ.get(CACHE_ENV)
    if named is not None and named.strip().lower() in OFF_VALUES:
        return None
    return Path(named) if named else cache_root() / "embeddings"


def namespace_of(*parts: object) -> str:
    """A stable hex digest of everything that decides a vector besides its text (model identity, settings)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def text_key(namespace: str, text: str) -> bytes:
    """The 32-byte key of `text` under `namespace`."""
    return hashlib.sha256(namespace.encode("ascii") + b"\0" + text.encode("utf-8", "surrogatepass")).digest()


class _Shard:
    """One validated, memory-mapped shard file: its keys and a read-only view of its vectors."""

    def __init__(self, path: Path, dim: int) -> None:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < _HEADER.size:
                raise ValueError("shorter than its header")
            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        magic, n, file_dim, checksum = _HEADER.unpack_from(self.map, 0)
        payload = memoryview(self.map)[_HEADER.size:]
        if magic != MAGIC or file_dim != dim or len(payload) != n * (KEY_BYTES + 4 * dim):
            raise ValueError(f"header does not match (magic {magic!r}, dim {file_dim}, {n} rows, {len(payload)} bytes)")
        if hashlib.sha256(payload).digest() != checksum:
            raise ValueError("checksum mismatch")
        self.keys = [bytes(payload[i * KEY_BYTES:(i + 1) * KEY_BYTES]) for i in range(n)]
        self.vectors = np.frombuffer(self.map, dtype="<f4", count=n * dim, offset=_HEADER.size + n * KEY_BYTES)
        self.vectors = self.vectors.reshape(n, dim)


def write_shard(folder: Path, keys: Sequence[bytes], vectors: np.ndarray) -> Path:
    """Write one shard atomically (temporary file + `os.replace`); its name is the sha256 of its payload."""
    vectors = np.ascontiguousarray(vectors, dtype="<f4")
    if len(keys) != len(vectors) or any(len(k) != KEY_BYTES for k in keys):
        raise ValueError(f"{len(keys)} keys of {KEY_BYTES} bytes expected for {len(vectors)} vectors")
    payload = b"".join(keys) + vectors.tobytes()
    checksum = hashlib.sha256(payload).digest()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{checksum.hex()}{SUFFIX}"
    if target.exists():  # the same rows are already there (content addressing)
        return target
    handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(_HEADER.pack(MAGIC, len(keys), vectors.shape[1], checksum))
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


class EmbeddingCache:
    """The vectors of one namespace: `get` what is there, `put` new ones (buffered; `flush` writes them).

    Reads see every shard written so far by any process: a lookup that misses rescans the folder once.
    """

    def __init__(self, root: str | Path, namespace: str, dim: int, flush_rows: int = FLUSH_ROWS) -> None:
        self.folder = Path(root) / namespace[:32]
        self.dim = int(dim)
        self.flush_rows = flush_rows
        self._index: dict[bytes, tuple[_Shard, int]] = {}
        self._seen: set[str] = set()
        self._pending: dict[bytes, np.ndarray] = {}
        self._merge_if_many()
        self._scan()
        _OPEN.add(self)

    def _scan(self) -> None:
        """Load the shards written since the last scan; unreadable or invalid files are skipped."""
        try:
            names = {e.name for e in os.scandir(self.folder) if e.name.endswith(SUFFIX) and not e.name.startswith(".")}
        except FileNotFoundError:
            return
        for name in sorted(names - self._seen):
            self._seen.add(name)
            try:
                shard = _Shard(self.folder / name, self.dim)
            except (OSError, ValueError) as err:  # removed by a merge, partial, corrupted, or not ours
                logger.warning("embedding cache: skipping %s (%s)", self.folder / name, err)
                continue
            for row, key in enumerate(shard.keys):
                self._index.setdefault(key, (shard, row))

    def _merge_if_many(self) -> None:
        """Merge the namespace's shards into one when there are more than `MAX_SHARDS` (fewer files to open)."""
        try:
            paths = [p for p in self.folder.glob(f"*{SUFFIX}") if not p.name.startswith(".")]
        except OSError:
            return
        if len(paths) <= MAX_SHARDS:
            return
        keys: dict[bytes, np.ndarray] = {}
        merged: list[Path] = []
        for path in sorted(paths):
            try:
                shard = _Shard(path, self.dim)
            except (OSError, ValueError):
                continue
            merged.append(path)
            for row, key in enumerate(shard.keys):
                keys.setdefault(key, np.array(shard.vectors[row]))
        if not keys:
            return
        target = write_shard(self.folder, list(keys), np.stack(list(keys.values())))
        for path in merged:
            if path != target:
                path.unlink(missing_ok=True)

    def __len__(self) -> int:
        return len(self._index) + sum(k not in self._index for k in self._pending)

    def get(self, keys: Iterable[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vector of each key that has one (copies, safe to keep)."""
        keys = list(keys)
        if any(k not in self._index and k not in self._pending for k in keys):
            self._scan()
        found = {}
        for key in keys:
            if key in self._pending:
                found[key] = self._pending[key]
            elif key in self._index:
                shard, row = self._index[key]
                found[key] = np.array(shard.vectors[row])
        return found

    def put(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Remember new vectors; they are written to disk once `flush_rows` are pending, or on `flush`."""
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys but {len(vectors)} vectors")
        for key, vector in zip(keys, vectors):
            if key not in self._index:
                self._pending[key] = np.asarray(vector, dtype=np.float32)
        if len(self._pending) >= self.flush_rows:
            self.flush()

    def flush(self) -> None:
        """Write the pending vectors as one shard (nothing when none are pending)."""
        if not self._pending:
            return
        keys = list(self._pending)
        try:
            write_shard(self.folder, keys, np.stack([self._pending[k] for k in keys]))
        except OSError as err:  # a full or read-only disk loses the cache, never the run
            logger.warning("embedding cache: could not write to %s (%s)", self.folder, err)
            return
        self._pending.clear()
        self._scan()


_OPEN: weakref.WeakSet[EmbeddingCache] = weakref.WeakSet()


@atexit.register
def _flush_open_caches() -> None:
    """Vectors still buffered when the process ends are written then (a normal exit or an exception)."""
    for cache in list(_OPEN):
        cache.flush()
