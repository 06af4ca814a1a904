"""``--config FILE`` of ``sciwrite generate <benchmark>``: a baseline config (``baselines/<benchmark>/*.yaml``) read
as the command's defaults, and the parse that reads it first.

A baseline config is a YAML mapping whose keys are the command's option names (``workflow_k`` or ``workflow-k`` for
``--workflow-k``), plus ``benchmark`` (required: the command it is for) and the free-text ``description`` and
``paper_row``. Its values become the command's defaults, so an explicit flag still wins: `parse_args` reads
``--config`` first, on its own, then parses the command line once. The model is never part of a config
(``--model``); its ``model_options`` key is a mapping of request parameters (``reasoning_effort: high``), the
defaults of ``--model-option``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.errors import InputError, yaml_position, yaml_problem
from sciwrite.core.jsonl import decoded_lines
from sciwrite.llm.capabilities import check_model_options

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

    Every key must be one of `parser`'s options (``-`` and ``_`` alike) or a `CONFIG_INFO_KEYS` key, ``benchmark``
    must be `benchmark`, and every value must be one the option accepts (type and choices); else `ConfigError` naming
    the file and the key."""
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
    defaults: dict[str, Any] = {}
    for key, value in data.items():
        if key in CONFIG_INFO_KEYS:
            continue
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


__all__ = ["CONFIG_INFO_KEYS", "CONFIG_REFUSED", "ConfigError", "add_config_argument", "load_config", "parse_args",
           "read_config_defaults"]
