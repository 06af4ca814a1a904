#!/usr/bin/env python
"""Train a citation-frame classifier for RWGBench citation frame alignment (CFA) on MultiCite.

  # CPU, minutes: packaged all-MiniLM-L6-v2 embeddings + one-vs-rest logistic regression (the lite model)
  python scripts/train_citation_frame_classifier.py --data-dir multicite --kind head \\
      --out src/sciwrite/resources/citation_frame_minilm
  # GPU: fine-tune a transformer for multi-label classification (BCE); the folder loads as a citation_frame model
  python scripts/train_citation_frame_classifier.py --data-dir multicite --kind finetune \\
      --base allenai/scibert_scivocab_uncased --out outputs/citation-frame-scibert
  # CPU smoke test of the fine-tuning path
  python scripts/train_citation_frame_classifier.py --data-dir multicite --kind finetune --max-train 32 \\
      --max-eval 64 --epochs 1 --out /tmp/frame-smoke

--data-dir is the MultiCite folder holding classification_1_context/ and classification_gold_context/ with
{train,dev,test}.json (records {"id", "x": sentences with <cite>...</cite>, "y": "space separated labels"}).
Model selection uses dev only; test is scored once, through the same loader the metric uses.
MultiCite is CC BY-NC 2.0, and so is every model trained on it: the card says so.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciwrite.models.citation_frames import (
    FRAMES,
    HEAD_CONFIG,
    HEAD_KIND,
    SIGMOID_THRESHOLD,
    FrameHead,
    TransformerFrameClassifier,
    load_citation_frame_classifier,
)
from sciwrite.models.registry import PACKAGED_MINILM

SPLITS = ("train", "dev", "test")
THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.01), 2)
DEFAULT_C_GRID = "0.03,0.1,0.3,1,3,10,30"
PREPROCESSING = ("sentences of x joined with a space; <cite> and </cite> tags removed, the cited mention kept; "
                 "whitespace collapsed")
PREPROCESSING_MENTION_REMOVED = ("sentences of x joined with a space; the cited mention <cite>...</cite> removed "
                                 "with its tags (as citation markers are removed at scoring time); "
                                 "whitespace collapsed")


@dataclass
class Split:
    """One MultiCite split: texts and (n, 7) boolean labels in FRAMES order; records without text are dropped."""

    name: str
    texts: list[str]
    labels: np.ndarray
    n_dropped: int

    def head(self, n: int | None) -> Split:
        """The first `n` records (all when n is None), for smoke runs."""
        if n is None or n >= len(self.texts):
            return self
        return Split(self.name, self.texts[:n], self.labels[:n], self.n_dropped)


def context_text(x: str | list[str], cite_mention: str = "keep") -> str:
    """The text to classify: MultiCite's sentence(s), cite tags removed (and the mention too with "remove")."""
    text = x if isinstance(x, str) else " ".join(x)
    if cite_mention == "remove":
        text = re.sub(r"<cite>.*?</cite>", " ", text, flags=re.S)
    text = re.sub(r"</?cite>", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def read_split(data_dir: str | Path, context: str, split: str, cite_mention: str = "keep") -> Split:
    """Read ``classification_<context>_context/<split>.json``; an unknown label is an error naming the record."""
    path = Path(data_dir) / f"classification_{context}_context" / f"{split}.json"
    records = json.loads(path.read_text())
    texts, rows, dropped = [], [], 0
    for record in records:
        names = record["y"].split()
        unknown = sorted(set(names) - set(FRAMES))
        if unknown or not names:
            raise ValueError(f"{path}: record {record.get('id')!r} has labels {names}; frames are {list(FRAMES)}")
        text = context_text(record["x"], cite_mention)
        if not text:
            dropped += 1
            continue
        texts.append(text)
        rows.append([frame in names for frame in FRAMES])
    return Split(split, texts, np.array(rows, dtype=bool).reshape(-1, len(FRAMES)), dropped)


def multilabel_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, Any]:
    """Micro/macro F1 over the seven frames, and per-frame precision, recall, F1 and support."""
    from sklearn.metrics import f1_score, precision_recall_fscore_support

    p, r, f, support = precision_recall_fscore_support(y_true, y_pred, average=None, labels=range(len(FRAMES)),
                                                       zero_division=0)
    micro_p, micro_r, micro_f, _ = precision_recall_fscore_support(y_true, y_pred, average="micro", zero_division=0)
    return {
        "n": int(len(y_true)),
        "micro_f1": float(micro_f), "macro_f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0)),
        "micro_precision": float(micro_p), "micro_recall": float(micro_r),
        "exact_match": float(np.mean(np.all(y_true == y_pred, axis=1))) if len(y_true) else 0.0,
        "no_frame_rate": float(np.mean(~y_pred.any(axis=1))) if len(y_pred) else 0.0,
        "per_frame": {frame: {"precision": float(p[k]), "recall": float(r[k]), "f1": float(f[k]),
                              "support": int(support[k])} for k, frame in enumerate(FRAMES)},
    }


