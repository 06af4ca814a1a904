"""The Ray Data engine (`sciwrite.scale`, ``sciwrite[scale]``) against one process, on this machine.

What it measures
----------------
(a) ``encode``: encode + index throughput (docs/s) of ``build_dense_index`` on Ray (a local Ray of ``--cpus``
    CPUs, ``--actors`` encoder actors, the packaged all-MiniLM-L6-v2) against ``DenseRetriever.from_corpus`` in
    one process, on the offline sample's corpus (built in a temporary folder from the packaged aclsum papers).
    Both wall times include loading the encoder (once; on Ray once per actor, plus the actors' start-up), so
    they are what a user waits for. The two indexes are checked equal (doc_ids, vectors within 1e-5).
(b) ``memory``: the driver's peak RSS while building a ``Flat`` index of a synthetic corpus of ``--n-docs``
    rows (default 1,091,394: the full RWGBench corpus size) on Ray, written as RWGBench parquet files of 100k
    rows. The encoder is small so that this fits 2 CPUs: a random BERT (hidden size 32, one layer, MiniLM's
    tokenizer, mean pooling, ``max_seq_length`` 32) built from a config and saved as a sentence-transformers
    folder, loaded by path like any encoder: the code path is the real one, the vectors mean nothing. Sampled every
    0.2 s in the driver process, which does nothing but the build (a fresh spawned process); the RSS of the
    single-process path on the same corpus is measured the same way when ``--memory-single`` is given.
(c) ``evaluate``: RWGBench evaluation throughput (papers/s) of the scoring core (``evaluate_files``) with the ``lite``
    profile, every metric, the references as predictions, no bootstrap, on the offline sample: ``--engine ray``
    against one process; the summaries are checked equal.

How to run
----------
    .venv/bin/python scripts/bench/ray_scale.py --parts encode evaluate --out /tmp/ray_scale.json
    nohup .venv/bin/python scripts/bench/ray_scale.py --parts memory --out /tmp/ray_memory.json \
        > /tmp/ray_memory.log 2>&1 &

The figures depend on the load of the machine: the output records the load average before each part.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every text is encoded for real in both paths: no on-disk embedding cache (it would serve the second run).
os.environ.setdefault("SCIWRITE_EMBEDDING_CACHE", "off")

import numpy as np
import psutil
import pyarrow as pa
import pyarrow.parquet as pq

from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path

GIB = 1024 ** 3
FULL_CORPUS = 1_091_394


class PeakRSS:
    """The RSS high-water mark of this process, sampled by a thread every `interval` seconds."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval, self.peak, self._stop = interval, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        process = psutil.Process()
        while not self._stop.is_set():
            self.peak = max(self.peak, process.memory_info().rss / GIB)
            time.sleep(self.interval)

    def __enter__(self) -> "PeakRSS":
        self.baseline = psutil.Process().memory_info().rss / GIB
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, psutil.Process().memory_info().rss / GIB)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def sample_folder(root: Path) -> Path:
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder

    folder = root / "rwgbench_sample"
    if not (folder / "README.md").exists():
        write_sample_folder(folder, show_progress=False)
    return folder


def start_ray(cpus: int) -> Any:
    import logging

    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.WARNING)
    return ray


# --- (a) encode + index throughput ------------------------------------------------------------------------


