"""The flags several commands share, each defined once: its name, what it takes and its help.

A command adds a shared flag with `Flag.add` (its own default, choices or a help that says more where it needs to),
never with a second ``add_argument("--limit", ...)``; the groups of flags that travel together (the judge's client,
the bootstrap, the Ray engine, a generation run's request settings) have one function each. So a name keeps one
meaning in every command: `tests/cli/test_flag_glossary.py` checks the tree against the contributor's guide's flag
glossary, and `tests/cli/test_shared_flags.py` that no CLI module declares a shared flag again.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sciwrite.cli.budget import EXIT_BUDGET, EXIT_FAILED
from sciwrite.cli.options import (
    PROFILES,
    benchmark_folder,
    budget_usd,
    confidence_level,
    iso_date,
    key_value,
    model_option,
    temperature,
    timeout_seconds,
    whole_number,
)
from sciwrite.core.engine import ENGINES, LOCAL
from sciwrite.core.predictions import BAD_RECORDS, DEFAULT_BAD_RECORDS
from sciwrite.llm.types import GenerationSettings
from sciwrite.sources.bib_services import SERVICES as BIB_SERVICES


@dataclass(frozen=True)
class Flag:
    """One shared flag: its name, its help and the rest of its argparse keywords."""

    name: str
    help: str
    keywords: Mapping[str, Any] = field(default_factory=dict)

    def add(self, parser: argparse.ArgumentParser, help: str | None = None, **overrides: Any) -> argparse.Action:
        """The flag on `parser`; `help` and `overrides` (a default, choices, required) are the command's own."""
        return parser.add_argument(self.name, help=help or self.help, **{**self.keywords, **overrides})


# ------------------------------------------------------------------------------------------- data and outputs
BENCHMARK = Flag("--benchmark", "which benchmark")
SPLIT = Flag("--split", "the benchmark split or config the command reads")
SPLITS = Flag("--split", "a benchmark's split or config; repeatable", {"action": "append", "metavar": "BENCHMARK=SPLIT"})
SOURCE = Flag("--source", "local dataset folder or Hub repo id (default: the sample folder / the Hub)")
SOURCES = Flag("--source", "a benchmark's dataset folder or Hub repo id; repeatable",
               {"action": "append", "type": benchmark_folder, "metavar": "BENCHMARK=DIR"})
CORPUS = Flag("--corpus", "the corpus config", {"metavar": "CONFIG"})
INDEX = Flag("--index", "folder written by `sciwrite index build`")
K = Flag("--k", "retrieved candidates per paper", {"type": int})
LIMIT = Flag("--limit", "only the first N papers", {"type": whole_number(1), "metavar": "N"})
OUT = Flag("--out", "where to write")
TABLE_OUT = Flag("--out", "also write the table to STEM.json and STEM.csv", {"metavar": "STEM"})
PLOT = Flag("--plot", "the PNG plot to write", {"metavar": "PNG"})
PREDICTIONS = Flag("--predictions", "prediction files (JSON Lines), one per system", {"nargs": "+", "metavar": "FILE"})
SYSTEM = Flag("--system", "system names, one per prediction file (default: the files' stems)", {"nargs": "+"})
EVALS = Flag("--evals", "evaluation folders (one system each) holding summary.json", {"nargs": "+", "metavar": "DIR"})
METRICS = Flag("--metrics", "only these metrics", {"nargs": "+", "metavar": "METRIC"})
RATINGS = Flag("--ratings", "ratings or answers, JSON Lines", {"metavar": "FILE"})
STUDY = Flag("--study", "the human study's name, as the trust card shows it (default: the ratings file's stem)",
             {"metavar": "NAME"})
AGREEMENT_RECORD = Flag("--record", "also write DIR/human_agreement.json: the judge metrics' agreement with people, "
                                    "with the judge(s), benchmark and study, for `sciwrite evaluate "
                                    "--human-agreement DIR`", {"metavar": "DIR"})
TASKS = Flag("--tasks", "the task folder `human-eval tasks` wrote", {"required": True, "metavar": "DIR"})
STORE = Flag("--store", "the SQLite store the command reads and writes")
SUBMISSION = Flag("--submission", "a leaderboard submission's id (its row in --store)", {"metavar": "ID"})
INSPECT_LOG = Flag("--inspect-log", "logs of finished `inspect eval sciwrite/rwgbench` or `sciwrite/sciig` runs "
                                    "(the inspect extra)", {"nargs": "+", "metavar": "LOG"})
