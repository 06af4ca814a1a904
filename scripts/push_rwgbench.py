#!/usr/bin/env python
"""Push a local RWGBench folder to the Hub: each config as parquet (`push_to_hub`), then the card, the
``eval.yaml`` that declares the benchmark's Hub tasks and the dense indexes (``faiss/<config>/``) next to the data.

  HF_TOKEN=... python scripts/push_rwgbench.py --folder data/rwgbench --push-to-hub sciwrite/rwgbench
  python scripts/push_rwgbench.py --folder data/rwgbench --push-to-hub sciwrite/rwgbench --dry-run

The card pushed is datasets/rwgbench/README.md (the published one), unless --card names another file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.core.datasets import card_configs
from sciwrite.rwgbench.data.configs import RWGBENCH_CONFIGS
from sciwrite.rwgbench.data.loading import load_rwgbench

REPO_ROOT = Path(__file__).resolve().parents[1]


def push_plan(folder: Path) -> tuple[list[str], list[Path]]:
    """The configs present in `folder` (in canonical order) and its index folders."""
    present = card_configs(folder)
    configs = [c for c in RWGBENCH_CONFIGS if c in present]
    indexes = sorted(p for p in (folder / "faiss").glob("*") if p.is_dir()) if (folder / "faiss").is_dir() else []
    return configs, indexes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", required=True, type=Path)
    parser.add_argument("--push-to-hub", dest="repo_id", required=True, metavar="REPO",
                        help="the Hub dataset repo to publish to (as `sciwrite push` names it)")
    parser.add_argument("--card", type=Path, default=REPO_ROOT / "datasets" / "rwgbench" / "README.md")
    parser.add_argument("--eval-yaml", type=Path, default=REPO_ROOT / "datasets" / "rwgbench" / "eval.yaml")
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="validate and print what would be pushed")
    args = parser.parse_args()

    configs, indexes = push_plan(args.folder)
    if not configs:
        raise SystemExit(f"{args.folder} has no RWGBench configs to push")
    for config in configs:
        ds = load_rwgbench(config, source=args.folder)  # validates the schema before anything leaves the machine
        print(f"{config}: {len(ds)} rows -> {args.repo_id} (config {config!r}, split {RWGBENCH_CONFIGS[config].split!r})")
        if not args.dry_run:
            ds.push_to_hub(args.repo_id, config_name=config, split=RWGBENCH_CONFIGS[config].split, private=args.private)
    for index in indexes:
        print(f"dense index {index} -> {args.repo_id}:faiss/{index.name}/")
    print(f"card {args.card} -> {args.repo_id}:README.md")
    print(f"benchmark tasks {args.eval_yaml} -> {args.repo_id}:eval.yaml")
    if args.dry_run:
        return
    from huggingface_hub import HfApi

    api = HfApi()
    for index in indexes:
        api.upload_folder(repo_id=args.repo_id, repo_type="dataset", folder_path=str(index), path_in_repo=f"faiss/{index.name}")
    api.upload_file(repo_id=args.repo_id, repo_type="dataset", path_or_fileobj=str(args.card), path_in_repo="README.md")
    api.upload_file(repo_id=args.repo_id, repo_type="dataset", path_or_fileobj=str(args.eval_yaml),
                    path_in_repo="eval.yaml")


if __name__ == "__main__":
    main()
