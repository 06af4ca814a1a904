"""Cost of the RWGBench and SciIG metric suites per paper: `lite` on this machine, `paper`-shaped models, batching.

Three parts, each suite in its own process (own peak RSS, own model caches):

- ``lite``: the offline profile on the sample (RWGBench 144 papers, SciIG 215 test papers; ``--limit N`` takes the
  first N). Model loading is timed apart; then ``--systems`` systems (perturbed references, seeds 0, 1, ...) are
  scored one after another on ONE loaded suite, so the second and later reuse the memos of the reference side.
  Seconds per paper for the first system and for all of them, and the share of each scorer: SciIG's from the
  timings `score_sciig` returns; RWGBench's from a timer this script wraps around each scorer thunk of
  `sciwrite.rwgbench.metrics.suite._stages` (in this process only; `score_rwgbench` returned no timings before
  2026-12-02, and the wrap keeps the figures comparable with that code).
- ``paper``: the `paper` profile with every model role replaced (``models={role: folder}``) by a model of the real
  checkpoint's size with random weights (`paper_shaped_models`, built once into ``--cache``). Scores mean nothing;
  only cost does. On 2 CPU cores the NLI, SummaC, QA calls of one paper take many minutes, so those calls (the
  `NLIModel`, `ExtractiveQA` and `QuestionGenerator` batch methods) can be sampled: a call with more than
  ``--paper-sample`` inputs runs a length-stratified sample of them (every k-th input in length order) in the
  suite's batches, and its time is extrapolated by total/sampled tokens (inputs, for generation); the outputs of
  the inputs left out are copies of sampled ones. Every sampled call is listed in the JSON (inputs, tokens, measured
  and extrapolated seconds); ``--paper-sample 0`` runs everything.
- ``batching``: throughput of each paper-shaped model's batch method on a fixed slice of real inputs, at batch size
  1 against the suite's batching (batch size ``--batch-size``, within the CPU token budget of
  `sciwrite.models.encoders.CPU_TOKENS_PER_BATCH`), and the ratio.

    nice -n 19 .venv/bin/python scripts/bench/suite_cost.py --parts lite --out /tmp/suite_cost_lite.json
    nice -n 19 .venv/bin/python scripts/bench/suite_cost.py --parts paper batching --paper-papers 3
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Cold costs: no vectors read from the on-disk embedding cache that other runs on this machine fill.
os.environ.setdefault("SCIWRITE_EMBEDDING_CACHE", "off")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spawned import run_spawned  # noqa: E402

SAMPLE_SIZE = {"rwgbench": 144, "sciig": 215}


# --- inputs -------------------------------------------------------------------------------------------------------

def rwgbench_inputs(n: int | None, seed: int) -> tuple[list[dict], Any, list[str], list[list[str]]]:
    """Sample papers, the corpus, and one perturbed system (metrics.py's perturbation, `seed`)."""
    from metrics import load_inputs

    return load_inputs(n or SAMPLE_SIZE["rwgbench"], None, seed)


def sciig_inputs(n: int | None, seed: int) -> tuple[list[dict], list[str]]:
    """SciIG test papers and one perturbed system (sciig_metrics.py's perturbation, `seed`)."""
    import random

    from sciig_metrics import perturb

    from sciwrite.sciig.data.loading import load_sciig

    papers = load_sciig("sample", split="test").to_list()[:n] if n else load_sciig("sample", split="test").to_list()
    rng = random.Random(seed)
    return papers, [perturb(p["introduction"], rng, seed) for p in papers]


# --- stage timing and sampled model calls ----------------------------------------------------------------------

class Ledger:
    """Which scorer runs now, its wall seconds (RWGBench), and every sampled model call (paper part)."""

    def __init__(self) -> None:
        self.stage = "?"
        self.stage_s: dict[str, float] = {}
        self.stage_cpu_s: dict[str, float] = {}
        self.sampled: list[dict[str, Any]] = []

    def correction(self, stage: str, cpu: bool = False) -> float:
        """Extrapolated minus measured (wall or CPU) seconds of the sampled calls of `stage`."""
        measured, extrapolated = ("measured_cpu_s", "extrapolated_cpu_s") if cpu else ("measured_s", "extrapolated_s")
        return sum(c[extrapolated] - c[measured] for c in self.sampled if c["stage"] == stage)


LEDGER = Ledger()
PARTIAL: str | None = None  # where `_systems` writes the systems scored so far (``--out`` + a suffix)


def _timed_thunk(name: str, run: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any) -> Any:
        LEDGER.stage = name
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return run(*args)
        finally:
            LEDGER.stage_s[name] = LEDGER.stage_s.get(name, 0.0) + time.perf_counter() - start
            LEDGER.stage_cpu_s[name] = LEDGER.stage_cpu_s.get(name, 0.0) + time.process_time() - cpu
    return timed


def install_stage_timers() -> None:
    """Wrap every scorer thunk of both suites' `_stages` (this process only): the stage name for the ledger and,
    for RWGBench, whose `score_rwgbench` returns no timings, its wall seconds."""
    import sciwrite.rwgbench.metrics.suite as rwg
    import sciwrite.sciig.metrics.suite as sig

    rwg_stages, sig_stages = rwg._stages, sig._stages
    rwg._stages = lambda *a, **k: [(n, _timed_thunk(n, r)) for n, r in rwg_stages(*a, **k)]
    sig._stages = lambda *a, **k: [(n, c, _timed_thunk(n, r)) for n, c, r in sig_stages(*a, **k)]


def _stratified(lengths: Sequence[int], k: int) -> list[int]:
    """k indices spread evenly over the inputs in length order."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[min(len(order) - 1, (2 * j + 1) * len(order) // (2 * k))] for j in range(k)]


def _sampled(method: Callable[..., Any], n_inputs: Callable[..., int], lengths: Callable[..., list[int]],
             subset: Callable[..., tuple], fill: Callable[[Any, list[int], int], Any], by_tokens: bool,
             limit: int, name: str) -> Callable[..., Any]:
    """A model batch method that runs at most `limit` of its inputs (length-stratified) and books the extrapolation."""
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        n = n_inputs(*args)
        if not limit or n <= limit:
            start, cpu = time.perf_counter(), time.process_time()
            out = method(self, *args, **kwargs)
            took, cpu = time.perf_counter() - start, time.process_time() - cpu
            LEDGER.sampled.append({"stage": LEDGER.stage, "model": name, "inputs": n, "run": n, "measured_s": took,
                                   "extrapolated_s": took, "measured_cpu_s": cpu, "extrapolated_cpu_s": cpu})
            return out
        sizes = lengths(self, *args)
        picked = _stratified(sizes, limit)
        start, cpu = time.perf_counter(), time.process_time()
        part = method(self, *subset(picked, *args), **kwargs)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        ratio = sum(sizes) / max(1, sum(sizes[i] for i in picked)) if by_tokens else n / len(picked)
        LEDGER.sampled.append({"stage": LEDGER.stage, "model": name, "inputs": n, "run": len(picked),
                               "tokens": sum(sizes), "tokens_run": sum(sizes[i] for i in picked),
                               "measured_s": took, "extrapolated_s": took * ratio,
                               "measured_cpu_s": cpu, "extrapolated_cpu_s": cpu * ratio})
        return fill(part, picked, n)
    return wrapper


def _cycle(part: Any, picked: list[int], n: int) -> Any:
    import numpy as np

    if isinstance(part, np.ndarray):
        return part[np.arange(n) % len(picked)]
    return [part[i % len(picked)] for i in range(n)]


def install_sampling(limit: int, generation_limit: int) -> None:
    """Sample the NLI (RWGBench NLI, SummaC), extractive QA and question generation calls (see the module doc)."""
    from sciwrite.models.nli import NLIModel
    from sciwrite.models.qa import ExtractiveQA, QuestionGenerator

    def pair_lengths(self, premises, hypotheses, *_):
        return [len(ids) for ids in self.tokenizer(list(premises), list(hypotheses), truncation="only_first",
                                                   max_length=self.max_length)["input_ids"]]

    def qa_lengths(self, questions, contexts, *_):
        return [len(ids) + len(q) // 4 for ids, q in zip(self.tokenizer(list(contexts), verbose=False)["input_ids"],
                                                          questions)]

    def pick2(picked, first, second, *rest):
        return ([first[i] for i in picked], [second[i] for i in picked], *rest)

    NLIModel.probabilities = _sampled(NLIModel.probabilities, lambda p, *_: len(p), pair_lengths, pick2, _cycle,
                                      True, limit, "nli")
    ExtractiveQA.answer = _sampled(ExtractiveQA.answer, lambda q, *_: len(q), qa_lengths, pick2, _cycle, True,
                                   limit, "extractive_qa")
    QuestionGenerator.generate = _sampled(
        QuestionGenerator.generate, lambda inputs, *_: len(inputs), lambda self, inputs, *_: [1] * len(inputs),
        lambda picked, inputs, *rest: ([inputs[i] for i in picked], *rest), _cycle, False, generation_limit,
        "question_generation")


# --- suite runs -------------------------------------------------------------------------------------------------

def _systems(n_systems: int, score: Callable[[int], dict[str, float]]) -> list[dict[str, Any]]:
    """Score `n_systems` systems one after another; per system: wall, CPU and per-stage seconds."""
    from tqdm.auto import tqdm

    out = []
    for seed in tqdm(range(n_systems), desc="systems", unit="system"):
        LEDGER.stage_s, LEDGER.stage_cpu_s, LEDGER.sampled = {}, {}, []
        wall, cpu = time.perf_counter(), time.process_time()
        stages = score(seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        stages_cpu = dict(LEDGER.stage_cpu_s)
        corrected = {s: t + LEDGER.correction(s) for s, t in stages.items()}
        corrected_cpu = {s: t + LEDGER.correction(s, cpu=True) for s, t in stages_cpu.items()}
        out.append({"seed": seed, "wall_s": wall, "cpu_s": cpu, "stages_s": stages, "stages_cpu_s": stages_cpu,
                    "estimated_s": wall + sum(corrected.values()) - sum(stages.values()),
                    "estimated_cpu_s": cpu + sum(corrected_cpu.values()) - sum(stages_cpu.values()),
                    "estimated_stages_s": corrected, "estimated_stages_cpu_s": corrected_cpu,
                    "sampled_calls": list(LEDGER.sampled)})
        if PARTIAL:  # each finished system is kept even if a later one never ends
            Path(PARTIAL).write_text(json.dumps(out, indent=2, default=str))
    return out


def run_rwgbench(args: argparse.Namespace, part: str) -> dict[str, Any]:
    from metrics import NO_JUDGE
    from sciwrite.rwgbench.metrics.suite import load_rwgbench_models, score_rwgbench

    n = args.limit if part == "lite" else args.paper_papers
    papers, corpus, _, _ = rwgbench_inputs(n, 0)
    models, profile = _models_for(part, args, "rwgbench")
    start = time.perf_counter()
    suite = load_rwgbench_models(profile, models=models, metrics=NO_JUDGE)
    load_s = time.perf_counter() - start

    def score(seed: int) -> dict[str, float]:
        _, _, texts, candidates = rwgbench_inputs(n, seed)
        score_rwgbench(texts, papers, suite, candidates=candidates, corpus=corpus, batch_size=args.batch_size,
                       show_progress=False)
        return dict(LEDGER.stage_s)

    n_systems = args.systems if part == "lite" else args.paper_systems
    return {"suite": "rwgbench", "part": part, "papers": len(papers), "load_s": load_s, "models": suite.model_ids,
            "not_computed": {k: v for k, v in suite.not_computed.items() if v != "not requested"},
            "systems": _systems(n_systems, score)}


def run_sciig(args: argparse.Namespace, part: str) -> dict[str, Any]:
    from sciwrite.sciig.metrics.suite import STAGES, load_sciig_models, score_sciig

    n = args.limit if part == "lite" else args.paper_papers
    models, profile = _models_for(part, args, "sciig")
    start = time.perf_counter()
    suite = load_sciig_models(profile, models=models, metrics=STAGES.without_judge())
    load_s = time.perf_counter() - start

    def score(seed: int) -> dict[str, float]:
        papers, texts = sciig_inputs(n, seed)
        _, timings = score_sciig(texts, papers, suite, show_progress=False, batch_size=args.batch_size)
        return timings  # the suite's own per-scorer seconds

    n_systems = args.systems if part == "lite" else args.paper_systems
    papers, _ = sciig_inputs(n, 0)
    return {"suite": "sciig", "part": part, "papers": len(papers), "load_s": load_s, "models": suite.model_ids,
            "not_computed": {k: v for k, v in suite.not_computed.items() if v != "not requested"},
            "systems": _systems(n_systems, score)}


def _models_for(part: str, args: argparse.Namespace, suite: str) -> tuple[dict[str, str], str]:
    """(role -> folder overrides, profile): none for lite; the paper-shaped folders for the paper part."""
    if part == "lite":
        return {}, "lite"
    import paper_shaped_models as psm

    from sciwrite.models.registry import PACKAGED_MINILM

    roles = psm.RWGBENCH_ROLES if suite == "rwgbench" else psm.SCIIG_ROLES
    built = psm.build_roles(roles, args.cache)
    models = {role: manifest["path"] for role, manifest in built.items()}
    if suite == "sciig":  # the paper's keyphrase encoder IS all-MiniLM-L6-v2: the packaged copy, real weights
        models["keyphrase_encoder"] = PACKAGED_MINILM
    # PyTorch, as on a GPU (the CPU-only ONNX Runtime backend of the sentence encoders fails on Longformer)
    os.environ.setdefault("SCIWRITE_ENCODER_BACKEND", "torch")
    install_sampling(args.paper_sample, args.paper_sample_generation)
    return models, "paper"


# --- batching -----------------------------------------------------------------------------------------------------

def _throughput(call: Callable[[int], Any], tokens: int, batch_sizes: Sequence[int]) -> dict[str, Any]:
    """Seconds and tokens/s of `call` at each batch size. No warm-up pass (the heavy models cannot afford two): the
    largest batch size runs first and so bears the first call's overhead, which makes the ratio a lower bound."""
    out: dict[str, Any] = {"tokens": tokens}
    for size in sorted(batch_sizes, reverse=True):
        start, cpu = time.perf_counter(), time.process_time()
        call(size)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        out[f"bs{size}_s"], out[f"bs{size}_tokens_per_s"] = seconds, tokens / seconds
        out[f"bs{size}_cpu_s"], out[f"bs{size}_tokens_per_cpu_s"] = cpu, tokens / cpu
    first, last = batch_sizes[0], batch_sizes[-1]
    out["ratio"] = out[f"bs{last}_tokens_per_s"] / out[f"bs{first}_tokens_per_s"]
    out["ratio_cpu"] = out[f"bs{last}_tokens_per_cpu_s"] / out[f"bs{first}_tokens_per_cpu_s"]
    return out


def raw_encoder(model: Any) -> Any:
    """The library's SentenceTransformer under any caching wrapper: the second timed call must compute again."""
    while hasattr(model, "inner"):
        model = model.inner
    return model


def batching_jobs(args: argparse.Namespace) -> dict[str, Callable[[], tuple[Callable[[int], Any], int]]]:
    """Per model: a loader returning (call(batch_size), tokens) over a fixed slice of real sample inputs."""
    import paper_shaped_models as psm

    k = args.batching_items
    built = psm.build_roles(["nli", "citation_frame", "scibert", "dense_encoder", "summac_nli", "bleurt",
                             "contextual_encoder", "gpt2", "question_answering", "question_generation"], args.cache)
    path = {role: m["path"] for role, m in built.items()}
    papers, corpus, texts, _ = rwgbench_inputs(4, 0)
    intro_papers, intros = sciig_inputs(4, 0)

    def count(tokenizer: Any, items: Sequence[str]) -> int:
        return sum(len(ids) for ids in tokenizer(list(items), truncation=True, max_length=512)["input_ids"])

    def nli(role: str, premises: list[str], hypotheses: list[str]):
        from sciwrite.models.nli import load_nli, load_summac_nli

        model = (load_nli if role == "nli" else load_summac_nli)(path[role])
        tokens = sum(len(i) for i in model.tokenizer(premises, hypotheses, truncation="only_first",
                                                     max_length=512)["input_ids"])
        return (lambda bs: model.probabilities(premises, hypotheses, bs)), tokens

    def rwg_pairs():
        from sciwrite.rwgbench.metrics.scorers import corpus_texts

        gold = papers[0]["citations"]
        docs = corpus_texts(corpus, gold)
        pairs = [(docs[g], docs[r]) for g in gold for r in gold][:k]
        return [p for p, _ in pairs], [h for _, h in pairs]

    def summac_pairs():
        from sciwrite.metrics.text import split_sentences

        src, gen = split_sentences(intro_papers[0]["abstract"]), split_sentences(intros[0])
        pairs = [(p, h) for h in gen for p in src][:k]
        return [p for p, _ in pairs], [h for _, h in pairs]

    def frames():
        from sciwrite.models.citation_frames import load_citation_frame_classifier
        from sciwrite.rwgbench.metrics.frames import citation_contexts

        model = load_citation_frame_classifier(path["citation_frame"])
        contexts = [c for p in papers for c in citation_contexts(p["related_work"], p["citations"])][:k]
        return (lambda bs: model.predict(contexts, bs)), count(model.tokenizer, contexts)

    def sentence(role: str, items: list[str]):
        from sciwrite.models.encoders import embed, load_sentence_encoder

        model = raw_encoder(load_sentence_encoder(path[role], device="cpu"))
        return (lambda bs: embed(model, items, bs)), count(model.tokenizer, items)

    def bertscore():
        from sciwrite.models.token_encoder import load_token_encoder

        model = load_token_encoder(path["scibert"])
        items = [*texts[:2], *(p["related_work"] for p in papers[:2])]
        tokens = sum(len(w) for t in items for w in model.windows(t))
        return (lambda bs: model.token_embeddings_many(items, bs)), tokens

    def bleurt():
        from sciwrite.models.bleurt import load_bleurt

        model = load_bleurt(path["bleurt"])
        refs, cands = [p["introduction"] for p in intro_papers[:2]], intros[:2]
        tokens = sum(len(model.tokenizer.encode(t)) for t in [*refs, *cands])
        return (lambda bs: model.score(refs, cands, bs)), tokens

    def longformer():
        from sciwrite.models.encoders import load_sentence_encoder
        from sciwrite.sciig.metrics.contextual_relevance import long_text_embeddings

        model = raw_encoder(load_sentence_encoder(path["contextual_encoder"], device="cpu"))
        items = [*intros[:2], *(p["abstract"] for p in intro_papers)]
        tokens = sum(len(i) for i in model.tokenizer(items)["input_ids"])
        return (lambda bs: long_text_embeddings(model, items, bs)), tokens

    def gpt2():
        from sciwrite.models.causal_lm import load_causal_lm

        model = load_causal_lm(path["gpt2"])
        return (lambda bs: model.token_nll(intros[:2], None, bs)), count(model.tokenizer, intros[:2])

    def qa():
        from sciwrite.models.qa import load_extractive_qa

        model = load_extractive_qa(path["question_answering"])
        questions = [f"What is {w}?" for w in intros[0].split()[:k]]
        contexts = [intro_papers[0]["abstract"]] * len(questions)
        return (lambda bs: model.answer(questions, contexts, bs)), count(model.tokenizer, contexts)

    def qg():
        from sciwrite.models.qa import load_question_generator
        from sciwrite.sciig.metrics.qa import qg_input

        model = load_question_generator(path["question_generation"])
        sentences = intros[0].split(". ")[: max(2, k // 8)]
        inputs = [qg_input(s.split()[0], s) for s in sentences]
        return (lambda bs: model.generate(inputs, bs)), count(model.tokenizer, inputs)

    head = corpus.select(range(k))
    corpus_docs = [f"{t}. {a}" for t, a in zip(head["title"], head["abstract"])]
    from sciwrite.metrics.text import content_blocks

    blocks = [b for p in papers for b in content_blocks(p["related_work"])][:k]
    return {"nli (DeBERTa-v3-large)": lambda: nli("nli", *rwg_pairs()),
            "citation_frame (DeBERTa-v3-large)": frames,
            "scibert sentence (PSS blocks)": lambda: sentence("scibert", blocks),
            "scibert tokens (BERTScore)": bertscore,
            "dense_encoder (BGE-large, retrieval)": lambda: sentence("dense_encoder", corpus_docs),
            "summac_nli (ALBERT-xlarge)": lambda: nli("summac_nli", *summac_pairs()),
            "bleurt (BLEURT-20-D12)": bleurt, "contextual_encoder (Longformer)": longformer,
            "gpt2 (perplexity)": gpt2, "question_answering (RoBERTa-base)": qa,
            "question_generation (T5-base, 4 beams)": qg}


def run_batching(args: argparse.Namespace, part: str) -> dict[str, Any]:
    import torch
    from tqdm.auto import tqdm

    out = {}
    jobs = batching_jobs(args)
    wanted = [name for name in jobs if not args.batching_models or any(m in name for m in args.batching_models)]
    for name in tqdm(wanted, desc="batching", unit="model"):
        try:
            call, tokens = jobs[name]()
            out[name] = _throughput(call, tokens, (1, args.batch_size))
        except Exception as err:  # noqa: BLE001 - one model failing must not lose the others
            print(f"batching {name}: failed ({type(err).__name__}: {err})", flush=True)
            continue
        print(f"batching {name}: {json.dumps(out[name])}", flush=True)  # kept in the log if a later model fails
        torch.cuda.empty_cache() if torch.cuda.is_available() else None
    return {"part": part, "models": out}


# --- processes, tables ---------------------------------------------------------------------------------------------

RUNNERS = {"rwgbench": run_rwgbench, "sciig": run_sciig}


def _child(suite: str, part: str, args: argparse.Namespace, queue: mp.Queue) -> None:
    import torch

    global PARTIAL

    torch.manual_seed(0)
    if args.threads:
        torch.set_num_threads(args.threads)
    install_stage_timers()
    PARTIAL = f"{args.out}.{suite}-{part}.partial.json" if args.out else None
    result = run_batching(args, part) if part == "batching" else RUNNERS[suite](args, part)
    result["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    result["threads"] = torch.get_num_threads()
    queue.put(result)


def in_process(suite: str, part: str, args: argparse.Namespace) -> dict[str, Any]:
    return run_spawned(_child, (suite, part, args), f"{suite} {part}")


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    """Per-paper wall and CPU seconds (first system, later ones, all), stage shares, RSS: the reported figures."""
    n, systems = result["papers"], result["systems"]
    paper = result["part"] == "paper"
    wall, cpu = ("estimated_s", "estimated_cpu_s") if paper else ("wall_s", "cpu_s")
    stage_wall, stage_cpu = ("estimated_stages_s", "estimated_stages_cpu_s") if paper else ("stages_s", "stages_cpu_s")
    first = systems[0]
    stages = dict(sorted(first[stage_wall].items(), key=lambda x: -x[1]))
    total = sum(stages.values()) or 1.0
    per = lambda values: {k: round(v / n, 3) for k, v in values.items()}
    return {"papers": n, "load_s": round(result["load_s"], 1), "systems": len(systems),
            "first_system_s_per_paper": round(first[wall] / n, 3),
            "first_system_cpu_s_per_paper": round(first[cpu] / n, 3),
            "later_systems_s_per_paper": [round(x[wall] / n, 3) for x in systems[1:]],
            "later_systems_cpu_s_per_paper": [round(x[cpu] / n, 3) for x in systems[1:]],
            "all_systems_s_per_paper": round(sum(x[wall] for x in systems) / n, 3),
            "all_systems_cpu_s_per_paper": round(sum(x[cpu] for x in systems) / n, 3),
            "stage_share": {k: round(v / total, 3) for k, v in stages.items()}, "stage_s_per_paper": per(stages),
            "stage_cpu_s_per_paper": per(first[stage_cpu]),
            "later_stage_s_per_paper": [per(x[stage_wall]) for x in systems[1:]],
            "peak_rss_gib": round(result["peak_rss_gib"], 2),
            "sampled_calls": sum(c["run"] < c["inputs"] for x in systems for c in x["sampled_calls"])}


def print_suite(result: dict[str, Any], summary: dict[str, Any]) -> None:
    label = "lite" if result["part"] == "lite" else "paper-shaped (random weights)"
    sampled = "; heavy calls sampled, seconds extrapolated" if summary["sampled_calls"] else ""
    print(f"\n{result['suite']} / {label}: {summary['papers']} papers, model loading {summary['load_s']:.1f} s "
          f"(apart), peak RSS {summary['peak_rss_gib']:.2f} GiB{sampled}")
    later = ", ".join(f"{x:.2f}" for x in summary["later_systems_s_per_paper"]) or "-"
    later_cpu = ", ".join(f"{x:.2f}" for x in summary["later_systems_cpu_s_per_paper"]) or "-"
    print(f"  s/paper, wall (CPU): first system {summary['first_system_s_per_paper']:.2f} "
          f"({summary['first_system_cpu_s_per_paper']:.2f}); later systems {later} ({later_cpu}); all "
          f"{summary['systems']} systems {summary['all_systems_s_per_paper']:.2f} "
          f"({summary['all_systems_cpu_s_per_paper']:.2f})")
    print(f"  {'scorer':34s} {'wall s/p':>9s} {'share':>7s} {'CPU s/p':>9s}   later systems, wall s/paper")
    for stage, seconds in summary["stage_s_per_paper"].items():
        later = " ".join(f"{x.get(stage, 0):.3f}" for x in summary["later_stage_s_per_paper"])
        print(f"  {stage:34s} {seconds:9.3f} {summary['stage_share'][stage]:7.1%} "
              f"{summary['stage_cpu_s_per_paper'].get(stage, 0):9.3f}   {later}")
    if result["not_computed"]:
        print(f"  not computed: {sorted(result['not_computed'])}")


def print_batching(result: dict[str, Any], batch_size: int) -> None:
    print(f"\nbatching, paper-shaped models, CPU ({result['threads']} threads): tokens/s at batch size 1 and "
          f"{batch_size} (the suite's, within the CPU token budget)")
    print(f"  {'model':42s} {'tokens':>7s} {'bs1 tok/s':>10s} {f'bs{batch_size} tok/s':>11s} {'ratio':>6s}  "
          f"per CPU-second: {'bs1':>7s} {f'bs{batch_size}':>7s} {'ratio':>6s}")
    for name, row in result["models"].items():
        print(f"  {name:42s} {row['tokens']:7d} {row['bs1_tokens_per_s']:10.1f} "
              f"{row[f'bs{batch_size}_tokens_per_s']:11.1f} {row['ratio']:5.2f}x  {'':16s}"
              f"{row['bs1_tokens_per_cpu_s']:7.1f} {row[f'bs{batch_size}_tokens_per_cpu_s']:7.1f} "
              f"{row['ratio_cpu']:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=["lite", "paper", "batching"],
                        choices=["lite", "paper", "batching"])
    parser.add_argument("--suites", nargs="+", default=["rwgbench", "sciig"], choices=["rwgbench", "sciig"])
    parser.add_argument("--limit", type=int, help="lite: the first N papers of each suite's sample (default: all)")
    parser.add_argument("--systems", type=int, default=3, help="lite: systems scored on one loaded suite")
    parser.add_argument("--paper-papers", type=int, default=3, help="paper-shaped: papers per suite")
    parser.add_argument("--paper-systems", type=int, default=1, help="paper-shaped: systems on one loaded suite")
    parser.add_argument("--paper-sample", type=int, default=48,
                        help="paper-shaped: run at most this many inputs of an NLI / QA / QG call (0: all)")
    parser.add_argument("--paper-sample-generation", type=int, default=4,
                        help="paper-shaped: run at most this many inputs of a question-generation call (0: all)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--batching-items", type=int, default=32, help="batching: inputs per model")
    parser.add_argument("--batching-models", nargs="*", help="batching: only models whose name contains one of these")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's; 1 gives steadier CPU seconds "
                                                     "on a busy machine)")
    parser.add_argument("--cache", default="/tmp/sciwrite-paper-shaped", help="folder of the built models (reused)")
    parser.add_argument("--out", help="write every figure as JSON here")
    args = parser.parse_args()

    figures: dict[str, Any] = {"load_average_at_start": os.getloadavg(), "cpus": os.cpu_count(), "args": vars(args)}
    for part in args.parts:
        if part == "batching":
            result = in_process("-", part, args)
            print_batching(result, args.batch_size)
            figures["batching"] = result
            continue
        for suite in args.suites:
            result = in_process(suite, part, args)
            summary = summarize(result)
            print_suite(result, summary)
            figures[f"{suite}_{part}"] = {"summary": summary, "raw": result}
            if args.out:  # written after every part: a later failure keeps the earlier figures
                Path(args.out).write_text(json.dumps(figures, indent=2, default=str))
    figures["load_average_at_end"] = os.getloadavg()
    print(f"\nload average (1, 5, 15 min) at start {figures['load_average_at_start']}, at end "
          f"{figures['load_average_at_end']} on {figures['cpus']} CPUs (a shared machine)")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
