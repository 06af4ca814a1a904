"""`sciwrite build sample|rwgbench|rwgbench-upstream`: the RWGBench datasets the command line builds, as
`sciwrite.core.commands.BuildCommand` entries of the benchmark."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.commands import BuildCommand, BuildResult, Option
from sciwrite.rwgbench.data.arxiv_build import build_rwgbench_from_arxiv
from sciwrite.rwgbench.data.builder import build_rwgbench_folder
from sciwrite.rwgbench.data.configs import SCORED_SPLITS, default_rwgbench_dir
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.upstream import UPSTREAM_REPO_ID, import_upstream_folder
from sciwrite.sources.arxiv import API_URL, MIN_INTERVAL, ArxivClient
from sciwrite.sources.licences import LicenceRule


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
    out = Path(options.get("out") or default_rwgbench_dir())
    stats = write_sample_folder(out, paper_dir=options.get("paper_dir"))
    return BuildResult(f"RWGBench sample written to {out}", stats)


def build_from_html(options: Mapping[str, Any]) -> BuildResult:
    """From a folder of fetched arXiv papers (``--from-arxiv``), or from saved pages and the SurGE corpus."""
    if options.get("from_arxiv"):
        if not options.get("corpus_source"):
            raise ValueError("--from-arxiv needs --corpus-source: the dataset folder or Hub repo whose corpus the "
                             "citations are aligned with (e.g. the published RWGBench)")
        client = ArxivClient(options["arxiv_api_url"] or API_URL, min_interval=options["arxiv_min_interval"])
        stats = build_rwgbench_from_arxiv(
            options["from_arxiv"], options["corpus_source"], options["out"], corpus_config=options["corpus_config"],
            accepted_titles=options.get("accepted_titles"), client=client, lookup_missing=options["arxiv_lookup"],
            licences=LicenceRule(options["allow_non_commercial"], options["keep_all_licences"]))
        return BuildResult(f"fresh RWGBench split written to {options['out']} (filters and their keep shares: "
                           f"{options['out']}/build_report.json)", stats)
    if not options.get("html_dir") or not options.get("surge_corpus"):
        raise ValueError("give --from-arxiv DIR --corpus-source SOURCE, or --html-dir and --surge-corpus")
    summary = build_rwgbench_folder(html_dir=options["html_dir"], surge_corpus=options["surge_corpus"],
                                    out=options["out"], arxiv_records=options.get("arxiv_records"),
                                    accepted_titles=options.get("accepted_titles"))
    return BuildResult(f"RWGBench written to {options['out']}", summary)


def import_upstream(options: Mapping[str, Any]) -> BuildResult:
    out = import_upstream_folder(options["out"], options["upstream_repo"], papers=options["upstream_papers"],
                                 test=options["upstream_test"], corpus=options["upstream_corpus"],
                                 column_map=options.get("column_map"))
    return BuildResult(f"RWGBench imported from {options['upstream_repo']} into {out}")


BUILD_COMMANDS: tuple[BuildCommand, ...] = (
    BuildCommand("sample", "the offline RWGBench sample from the packaged ACL papers", (
        Option("out", "folder to write (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)"),
        Option("paper_dir", "folder of grobid2json papers (default: the aclsum package's)"),
    ), build_sample),
    BuildCommand("rwgbench", "RWGBench from fetched arXiv papers (--from-arxiv) or saved arXiv HTML pages and the "
                             "SurGE corpus", (
        Option("from_arxiv", "folder written by `sciwrite fetch arxiv`: build a fresh split from it"),
        Option("corpus_source", "with --from-arxiv: dataset folder or Hub repo id holding the corpus to align with",
               metavar="SOURCE"),
        Option("corpus_config", "with --from-arxiv: the corpus config of --corpus-source", default="corpus"),
        Option("arxiv_lookup", "with --from-arxiv: look up cited works missing from the corpus on the arXiv API "
                               "(cached in the --from-arxiv folder)", switch=True, default=True),
        Option("allow_non_commercial", "with --from-arxiv: keep CC BY-NC(-SA) papers too (a non-commercial split)",
               switch=True),
        Option("keep_all_licences", "with --from-arxiv: keep every paper whatever its licence (for your own use; "
                                    "the card says it may not be redistributed)", switch=True),
        Option("arxiv_api_url", "the arXiv API (default: export.arxiv.org; another for a mirror)"),
        Option("arxiv_min_interval", "seconds between two arXiv requests", type=float, default=MIN_INTERVAL),
        Option("html_dir", "folder of LaTeXML arXiv HTML pages (<arxiv id>.html)"),
        Option("surge_corpus", "SurGE corpus.json"),
        Option("arxiv_records", "JSON Lines of extra arXiv records for cited papers missing from SurGE"),
        Option("accepted_titles", "CSV/TSV/JSONL/txt of accepted ICLR/NeurIPS/ICML titles (for `test`; optional "
                                  "with --from-arxiv)"),
        Option("out", "dataset folder to write", required=True),
    ), build_from_html),
    BuildCommand("rwgbench-upstream", f"import the upstream release {UPSTREAM_REPO_ID} into our schema", (
        Option("upstream_repo", "upstream Hub dataset repo", default=UPSTREAM_REPO_ID, metavar="REPO"),
        Option("upstream_papers", "upstream CONFIG:SPLIT holding the 40k papers", default=":train",
               metavar="CONFIG:SPLIT"),
        Option("upstream_test", "upstream CONFIG:SPLIT holding the 100 test papers", default=":test",
               metavar="CONFIG:SPLIT"),
        Option("upstream_corpus", "upstream CONFIG:SPLIT holding the corpus", default="corpus:train",
               metavar="CONFIG:SPLIT"),
        Option("column_map", 'JSON {"upstream column": "our field" or null}', type=json_mapping),
        Option("out", "dataset folder to write", required=True),
    ), import_upstream),
    BuildCommand("rwgbench-human-gt", "the reference related-work sections as a prediction file (Table 2's Human GT "
                                      "row: their gold citations are the candidate list)", (
        Option("split", "the split whose sections are written", choices=SCORED_SPLITS, default="sample"),
        Option("source", "dataset folder or Hub repo id (default: the sample folder for 'sample', the Hub)"),
        Option("out", "prediction file to write (JSON Lines)", required=True),
    ), build_human_gt),
)

__all__ = ["BUILD_COMMANDS", "build_from_html", "build_human_gt", "build_sample", "human_gt_records", "import_upstream"]
