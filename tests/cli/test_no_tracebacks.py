"""Every command of `sciwrite`, on bad inputs, ends with one line naming what is wrong and exit 2: never a
traceback, never an internal error (exit 1). The argparse tree is walked, so a new command without bad inputs here
fails `test_every_command_has_bad_inputs`."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from nltk import redos

from sciwrite.cli import build_parser, main
from sciwrite.metrics import text as text_module
from sciwrite.rwgbench.data.loading import load_rwgbench
from tests.generation.full_disk import fill_disk

HUB_ID = "nobody-sciwrite-tests/not-a-repo"  # offline in the tests (conftest sets HF_HUB_OFFLINE)


@dataclass(frozen=True)
class Case:
    """One bad input of one command: its name, the argv after the command (``{name}`` is a path of `bad_inputs`)
    and, for a crash in code another area owns, why it is expected to fail for now."""

    name: str
    argv: tuple[str, ...]
    xfail: str | None = None


def case(name: str, *argv: str, xfail: str | None = None) -> Case:
    return Case(name, argv, xfail)


EVAL_OPTS = ("--out", "{out}", "--bootstrap", "0")
SUMMARY_INPUTS = ("missing", "folder", "empty", "latin1", "badjson", "strprov", "listjson")

#: The bad inputs of each leaf command, by its words (`sciwrite <words> ...`).
CASES: dict[tuple[str, ...], list[Case]] = {
    ("fetch", "arxiv"): [
        case("bad-date", "--category", "cs.CL", "--since", "2024-13-45", "--out", "{out}"),
        case("out-is-file", "--category", "cs.CL", "--since", "2024-01-01", "--out", "{empty}",
             "--arxiv-api-url", "http://127.0.0.1:9/api", "--arxiv-min-interval", "0"),
    ],
    ("build", "sample"): [
        case("missing", "--paper-dir", "{missing}", "--out", "{out}"),
        case("file", "--paper-dir", "{empty}", "--out", "{out}"),
        case("latin1-paper", "--paper-dir", "{latin1_dir}", "--out", "{out}"),
        case("out-is-file", "--out", "{empty}"),
    ],
    ("build", "rwgbench"): [
        case("from-arxiv-missing", "--from-arxiv", "{missing}", "--out", "{out}"),
        case("surge-latin1", "--surge-corpus", "{latin1}", "--html-dir", "{folder}", "--out", "{out}"),
        case("surge-badjson", "--surge-corpus", "{badjson}", "--html-dir", "{folder}", "--out", "{out}"),
    ],
    ("build", "rwgbench-upstream"): [
        case("offline-hub", "--upstream-repo", HUB_ID, "--out", "{out}"),
        case("bad-column-map", "--column-map", "{{not json", "--out", "{out}"),
    ],
    ("build", "rwgbench-human-gt"): [
        case("offline-test", "--split", "test", "--out", "{out_file}"),
        case("missing-source", "--source", "{missing}", "--out", "{out_file}"),
        case("offline-hub", "--source", HUB_ID, "--out", "{out_file}"),
    ],
    ("build", "sciig"): [
        case("missing", "--paper-dir", "{missing}", "--out", "{out}"),
        case("release-latin1", "--release", "{latin1}", "--venue", "ACL", "--out", "{out}"),
        case("release-badjson", "--release", "{badjson}", "--venue", "ACL", "--out", "{out}"),
        case("from-arxiv-empty", "--split", "arxiv", "--from-arxiv", "{folder}", "--out", "{out}"),
    ],
    ("build", "surge"): [
        case("no-files", "--out", "{out}"),
        case("data-dir-missing", "--data-dir", "{missing}", "--out", "{out}"),
        case("surveys-badjson", "--surveys", "{badjson}", "--corpus", "{listjson}", "--out", "{out}"),
        case("surveys-latin1", "--surveys", "{latin1}", "--corpus", "{listjson}", "--out", "{out}"),
        case("surveys-not-records", "--surveys", "{listjson}", "--corpus", "{listjson}", "--out", "{out}"),
        case("from-arxiv-no-corpus-source", "--from-arxiv", "{folder}", "--out", "{out}"),
        case("from-arxiv-not-fetched", "--from-arxiv", "{folder}", "--corpus-source", "{folder}", "--out", "{out}"),
        case("from-arxiv-share-above-1", "--from-arxiv", "{folder}", "--corpus-source", "{folder}",
             "--min-resolved-share", "1.5", "--out", "{out}"),
        case("from-arxiv-corpus-config-survey", "--from-arxiv", "{folder}", "--corpus-source", "{folder}",
             "--corpus-config", "surveys", "--out", "{out}"),
    ],
    ("build", "surge-sample"): [
        case("missing", "--paper-dir", "{missing}", "--out", "{out}"),
        case("latin1-paper", "--paper-dir", "{latin1_dir}", "--out", "{out}"),
        case("out-is-file", "--out", "{empty}"),
    ],
    ("build", "surge-expert"): [
        case("offline-surveys", "--split", "surveys", "--out", "{out_file}"),
        case("missing-source", "--source", "{missing}", "--out", "{out_file}"),
        case("offline-hub", "--source", HUB_ID, "--out", "{out_file}"),
    ],
    ("index", "build"): [
        case("offline-corpus", "--kind", "bm25", "--corpus", "corpus"),
        case("offline-hub", "--kind", "bm25", "--source", HUB_ID),
        case("source-file", "--kind", "bm25", "--source", "{latin1}"),
        case("bad-card", "--kind", "bm25", "--source", "{badcard_dir}"),
    ],
    ("retrieve",): [
        case("missing", "--index", "{missing}"),
        case("file", "--index", "{empty}"),
        case("corrupt-config", "--index", "{badindex_dir}"),
    ],
    ("evaluate", "rwgbench"): [
        *(case(name, "--predictions", "{%s}" % name, *EVAL_OPTS) for name in ("missing", "empty", "latin1", "badjson")),
        case("offline-test", "--predictions", "{good_jsonl}", "--split", "test", *EVAL_OPTS),
        case("offline-hub-predictions", "--predictions", HUB_ID, *EVAL_OPTS),
        case("prices-yaml", "--predictions", "{good_jsonl}", "--prices", "{badyaml}", *EVAL_OPTS),
        case("judge-samples-0", "--predictions", "{good_jsonl}", "--judge", "a", "--judge-samples", "0", *EVAL_OPTS),
        case("judge-twice", "--predictions", "{good_jsonl}", "--judge", "a", "--judge", "a", *EVAL_OPTS),
        case("judge-aggregate", "--predictions", "{good_jsonl}", "--judge-aggregate", "max", *EVAL_OPTS),
        case("max-cost-negative", "--predictions", "{good_jsonl}", "--max-cost", "-1", *EVAL_OPTS),
        case("max-cost-nan", "--predictions", "{good_jsonl}", "--max-cost", "nan", *EVAL_OPTS),
        case("judge-check-missing", "--predictions", "{good_jsonl}", "--judge", "a", "--judge-check", "{missing}",
             *EVAL_OPTS),
        case("judge-check-file", "--predictions", "{good_jsonl}", "--judge", "a", "--judge-check", "{empty}",
             *EVAL_OPTS),
        case("judge-check-no-summary", "--predictions", "{good_jsonl}", "--judge", "a", "--judge-check", "{folder}",
             *EVAL_OPTS),
        *(case(f"human-agreement-{name}", "--predictions", "{good_jsonl}", "--judge", "a", "--human-agreement",
               "{%s}" % name, *EVAL_OPTS) for name in ("missing", "empty", "folder", "agreement_badjson",
                                                       "agreement_surge")),
    ],
    ("evaluate", "sciig"): [
        *(case(name, "--predictions", "{%s}" % name, *EVAL_OPTS) for name in ("missing", "empty", "latin1", "badjson")),
        case("offline-naacl", "--predictions", "{good_jsonl}", "--split", "naacl_2025", *EVAL_OPTS),
        case("prices-yaml", "--predictions", "{good_jsonl}", "--prices", "{badyaml}", *EVAL_OPTS),
    ],
    ("evaluate", "surge"): [
        *(case(name, "--predictions", "{%s}" % name, "--source", "{surge_sample}", *EVAL_OPTS)
          for name in ("missing", "empty", "latin1", "badjson")),
        case("empty-folder", "--predictions", "{folder}", "--source", "{surge_sample}", *EVAL_OPTS),
        case("offline-surveys", "--predictions", "{good_jsonl}", "--split", "surveys", *EVAL_OPTS),
        case("arxiv-not-a-fresh-folder", "--predictions", "{good_jsonl}", "--split", "arxiv", "--source", "{folder}",
             *EVAL_OPTS),
        case("no-match", "--predictions", "{good_jsonl}", "--source", "{surge_sample}", *EVAL_OPTS),
    ],
    ("compare",): [
        case("missing", "{missing}", "{missing}"),
        case("latin1", "{latin1}", "{latin1}"),
        case("badjson", "{badjson}", "{badjson}"),
        case("str-provenance", "{strprov}", "{strprov}"),
        case("corrupt-summary", "{corrupt_summary}", "{corrupt_summary}"),
        case("confidence-nan", "{strprov}", "{strprov}", "--confidence", "nan"),
        case("ledger-disagrees", "{good_eval}", "{bad_ledger_eval}"),  # its usage.jsonl bills a paper not predicted
        case("ledger-latin1", "{good_eval}", "{latin1_ledger_eval}"),  # its usage.jsonl is not UTF-8
    ],
    ("generate", "rwgbench"): [
        case("config-yaml", "--model", "extractive", "--config", "{badyaml}", "--out", "{out}"),
        case("config-missing", "--model", "extractive", "--config", "{missing}", "--out", "{out}"),
        case("config-latin1", "--model", "extractive", "--config", "{latin1}", "--out", "{out}"),
        case("offline-test", "--model", "extractive", "--split", "test", "--out", "{out}"),
        case("max-tool-calls-0", "--model", "openai:x", "--method", "agent", "--max-tool-calls", "0", "--dry-run",
             "--out", "{out}"),
        case("max-tool-calls-text", "--model", "openai:x", "--method", "agent", "--max-tool-calls", "ten",
             "--out", "{out}"),
        case("agent-oracle", "--model", "openai:x", "--method", "agent", "--oracle", "--dry-run", "--out", "{out}"),
        case("temperature-nan", "--model", "extractive", "--temperature", "nan", "--out", "{out}"),
        case("temperature-negative", "--model", "extractive", "--temperature", "-0.5", "--out", "{out}"),
        case("timeout-inf", "--model", "extractive", "--timeout", "inf", "--out", "{out}"),
        case("timeout-0", "--model", "extractive", "--timeout", "0", "--out", "{out}"),
        case("config-temperature-nan", "--model", "extractive", "--config", "{nan_config}", "--out", "{out}"),
    ],
    ("generate", "sciig"): [
        case("offline-default", "--model", "extractive", "--out", "{out}"),
        case("config-yaml", "--model", "extractive", "--config", "{badyaml}", "--out", "{out}"),
    ],
    ("generate", "surge"): [
        case("offline-surveys", "--model", "extractive", "--split", "surveys", "--out", "{out}"),
        case("config-yaml", "--model", "extractive", "--config", "{badyaml}", "--out", "{out}"),
        case("naive-extractive", "--model", "extractive", "--method", "naive", "--source", "{surge_sample}",
             "--out", "{out}"),
        case("k-0", "--model", "extractive", "--k", "0", "--out", "{out}"),
    ],
    ("meta-eval", "correlation"): [
        *(case(name, "--evals", "{%s}" % name, "{%s}" % name) for name in ("missing", "strprov", "corrupt_summary")),
    ],
    ("meta-eval", "agreement"): [
        *(case(name, "--ratings", "{%s}" % name, "--predictions-per-paper", "a={%s}" % name)
          for name in ("missing", "folder", "latin1", "badjson")),
        case("level-1.5", "--ratings", "{good_jsonl}", "--predictions-per-paper", "a={good_jsonl}",
             "--confidence", "1.5"),
        case("record-no-benchmark", "--ratings", "{good_ratings}", "--predictions-per-paper", "a={good_jsonl}",
             "--record", "{out}"),
        case("record-no-judge-metric", "--ratings", "{good_ratings}", "--predictions-per-paper", "a={good_jsonl}",
             "--benchmark", "rwgbench", "--judge", "a", "--bootstrap", "0", "--record", "{out}"),
    ],
    ("meta-eval", "judges"): [
        *(case(name, "--judge-a", "{%s}" % name, "--judge-b", "{%s}" % name)
          for name in ("missing", "folder", "latin1", "badjson")),
    ],
    ("meta-eval", "sensitivity"): [
        case("out-under-file", "--benchmark", "rwgbench", "--profile", "lite", "--out", "{empty}/table"),
        case("unknown-metric", "--benchmark", "sciig", "--profile", "lite", "--metrics", "no_such_metric"),
    ],
    ("meta-eval", "hallmark"): [
        case("data-missing", "--data", "{missing}", "--snapshot", "{badjson}"),
        case("split-unknown", "--data", "{folder}", "--snapshot", "{badjson}"),
        case("no-source", "--data", "{folder}"),
        *(case(f"snapshot-{name}", "--data", "{folder}", "--snapshot", "{%s}" % name)
          for name in ("missing", "empty", "latin1", "badjson", "folder")),
        case("service-unknown", "--data", "{folder}", "--check-online", "google"),
        case("limit-0", "--data", "{folder}", "--snapshot", "{badjson}", "--limit", "0"),
    ],
    ("meta-eval", "judge-check"): [
        case("no-endpoint", "--benchmark", "rwgbench", "--judge", "judge-x", "--out", "{out}"),
        case("source-missing", "--benchmark", "sciig", "--judge", "judge-x", "--source", "{missing}", "--out", "{out}"),
        case("source-not-a-dataset", "--benchmark", "rwgbench", "--judge", "judge-x", "--source", "{folder}",
             "--out", "{out}"),
        case("out-is-file", "--benchmark", "rwgbench", "--judge", "judge-x", "--out", "{empty}"),
        case("limit-0", "--benchmark", "rwgbench", "--judge", "judge-x", "--limit", "0"),
        case("unknown-kind", "--benchmark", "sciig", "--judge", "judge-x", "--kinds", "typo"),
        case("negative-budget", "--benchmark", "rwgbench", "--judge", "judge-x", "--max-cost", "-1"),
        case("prices-yaml", "--benchmark", "rwgbench", "--judge", "judge-x", "--prices", "{badyaml}", "--out", "{out}"),
        case("local-model", "--benchmark", "rwgbench", "--judge", "hf:gpt2", "--out", "{out}"),
    ],
    ("human-eval", "tasks"): [
        *(case(name, "--benchmark", "rwgbench", "--predictions", "{%s}" % name, "--papers", "1",
               "--source", "{sample}", "--out", "{out}") for name in ("missing", "latin1", "badjson")),
        case("offline-test", "--benchmark", "rwgbench", "--predictions", "{good_jsonl}", "--papers", "1",
             "--split", "test", "--out", "{out}"),
    ],
    ("human-eval", "annotators"): [
        case("missing-tasks", "--tasks", "{missing}", "--store", "{store}", "list"),
        case("not-sqlite", "--tasks", "{tasks}", "--store", "{notsqlite}", "list"),
        case("store-folder", "--tasks", "{tasks}", "--store", "{folder}", "list"),
    ],
    ("human-eval", "export"): [
        case("missing-tasks", "--tasks", "{missing}", "--store", "{store}", "--out", "{out_file}"),
        case("not-sqlite", "--tasks", "{tasks}", "--store", "{notsqlite}", "--out", "{out_file}"),
    ],
    ("human-eval", "serve"): [
        case("missing-tasks", "--tasks", "{missing}", "--store", "{store}"),
        case("not-sqlite", "--tasks", "{tasks}", "--store", "{notsqlite}"),
    ],
    ("human-eval", "analyze"): [
        case("missing-tasks", "--benchmark", "rwgbench", "--tasks", "{missing}", "--ratings", "{latin1}"),
        case("ratings-latin1", "--benchmark", "rwgbench", "--tasks", "{tasks}", "--ratings", "{latin1}"),
        case("ratings-badjson", "--benchmark", "rwgbench", "--tasks", "{tasks}", "--ratings", "{badjson}"),
        case("bootstrap-negative", "--benchmark", "rwgbench", "--tasks", "{tasks}", "--ratings", "{badjson}",
             "--bootstrap", "-1"),
        case("bootstrap-word", "--benchmark", "rwgbench", "--tasks", "{tasks}", "--ratings", "{badjson}",
             "--bootstrap", "many"),
        case("confidence-1.5", "--benchmark", "rwgbench", "--tasks", "{tasks}", "--ratings", "{badjson}",
             "--confidence", "1.5"),
    ],
    ("human-eval", "llm-annotate"): [
        *(case(name, "--tasks", "{%s}" % name, "--judge", "gpt-4o", "--out", "{out_file}")
          for name in ("missing", "folder", "tasks", "badstudy")),
        case("prices-yaml", "--tasks", "{badstudy}", "--judge", "gpt-4o", "--prices", "{badyaml}",
             "--out", "{out_file}"),
        case("max-cost-negative", "--tasks", "{badstudy}", "--judge", "gpt-4o", "--max-cost", "-1",
             "--out", "{out_file}"),
    ],
    ("models",): [
        case("out-under-file", "--profile", "lite", "--out", "{empty}/models"),
    ],
    ("paper-table", "rwgbench-table1"): [
        case("offline-test", "--configs", "test"),
        case("missing-source", "--source", "{missing}"),
        case("offline-hub", "--source", HUB_ID, "--configs", "papers"),
    ],
    ("paper-table", "rwgbench-table2"): [case(name, "--summary", "{%s}" % name) for name in SUMMARY_INPUTS],
    ("paper-table", "rwgbench-table3"): [case(name, "--evals", "{%s}" % name) for name in SUMMARY_INPUTS],
    ("paper-table", "rwgbench-table5"): [
        *(case(name, "--analysis", "{%s}" % name) for name in ("missing", "empty", "latin1", "badjson", "listjson")),
    ],
    ("paper-table", "sciig-table1"): [
        case("offline-naacl", "--configs", "naacl_2025"),
        case("offline-hub", "--source", HUB_ID, "--configs", "naacl_2025"),
    ],
    **{("paper-table", table): [case(name, "--summary", "%s={%s}" % (key, name)) for name in SUMMARY_INPUTS]
       for table, key in (("sciig-table2", "gpt-4o"), ("sciig-table3", "SHORT"), ("sciig-table4", "SHORT"))},
    ("paper-table", "surge-table1"): [case(name, "--summary", "rag={%s}" % name) for name in SUMMARY_INPUTS],
    ("paper-table", "sciig-table5"): [
        *(case(name, "--analysis", "{%s}" % name) for name in ("missing", "empty", "latin1", "badjson", "listjson")),
    ],
    ("leaderboard", "serve"): [
        case("not-sqlite", "--store", "{notsqlite}"),
        case("store-folder", "--store", "{folder}"),
    ],
    ("leaderboard", "worker"): [
        case("not-sqlite", "--store", "{notsqlite}", "--once"),
        case("store-folder", "--store", "{folder}", "--once"),
    ],
    ("leaderboard", "import"): [
        *(case(name, "--store", "{store}", "--benchmark", "rwgbench", "{%s}" % name) for name in SUMMARY_INPUTS),
        case("not-sqlite", "--store", "{notsqlite}", "--benchmark", "rwgbench", "{strprov}"),
        case("offline-hub-eval-results", "--store", "{store}", "--hub-eval-results", HUB_ID),
        case("quickstart-missing", "--store", "{store}", "--quickstart", "{missing}"),
        case("quickstart-empty", "--store", "{store}", "--quickstart", "{folder}"),
        *(case(f"inspect-log-{name}", "--store", "{store}", "--inspect-log", "{%s}" % name)
          for name in ("missing", "folder", "empty", "badjson")),
        case("ledger-missing", "--store", "{store}", "--benchmark", "rwgbench", "{strprov}", "--ledger", "{missing}"),
        case("ledger-folder", "--store", "{store}", "--benchmark", "rwgbench", "{strprov}", "--ledger", "{folder}"),
        case("ledger-two-folders", "--store", "{store}", "--benchmark", "rwgbench", "{strprov}", "{strprov}",
             "--ledger", "{empty}"),
        case("ledger-with-quickstart", "--store", "{store}", "--quickstart", "{folder}", "--ledger", "{empty}"),
        case("ledger-with-inspect-log", "--store", "{store}", "--inspect-log", "{empty}", "--ledger", "{empty}"),
        *(case(f"ledger-{name}", "--store", "{store}", "--benchmark", "rwgbench", "{good_eval}", "--ledger",
               "{%s}" % name) for name in ("latin1", "badjson", "listjson", "bad_ledger")),
    ],
    ("verify-references",): [
        *(case(name, "{%s}" % name) for name in ("missing", "folder", "empty", "latin1")),
        case("bib-latin1", "{latin1_bib}"),
        *(case(f"snapshot-{name}", "{good_titles}", "--snapshot", "{%s}" % name)
          for name in ("missing", "empty", "badjson", "folder")),
        case("offline-corpus", "--corpus", "corpus", "{good_titles}"),
        case("offline-hub", "--source", HUB_ID, "{good_titles}"),
    ],
    ("push", "predictions"): [
        *(case(name, "{%s}" % name, "--push-to-hub", HUB_ID) for name in ("missing", "empty", "latin1", "badjson")),
        case("bad-ledger-beside", "{ledger_run}", "--push-to-hub", HUB_ID),
    ],
    ("push", "results"): [
        *(case(name, "{%s}" % name, "--model-repo", "org/model", "--dry-run", "--out", "{out}")
          for name in SUMMARY_INPUTS),
        *(case(f"inspect-log-{name}", "--inspect-log", "{%s}" % name, "--model-repo", "org/model", "--dry-run",
               "--out", "{out}") for name in ("missing", "folder", "empty", "badjson")),
        case("folder-and-inspect-log", "{strprov}", "--inspect-log", "{empty}", "--model-repo", "org/model"),
        case("nothing-to-push", "--model-repo", "org/model", "--dry-run", "--out", "{out}"),
        case("submission-without-store", "--submission", "x", "--model-repo", "org/model", "--dry-run"),
        case("store-missing", "--store", "{missing}", "--submission", "x", "--model-repo", "org/model", "--dry-run"),
        case("store-not-sqlite", "--store", "{notsqlite}", "--submission", "x", "--model-repo", "org/model",
             "--dry-run"),
        case("submission-and-folder", "{strprov}", "--store", "{notsqlite}", "--submission", "x", "--model-repo",
             "org/model", "--dry-run"),
    ],
    ("quickstart",): [
        case("not-sqlite", "--store", "{notsqlite}", "--out", "{out}"),
        case("file-source", "--source", "sciig={empty}", "--out", "{out}"),
        case("limit-0", "--limit", "0", "--out", "{out}"),
    ],
}


def leaf_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The words of every leaf command under `parser` (a command without subcommands)."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        return [words]
    return [leaf for group in groups for name, sub in group.choices.items() for leaf in leaf_commands(sub, (*words, name))]


def test_every_command_has_bad_inputs():
    leaves = set(leaf_commands(build_parser()))
    assert leaves - set(CASES) == set(), "add bad inputs for these commands to CASES"
    assert set(CASES) - leaves == set(), "these commands are gone: remove their CASES"


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory, surge_mini_folder) -> dict[str, str]:
    """Paths of bad (and a few good) inputs, by the names the argv templates use."""
    root = tmp_path_factory.mktemp("bad_inputs")
    paths: dict[str, str] = {"missing": str(root / "no-such-file.jsonl"), "store": str(root / "store.sqlite"),
                             "surge_sample": str(surge_mini_folder),  # a built SurGE sample: no case rebuilds one
                             "out_file": str(root / "out" / "written.jsonl")}

    def write(name: str, data: bytes | str, file_name: str | None = None) -> str:
        path = root / (file_name or name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        paths[name] = str(path)
        return str(path)

    (root / "folder").mkdir()
    paths["folder"] = str(root / "folder")
    write("empty", b"", "empty.jsonl")
    write("latin1", b'{"paper_id": "p1", "text": "caf\xe9"}\n', "latin1.jsonl")
    write("badjson", b'{"paper_id": "p1", "text": ', "badjson.jsonl")
    write("listjson", b"[1, 2, 3]\n", "list.json")
    write("badyaml", "model: [extractive\nlimit: 2\n", "bad.yaml")
    write("nan_config", "benchmark: rwgbench\ntemperature: .nan\n", "nan.yaml")
    write("notsqlite", "this is not a database\n" * 200, "notsqlite.sqlite")
    write("good_jsonl", json.dumps({"paper_id": "p1", "text": "A section."}) + "\n", "good.jsonl")
    write("good_ratings", json.dumps({"paper_id": "p1", "system": "a", "criterion": "q", "score": 3}) + "\n",
          "ratings.jsonl")
    write("agreement_badjson_file", "{not json", "agreement_badjson/human_agreement.json")
    paths["agreement_badjson"] = str(root / "agreement_badjson")
    write("agreement_surge_file", json.dumps({"benchmark": "surge", "judges": ["a"], "study": "s", "rows": [
        {"criterion": "q", "metric": "logic", "level": "item", "n": 2, "kendall_tau": 1.0, "spearman": 1.0}]}),
          "agreement_surge/human_agreement.json")
    paths["agreement_surge"] = str(root / "agreement_surge")
    write("good_titles", json.dumps("Attention is all you need") + "\n", "titles.jsonl")
    write("latin1_bib", b"@article{a,\n  title = {Caf\xe9 society},\n  year = 2020\n}\n", "latin1.bib")
    write("latin1_paper", b'{"title": "caf\xe9"}', "latin1_dir/P99-1001.json")
    paths["latin1_dir"] = str(root / "latin1_dir")
    write("badcard", "---\nconfigs: [\n---\n", "badcard_dir/README.md")
    paths["badcard_dir"] = str(root / "badcard_dir")
    write("badindex", "{not json", "badindex_dir/config.json")
    paths["badindex_dir"] = str(root / "badindex_dir")
    per_paper = json.dumps({"system": "s", "paper_id": "p1", "rougeL": 0.1}) + "\n"
    write("strprov_rows", per_paper, "strprov/per_paper.jsonl")
    write("strprov_summary", json.dumps({"schema_version": 2, "system": "s", "provenance": "scored by hand"}),
          "strprov/summary.json")
    paths["strprov"] = str(root / "strprov")
    # a well-formed evaluation folder (with its predictions), so that a bad --ledger is what the import meets
    write("good_eval_predictions", "".join(json.dumps({"paper_id": p, "text": "See [1].", "candidates": ["d1"]}) + "\n"
                                           for p in ("p1", "p2")), "good_eval/run-a.jsonl")
    write("good_eval_summary", json.dumps({"system": "s", "split": "sample", "predictions": paths["good_eval_predictions"],
                                           "precision": 0.5, "n_papers": 2}), "good_eval/summary.json")
    write("good_eval_rows", "".join(json.dumps({"paper_id": p, "precision": 0.5}) + "\n" for p in ("p1", "p2")),
          "good_eval/per_paper.jsonl")
    paths["good_eval"] = str(root / "good_eval")
    write("bad_ledger", json.dumps({"purpose": "generate", "paper_id": "p9", "cost_usd": 0.1}) + "\n", "bad_usage.jsonl")
    # a generated run whose ledger beside it names a paper it has no prediction of
    write("ledger_run", json.dumps({"paper_id": "p1", "text": "x", "benchmark": "rwgbench", "split": "sample",
                                    "model": "m", "method": "rag"}) + "\n", "ledger_run/run-a.jsonl")
    write("ledger_run_usage", json.dumps({"purpose": "generate", "paper_id": "p9", "cost_usd": 0.1}) + "\n",
          "ledger_run/usage.jsonl")
    # good_eval again, with a generator ledger beside its predictions that bills paper p9, which it never predicted
    write("bad_ledger_eval_predictions", Path(paths["good_eval_predictions"]).read_text(), "bad_ledger_eval/run-a.jsonl")
    write("bad_ledger_eval_summary", json.dumps({"system": "t", "split": "sample", "precision": 0.5, "n_papers": 2,
                                                 "predictions": paths["bad_ledger_eval_predictions"]}),
          "bad_ledger_eval/summary.json")
    write("bad_ledger_eval_rows", Path(paths["good_eval_rows"]).read_text(), "bad_ledger_eval/per_paper.jsonl")
    write("bad_ledger_eval_usage", Path(paths["bad_ledger"]).read_text(), "bad_ledger_eval/usage.jsonl")
    paths["bad_ledger_eval"] = str(root / "bad_ledger_eval")
    # good_eval again, with a latin-1 generator ledger beside its predictions
    write("latin1_ledger_eval_predictions", Path(paths["good_eval_predictions"]).read_text(),
          "latin1_ledger_eval/run-a.jsonl")
    write("latin1_ledger_eval_summary", json.dumps({"system": "u", "split": "sample", "precision": 0.5, "n_papers": 2,
                                                    "predictions": paths["latin1_ledger_eval_predictions"]}),
          "latin1_ledger_eval/summary.json")
    write("latin1_ledger_eval_rows", Path(paths["good_eval_rows"]).read_text(), "latin1_ledger_eval/per_paper.jsonl")
    write("latin1_ledger_eval_usage", b'{"purpose": "generate", "paper_id": "p1", "model": "caf\xe9"}\n',
          "latin1_ledger_eval/usage.jsonl")
    paths["latin1_ledger_eval"] = str(root / "latin1_ledger_eval")
    write("corrupt_rows", per_paper, "corrupt/per_paper.jsonl")
    write("corrupt_summary_file", '{"schema_version": 2, "system": "s", "n_pap', "corrupt/summary.json")
    paths["corrupt_summary"] = str(root / "corrupt")
    write("tasks_file", json.dumps({"benchmark": "rwgbench"}), "tasks/study.json")
    paths["tasks"] = str(root / "tasks")
    write("badstudy_tasks", json.dumps({"task_id": "t1", "section_a": "A.", "section_b": "B."}), "badstudy/tasks.jsonl")
    write("badstudy_study", json.dumps({"benchmark": "rwgbench"}), "badstudy/study.json")  # no design, no dimensions
    paths["badstudy"] = str(root / "badstudy")
    paths["sample"] = str(root / "no-sample-here")
    paths["out"] = str(root / "out")
    return paths


PARAMS = [pytest.param(words, c, id=f"{' '.join(words)}:{c.name}",
                       marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
          for words, cases in CASES.items() for c in cases]


@pytest.mark.parametrize(("words", "bad"), PARAMS)
def test_bad_input_is_one_line_exit_2(words, bad, bad_inputs, capsys):
    argv = [*words, *(arg.format(**bad_inputs) for arg in bad.argv)]
    try:
        status = main(argv)
    except SystemExit as exit_:  # an argparse usage error
        status = exit_.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert status == 2, (status, err)
    lines = err.rstrip("\n").splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("sciwrite") and ": error: " in line), None)
    assert first == len(lines) - 1, err  # the error is one line, the last


# --------------------------------------------------------------------------------------- numbers, disks, huge lines


def float_flags(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """(command words, flag) of every option in the tree that reads a number with a fraction (its type gives a
    float for one of a few numbers)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += [flag for name, sub in action.choices.items() for flag in float_flags(sub, (*words, name))]
        elif action.option_strings and callable(action.type) and action.nargs != 0 and reads_floats(action.type):
            found.append((words, action.option_strings[-1]))
    return found


