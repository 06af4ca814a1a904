"""Options every ``sciwrite generate`` command shares, and turning them into a backend, settings and a run.

``--config FILE`` reads a baseline config (``baselines/<benchmark>/*.yaml``): a YAML mapping whose keys are the
command's option names (``workflow_k`` or ``workflow-k`` for ``--workflow-k``; an option's former name, such as
``dataset`` for ``--split``, is still read for one release with a warning), plus ``benchmark`` (required: the
command it is for) and the free-text ``description`` and ``paper_row``. Its values become the command's defaults,
so an explicit flag still wins: `parse_args` reads ``--config`` first, on its own, then parses the command line
once. The model is never part of a config (``--model``); its ``model_options`` key is a mapping of request
parameters (``reasoning_effort: high``), the defaults of ``--model-option``.

A run with a language model writes every request's usage to ``<out>/usage.jsonl`` (`sciwrite.llm.ledger`), prices
it with ``--prices`` over the packaged table where the endpoint reports no cost, and never spends past
``--max-cost``: each request reserves its worst case before it is sent, and once the next one does not fit the run
stops (exit status 3, saying what was spent and how many papers are left; a rerun with a higher budget resumes).
A model with no price whose endpoint reports no cost is refused under ``--max-cost`` (pass ``--prices``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from sciwrite.cli.options import DeprecatedAlias
from sciwrite.core.errors import InputError, yaml_position, yaml_problem
from sciwrite.core.jsonl import decoded_lines
from sciwrite.generation.jobs import EXTRACTIVE
from sciwrite.generation.runner import Method, RunReport, dry_run, run_generation
from sciwrite.llm.backends import APIBackend, make_backend, parse_model_id, policy_for
from sciwrite.llm.capabilities import check_model_options, describe_adjustment, parse_model_option
from sciwrite.llm.ledger import PriceTable, UsageLedger, check_max_cost, usd
from sciwrite.llm.types import Backend, GenerationSettings

#: `sciwrite generate`'s exit status when --max-cost stopped the run (what was written is kept; a rerun resumes).
EXIT_BUDGET = 3
#: `sciwrite generate`'s exit status when some papers failed (written to the failures file; rerun with
#: --retry-failed), so that a script or make does not carry on as if the run had worked.
EXIT_FAILED = 4
#: What `sciwrite generate --help` says of its exit statuses.
EXIT_STATUSES = (f"exit status: 0 every paper written; 2 usage or input error; {EXIT_BUDGET} stopped at --max-cost "
                 f"(rerun with a higher budget to resume); {EXIT_FAILED} some papers failed (see the failures file; "
                 "rerun with --retry-failed)")
#: The usage ledger's file name, beside the predictions.
LEDGER_NAME = "usage.jsonl"

logger = logging.getLogger("sciwrite.cli")


def model_option(text: str) -> tuple[str, Any]:
    """``--model-option KEY=VALUE`` (VALUE read as YAML)."""
    try:
        return parse_model_option(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def budget_usd(text: str) -> float:
    """``--max-cost USD``: a finite number >= 0 (nan, inf and negative budgets are refused)."""
    try:
        value = check_max_cost(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a finite number of USD >= 0, e.g. 5 or 0.50, got {text!r}") from None
    assert value is not None
    return value


def add_run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--model, --base-url, sampling and request settings, --out, --limit, --dry-run, --retry-failed."""
    defaults = GenerationSettings()
    parser.add_argument("--model", required=True,
                        help="openrouter:<id> (OPENROUTER_API_KEY), openai:<id> (OPENAI_API_KEY), hf:<id or path> "
                             "(local transformers), <id> with --base-url (SCIWRITE_LLM_API_KEY), or 'extractive' "
                             "(the offline non-LLM floor)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint for a bare model id (vLLM, TGI, llama.cpp)")
    parser.add_argument("--temperature", type=float, default=defaults.temperature)
    parser.add_argument("--max-tokens", type=int, default=defaults.max_tokens)
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help="sampling seed, and the seed of shuffles and exemplar draws")
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency, help="requests in flight at once")
    parser.add_argument("--timeout", type=float, default=defaults.timeout, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=defaults.max_retries,
                        help="retries of a request after 429, 5xx, timeouts or dropped connections")
    parser.add_argument("--model-option", action="append", type=model_option, metavar="KEY=VALUE",
                        help="a request parameter for every call, over the model-family table (VALUE is YAML): "
                             "reasoning_effort=high, temperature=null (send none), max_completion_tokens=4000, "
                             "provider='{order: [openai]}' (OpenRouter routing), family=chat|openai-reasoning; "
                             "repeatable")
    parser.add_argument("--max-cost", type=budget_usd, metavar="USD",
                        help="never spend more than this many dollars in the usage ledger (<out>/usage.jsonl, earlier "
                             "runs included): each request reserves its worst case (prompt + completion limit at the "
                             "model's price) before it is sent; stops when the next does not fit, exit status 3, a "
                             "rerun with a higher budget resumes")
    parser.add_argument("--prices", metavar="FILE",
                        help="price table (YAML, USD per million tokens) over the packaged one, for endpoints that "
                             "report no cost (default: $SCIWRITE_PRICES)")
    parser.add_argument("--keep-reasoning", action="store_true",
                        help="keep a thinking model's reasoning traces in each output line (field 'reasoning'; "
                             "can be large); they never enter the prediction")
    parser.add_argument("--batch-size", type=int, default=8, help="generate() batch size of an hf: model")
    parser.add_argument("--out", help="output folder")
    parser.add_argument("--limit", type=int, help="only the first N papers")
    parser.add_argument("--dry-run", action="store_true", help="print the exact prompt of the first paper(s); no model")
    parser.add_argument("--retry-failed", action="store_true", help="rerun only the papers in the failures file")
    return parser


