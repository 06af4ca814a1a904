#!/usr/bin/env python
"""Build RWGBench dataset folders.

  python scripts/build_rwgbench.py sample --out data/rwgbench-sample
  python scripts/build_rwgbench.py full --html-dir arxiv_html/ --surge-corpus corpus.json \\
      --arxiv-records extra_arxiv.jsonl --accepted-titles accepted.csv --out data/rwgbench
  python scripts/build_rwgbench.py upstream --out data/rwgbench-upstream   # import BFTree/RWGBench

Each writes parquet files per config, a dataset card and a build report into --out; load the result
with `sciwrite.rwgbench.load_rwgbench(config, source=<out>)`.
"""

from __future__ import annotations

import argparse
import json
import logging

from datasets import Dataset

from sciwrite.rwgbench.data.builder import build_rwgbench_folder
from sciwrite.rwgbench.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.upstream import UPSTREAM_REPO_ID, load_upstream


def import_upstream_folder(out: str, repo_id: str, paper_configs: dict[str, tuple[str, str]],
                           corpus_config: tuple[str, str], column_map: dict | None) -> None:
    """Import the upstream release config by config and write it in our layout."""
    tables: dict[str, Dataset] = {}
    for ours, (config, split) in paper_configs.items():
        tables[ours] = load_upstream(repo_id, config or None, split=split, kind="paper", column_map=column_map)
    config, split = corpus_config
    tables["corpus"] = load_upstream(repo_id, config or None, split=split, kind="corpus", column_map=column_map)
    card = f"---\nlicense: cc-by-4.0\n{card_configs_yaml(list(tables))}---\n\n# RWGBench (imported from {repo_id})\n"
    write_dataset_folder(out, tables, card)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("sample", help="the offline sample from the aclsum package")
    p.add_argument("--out", required=True)
    p.add_argument("--paper-dir")
    p = sub.add_parser("full", help="papers/test/corpus from arXiv HTML + SurGE")
    p.add_argument("--html-dir", required=True)
    p.add_argument("--surge-corpus", required=True)
    p.add_argument("--arxiv-records")
    p.add_argument("--accepted-titles")
    p.add_argument("--out", required=True)
    p = sub.add_parser("upstream", help=f"import {UPSTREAM_REPO_ID} from the Hub into our schema")
    p.add_argument("--repo-id", default=UPSTREAM_REPO_ID)
    p.add_argument("--papers", default=":train", help="upstream CONFIG:SPLIT holding the 40k papers")
    p.add_argument("--test", default=":test", help="upstream CONFIG:SPLIT holding the 100 test papers")
    p.add_argument("--corpus", default="corpus:train", help="upstream CONFIG:SPLIT holding the corpus")
    p.add_argument("--column-map", help='JSON {"upstream column": "our field" or null}')
    p.add_argument("--out", required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    if args.what == "sample":
        stats = write_sample_folder(args.out, paper_dir=args.paper_dir)
    elif args.what == "full":
        stats = build_rwgbench_folder(args.html_dir, args.surge_corpus, args.out, arxiv_records=args.arxiv_records,
                                      accepted_titles=args.accepted_titles)
    else:
        split_of = lambda spec: tuple(spec.split(":", 1)) if ":" in spec else (spec, None)  # noqa: E731
        import_upstream_folder(args.out, args.repo_id, {"papers": split_of(args.papers), "test": split_of(args.test)},
                               split_of(args.corpus), json.loads(args.column_map) if args.column_map else None)
        stats = {"written": args.out}
    print(json.dumps(stats, indent=2, default=str))


if __name__ == "__main__":
    main()
