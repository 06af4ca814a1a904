"""The `sciwrite` command: fetch arXiv papers, build datasets, build and query retrieval indexes, generate, evaluate, compare systems,
meta-evaluate the metrics, run the papers' human studies, list the models, print the papers' tables, publish predictions, run the quick start, serve the leaderboard."""

from __future__ import annotations

import argparse
import errno
import io
import logging
import sys
import traceback
import types
from typing import Any, NoReturn

from sciwrite.cli.baseline_config import parse_args
from sciwrite.cli.build import add_build_commands
from sciwrite.cli.compare import add_compare_command
from sciwrite.cli.evaluate import add_evaluate_commands
from sciwrite.cli.fetch import add_fetch_commands
from sciwrite.cli.generate import add_generate_commands
from sciwrite.cli.human_eval import add_human_eval_commands
from sciwrite.cli.index import add_index_commands
from sciwrite.cli.leaderboard import add_leaderboard_commands
from sciwrite.cli.meta_eval import add_meta_eval_commands
from sciwrite.cli.models import add_models_command
from sciwrite.cli.options import finite_floats
from sciwrite.cli.paper_table import add_paper_table_command
from sciwrite.cli.push import add_push_command
from sciwrite.cli.quickstart import add_quickstart_command
from sciwrite.cli.verify_references import add_verify_references_command
from sciwrite.core.errors import DEBUG_ENV, debugging, explain


class OneLineErrorParser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose usage errors are one line too (a --config's YAML error spans several);
    every subcommand's parser is one (argparse makes subparsers of the parent's class). A flag is read only as it is
    spelled (no abbreviations), so that it has one name: ``--push`` is not ``--push-to-hub``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(_one_line(message))


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, one group per module of this package."""
    parser = OneLineErrorParser(prog="sciwrite", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--debug", action="store_true",
                        help=f"show the traceback behind an error (the same as {DEBUG_ENV}=1)")
    sub = parser.add_subparsers(dest="command", required=True)
    add_fetch_commands(sub)
    add_build_commands(sub)
    add_index_commands(sub)
    add_evaluate_commands(sub)
    add_compare_command(sub)
    add_generate_commands(sub)
    add_meta_eval_commands(sub)
    add_human_eval_commands(sub)
    add_models_command(sub)
    add_paper_table_command(sub)
    add_leaderboard_commands(sub)
    add_verify_references_command(sub)
    add_push_command(sub)
    add_quickstart_command(sub)
    return finite_floats(parser)  # no flag takes nan or inf


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status. Every error it meets, reading the command line's files included (a
    ``--config``'s YAML), is reported by `_report`: one line and exit 2, or exit 1 for a bug."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or debugging()
    argv = [word for word in argv if word != "--debug"]  # anywhere on the line, as the internal-error line says
    try:
        args = parse_args(build_parser(), argv)
        level = logging.INFO if args.verbose else logging.WARNING
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
        status = args.func(args)  # a command may return its exit status (generate: 3 when --max-cost stopped it)
    except KeyboardInterrupt:
        print("sciwrite: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # the one top-level handler
        return _report(err, debug)
    return status if isinstance(status, int) else 0


def _one_line(message: str) -> str:
    """`message` on one line: its lines joined by '; ' (a message listing several bad lines stays readable); a line
    that ends in ':' introduces the next, so it is joined by a space ("3 bad lines: FILE:1 ...", not ":;")."""
    joined = ""
    for line in (line.strip() for line in message.splitlines() if line.strip()):
        joined += line if not joined else (" " if joined.endswith(":") else "; ") + line
    return joined


#: The errnos of a write the disk refused for want of room (or of quota).
_FULL_DISK = (errno.ENOSPC, errno.EDQUOT)


def _disk_full(err: BaseException) -> str | None:
    """For a full disk that a write met without naming its file (``[Errno 28] No space left on device``, as a
    write or a flush raises it): the file being written when it happened, and what to do; else None."""
    if not isinstance(err, OSError) or err.errno not in _FULL_DISK or err.filename is not None \
            or type(err).__module__.startswith("sciwrite."):  # sciwrite's own errors already say it all
        return None
    path = _file_being_written(err.__traceback__)
    where = f"{path}: no space left on device" if path else "no space left on device while writing a file"
    return f"{where}; free some disk space (or write elsewhere), then rerun the same command"


def _file_being_written(tb: types.TracebackType | None) -> str | None:
    """The name of the file open for writing nearest to where the error was raised: a local of the innermost frame
    that holds one (the ``with open(...) as f`` whose write or close failed)."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            name, mode = getattr(value, "name", None), getattr(value, "mode", "")
            if isinstance(value, io.IOBase) and isinstance(name, str) and any(c in str(mode) for c in "wax+"):
                return name
    return None


def _report(err: Exception, debug: bool) -> int:
    """Print `err` as one line: a known error (`explain`) exits 2; an unexpected one, a bug, exits 1 and says how to
    see its traceback. With --debug or SCIWRITE_DEBUG=1 the traceback comes first, for every error."""
    try:
        message = _disk_full(err) or explain(err)
    except Exception:  # an error whose text cannot be read: report it as what it is, never a second traceback
        message = None
    if debug:
        traceback.print_exception(err)
    if message is None:
        try:
            detail = _one_line(str(err))
        except Exception:  # noqa: BLE001 - the text itself fails: the type is all there is to say
            detail = ""
        print(f"sciwrite: internal error: {type(err).__name__}{': ' + detail if detail else ''} (a bug in sciwrite; "
              f"{'' if debug else f'rerun with --debug or {DEBUG_ENV}=1 for the traceback and '}please report it)",
              file=sys.stderr)
        return 1
    print(f"sciwrite: error: {_one_line(message)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["OneLineErrorParser", "build_parser", "main"]