#: Keys of a baseline config that describe it instead of setting an option.
CONFIG_INFO_KEYS: tuple[str, ...] = ("benchmark", "description", "paper_row")
#: Options a baseline config may not set, and why.
CONFIG_REFUSED: dict[str, str] = {
    "model": "the model is not part of a baseline config: pass --model",
    "config": "a config cannot name another config",
    "help": "not an option a config can set",
}


class ConfigError(ValueError):
    """A baseline config that cannot be used; the message names the file and the key."""


def _config_value(action: argparse.Action, value: Any) -> Any:
    """`value` from YAML as the option of `action` would hold it after parsing; ValueError if it cannot."""
    if action.nargs == 0:  # a flag: --dry-run, --oracle
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return value
    if value is None:
        return None
    many = action.nargs in ("+", "*")
    items = value if many and isinstance(value, list) else [value]
    if not many and isinstance(value, (list, dict)):
        raise ValueError(f"expected a single value, got {value!r}")
    out = []
    for item in items:
        if isinstance(item, (bool, list, dict)) or item is None:
            raise ValueError(f"expected a {getattr(action.type, '__name__', 'str')}, got {item!r}")
        try:
            item = action.type(str(item)) if callable(action.type) else str(item)
        except (TypeError, ValueError, argparse.ArgumentTypeError) as err:
            raise ValueError(str(err) or f"invalid value {item!r}") from None
        if action.choices is not None and item not in action.choices:
            raise ValueError(f"{item!r} is not one of {', '.join(map(str, action.choices))}")
        out.append(item)
    return out if many else out[0]


