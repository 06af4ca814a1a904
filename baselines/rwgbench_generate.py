#!/usr/bin/env python
"""Generate RWGBench related-work sections with the baselines: Direct, RAG, ALCE, TAG, Workflow (+ Oracle).

A thin script over the library: the split and its corpus are read with `datasets.load_dataset` from a Hub repo
(``--source <namespace>/rwgbench``) or a local dataset folder (``--source path/``), through
`sciwrite.rwgbench.load_rwgbench`; generation is `sciwrite.cli.generate_rwgbench` (the same code as
``sciwrite generate rwgbench``); ``--push-to-hub REPO_ID`` publishes each output file. Examples:

    python baselines/rwgbench_generate.py --model openrouter:deepseek/deepseek-chat-v3-0324 --method rag \\
        --split test --source sciwrite/rwgbench --index indexes/corpus/bm25
    python baselines/rwgbench_generate.py --model openai:gpt-4o --method all --oracle --split sample
    python baselines/rwgbench_generate.py --model hf:Qwen/Qwen2.5-0.5B-Instruct --method alce --dry-run
    python baselines/rwgbench_generate.py --model openai:gpt-4o --method rag --push-to-hub me/rwgbench-runs
"""

from __future__ import annotations

import sys

from sciwrite.cli.generate_rwgbench import main

if __name__ == "__main__":
    sys.exit(main())
