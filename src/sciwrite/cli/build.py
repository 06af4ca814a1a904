"""`sciwrite build`: the offline sample, RWGBench from arXiv HTML or its upstream release, SciIG."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sciwrite.cli.build_sciig import add_build_arguments, run_build
from sciwrite.core.tables import format_table
from sciwrite.rwgbench.data.builder import build_rwgbench_folder
from sciwrite.rwgbench.data.configs import default_data_dir
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.upstream import UPSTREAM_REPO_ID, import_upstream_folder


def cmd_build_sample(args: argparse.Namespace) -> None:
    out = Path(args.out or default_data_dir())
    stats = write_sample_folder(out, paper_dir=args.paper_dir)
    print(f"RWGBench sample written to {out}")
    print(format_table([{"statistic": k, "value": v} for k, v in stats.items()]))


def cmd_build_rwgbench(args: argparse.Namespace) -> None:
    summary = build_rwgbench_folder(html_dir=args.html_dir, surge_corpus=args.surge_corpus, out=args.out,
                                    arxiv_records=args.arxiv_records, accepted_titles=args.accepted_titles)
    print(format_table([{"statistic": k, "value": v} for k, v in summary.items()]))


def cmd_build_rwgbench_upstream(args: argparse.Namespace) -> None:
    out = import_upstream_folder(args.out, args.repo_id, papers=args.papers, test=args.test, corpus=args.corpus,
                                 column_map=json.loads(args.column_map) if args.column_map else None)
    print(f"RWGBench imported from {args.repo_id} into {out}")


def cmd_build_sciig(args: argparse.Namespace) -> None:
    summary = run_build(args)
    print(f"SciIG config {summary['config']!r} written to {summary['out']}")
    print(format_table([{"statistic": k, "value": v} for k, v in summary.items() if k not in ("out", "config")]))


def add_build_commands(sub: argparse._SubParsersAction) -> None:
    """The `build` group."""
    build = sub.add_parser("build", help="build a dataset").add_subparsers(dest="what", required=True)
    p = build.add_parser("sample", help="the offline RWGBench sample from the packaged ACL papers")
    p.add_argument("--out", help="folder to write (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)")
    p.add_argument("--paper-dir", help="folder of grobid2json papers (default: the aclsum package's)")
    p.set_defaults(func=cmd_build_sample)
    p = build.add_parser("rwgbench", help="RWGBench from arXiv HTML pages and the SurGE corpus")
    p.add_argument("--html-dir", required=True, help="folder of LaTeXML arXiv HTML pages (<arxiv id>.html)")
    p.add_argument("--surge-corpus", required=True, help="SurGE corpus.json")
    p.add_argument("--arxiv-records", help="JSON Lines of extra arXiv records for cited papers missing from SurGE")
    p.add_argument("--accepted-titles", help="CSV/TSV/JSONL/txt of accepted ICLR/NeurIPS/ICML titles (for `test`)")
    p.add_argument("--out", required=True, help="dataset folder to write")
    p.set_defaults(func=cmd_build_rwgbench)
    p = build.add_parser("rwgbench-upstream", help=f"import the upstream release {UPSTREAM_REPO_ID} into our schema")
    p.add_argument("--repo-id", default=UPSTREAM_REPO_ID, help="upstream Hub dataset repo")
    p.add_argument("--papers", default=":train", help="upstream CONFIG:SPLIT holding the 40k papers")
    p.add_argument("--test", default=":test", help="upstream CONFIG:SPLIT holding the 100 test papers")
    p.add_argument("--corpus", default="corpus:train", help="upstream CONFIG:SPLIT holding the corpus")
    p.add_argument("--column-map", help='JSON {"upstream column": "our field" or null}')
    p.add_argument("--out", required=True, help="dataset folder to write")
    p.set_defaults(func=cmd_build_rwgbench_upstream)

    p = add_build_arguments(build.add_parser("sciig", help="SciIG from grobid2json papers (default: the offline sample)"))
    p.set_defaults(func=cmd_build_sciig)