def load_config(path: str | Path, benchmark: str, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The option defaults a baseline config sets for the ``sciwrite generate <benchmark>`` command `parser`.

    Every key must be one of `parser`'s options (``-`` and ``_`` alike; a former name of one, `DeprecatedAlias`, with
    a warning) or a `CONFIG_INFO_KEYS` key, ``benchmark`` must be `benchmark`, and every value must be one the option
    accepts (type and choices); else `ConfigError` naming the file and the key."""
    path = Path(path)
    where = f"config {path}"
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of option names to values, got {type(data).__name__}")
    data = {str(key).replace("-", "_"): value for key, value in data.items()}
    found = data.get("benchmark")
    if found != benchmark:
        hint = (f"it is a {found} config: run it with `sciwrite generate {found}`" if isinstance(found, str)
                else f"add `benchmark: {benchmark}`")
        raise ConfigError(f"{where}: key 'benchmark' is {found!r}, but this is `sciwrite generate {benchmark}`; "
                          f"{hint}")
    options = {action.dest: action for action in parser._actions if action.option_strings}
    former = {_key(flag): action for action in parser._actions if isinstance(action, DeprecatedAlias)
              for flag in action.deprecated if _key(flag) not in options}
    defaults: dict[str, Any] = {}
    for key, value in data.items():
        if key in CONFIG_INFO_KEYS:
            continue
        if key in former:
            current = former[key]
            if current.dest in data:
                raise ConfigError(f"{where}: keys {key!r} and {current.dest!r} both set {current.current}: keep "
                                  f"{current.dest!r}")
            logger.warning("%s: key %r is deprecated: use %r (it takes the same values)", where, key, current.dest)
            key = current.dest
        if key in ("model_options", "model_option") and "model_option" in options:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: key {key!r}: expected a mapping of request parameters, e.g. "
                                  "{reasoning_effort: high}")
            try:
                defaults["model_option"] = list(check_model_options(value).items())
            except ValueError as err:
                raise ConfigError(f"{where}: key {key!r}: {err}") from None
            continue
        if key in CONFIG_REFUSED:
            raise ConfigError(f"{where}: key {key!r}: {CONFIG_REFUSED[key]}")
        if key not in options:
            known = sorted([*CONFIG_INFO_KEYS, *(d for d in options if d not in CONFIG_REFUSED)])
            raise ConfigError(f"{where}: unknown key {key!r} for `sciwrite generate {benchmark}`; the keys are "
                              f"{', '.join(known)}")
        try:
            defaults[key] = _config_value(options[key], value)
        except ValueError as err:
            raise ConfigError(f"{where}: key {key!r}: {err}") from None
    return defaults


def _read_yaml(path: Path) -> Any:
    """The YAML document in the file at `path`; `ConfigError` naming the file and the line (with the byte offset of
    a byte that is not UTF-8, the column of a YAML error) when it cannot be read."""
    try:
        text = "".join(decoded_lines(path))
    except OSError as err:
        raise ConfigError(f"config {path}: cannot read it ({err.strerror or err})") from None
    except InputError as err:  # not UTF-8: names the file, the line and the byte
        raise ConfigError(f"config {err}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        position = yaml_position(err)
        at = f"{path}:{position[0]}:{position[1]}" if position else str(path)
        raise ConfigError(f"config {at}: not valid YAML ({yaml_problem(err)})") from None


def _key(flag: str) -> str:
    """A flag as a config key: ``--workflow-k`` -> ``workflow_k``."""
    return flag.lstrip("-").replace("-", "_")


class _ConfigAction(argparse._StoreAction):
    """``--config FILE``: stored as given; `parse_args` has made the file's values the parser's defaults."""

    def __init__(self, option_strings: Sequence[str], dest: str, benchmark: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.benchmark = benchmark


def add_config_argument(parser: argparse.ArgumentParser, benchmark: str) -> argparse.ArgumentParser:
    """``--config FILE`` of ``sciwrite generate <benchmark>``; parse with `parse_args` so that flags win."""
    parser.add_argument("--config", metavar="FILE", action=_ConfigAction, benchmark=benchmark,
                        help=f"a baseline config (YAML, e.g. baselines/{benchmark}/*.yaml): its keys are the defaults "
                             "of the options of the same name; explicit flags win")
    return parser


def _config_command(parser: argparse.ArgumentParser,
                    argv: Sequence[str]) -> tuple[argparse.ArgumentParser, _ConfigAction, list[str]] | None:
    """The command `argv` names, when it takes a baseline ``--config``: its parser, that option and the words after
    the command's name; None for any other command."""
    words = list(argv)
    while True:
        config = next((a for a in parser._actions if isinstance(a, _ConfigAction)), None)
        if config is not None:
            return parser, config, words
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        at = next((i for i, word in enumerate(words) if sub is not None and word in sub.choices), None)
        if sub is None or at is None:
            return None
        parser, words = sub.choices[words[at]], words[at + 1:]


