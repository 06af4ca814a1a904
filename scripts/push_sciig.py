#!/usr/bin/env python
"""Push a local SciIG folder to the Hub: each config's ``test`` and ``holdout`` splits as parquet (`push_to_hub`),
then the card and the ``eval.yaml`` that declares the benchmark's Hub tasks. Local configs (``arxiv``, a user's own
fresh set) are never pushed to the benchmark's repo.

  HF_TOKEN=... python scripts/push_sciig.py --folder ~/.cache/sciwrite/sciig --push-to-hub sciwrite/sciig
  python scripts/push_sciig.py --folder ~/.cache/sciwrite/sciig --push-to-hub sciwrite/sciig --dry-run

The card pushed is datasets/sciig/README.md (the published one), unless --card names another file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.core.datasets import card_configs
from sciwrite.sciig.data.configs import SCIIG_CONFIGS, SCIIG_SPLITS
from sciwrite.sciig.data.loading import load_sciig

REPO_ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", required=True, type=Path)
    parser.add_argument("--push-to-hub", dest="repo_id", required=True, metavar="REPO",
                        help="the Hub dataset repo to publish to (as `sciwrite push` names it)")
    parser.add_argument("--card", type=Path, default=REPO_ROOT / "datasets" / "sciig" / "README.md")
    parser.add_argument("--eval-yaml", type=Path, default=REPO_ROOT / "datasets" / "sciig" / "eval.yaml")
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="validate and print what would be pushed")
    args = parser.parse_args()

    present = card_configs(args.folder)
    configs = [c for c in SCIIG_CONFIGS if c in present]
    if not configs:
        raise SystemExit(f"{args.folder} has no published SciIG configs to push ({', '.join(SCIIG_CONFIGS)})")
    for config in configs:
        for split in SCIIG_SPLITS:
            ds = load_sciig(config, source=args.folder, split=split)  # validated before anything leaves the machine
            print(f"{config}/{split}: {len(ds)} rows -> {args.repo_id} (config {config!r}, split {split!r})")
            if not args.dry_run:
                ds.push_to_hub(args.repo_id, config_name=config, split=split, private=args.private)
    print(f"card {args.card} -> {args.repo_id}:README.md")
    print(f"benchmark tasks {args.eval_yaml} -> {args.repo_id}:eval.yaml")
    if args.dry_run:
        return
    from huggingface_hub import HfApi

    api = HfApi()
    api.upload_file(repo_id=args.repo_id, repo_type="dataset", path_or_fileobj=str(args.card), path_in_repo="README.md")
    api.upload_file(repo_id=args.repo_id, repo_type="dataset", path_or_fileobj=str(args.eval_yaml),
                    path_in_repo="eval.yaml")


if __name__ == "__main__":
    main()