def reads_floats(parse) -> bool:
    for text in ("0.5", "1", "0", "5"):
        try:
            if isinstance(parse(text), float):
                return True
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
    return False


FLOAT_FLAGS = float_flags(build_parser())


def test_the_tree_has_the_float_flags_it_is_known_to_have():
    flags = {flag for _, flag in FLOAT_FLAGS}
    assert {"--temperature", "--timeout", "--confidence", "--max-cost", "--poll", "--heartbeat", "--stale-after",
            "--threshold", "--holdout-fraction", "--arxiv-min-interval"} <= flags, flags


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e400"])
@pytest.mark.parametrize(("words", "flag"), FLOAT_FLAGS, ids=[f"{' '.join(w)}:{f}" for w, f in FLOAT_FLAGS])
def test_every_float_flag_refuses_nan_and_inf_at_parse_time(words, flag, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*words, f"{flag}={value}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    last = err.rstrip("\n").splitlines()[-1]
    assert "Traceback" not in err and f"argument {flag}: expected a finite number" in last, err


def run_one_line(argv: list[str], capsys) -> tuple[int, str]:
    """`main(argv)`'s exit status and its one error line (asserted to be one line, the last, no traceback)."""
    status = main(argv)
    err = capsys.readouterr().err
    lines = err.rstrip("\n").splitlines()
    assert "Traceback" not in err and lines and lines[-1].startswith("sciwrite: error: "), err
    assert not any(": error: " in line for line in lines[:-1]), err
    return status, lines[-1]


def test_a_full_disk_under_generate_names_the_file_and_the_paper_and_keeps_the_papers(mini_sample_copy, tmp_path,
                                                                                     monkeypatch, capsys):
    out = tmp_path / "gen"
    path = out / "extractive_rwgbench-sample_extractive-mmr_bm25.jsonl"
    argv = ["generate", "rwgbench", "--model", "extractive", "--split", "sample", "--source", str(mini_sample_copy),
            "--out", str(out), "--concurrency", "1"]
    fill_disk(monkeypatch, path, writes=1)
    status, line = run_one_line(argv, capsys)
    [written] = [json.loads(text) for text in path.read_text().splitlines()]  # the paper before the disk filled
    assert status == 2
    assert line.startswith(f"sciwrite: error: {path}: no space left on device while writing paper '")
    assert "free some disk space" in line and "rerun the same command" in line
    monkeypatch.undo()
    assert main(argv) == 0  # resumed after it
    assert "1 papers written" in capsys.readouterr().out and written == json.loads(path.read_text().splitlines()[0])


def test_a_full_disk_met_by_a_plain_write_names_the_file(mini_sample_copy, tmp_path, monkeypatch, capsys):
    assert main(["index", "build", "--kind", "bm25", "--corpus", "sample_corpus", "--source", str(mini_sample_copy)]) == 0
    hits = tmp_path / "hits.jsonl"
    fill_disk(monkeypatch, hits)
    status, line = run_one_line(["retrieve", "--index", str(mini_sample_copy / "bm25" / "sample_corpus"), "--split",
                                 "sample", "--source", str(mini_sample_copy), "--out", str(hits)], capsys)
    assert status == 2 and "Errno" not in line
    assert line == f"sciwrite: error: {hits}: no space left on device; free some disk space (or write elsewhere), " \
                   "then rerun the same command"


def test_a_prediction_too_long_for_nltk_is_one_line_saying_what_to_do(mini_sample_copy, tmp_path, monkeypatch,
                                                                     capsys):
    """A prediction of one line of megabytes: nltk's regex timeout (made certain here by a limit of 0 s on texts
    that long, as a 50 MB line meets the 5 s one) is one line, never nltk's advice to its callers."""
    real = text_module._punkt()

    class Impatient:
        def tokenize(self, text):
            with monkeypatch.context() as patch:
                if len(text) > 100_000:
                    patch.setattr(redos, "DEFAULT_TIMEOUT", 0.0)
                return real.tokenize(text)

    monkeypatch.setattr(text_module, "_punkt", Impatient)
    ids = load_rwgbench("sample", source=mini_sample_copy)["paper_id"]
    cited = load_rwgbench("sample_corpus", source=mini_sample_copy)["doc_id"][:1]
    predictions = tmp_path / "huge.jsonl"
    huge = "This is a sentence about models [1]. " * 30_000
    predictions.write_text("".join(json.dumps({"paper_id": pid, "text": huge if i == 1 else "Prior work [1].",
                                               "candidates": cited}) + "\n" for i, pid in enumerate(ids)))
    status, line = run_one_line(["evaluate", "rwgbench", "--predictions", str(predictions), "--split", "sample",
                                 "--source", str(mini_sample_copy), "--profile", "lite", "--metrics",
                                 "citation_density", "--bootstrap", "0", "--out", str(tmp_path / "eval")], capsys)
    assert status == 2 and "timeout=None" not in line
    assert f"a text of {len(huge.strip()):,} characters" in line
    assert "shorten, regenerate or remove the prediction that holds it" in line