def tune_thresholds(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per frame, the grid threshold with the best dev F1 (lowest on ties); 0.5 for a frame without dev positives."""
    thresholds = np.full(len(FRAMES), 0.5)
    for k in range(len(FRAMES)):
        truth = labels[:, k][:, None]
        if not truth.any():
            continue
        on = probabilities[:, k][:, None] >= THRESHOLD_GRID[None, :]
        tp, fp, fn = (on & truth).sum(0), (on & ~truth).sum(0), (~on & truth).sum(0)
        thresholds[k] = THRESHOLD_GRID[int(np.argmax(2 * tp / np.maximum(2 * tp + fp + fn, 1)))]
    return thresholds


def fit_head(train_x: np.ndarray, train_y: np.ndarray, dev_x: np.ndarray, dev_y: np.ndarray,
             c_grid: list[float], seed: int) -> tuple[FrameHead, dict[str, Any]]:
    """One logistic regression per frame; C and class weighting chosen by dev average precision (threshold-free),
    then a decision threshold per frame tuned on dev F1."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import average_precision_score

    weight = np.zeros((len(FRAMES), train_x.shape[1]))
    bias = np.zeros(len(FRAMES))
    chosen: dict[str, Any] = {}
    for k, frame in enumerate(FRAMES):
        if len(set(train_y[:, k].tolist())) < 2:
            raise ValueError(f"frame {frame!r} needs positive and negative training examples")
        best: tuple[float, Any, dict[str, Any]] | None = None
        for class_weight in (None, "balanced"):
            for c in c_grid:
                model = LogisticRegression(C=c, class_weight=class_weight, max_iter=5000, random_state=seed)
                model.fit(train_x, train_y[:, k])
                score = (average_precision_score(dev_y[:, k], model.decision_function(dev_x))
                         if dev_y[:, k].any() else -abs(math.log(c)))  # no dev positive: the C closest to 1
                if best is None or score > best[0]:
                    best = (score, model, {"C": c, "class_weight": class_weight or "none",
                                           "dev_average_precision": float(score) if dev_y[:, k].any() else None})
        _, model, chosen[frame] = best
        weight[k], bias[k] = model.coef_[0], model.intercept_[0]
    provisional = FrameHead(weight, bias, np.full(len(FRAMES), 0.5))
    thresholds = tune_thresholds(provisional.probabilities(dev_x), dev_y)
    for k, frame in enumerate(FRAMES):
        chosen[frame]["threshold"] = float(thresholds[k])
    return FrameHead(weight, bias, thresholds), chosen


def train_head(args: argparse.Namespace, data: dict[str, Split], out: Path) -> dict[str, Any]:
    """Embed train/dev, fit the head, save it, then score test through `load_citation_frame_classifier`."""
    from sciwrite.models.encoders import embed, shared_sentence_encoder

    encoder = shared_sentence_encoder(args.encoder, role="citation-frame encoder")
    train_x = embed(encoder, data["train"].texts, args.batch_size)
    dev_x = embed(encoder, data["dev"].texts, args.batch_size)
    head, chosen = fit_head(train_x, data["train"].labels, dev_x, data["dev"].labels,
                            [float(c) for c in args.c_grid.split(",")], args.seed)
    head.save(out)
    config = {"sciwrite_model": HEAD_KIND, "frames": list(FRAMES), "encoder": args.encoder,
              "decision": "P(frame) = sigmoid(weight @ embedding + bias), L2-normalised embedding; "
                          "frame on when P >= threshold"}
    (out / HEAD_CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    metrics = {"dev": multilabel_metrics(data["dev"].labels, head.decide(dev_x))}
    return {**config, "training": {"method": "one-vs-rest logistic regression (scikit-learn, lbfgs)",
                                   "c_grid": args.c_grid, "class_weight_grid": ["none", "balanced"],
                                   "selection": "C and class weight by dev average precision, then the threshold "
                                                "by dev F1 (grid 0.05..0.95, step 0.01)",
                                   "per_frame": chosen},
            "metrics": metrics}


def finetune(args: argparse.Namespace, data: dict[str, Split], out: Path) -> dict[str, Any]:
    """Fine-tune `args.base` multi-label (BCE on one logit per frame); keep the epoch with the best dev micro-F1."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    model = AutoModelForSequenceClassification.from_pretrained(
        args.base, num_labels=len(FRAMES), problem_type="multi_label_classification",
        id2label=dict(enumerate(FRAMES)), label2id={f: i for i, f in enumerate(FRAMES)},
        ignore_mismatched_sizes=True).to(device)
    train = data["train"]
    steps_per_epoch = math.ceil(len(train.texts) / args.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup * steps_per_epoch * args.epochs),
                                                steps_per_epoch * args.epochs)
    bf16 = device == "cuda" and torch.cuda.is_bf16_supported()
    evaluator = TransformerFrameClassifier("(training)", model, tokenizer, tuple(range(len(FRAMES))), device,
                                           args.max_length)
    best, history = -1.0, []
    for epoch in range(args.epochs):
        model.train()
        order = np.random.default_rng(args.seed + epoch).permutation(len(train.texts))
        losses = []
        for start in range(0, len(order), args.batch_size):
            rows = order[start:start + args.batch_size]
            batch = tokenizer([train.texts[i] for i in rows], truncation=True, max_length=args.max_length,
                              padding=True, return_tensors="pt").to(device)
            labels = torch.tensor(train.labels[rows], dtype=torch.float32, device=device)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                loss = model(**batch, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(loss.item())
        model.eval()
        dev = multilabel_metrics(data["dev"].labels, evaluator.predict(data["dev"].texts, args.batch_size * 2))
        history.append({"epoch": epoch + 1, "train_loss": float(np.mean(losses)), "dev_micro_f1": dev["micro_f1"]})
        print(f"epoch {epoch + 1}: train loss {history[-1]['train_loss']:.4f}, dev micro-F1 {dev['micro_f1']:.4f}")
        if dev["micro_f1"] > best:
            best, best_dev = dev["micro_f1"], dev
            model.save_pretrained(out)
            tokenizer.save_pretrained(out)
    return {"base": args.base, "frames": list(FRAMES),
            "decision": f"sigmoid(logit) > {SIGMOID_THRESHOLD} per frame",
            "training": {"method": "full fine-tuning, BCE with logits (problem_type multi_label_classification)",
                         "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr,
                         "weight_decay": args.weight_decay, "warmup_ratio": args.warmup,
                         "max_length": args.max_length, "bf16": bf16, "device": device,
                         "selection": "the epoch with the best dev micro-F1", "history": history},
            "metrics": {"dev": best_dev}}


def fmt(x: float) -> str:
    return f"{x:.3f}"


def model_card(info: dict[str, Any]) -> str:
    """The README.md model card: what, data and licence, intended use, results, limitations, reproduction."""
    test, dev = info["metrics"]["test"], info["metrics"]["dev"]
    counts = info["data"]["train_label_counts"]
    rare = min(counts, key=counts.get)
    if info["kind"] == "head":
        encoder = info["encoder"].removeprefix("packaged:")
        title = f"RWGBench citation-frame classifier (lite): {encoder} + logistic head"
        what = (f"Sentence embeddings of `{info['encoder']}` (L2-normalised, loaded through `sciwrite.models.encoders`) "
                "followed by seven one-vs-rest logistic regressions, one per MultiCite frame, each with its own "
                "decision threshold tuned on dev. Files: `head.safetensors` (weight 7 x d, bias, thresholds; rows "
                "in the frame order of `config.json`), `config.json` (frames, encoder, preprocessing, training "
                "choices, metrics). It is the `lite` profile's `citation_frame` model, "
                "`packaged:rwgbench-citation-frame-minilm`, and loads with "
                "`sciwrite.models.citation_frames.load_citation_frame_classifier(<folder>)`.")
    else:
        title = f"RWGBench citation-frame classifier: fine-tuned {info['base']}"
        what = (f"`{info['base']}` fine-tuned for multi-label classification (one sigmoid per frame, BCE loss); "
                f"a frame is on when its probability exceeds {SIGMOID_THRESHOLD}. A transformers checkpoint "
                "(`AutoModelForSequenceClassification`, id2label = the seven frames); training choices and "
                "metrics are in `training.json`. Use it with `model=<folder>` or `SCIWRITE_MODEL_CITATION_FRAME`.")
    smoke = info["data"].get("subset")
    lines = [
        "---", "license: cc-by-nc-2.0", "language: en", "library_name: sciwrite", "tags:",
        "- citation-function-classification", "- multicite", "- rwgbench", "---", "", f"# {title}", "",
        "## What it is",
        "A multi-label classifier of citation frames (why a sentence cites a paper), used by sciwrite's RWGBench "
        "citation frame alignment (CFA) metric. " + what, "",
        f"Frames (output order): {', '.join(f'`{f}`' for f in info['frames'])}.", "",
        "## Training data",
        f"MultiCite (Lauscher et al., NAACL 2022), `classification_{info['data']['context']}_context` "
        f"({'the citing sentence' if info['data']['context'] == '1' else 'the annotated gold context'}); "
        f"train / dev / test records used: {info['data']['sizes']['train']} / {info['data']['sizes']['dev']} / "
        f"{info['data']['sizes']['test']} (records without text, dropped: "
        f"{' / '.join(str(info['data']['dropped'][s]) for s in SPLITS)}). "
        f"Text: {info['data']['preprocessing']}. Model choices used dev only; test was scored once.", "",
        "## Licence",
        "MultiCite is released under CC BY-NC 2.0 (it derives from S2ORC), and this model, trained on it, inherits "
        "that licence: **non-commercial use only**, with attribution to MultiCite. The sciwrite code is MIT; "
        "this model folder is not.", "",
        "## Intended use",
        "Labelling the citation contexts of related-work sections (one sentence, citation markers removed) so "
        "that CFA can compare the frame profile of a generated section with the published one, offline. It is a "
        "stand-in for the RWGBench paper's DeBERTa-v3-large classifier (`BFTree/rwgbench-citation-frame-"
        "classifier`), not a replacement: CFA scores from the two are not comparable, and every result names "
        "its model.", "",
        "## Results (MultiCite test)",
        *(["**Smoke run on a subset: these numbers are not an evaluation.**", ""] if smoke else []),
        "| split | micro-F1 | macro-F1 | micro-P | micro-R | exact match | n |",
        "|---|---|---|---|---|---|---|",
        *(f"| {name} | {fmt(m['micro_f1'])} | {fmt(m['macro_f1'])} | {fmt(m['micro_precision'])} | "
          f"{fmt(m['micro_recall'])} | {fmt(m['exact_match'])} | {m['n']} |"
          for name, m in (("test", test), ("dev", dev))),
        "", "| frame | precision | recall | F1 | test support | train examples |", "|---|---|---|---|---|---|",
        *(f"| {f} | {fmt(test['per_frame'][f]['precision'])} | {fmt(test['per_frame'][f]['recall'])} | "
          f"{fmt(test['per_frame'][f]['f1'])} | {test['per_frame'][f]['support']} | {counts[f]} |" for f in FRAMES),
        "",
    ]
    removed = info["metrics"].get("test_cite_mention_removed")
    if removed:
        lines += [f"With the cited mention removed from the test text (as markers are at scoring time): micro-F1 "
                  f"{fmt(removed['micro_f1'])}, macro-F1 {fmt(removed['macro_f1'])}.", ""]
    lines += [
        "The RWGBench paper's DeBERTa-v3-large classifier is a fine-tuned 435M-parameter model; its MultiCite "
        "scores are not reproduced here, so compare on your own data before relying on the lite profile.", "",
        "## Limitations",
        f"- `{rare}` has only {counts[rare]} training examples; its F1 rests on {test['per_frame'][rare]['support']} "
        "test examples and is unreliable.",
        "- Thresholds maximise each frame's F1, which for rare frames trades precision for recall (see the table): "
        "rare frames are over-counted, on the generated and the reference side alike.",
        f"- {fmt(test['no_frame_rate'])} of test contexts get no frame at all; such a context adds to no count.",
        "- MultiCite is computational-linguistics papers with author-year citations; related-work sections of "
        "other fields are out of domain. Scoring removes numeric markers; the mention-removed test score above "
        "estimates what removing the citation from the sentence costs.",
        "- Frames overlap (background vs. motivation, similarities vs. differences); a sentence-level classifier "
        "sees no wider context.", "",
        "## Reproduce",
        f"`{info['command']}` (seed {info['seed']}; {info['training_seconds']:.0f} s, data reading to card, on the "
        "machine that trained it).", "",
        "## Citation",
        "Lauscher et al., *MultiCite: Modeling realistic citations requires moving beyond the single-sentence "
        "single-label setting*, NAACL 2022. Xie et al., *RWGBench: Evaluating Scholarly Positioning in Related "
        "Work Generation*, arXiv:2606.24894, 2026.", "",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True, help="MultiCite folder with classification_*_context/")
    parser.add_argument("--context", choices=("1", "gold"), default="1", help="1: citing sentence; gold: gold context")
    parser.add_argument("--kind", choices=("head", "finetune"), default="head")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cite-mention", choices=("keep", "remove"), default="keep",
                        help="keep the cited mention's text (tags removed) or remove it like a marker")
    parser.add_argument("--max-train", type=int, help="use the first N training records (smoke runs)")
    parser.add_argument("--max-eval", type=int, help="use the first N dev and test records (smoke runs)")
    parser.add_argument("--batch-size", type=int, help="default: 64 (head), 16 (finetune)")
    head = parser.add_argument_group("head")
    head.add_argument("--encoder", default=PACKAGED_MINILM, help="sentence encoder id or path")
    head.add_argument("--c-grid", default=DEFAULT_C_GRID, help="inverse regularisation strengths to try")
    tune = parser.add_argument_group("finetune")
    tune.add_argument("--base", default="allenai/scibert_scivocab_uncased", help="e.g. microsoft/deberta-v3-large")
    tune.add_argument("--epochs", type=int, default=3)
    tune.add_argument("--lr", type=float, default=2e-5)
    tune.add_argument("--weight-decay", type=float, default=0.01)
    tune.add_argument("--warmup", type=float, default=0.1, help="warm-up share of the steps")
    tune.add_argument("--max-length", type=int, default=256)
    args = parser.parse_args(argv)
    args.batch_size = args.batch_size or (64 if args.kind == "head" else 16)
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    random.seed(args.seed)
    np.random.seed(args.seed)
    started = time.perf_counter()
    data = {split: read_split(args.data_dir, args.context, split, args.cite_mention) for split in SPLITS}
    data = {"train": data["train"].head(args.max_train), "dev": data["dev"].head(args.max_eval),
            "test": data["test"].head(args.max_eval)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    info = train_head(args, data, out) if args.kind == "head" else finetune(args, data, out)
    # The metric's own loader and decision rule (unwrapped from its cache: this folder was just rewritten).
    classifier = load_citation_frame_classifier.__wrapped__(str(out.resolve()))
    info["metrics"]["test"] = multilabel_metrics(data["test"].labels, classifier.predict(data["test"].texts))
    if args.cite_mention == "keep":
        removed = read_split(args.data_dir, args.context, "test", "remove").head(args.max_eval)
        info["metrics"]["test_cite_mention_removed"] = multilabel_metrics(removed.labels,
                                                                          classifier.predict(removed.texts))
    info.update({
        "kind": args.kind, "seed": args.seed,
        "data": {"name": "MultiCite", "licence": "CC BY-NC 2.0", "context": args.context,
                 "preprocessing": PREPROCESSING if args.cite_mention == "keep" else PREPROCESSING_MENTION_REMOVED,
                 "sizes": {s: len(data[s].texts) for s in SPLITS}, "dropped": {s: data[s].n_dropped for s in SPLITS},
                 "train_label_counts": {f: int(n) for f, n in zip(FRAMES, data["train"].labels.sum(axis=0))},
                 **({"subset": {"max_train": args.max_train, "max_eval": args.max_eval}}
                    if args.max_train or args.max_eval else {})},
        "command": "python scripts/train_citation_frame_classifier.py --data-dir <multicite> "
                   + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in (
                       ("context", args.context), ("kind", args.kind), ("seed", args.seed),
                       ("cite_mention", args.cite_mention),
                       *((("encoder", args.encoder), ("c_grid", args.c_grid)) if args.kind == "head" else
                         (("base", args.base), ("epochs", args.epochs), ("lr", args.lr),
                          ("max_length", args.max_length))),
                       ("batch_size", args.batch_size), ("max_train", args.max_train), ("max_eval", args.max_eval))
                       if v is not None) + " --out <folder>",
        "training_seconds": round(time.perf_counter() - started, 1),
    })
    metadata_file = HEAD_CONFIG if args.kind == "head" else "training.json"
    (out / metadata_file).write_text(json.dumps(info, indent=2) + "\n")
    (out / "README.md").write_text(model_card(info))
    test = info["metrics"]["test"]
    print(f"test micro-F1 {test['micro_f1']:.4f}, macro-F1 {test['macro_f1']:.4f} "
          f"({info['training_seconds']:.0f} s) -> {out}")
    return info


if __name__ == "__main__":
    main()
