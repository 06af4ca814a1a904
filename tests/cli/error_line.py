"""The one error line a command prints for bad input: exit 2, no traceback, exactly one ``...: error: ...`` line
(an argparse usage error included). Shared by the CLI tests that check what a refusal says."""

from __future__ import annotations

from sciwrite.cli import main


def error_line(argv: list[str], capsys) -> str:
    """The one error line of ``sciwrite ARGV``, which must exit 2 without a traceback."""
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's usage error
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1, err
    return lines[0]
