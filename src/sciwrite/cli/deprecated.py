"""Former spellings of commands, still read for one release: each is rewritten to its new form before parsing, with
a warning naming the new one."""

from __future__ import annotations

import logging

logger = logging.getLogger("sciwrite.cli")

#: (command words as they were) -> (the command words now), and the repeatable flag whose values the new command
#: takes after one flag (``--summary A --summary B`` -> ``--summary A B``).
DEPRECATED_COMMANDS: dict[tuple[str, ...], tuple[tuple[str, ...], str | None]] = {
    ("evaluate", "sciig-table3"): (("paper-table", "sciig-table3"), "--summary"),
}


#: Options of `sciwrite` itself, which come before the command.
GLOBAL_OPTIONS = ("-v", "--verbose")


def rewrite_deprecated(argv: list[str]) -> list[str]:
    """`argv` with a deprecated command spelled the current way (a warning says which); others unchanged."""
    lead = 0
    while lead < len(argv) and argv[lead] in GLOBAL_OPTIONS:
        lead += 1
    return [*argv[:lead], *_rewrite(argv[lead:])]


def _rewrite(argv: list[str]) -> list[str]:
    for old, (new, merged) in DEPRECATED_COMMANDS.items():
        if tuple(argv[:len(old)]) != old or any(a in ("-h", "--help") for a in argv[len(old):len(old) + 1]):
            continue
        logger.warning("`sciwrite %s` is deprecated: use `sciwrite %s`", " ".join(old), " ".join(new))
        rest = argv[len(old):]
        if merged is not None:
            values, others, i = [], [], 0
            while i < len(rest):
                if rest[i] == merged and i + 1 < len(rest):
                    values.append(rest[i + 1])
                    i += 2
                elif rest[i].startswith(merged + "="):
                    values.append(rest[i].split("=", 1)[1])
                    i += 1
                else:
                    others.append(rest[i])
                    i += 1
            rest = [*([merged, *values] if values else []), *others]
        return [*new, *rest]
    return argv


__all__ = ["DEPRECATED_COMMANDS", "rewrite_deprecated"]
