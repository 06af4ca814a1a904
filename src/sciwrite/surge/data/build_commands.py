"""`sciwrite build surge|surge-sample|surge-expert`: the SurGE datasets the command line builds, and the expert
surveys as a prediction file, as `sciwrite.core.commands.BuildCommand` entries of the benchmark."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.commands import BuildCommand, BuildResult, Option
from sciwrite.core.errors import InputError, Where
from sciwrite.surge.data.arxiv_build import ARXIV_OPTIONS, build_from_arxiv
from sciwrite.surge.data.configs import SCORED_SPLITS, UPSTREAM_FILES_URL, default_surge_dir
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.data.sample_folder import write_sample_folder
from sciwrite.surge.data.upstream import build_surge_folder


def build_from_files(options: Mapping[str, Any]) -> BuildResult:
    if options.get("from_arxiv"):  # a fresh split of arXiv surveys (`sciwrite.surge.data.arxiv_build`)
        return build_from_arxiv(options)
    folder = Path(options["data_dir"]) if options.get("data_dir") else None

    def named(option: str, file: str) -> str | None:
        given = options.get(option)
        return given if given else (str(folder / file) if folder is not None else None)

    surveys, queries, corpus = named("surveys", "surveys.json"), named("queries", "queries.json"), \
        named("corpus", "corpus.json")
    if surveys is None or corpus is None:
        raise ValueError(f"give --data-dir (SurGE's data folder, {UPSTREAM_FILES_URL}) or --surveys and --corpus")
    if options.get("data_dir") and not options.get("queries") and queries and not Path(queries).is_file():
        queries = None  # queries.json is optional: the section-level cite lists are left empty without it
    figures = build_surge_folder(surveys, queries, corpus, options["out"])
    return BuildResult(f"SurGE written to {options['out']} (not for re-hosting: SurGE states no data licence)",
                       figures)


def build_sample(options: Mapping[str, Any]) -> BuildResult:
    out = Path(options.get("out") or default_surge_dir())
    if out.is_file():  # before the build, not after it
        raise InputError("is a file, not a folder", Where(out), hint="name a folder to write the sample to")
    figures = write_sample_folder(out, paper_dir=options.get("paper_dir"))
    return BuildResult(f"SurGE offline sample written to {out}", figures)


def expert_records(surveys: Any, split: str) -> list[dict[str, Any]]:
    """The split's expert surveys as a prediction file: each survey's ``text`` (the Markdown rendered when the
    folder was built: `sciwrite.surge.data.expert`), the run ``Human`` / ``expert``."""
    return [{"paper_id": s["paper_id"], "text": s["text"], "benchmark": "surge", "split": split, "model": "Human",
             "method": "expert", "retriever": None, "k": None} for s in surveys]


def build_expert(options: Mapping[str, Any]) -> BuildResult:
    split, out = options["split"], Path(options["out"])
    records = expert_records(load_surge(split, source=options.get("source")), split)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return BuildResult(f"{len(records)} expert surveys of SurGE {split!r} written to {out} as the system Human "
                       f"(expert); score it with: sciwrite evaluate surge --split {split} --predictions {out}")


BUILD_COMMANDS: tuple[BuildCommand, ...] = (
    BuildCommand("surge", "SurGE from its released surveys.json, queries.json and corpus.json, or (--from-arxiv) "
                          "a fresh split of arXiv surveys", (
        Option("data_dir", "SurGE's data folder (holding surveys.json, queries.json, corpus.json)", metavar="DIR"),
        Option("surveys", "surveys.json (default: in --data-dir)", metavar="FILE"),
        Option("queries", "queries.json (default: in --data-dir; optional)", metavar="FILE"),
        Option("corpus", "corpus.json (default: in --data-dir)", metavar="FILE"),
        *ARXIV_OPTIONS,
        Option("out", "dataset folder to write", required=True),
    ), build_from_files),
    BuildCommand("surge-sample", "the offline SurGE sample (survey-shaped targets from the packaged ACL papers)", (
        Option("out", "folder to write (default: $SCIWRITE_SURGE_DIR or ~/.cache/sciwrite/surge)"),
        Option("paper_dir", "folder of grobid2json papers (default: the aclsum package's)"),
    ), build_sample),
    BuildCommand("surge-expert", "the expert surveys as a prediction file (their text with [n] markers and the "
                                 "reference list of their cited works' corpus titles), to score them as a system", (
        Option("split", "the survey config whose surveys are written", choices=SCORED_SPLITS, default="sample"),
        Option("source", "dataset folder or Hub repo id (default: the sample folder for 'sample', the Hub)"),
        Option("out", "prediction file to write (JSON Lines)", required=True),
    ), build_expert),
)

__all__ = ["BUILD_COMMANDS", "build_expert", "build_from_files", "build_sample", "expert_records"]
