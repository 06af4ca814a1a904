"""Every command of `sciwrite`, on bad inputs, ends with one line naming what is wrong and exit 2: never a
traceback, never an internal error (exit 1). The argparse tree is walked, so a new command without bad inputs here
fails `test_every_command_has_bad_inputs`."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import pytest

from sciwrite.cli import build_parser, main

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
    ],
    ("evaluate", "sciig"): [
        *(case(name, "--predictions", "{%s}" % name, *EVAL_OPTS) for name in ("missing", "empty", "latin1", "badjson")),
        case("offline-naacl", "--predictions", "{good_jsonl}", "--split", "naacl_2025", *EVAL_OPTS),
        case("prices-yaml", "--predictions", "{good_jsonl}", "--prices", "{badyaml}", *EVAL_OPTS),
    ],
    ("compare",): [
        case("missing", "{missing}", "{missing}"),
        case("latin1", "{latin1}", "{latin1}"),
        case("badjson", "{badjson}", "{badjson}"),
        case("str-provenance", "{strprov}", "{strprov}"),
        case("corrupt-summary", "{corrupt_summary}", "{corrupt_summary}"),
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
    ],
    ("generate", "sciig"): [
        case("offline-default", "--model", "extractive", "--out", "{out}"),
        case("config-yaml", "--model", "extractive", "--config", "{badyaml}", "--out", "{out}"),
    ],
    ("meta-eval", "correlation"): [
        *(case(name, "--evals", "{%s}" % name, "{%s}" % name) for name in ("missing", "strprov", "corrupt_summary")),
    ],
    ("meta-eval", "agreement"): [
        *(case(name, "--ratings", "{%s}" % name, "--predictions-per-paper", "a={%s}" % name)
          for name in ("missing", "folder", "latin1", "badjson")),
        case("level-1.5", "--ratings", "{good_jsonl}", "--predictions-per-paper", "a={good_jsonl}",
             "--confidence", "1.5"),
    ],
    ("meta-eval", "judges"): [
        *(case(name, "--judge-a", "{%s}" % name, "--judge-b", "{%s}" % name)
          for name in ("missing", "folder", "latin1", "badjson")),
    ],
    ("meta-eval", "sensitivity"): [
        case("out-under-file", "--benchmark", "rwgbench", "--profile", "lite", "--out", "{empty}/table"),
        case("unknown-metric", "--benchmark", "sciig", "--profile", "lite", "--metrics", "no_such_metric"),
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
    ],
    ("verify-references",): [
        *(case(name, "{%s}" % name) for name in ("missing", "folder", "empty", "latin1")),
        case("bib-latin1", "{latin1_bib}"),
        case("offline-corpus", "--corpus", "corpus", "{good_titles}"),
        case("offline-hub", "--source", HUB_ID, "{good_titles}"),
    ],
    ("push", "predictions"): [
        *(case(name, "{%s}" % name, "--push-to-hub", HUB_ID) for name in ("missing", "empty", "latin1", "badjson")),
    ],
    ("push", "results"): [
        *(case(name, "{%s}" % name, "--model-repo", "org/model", "--dry-run", "--out", "{out}")
          for name in SUMMARY_INPUTS),
        *(case(f"inspect-log-{name}", "--inspect-log", "{%s}" % name, "--model-repo", "org/model", "--dry-run",
               "--out", "{out}") for name in ("missing", "folder", "empty", "badjson")),
        case("folder-and-inspect-log", "{strprov}", "--inspect-log", "{empty}", "--model-repo", "org/model"),
        case("nothing-to-push", "--model-repo", "org/model", "--dry-run", "--out", "{out}"),
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
def bad_inputs(tmp_path_factory) -> dict[str, str]:
    """Paths of bad (and a few good) inputs, by the names the argv templates use."""
    root = tmp_path_factory.mktemp("bad_inputs")
    paths: dict[str, str] = {"missing": str(root / "no-such-file.jsonl"), "store": str(root / "store.sqlite"),
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
    write("notsqlite", "this is not a database\n" * 200, "notsqlite.sqlite")
    write("good_jsonl", json.dumps({"paper_id": "p1", "text": "A section."}) + "\n", "good.jsonl")
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
