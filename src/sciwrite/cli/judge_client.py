"""The judge's client settings, read from the flags `sciwrite.cli.flags.add_judge_flags` adds: the judge's endpoint,
reply cache and request parameters (`judge_config`), and the usage ledger with its budget (`usage_ledger`). Every
command that asks a judge reads them here (`evaluate`, `meta-eval judge-check`, `human-eval llm-annotate`)."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from sciwrite.cli.budget import LEDGER_NAME
from sciwrite.llm.ledger import PriceTable, UsageLedger
from sciwrite.metrics.judge_config import JudgeConfig


def judge_config(args: argparse.Namespace) -> JudgeConfig:
    """``--judge-base-url``, ``--judge-cache`` and ``--judge-option`` as the judge's client config."""
    return JudgeConfig(base_url=args.judge_base_url or None,
                       cache_path=str(args.judge_cache) if args.judge_cache else None,
                       options=tuple(dict(args.judge_option or []).items()))


def usage_ledger(args: argparse.Namespace, out: Path, command: str = "evaluate") -> UsageLedger:
    """The usage ledger under `out`, its lines tagged with this run's id (`command` and the time), priced by
    ``--prices``, its budget ``--max-cost``."""
    run = f"{command}-{datetime.datetime.now(datetime.UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
    return UsageLedger(out / LEDGER_NAME, prices=PriceTable.load(args.prices), tags={"run": run},
                       max_cost=args.max_cost)


__all__ = ["judge_config", "usage_ledger"]