LEDGER = Flag("--ledger", "the generator's usage ledger (usage.jsonl) of the predictions, for the cost columns",
              {"metavar": "FILE"})
DATASET_ID = Flag("--dataset-id", "the benchmark's Hub dataset repo id, as `.eval_results` entries name it")
BAD_RECORDS_FLAG = Flag("--bad-records", "a malformed line (or a paper predicted twice, differently): 'error' refuses "
                                         "the file naming every such line (default); 'skip' scores the other lines "
                                         "and writes these to rejected.jsonl",
                        {"choices": BAD_RECORDS, "default": DEFAULT_BAD_RECORDS})
CUTOFF = Flag("--cutoff", "a model's training cutoff: split every metric into papers published on or before it and "
                          "after it, with intervals and a test of the difference (written to <out>/cutoff.csv)",
              {"type": iso_date, "metavar": "YYYY-MM-DD"})
DRY_RUN = Flag("--dry-run", "everything but the command's effect", {"action": "store_true"})

# ------------------------------------------------------------------------------------- reference checking
SNAPSHOT = Flag("--snapshot", "a local bibliographic snapshot to check references against: JSON Lines (HALLMARK's "
                              "entry shape or flat), BibTeX or a DBLP XML dump; read once and cached; repeatable",
                {"action": "append", "metavar": "FILE"})
COMPLETE_SNAPSHOT = Flag("--complete-snapshot", "the snapshots list every work the references may cite: a title they "
                                                "lack is fabricated (default: unresolved)", {"action": "store_true"})
CHECK_ONLINE = Flag("--check-online", "also check references against this bibliographic service; repeatable",
                    {"action": "append", "choices": sorted(BIB_SERVICES), "metavar": "SERVICE"})
RESPONSE_CACHE = Flag("--response-cache", "the SQLite cache of the bibliographic services' answers (default: "
                                          "$SCIWRITE_CACHE_DIR/online/responses.sqlite)", {"metavar": "SQLITE"})
CUTOFF_YEAR = Flag("--cutoff-year", "references dated after this year are anachronistic (default: this year)",
                   {"type": int, "metavar": "YEAR"})

# ---------------------------------------------------------------------------------------------------- the Hub
PUSH_TO_HUB = Flag("--push-to-hub", "the Hub dataset repo to publish to, e.g. user/sciwrite-predictions",
                   {"metavar": "REPO_ID"})
HUB_CONFIG = Flag("--hub-config", "the Hub dataset config to push to", {"metavar": "NAME"})
PRIVATE = Flag("--private", "create the Hub repo private", {"action": "store_true"})

# ----------------------------------------------------------------------------------------------- served apps
HOST = Flag("--host", "address to listen on (default: 127.0.0.1)", {"default": "127.0.0.1"})
PORT = Flag("--port", "port (default: 7860)", {"type": int})

# ------------------------------------------------------------------------------------------------- models
PROFILE = Flag("--profile", "model profile (default: $SCIWRITE_PROFILE or paper)", {"choices": PROFILES})
MODEL = Flag("--model", "the writer: openrouter:<id> (OPENROUTER_API_KEY), openai:<id> (OPENAI_API_KEY), hf:<id or "
                        "path> (local transformers), <id> with --base-url (SCIWRITE_LLM_API_KEY), or 'extractive' "
                        "(the offline non-LLM floor)", {"metavar": "MODEL"})
BASE_URL = Flag("--base-url", "the writer's OpenAI-compatible endpoint, for a bare --model id (vLLM, TGI, llama.cpp)",
                {"metavar": "URL"})
MODEL_ROLE = Flag("--model-role", "override one model role; repeatable",
                  {"action": "append", "type": key_value("ROLE=ID", "nli=path/to/model"), "metavar": "ROLE=ID"})
BATCH_SIZE = Flag("--batch-size", "model batch size", {"type": int, "metavar": "N"})
CONCURRENCY = Flag("--concurrency", "LLM requests in flight at once", {"type": int})
MAX_TOKENS = Flag("--max-tokens", "the reply's token limit", {"type": int})
MAX_COST = Flag("--max-cost", "never spend more than this many dollars in the usage ledger (earlier runs included)",
                {"type": budget_usd, "metavar": "USD"})
PRICES = Flag("--prices", "price table (YAML, USD per million tokens) for the usage ledger, over the packaged one, "
                          "for endpoints that report no cost (default: $SCIWRITE_PRICES)", {"metavar": "FILE"})

