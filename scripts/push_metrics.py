#!/usr/bin/env python
"""Publish every sciwrite `evaluate` module (`metrics/<name>/`) as a Hub Space, in the layout `evaluate-cli create`
makes (the module, its card with the Space front matter and the evaluate/metric tags, requirements.txt naming
sciwrite, and a small app.py widget), so that `evaluate.load("ORG/<name>")` works wherever sciwrite is installed.

  HF_TOKEN=... python scripts/push_metrics.py --namespace sciwrite
  python scripts/push_metrics.py --namespace sciwrite --dry-run --out /tmp/metric_spaces   # writes, sends nothing
"""

from __future__ import annotations

import argparse

from sciwrite.core.metric_modules import available_metrics
from sciwrite.core.metric_spaces import push_spaces, write_spaces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--namespace", required=True, help="the Hub user or organisation the Spaces go under")
    parser.add_argument("--metric", nargs="+", choices=available_metrics(), help="only these (default: every one)")
    parser.add_argument("--dry-run", action="store_true", help="write the Spaces under --out instead of pushing")
    parser.add_argument("--out", default="metric_spaces", help="with --dry-run: the folder to write")
    args = parser.parse_args()
    if args.dry_run:
        for folder in write_spaces(args.namespace, args.out, args.metric):
            print(f"{folder}: would be the Space {args.namespace}/{folder.name}")
        return
    for url in push_spaces(args.namespace, args.metric):
        print(url)


if __name__ == "__main__":
    main()
