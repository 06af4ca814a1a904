"""Prompt templates shipped as package data, shared by the benchmarks' generation methods, and how a record's field
reads in a prompt (`field_text`, `NO_ABSTRACT`).

A benchmark keeps each prompt in ``<package>/templates/<name>.txt``: the file opens with ``#`` lines saying
where the text comes from (the paper's table or section, or that the wording is ours), then the prompt with
``{placeholder}`` fields. `read_template` reads it with `importlib.resources` (so an installed wheel has it)
and drops that note; `fill_placeholders` fills the named fields in one pass, so braces in a value, or a JSON
example in the prompt, are left alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

TEMPLATE_FOLDER = "templates"
#: What a prompt shows for a paper without an abstract.
NO_ABSTRACT = "(no abstract available)"


def _raw(package: str, name: str) -> str:
    return resources.files(package).joinpath(TEMPLATE_FOLDER, name).read_text(encoding="utf-8")


def read_template(package: str, name: str) -> str:
    """The prompt of ``<package>/templates/<name>``: the file without its leading ``#`` note lines and without
    blank lines around it."""
    lines = _raw(package, name).splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


@functools.cache
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\{(" + "|".join(re.escape(n) for n in names) + r")\}")


def fill_placeholders(template: str, names: Iterable[str], values: Mapping[str, str]) -> str:
    """`template` with each ``{name}`` of `names` replaced by ``values[name]``, in one pass; other braces are
    kept. A placeholder without a value raises `KeyError`."""
    names = tuple(names)
    if not names:
        return template
    return _pattern(names).sub(lambda m: values[m.group(1)], template)


def field_text(value: Any) -> str:
    """A record field as prompt text: the string stripped, anything else (None, a missing field) empty."""
    return value.strip() if isinstance(value, str) else ""


__all__ = ["NO_ABSTRACT", "TEMPLATE_FOLDER", "field_text", "fill_placeholders", "read_template"]