# ------------------------------------------------------------------------------------------------ the judge
JUDGE = Flag("--judge", "the LLM judge's model (openai:<id>, openrouter:<id>, or an id served at --judge-base-url)",
             {"metavar": "MODEL"})
JUDGE_BASE_URL = Flag("--judge-base-url", "OpenAI-compatible endpoint of the judge and of SciIG's citation extractor "
                                          "(default: $SCIWRITE_LLM_BASE_URL)", {"metavar": "URL"})
JUDGE_CACHE = Flag("--judge-cache", "JSON Lines cache of judge replies, so a rerun resumes", {"metavar": "FILE"})
JUDGE_OPTION = Flag("--judge-option", "a request parameter of every judge call, over the model-family table (VALUE is "
                                      "YAML), e.g. reasoning_effort=low; repeatable",
                    {"action": "append", "type": model_option, "metavar": "KEY=VALUE"})
NO_JUDGE = Flag("--no-judge", "skip the LLM judge", {"action": "store_true"})
ACCEPT_PARTIAL_PANEL = Flag("--accept-partial-panel", "exit 0 when a judge of a panel gave some papers no usable score "
                                                      "(the panel is still reported incomplete; default: exit status "
                                                      f"{EXIT_FAILED})", {"action": "store_true"})
JUDGE_CHECK = Flag("--judge-check", "the folder `sciwrite meta-eval judge-check --out` wrote for this run's judge: its "
                                    "verdict, pass rate and interval are recorded in each summary's provenance (a "
                                    "check of another judge or benchmark is refused)", {"metavar": "DIR"})
HUMAN_AGREEMENT = Flag("--human-agreement", "the folder `sciwrite meta-eval agreement --record` wrote for this run's "
                                            "judge: its agreement with people (Kendall tau and Spearman per "
                                            "criterion, with intervals) is recorded in each summary's provenance (a "
                                            "record of another judge or benchmark is refused)", {"metavar": "DIR"})

# ------------------------------------------------------------------------------------------------ statistics
BOOTSTRAP = Flag("--bootstrap", "bootstrap resamples of the intervals (default: 1000; 0: no intervals)",
                 {"type": whole_number(0), "default": 1000, "metavar": "N"})
BOOTSTRAP_SEED = Flag("--bootstrap-seed", "seed of the bootstrap (default: 0)",
                      {"type": int, "default": 0, "metavar": "SEED"})
CONFIDENCE = Flag("--confidence", "interval level, strictly between 0 and 1 (default: 0.95)",
                  {"type": confidence_level, "default": 0.95, "metavar": "LEVEL"})
SEED = Flag("--seed", "seed of the command's random draws", {"type": int, "default": 0, "metavar": "SEED"})

# ---------------------------------------------------------------------------------------------- Ray engine
ENGINE = Flag("--engine", "where the work runs: one process (local, default) or Ray Data (ray; needs sciwrite[scale])",
              {"choices": ENGINES, "default": LOCAL})
RAY_ADDRESS = Flag("--ray-address", "join this Ray cluster (auto, ray://head:10001; default: start a local Ray)",
                   {"metavar": "ADDRESS"})
RAY_ACTORS = Flag("--ray-actors", "actors of the pool (default: one per GPU, or one per CPU without GPUs)",
                  {"type": int, "metavar": "N"})


def add_engine_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """--engine, --ray-address and --ray-actors, of the commands that can run on Ray Data (`sciwrite.scale`)."""
    ENGINE.add(parser, f"where {what} runs: one process (local, default) or Ray Data (ray; needs sciwrite[scale])")
    RAY_ADDRESS.add(parser)
    RAY_ACTORS.add(parser)


def add_bootstrap_flags(parser: argparse.ArgumentParser, over: str = "papers") -> None:
    """--bootstrap N and --bootstrap-seed, of the commands that report bootstrap intervals over `over`."""
    BOOTSTRAP.add(parser, f"bootstrap resamples of the intervals over {over} (default: 1000; 0: no intervals)")
    BOOTSTRAP_SEED.add(parser)


