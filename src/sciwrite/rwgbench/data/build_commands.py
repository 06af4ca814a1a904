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
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.upstream import UPSTREAM_REPO_ID, import_upstream_folder


def json_mapping(text: str) -> dict[str, Any]:
    """``--column-map``: a JSON object."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {text!r}")
    return value


def human_gt_records(papers: Any, split: str) -> list[dict[str, Any]]:
    """The split's author-written related-work sections as a prediction file: each text with its ``[k]`` markers and
    its gold citations as the candidate list (the Oracle list), so the markers resolve to the authors' citations.
    The run is ``Human`` / ``GT``: Table 2's Human GT row."""
    return [{"paper_id": p["paper_id"], "text": p["related_work"], "candidates": list(p["citations"]),
             "benchmark": "rwgbench", "split": split, "model": "Human", "method": "GT", "retriever": "oracle",
             "oracle": True, "k": None} for p in papers]


def build_human_gt(options: Mapping[str, Any]) -> BuildResult:
    split, out = options["split"], Path(options["out"])
    records = human_gt_records(load_rwgbench(split, source=options.get("source")), split)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return BuildResult(f"{len(records)} reference sections of RWGBench {split!r} written to {out} as the system "
                       f"Human GT; score it with: sciwrite evaluate rwgbench --split {split} --predictions {out}")


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
    BuildCommand("rwgbench-human-gt", "the reference related-work sections as a prediction file (Table 2's Human GT "
                                      "row: their gold citations are the candidate list)", (
        Option("split", "the split whose sections are written", choices=("sample", "test"), default="sample"),
        Option("source", "dataset folder or Hub repo id (default: the sample folder for 'sample', the Hub)"),
        Option("out", "prediction file to write (JSON Lines)", required=True),
    ), build_human_gt),
)

__all__ = ["BUILD_COMMANDS", "build_from_html", "build_human_gt", "build_sample", "human_gt_records", "import_upstream"]