def read_config_defaults(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """When `argv` runs a command with a ``--config FILE``: that file's values as the command's defaults (a bad
    config is the command's usage error). Only ``--config`` is read here, by a parser of its own."""
    found = _config_command(parser, argv)
    if found is None:
        return
    command, config, words = found
    pre = argparse.ArgumentParser(prog=command.prog, add_help=False, exit_on_error=False)
    pre.add_argument(*config.option_strings, dest="config")
    try:
        known, _ = pre.parse_known_args(words)
    except argparse.ArgumentError:
        return  # (``--config`` without its FILE): the full parse says so, with the command's usage
    if known.config:
        try:
            command.set_defaults(**load_config(known.config, config.benchmark, command))
        except ConfigError as err:
            command.error(str(err))


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """`parser.parse_args(argv)`, parsed once, after a ``--config``'s values were made the defaults.

    `read_config_defaults` sets them; every flag given explicitly, before or after ``--config``, wins. (The
    config's defaults stay set on the command's parser.)
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    read_config_defaults(parser, argv)
    return parser.parse_args(argv)


def settings_from_args(args: argparse.Namespace) -> GenerationSettings:
    return GenerationSettings(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                              concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries)


def model_options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--model-option`` pairs as a mapping (a later KEY wins)."""
    return dict(getattr(args, "model_option", None) or [])


def backend_from_args(args: argparse.Namespace) -> Backend | None:
    """The backend `--model` names (None for the extractive floor). API backends of one command share one request
    policy, so a parameter the endpoint refused is not sent again by the command's later methods."""
    if args.model == EXTRACTIVE:
        return None
    if args.model.startswith("hf:"):
        return make_backend(args.model, base_url=args.base_url, model_options=model_options_from_args(args),
                            batch_size=args.batch_size)
    spec = parse_model_id(args.model, args.base_url)
    if getattr(args, "request_policy", None) is None:
        args.request_policy = policy_for(spec, model_options_from_args(args))
    return APIBackend(spec, policy=args.request_policy)


def ledger_from_args(args: argparse.Namespace, out_path: Path) -> UsageLedger | None:
    """The usage ledger beside `out_path` (none for the extractive floor, which calls no model)."""
    if args.model == EXTRACTIVE:
        return None
    return UsageLedger(out_path.parent / LEDGER_NAME, prices=PriceTable.load(getattr(args, "prices", None)),
                       max_cost=getattr(args, "max_cost", None))


def execute(args: argparse.Namespace, records: Sequence[Mapping[str, Any]], method: Method, out_path: Path,
            meta: Mapping[str, Any]) -> RunReport | None:
    """Dry run (print prompts) or the run itself; prints a one-line report and returns it."""
    if args.dry_run:
        for paper_id, text in dry_run(records, method, args.limit or 1):
            print(f"=== paper {paper_id} · method {method.name} · exact prompt ===\n{text}\n")
        return None
    backend = backend_from_args(args)
    ledger = ledger_from_args(args, out_path)
    options = model_options_from_args(args)
    meta = {**meta, **({"model_options": options} if options else {})}
    report = run_generation(records, method, backend, out_path, settings=settings_from_args(args), meta=meta,
                            limit=args.limit, retry_failed=args.retry_failed, ledger=ledger,
                            keep_reasoning=getattr(args, "keep_reasoning", False))
    print(f"{report.n_written} papers written to {out_path} ({report.n_already_done} already there, "
          f"{report.n_failed} failed in this run{'' if not report.n_failed else f' -> {report.failures_path}; rerun with --retry-failed'}); "
          f"{report.prompt_tokens} prompt + {report.completion_tokens} completion tokens"
          f"{f' ({report.reasoning_tokens} reasoning)' if report.reasoning_tokens else ''} in {report.wall_seconds:.1f} s")
    if ledger is not None:
        total = ledger.total
        unpriced = f"; {ledger.session.unpriced_requests} requests unpriced" if ledger.session.unpriced_requests else ""
        print(f"cost: ${ledger.session.cost_usd:.4f} in this run, ${total.cost_usd:.4f} in {ledger.path}"
              f"{f' (budget {usd(ledger.max_cost)})' if ledger.max_cost is not None else ''}{unpriced}")
    for item in report.adjustments:
        print(f"not applied as asked: {describe_adjustment(item)}")
    if report.stopped == "max_cost":
        spent = f"spent ${ledger.total.cost_usd:.4f} of {usd(ledger.max_cost)} in {ledger.path}" \
            if ledger is not None and ledger.max_cost is not None else "the budget is spent"
        detail = f" ({report.stop_detail})" if report.stop_detail else ""
        print(f"stopped at the budget: {spent}{detail}; {report.n_not_started} papers left undone (not sent); "
              "rerun with a higher --max-cost to resume them")
    print(f"run metadata: {report.meta_path}")
    return report


def exit_status(reports: Sequence[RunReport | None]) -> int:
    """`EXIT_BUDGET` when --max-cost stopped any of the runs, else `EXIT_FAILED` when any paper failed, else 0."""
    if any(r is not None and r.stopped == "max_cost" for r in reports):
        return EXIT_BUDGET
    return EXIT_FAILED if any(r is not None and r.n_failed for r in reports) else 0