def bench_encode(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    from sciwrite.core.engine import ray_engine
    from sciwrite.retrieval import DenseRetriever
    from sciwrite.rwgbench.data.corpus_files import corpus_files
    from sciwrite.rwgbench.data.loading import load_rwgbench

    folder = sample_folder(root)
    corpus = load_rwgbench("sample_corpus", source=folder)
    result: dict[str, Any] = {"corpus": "offline sample corpus", "n_docs": len(corpus), "encoder": PACKAGED_MINILM,
                              "load_before": load()}
    start = time.perf_counter()
    single = DenseRetriever.from_corpus(corpus, encoder=PACKAGED_MINILM, show_progress=False)
    result["single_s"] = round(time.perf_counter() - start, 2)
    start_ray(args.cpus)
    start = time.perf_counter()
    on_ray = ray_engine().build_dense_index(corpus_files("sample_corpus", folder), root / "ray_index",
                                            encoder=PACKAGED_MINILM, actors=args.actors, show_progress=False)
    result["ray_s"] = round(time.perf_counter() - start, 2)
    result["single_docs_per_s"] = round(len(corpus) / result["single_s"], 1)
    result["ray_docs_per_s"] = round(len(corpus) / result["ray_s"], 1)
    result["ray_over_single"] = round(result["ray_docs_per_s"] / result["single_docs_per_s"], 2)
    same = on_ray.doc_ids == single.doc_ids
    diff = float(np.abs(on_ray.index.reconstruct_n(0, len(corpus)) - single.index.reconstruct_n(0, len(corpus))).max())
    result.update(same_doc_ids=same, max_abs_vector_diff=diff)
    return result


# --- (b) driver memory at the full corpus size --------------------------------------------------------------


def small_encoder(folder: Path) -> Path:
    """A random BERT with hidden size 32 and one layer over MiniLM's tokenizer, mean pooling, normalisation,
    ``max_seq_length`` 32, saved as a sentence-transformers model folder."""
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, BertConfig, BertModel

    target = folder / "tiny-random-bert-encoder"
    if (target / "modules.json").exists():
        return target
    bert_dir = folder / "tiny-random-bert"
    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(bert_dir)
    tokenizer.save_pretrained(bert_dir)
    word = models.Transformer(str(bert_dir), max_seq_length=32)
    pooling = models.Pooling(word.get_word_embedding_dimension(), "mean")
    SentenceTransformer(modules=[word, pooling, models.Normalize()], device="cpu").save(str(target))
    return target


def synthetic_corpus(folder: Path, n_docs: int, rows_per_file: int = 100_000, seed: int = 0) -> Path:
    """An RWGBench dataset folder with one config, ``corpus``: `n_docs` rows of short random titles and
    abstracts (words of MiniLM's vocabulary), in parquet files of `rows_per_file` rows."""
    from sciwrite.rwgbench.data.configs import card_configs_yaml

    target = folder / f"synthetic_corpus_{n_docs}"
    if (target / "README.md").exists():
        return target
    vocab = [w for w in (Path(packaged_model_path(PACKAGED_MINILM)) / "vocab.txt").read_text().split()
             if w.isalpha() and len(w) > 2]
    rng = np.random.default_rng(seed)
    n_files = math.ceil(n_docs / rows_per_file)
    for k in range(n_files):
        start, stop = k * rows_per_file, min(n_docs, (k + 1) * rows_per_file)
        words = rng.integers(0, len(vocab), size=(stop - start, 24))
        titles = [" ".join(vocab[i] for i in row[:6]) for row in words]
        abstracts = [" ".join(vocab[i] for i in row[6:]) for row in words]
        path = target / "corpus" / f"train-{k:05d}-of-{n_files:05d}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        n = stop - start
        table = pa.table({"doc_id": pa.array([f"syn{i:07d}" for i in range(start, stop)]), "title": titles,
                          "abstract": abstracts, "authors": pa.array([["A. Author"]] * n, pa.list_(pa.string())),
                          "year": pa.array([2020] * n, pa.int32()), "source": pa.array(["synthetic"] * n)})
        pq.write_table(table, path)
    (target / "README.md").write_text(f"---\n{card_configs_yaml(['corpus'])}---\nSynthetic corpus.\n")
    return target


def _memory_child(engine: str, folder: str, encoder: str, out: str, cpus: int, actors: int | None) -> None:
    """Build the index in this fresh process and write its RSS figures to `out`."""
    from sciwrite.retrieval import DenseRetriever
    from sciwrite.rwgbench.data.corpus_files import corpus_files

    files = corpus_files("corpus", folder)
    result: dict[str, Any] = {"engine": engine}
    with PeakRSS() as rss:
        start = time.perf_counter()
        if engine == "ray":
            from sciwrite.core.engine import ray_engine

            start_ray(cpus)
            index = ray_engine().build_dense_index(files, Path(out).parent / "ray_index", encoder=encoder,
                                                   actors=actors, batch_size=256, show_progress=False)
        else:
            from sciwrite.rwgbench.data.loading import load_rwgbench

            corpus = load_rwgbench("corpus", source=folder)
            index = DenseRetriever.from_corpus(corpus, encoder=encoder, batch_size=256, show_progress=False)
        result["wall_s"] = round(time.perf_counter() - start, 1)
    result.update(n_docs=len(index.doc_ids), baseline_rss_gib=round(rss.baseline, 3), peak_rss_gib=round(rss.peak, 3),
                  docs_per_s=round(len(index.doc_ids) / result["wall_s"], 1))
    Path(out).write_text(json.dumps(result))


def bench_memory(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    folder = synthetic_corpus(root, args.n_docs)
    encoder = small_encoder(root)
    result: dict[str, Any] = {"n_docs": args.n_docs, "encoder": "tiny random BERT (hidden 32, 1 layer, max_seq_length "
                              "32, MiniLM's tokenizer): the real loading and encoding path, meaningless vectors",
                              "load_before": load()}
    context = mp.get_context("spawn")
    for engine in ["ray", *(["single"] if args.memory_single else [])]:
        out = root / f"memory_{engine}.json"
        child = context.Process(target=_memory_child, args=(engine, str(folder), str(encoder), str(out), args.cpus,
                                                            args.actors))
        child.start()
        child.join()
        if child.exitcode != 0:
            raise RuntimeError(f"the {engine} memory run failed (exit code {child.exitcode})")
        result[engine] = json.loads(out.read_text())
    return result


# --- (c) evaluation throughput --------------------------------------------------------------------------------


def bench_evaluate(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    from sciwrite.benchmarks import get_benchmark
    from sciwrite.rwgbench.data.loading import load_rwgbench
    from sciwrite.scoring.files import evaluate_files
    from sciwrite.scoring.request import ScoringRequest

    def evaluate_prediction_files(files, split, **options):
        return [r.summary for r in evaluate_files(get_benchmark("rwgbench"), files,
                                                  ScoringRequest(split=split, **options))]

    folder = sample_folder(root)
    papers = load_rwgbench("sample", source=folder).to_list()
    predictions = root / "references.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": p["related_work"],
                                               "candidates": p["citations"]}) + "\n" for p in papers))
    options = {"source": folder, "profile": "lite", "bootstrap": 0, "show_progress": False}
    result: dict[str, Any] = {"n_papers": len(papers), "profile": "lite", "load_before": load()}
    start = time.perf_counter()
    single = evaluate_prediction_files([predictions], "sample", **options)
    result["single_s"] = round(time.perf_counter() - start, 2)
    start_ray(args.cpus)
    start = time.perf_counter()
    on_ray = evaluate_prediction_files([predictions], "sample", engine="ray", ray_actors=args.actors, **options)
    result["ray_s"] = round(time.perf_counter() - start, 2)
    result["single_papers_per_s"] = round(len(papers) / result["single_s"], 2)
    result["ray_papers_per_s"] = round(len(papers) / result["ray_s"], 2)
    result["ray_over_single"] = round(result["ray_papers_per_s"] / result["single_papers_per_s"], 2)
    means = [k for k, v in single[0].items() if isinstance(v, float)]
    result["max_abs_summary_diff"] = max(abs(single[0][k] - on_ray[0][k]) for k in means)
    return result


PARTS = {"encode": bench_encode, "memory": bench_memory, "evaluate": bench_evaluate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", nargs="+", choices=list(PARTS), default=["encode", "evaluate"])
    parser.add_argument("--n-docs", type=int, default=FULL_CORPUS, help="rows of the synthetic corpus of (b)")
    parser.add_argument("--memory-single", action="store_true", help="(b): also measure the single-process path")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 2, help="CPUs of the local Ray")
    parser.add_argument("--actors", type=int, help="actors of the pools (default: one per CPU)")
    parser.add_argument("--workdir", help="keep the data and models here (default: a temporary folder)")
    parser.add_argument("--out", help="write the results as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ray-scale-bench-") as tmp:
        root = Path(args.workdir or tmp)
        root.mkdir(parents=True, exist_ok=True)
        results: dict[str, Any] = {"cpus": os.cpu_count(), "ray_cpus": args.cpus}
        for part in args.parts:
            print(f"--- {part}", flush=True)
            results[part] = PARTS[part](args, root)
            print(json.dumps(results[part], indent=2), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