def add_judge_flags(parser: argparse.ArgumentParser, spends: str) -> None:
    """The judge's client (and SciIG's citation extractor's): its endpoint, cache, request parameters, the price
    table and ``--max-cost``, whose help says what a request that does not fit means for the command (`spends`)."""
    JUDGE_BASE_URL.add(parser)
    JUDGE_CACHE.add(parser)
    JUDGE_OPTION.add(parser)
    PRICES.add(parser, "price table (YAML, USD per million tokens) for the usage ledger <out>/usage.jsonl (default: "
                       "$SCIWRITE_PRICES over the packaged table)")
    MAX_COST.add(parser, "never spend more than this many dollars in the usage ledger (earlier runs included): a "
                         f"request that does not fit is not sent, {spends} (exit status {EXIT_BUDGET})")


def add_generation_flags(parser: argparse.ArgumentParser) -> None:
    """A generation run's flags: --model, --base-url, sampling and request settings, the budget, --out, --limit,
    --dry-run, --retry-failed (read back by `sciwrite.cli.generate.generation_request` and
    `sciwrite.cli.generation_run`'s `writer_model` and `run_options`)."""
    defaults = GenerationSettings()
    MODEL.add(parser, required=True)
    BASE_URL.add(parser)
    parser.add_argument("--temperature", type=temperature, default=defaults.temperature,
                        help="sampling temperature, a finite number >= 0")
    MAX_TOKENS.add(parser, "the generation's token limit", default=defaults.max_tokens)
    SEED.add(parser, "sampling seed, and the seed of shuffles and exemplar draws", default=defaults.seed)
    CONCURRENCY.add(parser, default=defaults.concurrency)
    parser.add_argument("--timeout", type=timeout_seconds, default=defaults.timeout, help="seconds per request (> 0)")
    parser.add_argument("--max-retries", type=int, default=defaults.max_retries,
                        help="retries of a request after 429, 5xx, timeouts or dropped connections")
    parser.add_argument("--model-option", action="append", type=model_option, metavar="KEY=VALUE",
                        help="a request parameter for every call, over the model-family table (VALUE is YAML): "
                             "reasoning_effort=high, temperature=null (send none), max_completion_tokens=4000, "
                             "provider='{order: [openai]}' (OpenRouter routing), family=chat|openai-reasoning; "
                             "repeatable")
    MAX_COST.add(parser, "never spend more than this many dollars in the usage ledger (<out>/usage.jsonl, earlier "
                         "runs included): each request reserves its worst case (prompt + completion limit at the "
                         "model's price) before it is sent; stops when the next does not fit, exit status "
                         f"{EXIT_BUDGET}, a rerun with a higher budget resumes")
    PRICES.add(parser)
    parser.add_argument("--keep-reasoning", action="store_true",
                        help="keep a thinking model's reasoning traces in each output line (field 'reasoning'; "
                             "can be large); they never enter the prediction")
    BATCH_SIZE.add(parser, "generate() batch size of an hf: model", default=8)
    OUT.add(parser, "output folder")
    LIMIT.add(parser)
    DRY_RUN.add(parser, "print the exact prompt of the first paper(s); no model")
    parser.add_argument("--retry-failed", action="store_true", help="rerun only the papers in the failures file")


__all__ = ["ACCEPT_PARTIAL_PANEL", "AGREEMENT_RECORD", "HUMAN_AGREEMENT", "STUDY", "BAD_RECORDS_FLAG", "BASE_URL", "BATCH_SIZE", "BENCHMARK", "BOOTSTRAP",
           "BOOTSTRAP_SEED", "CONCURRENCY", "CONFIDENCE", "CORPUS", "CUTOFF", "DATASET_ID", "DRY_RUN", "ENGINE",
           "EVALS", "HOST", "HUB_CONFIG", "INDEX",
           "INSPECT_LOG", "JUDGE", "JUDGE_BASE_URL", "JUDGE_CACHE", "JUDGE_CHECK", "JUDGE_OPTION", "K", "LEDGER", "LIMIT", "MAX_COST",
           "MAX_TOKENS", "METRICS", "MODEL", "MODEL_ROLE", "NO_JUDGE", "OUT", "PLOT", "PORT", "PREDICTIONS",
           "PRICES", "PRIVATE", "PROFILE", "PUSH_TO_HUB", "RATINGS", "RAY_ACTORS", "RAY_ADDRESS", "SEED", "SOURCE",
           "SOURCES", "SPLIT", "SPLITS", "STORE", "SYSTEM", "TABLE_OUT", "TASKS", "Flag", "add_bootstrap_flags",
           "add_engine_flags", "add_generation_flags", "add_judge_flags"]
