"""`sciwrite paper-table NAME`: one of the papers' numbered tables in the paper's own layout (rows, columns,
labels, decimals, the best values marked, its notes), also written as JSON and CSV with ``--out STEM``. A table
built from evaluation summaries lists its runs under the notes (rank with its interval, cost, judge: the facts the
board and ``sciwrite compare`` show), written with ``--out`` as ``STEM.runs.json`` and ``STEM.runs.csv``.
``sciwrite paper-table --list`` names every table with the inputs it needs. Each benchmark declares its tables
(`Benchmark.presentation.paper_tables`)."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.flags import TABLE_OUT
from sciwrite.cli.options import add_options, option_values
from sciwrite.core.paper_tables import PaperTable, render, write
from sciwrite.core.tables import format_table


def all_tables() -> list[PaperTable]:
    return [table for bench in BENCHMARKS.values() for table in bench.presentation.paper_tables]


def cmd_paper_table(args: argparse.Namespace) -> None:
    table: PaperTable | None = getattr(args, "paper_table", None)
    if table is None:
        if not args.list:
            raise ValueError("name a table (sciwrite paper-table NAME ...), or --list them")
        print(format_table([{"table": t.name, "what": t.caption, "inputs": t.inputs} for t in all_tables()], left=3))
        return
    data = table.build(option_values(args, table.options))
    print(render(data))
    if args.out:
        *first, last = write(data, args.out)
        print(f"\nwrote {', '.join(str(path) for path in first)} and {last}")


def add_paper_table_command(sub: argparse._SubParsersAction) -> None:
    """The `paper-table` group: one command per declared table, and --list."""
    p = sub.add_parser("paper-table", help="a numbered table of a paper, in its layout (--list: every table)")
    p.add_argument("--list", action="store_true", help="name every table and the inputs it needs")
    p.set_defaults(func=cmd_paper_table, paper_table=None)
    tables = p.add_subparsers(dest="table", required=False)
    for table in all_tables():
        t = add_options(tables.add_parser(table.name, help=f"{table.caption} ({table.inputs})"), table.options)
        TABLE_OUT.add(t)
        t.set_defaults(func=cmd_paper_table, paper_table=table, list=False)
