"""Every folder of Python modules under src/sciwrite is a regular package (has an ``__init__.py``): setuptools'
``packages.find`` leaves a folder without one out of a built wheel, though an editable install still finds it."""

from __future__ import annotations

from pathlib import Path

import sciwrite

ROOT = Path(sciwrite.__file__).parent


def test_every_module_folder_is_a_package():
    folders = {p.parent for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts}
    missing = sorted(str(f.relative_to(ROOT)) for f in folders
                     if not (f / "__init__.py").exists() and "evaluate_modules" not in f.parts
                     and "resources" not in f.parts)
    assert not missing, f"no __init__.py in {missing}: a wheel would leave them out"
