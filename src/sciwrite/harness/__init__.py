"""Front ends on other harnesses than sciwrite's own command line: the Inspect AI tasks (`inspect_tasks`), registered
through the ``inspect_ai`` entry point (`inspect_registry`), and the reader of their logs (`inspect_logs`). Nothing
in the core imports this package's modules; they need the ``inspect`` extra (``pip install sciwrite[inspect]``).

`inspect_logs_module` is how the CLI reaches the log reader: importing ``inspect_ai`` takes about a second, which
every ``sciwrite`` command would pay at start-up if the CLI imported it at its top, and the CLI must start without
the extra installed. Like the Ray engine (`sciwrite.core.engine.ray_engine`), it is imported by name, on first use.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from sciwrite.core.errors import InputError, Where

#: The module that reads Inspect logs (it imports ``inspect_ai`` at its top).
INSPECT_LOGS_MODULE = "sciwrite.harness.inspect_logs"
INSPECT_INSTALL_HINT = "pip install 'sciwrite[inspect]'"


def inspect_available() -> bool:
    """Whether Inspect AI can be imported here."""
    return importlib.util.find_spec("inspect_ai") is not None


def inspect_logs_module(flag: str = "--inspect-log") -> ModuleType:
    """`sciwrite.harness.inspect_logs`, imported on first use; one clear line naming the extra when Inspect AI is
    not installed."""
    if not inspect_available():
        raise InputError("reading an Inspect log needs the inspect extra (inspect-ai), which is not installed",
                         Where(field=flag), hint=INSPECT_INSTALL_HINT)
    return importlib.import_module(INSPECT_LOGS_MODULE)


__all__ = ["INSPECT_INSTALL_HINT", "INSPECT_LOGS_MODULE", "inspect_available", "inspect_logs_module"]
