#!/usr/bin/env python
"""Build SciIG dataset folders.

  python scripts/build_sciig.py papers --allow-missing-abstracts --out data/sciig           # offline sample (aclsum)
  python scripts/build_sciig.py papers --config naacl_2025 --paper-dir naacl_grobid/ --venue NAACL --year 2025 \\
      --s2 --llm-model gpt-4o-mini --out data/sciig                                        # the paper's pipeline
  python scripts/build_sciig.py upstream --release naacl.json --config naacl_2025 --venue NAACL --year 2025 \\
      --out data/sciig                                                                     # import a release file

Each writes `<config>/{test,holdout}-*.parquet`, the card and build_report.json into --out; load the result with
`sciwrite.sciig.load_sciig(config, source=<out>)`.
"""

from __future__ import annotations

import argparse
import json
import logging

from sciwrite.cli.build_sciig import (
    add_build_arguments,
    import_release_folder,
    run_build,
)
from sciwrite.sciig.data.configs import SCIIG_CONFIGS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    add_build_arguments(sub.add_parser("papers", help="from grobid2json papers (default: the aclsum sample)"))
    p = sub.add_parser("upstream", help="import an upstream SciIG release JSON")
    p.add_argument("--release", required=True, help="JSON / JSON Lines with title, abstract, introduction, neighbors")
    p.add_argument("--config", required=True, choices=SCIIG_CONFIGS)
    p.add_argument("--venue", required=True)
    p.add_argument("--year", type=int)
    p.add_argument("--allow-missing-abstracts", action="store_true")
    p.add_argument("--out", required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.what == "papers":
        summary = run_build(args)
    else:
        summary = import_release_folder(args.release, args.out, args.config, venue=args.venue, year=args.year,
                                        allow_missing_abstracts=args.allow_missing_abstracts)
    print(json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    main()
