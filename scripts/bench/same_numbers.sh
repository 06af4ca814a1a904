#!/usr/bin/env bash
# Every number a change must leave alone, written under one folder, so that two checkouts can be compared with
# scripts/bench/compare_quickstart.py (issue 47's rule: a refactor moves no number):
#   1. `sciwrite quickstart --limit 10` from empty data and cache folders;
#   2. `sciwrite evaluate rwgbench` on two extractive systems (RAG over BM25 and over dense candidates);
#   3. `sciwrite evaluate sciig` on the extractive floor, both with --bootstrap 1000;
#   4. the Inspect tasks sciwrite/rwgbench and sciwrite/sciig with mockllm/model on 5 papers, their scores as
#      JSON (scripts/bench/inspect_scores.py).
#
#   bash scripts/bench/same_numbers.sh /tmp/before          # on the old checkout
#   bash scripts/bench/same_numbers.sh /tmp/after           # on the new one
#   python scripts/bench/compare_quickstart.py /tmp/before/out /tmp/after/out
set -euo pipefail
OUT=$(realpath -m "${1:?usage: same_numbers.sh OUT}")
BIN=${BIN:-.venv/bin}
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 SCIWRITE_PROFILE=lite
export SCIWRITE_CACHE_DIR="$OUT/cache" SCIWRITE_DATA_DIR="$OUT/data/rwgbench" INSPECT_LOG_DIR="$OUT/logs"
rm -rf "$OUT" && mkdir -p "$OUT/out" "$OUT/runs"
SW="$BIN/sciwrite"

"$SW" quickstart --limit 10 --out "$OUT/out/quickstart" --store "$OUT/board.sqlite"

for retriever in bm25 dense; do
  "$SW" generate rwgbench --model extractive --method rag --retriever "$retriever" --split sample --limit 10 \
    --out "$OUT/runs/rwgbench"
done
"$SW" evaluate rwgbench --predictions "$OUT"/runs/rwgbench/*.jsonl --split sample --bootstrap 1000 \
  --out "$OUT/out/evaluate-rwgbench" --system bm25-rag dense-rag
"$SW" generate sciig --model extractive --split sample --limit 10 --out "$OUT/runs/sciig"
"$SW" evaluate sciig --predictions "$OUT"/runs/sciig/*.jsonl --split sample --bootstrap 1000 \
  --out "$OUT/out/evaluate-sciig" --system extractive

"$BIN/python" scripts/bench/inspect_scores.py "$OUT" --limit 5
