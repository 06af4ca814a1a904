"""A scored run as the Hub's own evaluation results: ``.eval_results/<benchmark>[-<variant>].yaml`` on a model repo,
in the format `huggingface_hub` ships (`EvalResultEntry`, `eval_result_entries_to_yaml`,
`parse_eval_result_entries`), so the scores show on the model page and on the benchmark's Hub leaderboard.

One entry per headline metric of the benchmark's paper table (`HubTask`, declared by each benchmark as
`Benchmark.hub.tasks`), on the paper's scale, with the benchmark's dataset repo, the dataset revision when the run
knows it, the date the run finished, a source URL and notes naming the profile, model, method and retriever and,
given the run's `RunFacts` (`sciwrite.core.run_facts`), what the board says beside its scores: the judge with its
snapshots and its check's verdict, what the run cost ("unknown" and why, never 0) and, for a run pushed from the
board, its rank with its interval among its condition's rows. The format keeps one setting per file, so a run's
file name carries its variant (method, retriever, profile). Entries made from an Inspect log (``inspect eval sciwrite/<benchmark>``) also name the evaluation framework, ``inspect-ai``, as the
benchmark's ``eval.yaml`` does (`eval_yaml`), and their notes name the Inspect task and run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.errors import InputError, Where, yaml_position, yaml_problem
from sciwrite.core.jsonl import read_json_lines
from sciwrite.core.metric_scales import UNDECLARED, MetricScale, check_value
from sciwrite.core.run_facts import RunFacts
from sciwrite.core.summary import DatasetRef, Provenance, RunDescription, Summary
from sciwrite.core.summary_files import predictions_file

RESULTS_DIR = ".eval_results"
SOURCE_NAME = "sciwrite"
#: What ``eval.yaml`` names as the benchmark's evaluation framework, and an entry made from an Inspect log: Inspect
#: AI, on the Hub's list of frameworks (huggingface.js ``packages/tasks/src/eval.ts``), which runs the benchmarks
#: as the tasks ``sciwrite/<benchmark>`` (`inspect_task`) of the ``inspect`` extra.
EVALUATION_FRAMEWORK = "inspect-ai"
#: The package name under which the ``inspect_ai`` entry point registers the tasks (``pyproject.toml``).
INSPECT_PACKAGE = "sciwrite"


@dataclass(frozen=True)
class HubTask:
    """One headline metric as a Hub task: the summary's `key`, the stable `task_id` the card lists, and its range
    and direction on the paper's scale (the benchmark's one declaration, `BenchmarkSuite.scales`)."""

    key: str
    task_id: str
    description: str
    scale: MetricScale = UNDECLARED

    @property
    def higher_is_better(self) -> bool:
        return self.scale.higher_is_better


@dataclass(frozen=True)
class ResultsFile:
    """One ``.eval_results/*.yaml`` of a model repo: its `name` in the repo, where it was read (`origin`, for
    messages: ``<repo>/<name>`` or the local path), its entries with the line each starts on, and the entries the
    Hub marked invalid (left out, with why)."""

    name: str
    origin: str
    entries: tuple[Any, ...]
    lines: tuple[int, ...]
    invalid: tuple[str, ...] = ()


def _slug(text: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def run_retriever(run: RunDescription | None) -> str | None:
    """The run's retriever as the results name it: ``oracle`` for an Oracle run (the gold citations as candidates)."""
    if run is None:
        return None
    return "oracle" if run.oracle else run.retriever


def variant(summary: Summary) -> str:
    """The run's setting as a file-name part: method (SciIG's prompt level), retriever (``oracle`` for Oracle runs)
    and profile, those the summary records ("" when it records none)."""
    parts = [summary.run.method if summary.run else None, run_retriever(summary.run)]
    profile = summary.scoring_profile
    if profile and profile != "paper":
        parts.append(profile)
    return "-".join(_slug(p) for p in parts if p)


def results_filename(benchmark: str, summary: Summary) -> str:
    """``.eval_results/<benchmark>.yaml``, or ``<benchmark>-<variant>.yaml`` for a run that records its setting."""
    name = variant(summary)
    return f"{RESULTS_DIR}/{benchmark}{'-' + name if name else ''}.yaml"


def inspect_task(benchmark: str) -> str:
    """The Inspect task that runs `benchmark`: ``sciwrite/<benchmark>``."""
    return f"{INSPECT_PACKAGE}/{benchmark}"


def note_value(value: object) -> str:
    """`value` as one ``notes`` field's value: on one line, and with no ``;`` (which separates the fields; a list
    inside a value, such as a panel's judges, is joined by ``,`` instead)."""
    return " ".join(str(value).replace(";", ",").split())


def run_notes(summary: Summary, facts: RunFacts | None = None) -> str:
    """What the format asks to be said in ``notes``: the setting the numbers were produced under, and for a run of
    an Inspect task the task, the run id, the log and the model snapshots that answered. With the run's `facts`,
    also what the board shows beside its scores: every judge with its snapshots (marked when it failed its check),
    the judge check's verdict, the cost (`RunFacts.cost_line`: "unknown" and why, never 0) and the rank with its
    interval when the run was ranked (``rank: 2 (1–3) ↑ n.s. of 4 in lite · judge x on CQ · Prec. (precision)``).
    One line of ``name: value`` fields joined by ``; ``."""
    run = summary.run or RunDescription()
    provenance = summary.provenance or Provenance()
    inspect = provenance.inspect
    dataset = provenance.dataset or DatasetRef()
    coverage = summary.coverage
    fields = [("scored with", f"sciwrite {provenance.sciwrite_version or ''}".strip()),
              ("sciwrite commit", provenance.git_commit),
              # the task's registered name (`inspect eval` reruns it), whichever name the log records it under
              ("inspect task", inspect_task(provenance.benchmark) if inspect and provenance.benchmark else None),
              ("inspect run id", inspect.run_id if inspect else None),
              ("inspect log", inspect.log if inspect else None),
              ("profile", summary.scoring_profile), ("model", run.model),
              ("model snapshots", ", ".join(sorted(inspect.snapshots)) if inspect else None),
              ("method", run.method), ("retriever", run_retriever(run)),
              ("judge", facts.judge if facts else provenance.judge_model or "none"),
              ("judge check", facts.card.check_text() if facts else None),
              ("agreement with people",
               facts.card.human_agreement_text() if facts and facts.card.human_agreement is not None else None),
              ("split", summary.config),
              ("papers", f"{coverage.scored}/{'?' if coverage.total is None else coverage.total}"
               if coverage else summary.n_papers),
              ("dataset fingerprint", dataset.fingerprint),
              ("cost", facts.cost_line if facts else None),
              ("rank", " ".join(p for p in (facts.rank, facts.rank_scope) if p) if facts and facts.rank else None)]
    return "; ".join(f"{name}: {note_value(value)}" for name, value in fields if value not in (None, ""))


def run_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """A run's setting (model, method, retriever, oracle) from one of its prediction lines."""
    return {k: record[k] for k in ("model", "method", "retriever", "oracle") if record.get(k) is not None}


def with_run_fields(summary: Summary, summary_path: str | Path | None = None,
                    record: Mapping[str, Any] | None = None) -> Summary:
    """The summary with its ``run`` (model, method, retriever, oracle) when it has none (SciIG's): read from
    `record` (a prediction line at hand, such as an Inspect log's), else from the first line of its predictions file
    when that is at hand (a relative path is looked for as `sciwrite.core.summary_files.predictions_file` does,
    from `summary_path`)."""
    if summary.run is not None and summary.run.to_json():
        return summary
    if record is not None:
        return summary.with_(run=RunDescription.from_json(run_of(record)))
    if not summary.predictions:
        return summary
    path = predictions_file(summary.predictions, summary_path, required=False)
    if path is not None:
        return summary.with_(run=RunDescription.from_json(run_of(next(iter(read_json_lines(path)), {}))))
    return summary


def task_id(config: str, task: HubTask) -> str:
    """The Hub task id of `task` on `config`: ``<config>_<task id>`` (``test_citation_precision``,
    ``naacl_2025_rouge_l``), so that the offline sample's scores never read as the test set's."""
    return f"{config}_{task.task_id}"


def result_entries(summary: Summary, tasks: Sequence[HubTask], dataset_id: str, *,
                   source_url: str | None = None, source_name: str = SOURCE_NAME,
                   origin: str | Path | None = None, facts: RunFacts | None = None) -> list[Any]:
    """One `EvalResultEntry` per task the summary holds a value for (a metric not computed, None, is left out);
    a value its task's scale makes impossible (NaN, infinity, out of range, text) raises `InputError` naming the
    metric and `origin` (the summary's file). `source_name` is what the Hub shows for `source_url`; `facts` (the
    run's cost, judge and rank) go into every entry's notes (`run_notes`)."""
    from huggingface_hub import EvalResultEntry

    provenance = summary.provenance or Provenance()
    finished = provenance.finished or provenance.started
    revision = provenance.dataset.revision if provenance.dataset else None
    config = summary.config
    notes = run_notes(summary, facts)
    entries = []
    for task in tasks:
        value = check_value(task.key, summary.metrics.get(task.key, summary.details.get(task.key)), task.scale,
                            Where(path=origin, record=summary.system, field=task.key))
        if value is None:
            continue
        entries.append(EvalResultEntry(dataset_id=dataset_id, task_id=task_id(str(config), task), value=round(value, 4),
                                       dataset_revision=revision, date=str(finished)[:10] if finished else None,
                                       source_url=source_url, source_name=source_name if source_url else None,
                                       notes=notes))  # the format refuses a source name without its URL
    if not entries:
        raise ValueError(f"the summary of {summary.system!r} holds none of the benchmark's headline metrics "
                         f"({', '.join(t.key for t in tasks)})")
    return entries


def entries_yaml(entries: Sequence[Any], evaluation_framework: str | None = None) -> str:
    """The YAML text of one ``.eval_results`` file; with `evaluation_framework`, each entry names it (a field of the
    Hub's format that `EvalResultEntry` does not hold), before its notes as the format lists it."""
    from huggingface_hub import eval_result_entries_to_yaml

    items = eval_result_entries_to_yaml(list(entries))
    if evaluation_framework:
        items = [{**{k: v for k, v in item.items() if k != "notes"}, "evaluation_framework": evaluation_framework,
                  **({"notes": item["notes"]} if "notes" in item else {})} for item in items]
    return yaml.safe_dump(items, sort_keys=False, allow_unicode=True)


def write_results_files(files: Mapping[str, Sequence[Any]], out: str | Path, *,
                        evaluation_framework: str | None = None) -> list[Path]:
    """Write each ``.eval_results/...yaml`` under `out` (a dry run: what a pull request would add)."""
    written = []
    for name, entries in files.items():
        path = Path(out) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entries_yaml(entries, evaluation_framework), encoding="utf-8")
        written.append(path)
    return written


def push_results_files(files: Mapping[str, Sequence[Any]], model_repo: str, *, create_pr: bool = True,
                       token: str | None = None, api: Any = None, evaluation_framework: str | None = None) -> str:
    """One commit adding the files to the model repo, as a pull request by default (how evaluation results reach
    a model someone else owns); returns the commit's or the PR's URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    api = api or HfApi(token=token)
    operations = [CommitOperationAdd(path_in_repo=name,
                                     path_or_fileobj=entries_yaml(entries, evaluation_framework).encode("utf-8"))
                  for name, entries in files.items()]
    info = api.create_commit(repo_id=model_repo, repo_type="model", operations=operations, create_pr=create_pr,
                             commit_message=f"Add sciwrite evaluation results ({', '.join(files)})",
                             commit_description="Scores computed with sciwrite (`sciwrite push results`).")
    return str(getattr(info, "pr_url", None) or getattr(info, "commit_url", "") or info)


#: The header of every generated ``eval.yaml``: what it is, how its tasks are named, and what is not confirmed.
EVAL_YAML_HEADER = """\
# Generated by sciwrite.core.eval_results.eval_yaml: do not edit by hand.
# Framework: Inspect AI. Each task id is sciwrite's own, <config>_<metric>, as .eval_results entries name it; its
# description names the Inspect task and metric that produce it: `inspect eval {task} -T split=<config>`
# (pip install 'sciwrite[inspect]').
# Not confirmed: that the Hub gives the verified badge (a verifyToken from a run in HF Jobs) for a task a package
# registers rather than one this file defines. `inspect eval hf/<repo>` does not run these tasks: the eval.yaml
# tasks it reads take Inspect's built-in solvers and scorers only.
"""


def eval_yaml(bench: Any) -> str:
    """The ``eval.yaml`` of a benchmark's dataset repo: its name, description, framework (Inspect AI) and one task
    per headline metric and config, each saying its direction and scale and the Inspect task and metric that
    produce it (generated, so that it always matches `task_id`). The tasks keep the fields the Hub documents (id,
    config, split) plus a name and a description; which Inspect task produces one is said in its description
    rather than in a field of our own, which the Hub's validation might refuse."""
    command = inspect_task(bench.name)
    tasks = [{"id": task_id(config, task), "name": f"{task.description.split(':')[0]} ({config})",
              "description": (f"{task.description}. {'Higher' if task.higher_is_better else 'Lower'} is better; scale "
                              f"{task.scale.label}. Scored by `sciwrite evaluate {bench.name} --split {config}`, or in "
                              f"Inspect AI by `inspect eval {command} -T split={config}` (metric `{task.key}`)."),
              "config": config, "split": split}
             for config, split in bench.hub.configs for task in bench.hub.tasks]
    document = {"name": bench.title,
                "description": (f"{bench.title} ({bench.paper}), scored with sciwrite: one task per headline metric "
                                f"of the paper's results table, on the paper's scale. The Inspect AI task "
                                f"`{command}` (pip install 'sciwrite[inspect]') runs and scores it."),
                "evaluation_framework": EVALUATION_FRAMEWORK, "tasks": tasks}
    return (EVAL_YAML_HEADER.format(task=command)
            + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))


def read_results_files(source: str | Path, *, token: str | None = None, api: Any = None
                       ) -> dict[str, ResultsFile]:
    """Every ``.eval_results/*.yaml`` of a model repo (a local folder, or a Hub repo id): file name ->
    `ResultsFile`, each entry parsed with `parse_eval_result_entries`. A file that is not UTF-8, not YAML, not a
    list, or holds an entry without ``dataset.id``, ``dataset.task_id`` or ``value`` raises `InputError` naming
    the repo, the file and the line; nothing is returned, so nothing is imported from a repo with a bad file."""
    from huggingface_hub import HfApi, hf_hub_download

    local = Path(source)
    if local.is_dir():
        paths = {f"{RESULTS_DIR}/{p.name}": p for p in sorted((local / RESULTS_DIR).glob("*.y*ml"))}
        origins = {name: str(path) for name, path in paths.items()}
    else:
        api = api or HfApi(token=token)
        names = [n for n in api.list_repo_files(str(source), repo_type="model")
                 if n.startswith(f"{RESULTS_DIR}/") and n.endswith((".yaml", ".yml"))]
        paths = {n: Path(hf_hub_download(str(source), n, repo_type="model", token=token)) for n in names}
        origins = {name: f"{source}/{name}" for name in names}
    return {name: parse_results_file(name, origins[name], path.read_bytes()) for name, path in paths.items()}


def parse_results_file(name: str, origin: str, content: bytes) -> ResultsFile:
    """One ``.eval_results`` file's bytes as a `ResultsFile` (see `read_results_files` for what is refused)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte 0x{content[err.start]:02x} at offset {err.start})",
                         Where(path=origin, line=content.count(b"\n", 0, err.start) + 1),
                         "save the file as UTF-8") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        position = yaml_position(err)
        raise InputError(f"not valid YAML ({yaml_problem(err)})", Where(path=origin, line=position and position[0]),
                         "fix the file on the model repo (the .eval_results format is a YAML list of results)"
                         ) from None
    if data is None:
        return ResultsFile(name, origin, (), ())
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        raise InputError("not a list of results (the .eval_results format)", Where(path=origin, line=1))
    entries, lines, invalid = [], [], []
    for item, item_node in zip(data, node.value, strict=True):
        line = item_node.start_mark.line + 1
        if isinstance(item, Mapping) and "error" in item:  # the Hub's mark of a file it could not validate
            invalid.append(f"{origin}:{line}: left out, the Hub found it invalid ({item['error']})")
            continue
        entries.append(_entry(item, Where(path=origin, line=line)))
        lines.append(line)
    return ResultsFile(name, origin, tuple(entries), tuple(lines), tuple(invalid))


def _entry(item: Any, where: Where) -> Any:
    """One list item as an `EvalResultEntry`; a missing or malformed required field raises `InputError`."""
    from huggingface_hub import parse_eval_result_entries

    hint = "each result needs dataset: {id: ORG/NAME, task_id: TASK} and a numeric value"
    if not isinstance(item, Mapping):
        raise InputError(f"a result is {type(item).__name__} {item!r}, not a mapping", where, hint)
    body = item.get("data", item)
    dataset = body.get("dataset") if isinstance(body, Mapping) else None
    if not isinstance(dataset, Mapping):
        raise InputError("a result without its dataset", Where(**{**where.__dict__, "field": "dataset"}), hint)
    for key in ("id", "task_id"):
        if not isinstance(dataset.get(key), str) or not dataset[key].strip():
            raise InputError(f"a result without dataset.{key}",
                             Where(**{**where.__dict__, "field": f"dataset.{key}"}), hint)
    record = f"{dataset['id']} / {dataset['task_id']}"
    if body.get("value") is None:
        raise InputError("a result without its value", Where(where.path, where.line, record, "value"), hint)
    try:
        [entry] = parse_eval_result_entries([dict(item)])
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(f"not a valid result ({err})", Where(where.path, where.line, record), hint) from None
    return entry


__all__ = ["EVALUATION_FRAMEWORK", "INSPECT_PACKAGE", "RESULTS_DIR", "SOURCE_NAME", "HubTask", "ResultsFile",
           "entries_yaml", "eval_yaml", "inspect_task", "parse_results_file", "push_results_files",
           "note_value", "read_results_files", "result_entries", "results_filename", "run_notes", "run_of", "task_id",
           "variant", "with_run_fields", "write_results_files"]
