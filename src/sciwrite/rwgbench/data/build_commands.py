"""`sciwrite build sample|rwgbench|rwgbench-upstream`: the RWGBench datasets the command line builds, as
`sciwrite.core.commands.BuildCommand` entries of the benchmark."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.commands import BuildCommand, BuildResult, Option
from sciwrite.rwgbench.data.builder import build_rwgbench_folder
from sciwrite.rwgbench.data.configs import default_data_dir
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.upstream import UPSTREAM_REPO_ID, import_upstream_folder


def json_mapping(text: str) -> dict[str, Any]:
    """``--column-map``: a JSON object."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {text!r}")
    return value


def build_sample(options: Mapping[str, Any]) -> BuildResult:
    out = Path(options.get("out") or default_data_dir())
    stats = write_sample_folder(out, paper_dir=options.get("paper_dir"))
    return BuildResult(f"RWGBench sample written to {out}", stats)


def build_from_html(options: Mapping[str, Any]) -> BuildResult:
    summary = build_rwgbench_folder(html_dir=options["html_dir"], surge_corpus=options["surge_corpus"],
                                    out=options["out"], arxiv_records=options.get("arxiv_records"),
                                    accepted_titles=options.get("accepted_titles"))
    return BuildResult(f"RWGBench written to {options['out']}", summary)


def import_upstream(options: Mapping[str, Any]) -> BuildResult:
    out = import_upstream_folder(options["out"], options["repo_id"], papers=options["papers"], test=options["test"],
                                 corpus=options["corpus"], column_map=options.get("column_map"))
    return BuildResult(f"RWGBench imported from {options['repo_id']} into {out}")


BUILD_COMMANDS: tuple[BuildCommand, ...] = (
    BuildCommand("sample", "the offline RWGBench sample from the packaged ACL papers", (
        Option("out", "folder to write (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)"),
        Option("paper_dir", "folder of grobid2json papers (default: the aclsum package's)"),
    ), build_sample),
    BuildCommand("rwgbench", "RWGBench from arXiv HTML pages and the SurGE corpus", (
        Option("html_dir", "folder of LaTeXML arXiv HTML pages (<arxiv id>.html)", required=True),
        Option("surge_corpus", "SurGE corpus.json", required=True),
        Option("arxiv_records", "JSON Lines of extra arXiv records for cited papers missing from SurGE"),
        Option("accepted_titles", "CSV/TSV/JSONL/txt of accepted ICLR/NeurIPS/ICML titles (for `test`)"),
        Option("out", "dataset folder to write", required=True),
    ), build_from_html),
    BuildCommand("rwgbench-upstream", f"import the upstream release {UPSTREAM_REPO_ID} into our schema", (
        Option("repo_id", "upstream Hub dataset repo", default=UPSTREAM_REPO_ID),
        Option("papers", "upstream CONFIG:SPLIT holding the 40k papers", default=":train"),
        Option("test", "upstream CONFIG:SPLIT holding the 100 test papers", default=":test"),
        Option("corpus", "upstream CONFIG:SPLIT holding the corpus", default="corpus:train"),
        Option("column_map", 'JSON {"upstream column": "our field" or null}', type=json_mapping),
        Option("out", "dataset folder to write", required=True),
    ), import_upstream),
)

__all__ = ["BUILD_COMMANDS", "build_from_html", "build_sample", "import_upstream"]
