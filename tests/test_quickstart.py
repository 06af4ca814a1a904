"""`run_quickstart`'s checks of its sample folders, made before any run."""

from __future__ import annotations

import pytest

from sciwrite.quickstart import run_quickstart


def test_a_none_source_means_the_default_and_a_file_is_refused(tmp_path):
    not_a_folder = tmp_path / "sample.txt"
    not_a_folder.write_text("", encoding="utf-8")
    # rwgbench=None (the default folder) is no error of its own: only the file is named
    with pytest.raises(ValueError, match=r"^--source sciig=\S+sample\.txt: a file, not a sample folder"):
        run_quickstart(out_dir=tmp_path / "out", sources={"rwgbench": None, "sciig": not_a_folder})
