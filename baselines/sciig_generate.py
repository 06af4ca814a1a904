#!/usr/bin/env python
"""SciIG baselines over the Hub: load a SciIG config (``datasets.load_dataset`` on a Hub repo or a local folder),
generate each paper's Introduction with the chosen prompt level(s), write
``<out>/<model>_<dataset>_<level>.jsonl`` and optionally ``--push-to-hub`` the result.

A thin wrapper around the library (`sciwrite.cli.generate_sciig`), the same as ``sciwrite generate sciig``:

    python baselines/sciig_generate.py --model openrouter:deepseek/deepseek-chat-v3-0324 \\
        --dataset naacl_2025 --level SHORT THREE_SHOT AUTOCOT
    python baselines/sciig_generate.py --model extractive --dataset sample
    python baselines/sciig_generate.py --model openai:gpt-4o --dataset iclr_2025 --level all --dry-run
"""

from __future__ import annotations

import sys

from sciwrite.cli.generate_sciig import main

if __name__ == "__main__":
    sys.exit(main())
