"""`sciwrite human-eval tasks|analyze`: a benchmark's human study (`Benchmark.studies.human_study`), from drawing its
blinded tasks to its Table 5.

- ``tasks --benchmark B --predictions A.jsonl B.jsonl ... --papers N --seed S --out DIR``: ``DIR/tasks.jsonl``
  (what annotators see; no system named), ``DIR/key.jsonl`` (which system wrote each text) and ``DIR/study.json``
  (the dimensions and their questions);
- ``annotators add NAME --tasks DIR --store PATH``: a sign-in token for a new annotator (shown once, stored hashed);
  ``annotators list``;
- ``serve --tasks DIR --store PATH``: the annotation app (`sciwrite.human_eval.app`);
- ``export --tasks DIR --store PATH --out votes.jsonl [--push-to-hub REPO --hub-config NAME]``: every answer given, as
  `analyze` reads them;
- ``llm-annotate --tasks DIR --judge MODEL --out FILE``: a language model answers every task as one more annotator,
  ``llm:<MODEL>`` (`sciwrite.human_eval.llm_annotate`: pairwise tasks in both orders, with its position bias);
- ``analyze --benchmark B --tasks DIR --ratings FILE [--evals DIR ... --align DIMENSION=METRIC ...] --out OUT``: the
  paper's Table 5, printed and written as ``OUT/table5.json`` and ``OUT/table5.csv``, which
  `sciwrite paper-table rwgbench-table5|sciig-table5 --analysis OUT` prints again (with the alphas under it); and
  the agreement among the annotators (`sciwrite.human_eval.agreement`), printed and written as
  ``OUT/agreement.json`` and ``.csv``. Answers of ``llm:<model>`` annotators are set apart: they are compared with
  the people's, and count in Table 5 only when no person answered.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.budget import EXIT_BUDGET
from sciwrite.cli.evaluate import print_usage
from sciwrite.cli.flags import (
    BENCHMARK,
    CONCURRENCY,
    CONFIDENCE,
    EVALS,
    HOST,
    HUB_CONFIG,
    JUDGE,
    MAX_TOKENS,
    OUT,
    PORT,
    PREDICTIONS,
    PRIVATE,
    PUSH_TO_HUB,
    RATINGS,
    SEED,
    SOURCE,
    SPLIT,
    STORE,
    SYSTEM,
    TASKS,
    add_bootstrap_flags,
    add_judge_flags,
)
from sciwrite.cli.judge_client import judge_config, usage_ledger
from sciwrite.core.paper_tables import render
from sciwrite.core.predictions import read_prediction_records
from sciwrite.core.summary import LLMUsage
from sciwrite.human_eval.agreement import format_agreement, study_agreement, write_agreement
from sciwrite.human_eval.answers import read_answers, split_answers
from sciwrite.human_eval.app import folder_session, serve_annotation
from sciwrite.human_eval.hub import push_answers
from sciwrite.human_eval.llm_annotate import (
    DEFAULT_MAX_TOKENS,
    annotate,
    check_task_folder,
    format_summary,
    write_annotation,
)
from sciwrite.human_eval.store import study_store
from sciwrite.human_eval.table5 import write_table5
from sciwrite.human_eval.tasks import draw_tasks, read_task_folder, system_texts, write_tasks
from sciwrite.llm.client import ChatClient
from sciwrite.llm.ledger import breach_line
from sciwrite.metrics.judge import llm_record

STUDIES = [name for name, bench in BENCHMARKS.items() if bench.studies.human_study is not None]
#: What `sciwrite human-eval llm-annotate --help` says of its exit statuses.
LLM_ANNOTATE_EXIT_STATUSES = (f"exit status: 0 every task asked (a question the model left unreadable after one retry "
                              f"is missing, counted in the summary); 2 usage or input error; {EXIT_BUDGET} --max-cost "
                              "stopped some requests (rerun with a higher budget and the same --judge-cache to "
                              "resume)")
#: What `human-eval annotators` does.
ANNOTATOR_ACTIONS = ("add", "list")


def _study(name: str):
    bench = get_benchmark(name)
    if bench.studies.human_study is None:
        raise ValueError(f"{bench.title} declares no human study")
    return bench, bench.studies.human_study


def cmd_tasks(args: argparse.Namespace) -> None:
    bench, study = _study(args.benchmark)
    names = args.system or [Path(p).stem for p in args.predictions]
    if len(names) != len(args.predictions) or len(set(names)) != len(names):
        raise ValueError(f"need one distinct system name per prediction file, got {names}")
    records = {name: read_prediction_records(path, candidates=False)[0] for name, path in zip(names, args.predictions)}
    papers = bench.data.load(args.split or bench.data.offline_config, source=args.source,
                        **({"split": bench.data.prediction_split} if bench.data.prediction_split else {}))
    by_id = {str(p["paper_id"]): p for p in papers.select_columns(
        [c for c in ("paper_id", "title", "abstract") if c in papers.column_names]).to_list()}
    drawn = draw_tasks(study, system_texts(records), by_id, args.papers, seed=args.seed,
                       pairs_per_paper=args.pairs_per_paper)
    out = write_tasks(drawn, args.out, force=args.force)
    what = (f"{drawn.study['n_papers']} papers x {args.pairs_per_paper} pair(s) x 2 presentation orders"
            if study.design == "pairwise" else f"{drawn.study['n_papers']} papers x {len(names)} systems")
    print(f"{len(drawn.tasks)} {study.design} tasks ({what}), seed {args.seed}: {out / 'tasks.jsonl'} (for the "
          f"annotators), {out / 'key.jsonl'} (keep it apart: it names the systems), {out / 'study.json'}")


def cmd_analyze(args: argparse.Namespace) -> None:
    _, study = _study(args.benchmark)
    tasks, key, record = read_task_folder(args.tasks)
    if record.get("benchmark") != study.benchmark:
        raise ValueError(f"{args.tasks} holds a {record.get('benchmark')!r} study, not {study.benchmark!r}")
    answers = read_answers(args.ratings, study.design, {t["task_id"] for t in tasks}, [d.key for d in study.dimensions])
    people, models = split_answers(answers)
    counted = people or models  # Table 5 is the people's; a models-only file gives the models' Table 5
    rows = study.analyze(tasks, key, counted, evals=args.evals or (), align=dict(args.align or []),
                         direct=args.direct or ())
    data = {"benchmark": study.benchmark, "design": study.design, "choices": list(study.choices), "rows": rows}
    print(render(study.table(data)))
    print(f"\n{len(counted)} answers to {len({a['task_id'] for a in counted})} of {len(tasks)} tasks from "
          f"{len({a['annotator'] for a in counted})} annotator(s)" + _models_line(people, models))
    report = study_agreement(study, answers, args.bootstrap, args.confidence, args.bootstrap_seed)
    print("\n" + format_agreement(report))
    if args.out:
        json_path, csv_path = write_table5(rows, args.out, record, study.choices, agreement=report)
        print(f"\nwrote {json_path} and {csv_path}; the agreement: "
              + ", ".join(map(str, write_agreement(report, args.out))))


def _models_line(people: list, models: list) -> str:
    """What `analyze` says of the model annotators' answers."""
    if not models:
        return ""
    names = ", ".join(sorted({a["annotator"] for a in models}))
    if not people:
        return f" (no person answered: this Table 5 is the model annotators' {names})"
    return f"; set apart: {len(models)} answers of model annotator(s) {names} (not in Table 5)"


def _store(args: argparse.Namespace):
    tasks, _, study = read_task_folder(args.tasks, with_key=False)
    return study_store(args.store, study, tasks)


def cmd_annotators(args: argparse.Namespace) -> None:
    store = _store(args)
    if args.action == "add":
        token = store.add_annotator(args.name)
        print(f"annotator {args.name!r} added; their sign-in token (shown this once, stored hashed):\n{token}")
        return
    print("\n".join(store.annotators()) or "no annotators yet")


def cmd_serve(args: argparse.Namespace) -> None:
    session = folder_session(args.tasks, args.store)
    print(f"serving {len(session.tasks)} tasks of the {session.study['benchmark']} study on http://{args.host}:"
          f"{args.port or 7860} (answers: {args.store})", flush=True)
    serve_annotation(session, host=args.host, port=args.port)


def cmd_export(args: argparse.Namespace) -> None:
    n = _store(args).export(args.out)
    print(f"wrote {n} answers to {args.out}")
    if args.push_to_hub:
        study = read_task_folder(args.tasks, with_key=False)[2]
        url = push_answers(args.out, args.push_to_hub, study, config_name=args.hub_config, private=args.private)
        print(f"pushed them to {url} as config {args.hub_config!r}")


def cmd_llm_annotate(args: argparse.Namespace) -> int:
    """A model answers the task folder's study as the annotator ``llm:<model>``; exit 3 when --max-cost stopped
    some of its requests."""
    out = Path(args.out)
    ledger = usage_ledger(args, out.parent, command="llm-annotate")  # the ledger beside the answers
    tasks, _, study = read_task_folder(args.tasks, with_key=False)  # the model is blinded as people are
    check_task_folder(args.tasks, tasks, study)
    client = ChatClient(args.judge, purpose="annotator", **judge_config(args).client_kwargs(ledger))
    annotation = annotate(tasks, study, client, workers=args.concurrency, max_tokens=args.max_tokens)
    paths, summary = write_annotation(annotation, out), annotation.summary()
    print(format_summary(summary))
    usage = LLMUsage.from_json(llm_record({}, ledger).get("llm_usage") or {})
    print(f"{usage.requests or 0} requests sent for {summary.n_prompts} prompts (the others "
          "answered from --judge-cache, or by an identical prompt: a task's swapped order is its twin's as shown)")
    print_usage(usage)
    print(f"wrote {len(annotation.answers())} answers of {annotation.annotator} to {paths[0]} (as `human-eval export` "
          f"writes them), every item with both orders' answers to {paths[1]}, the summary to {paths[2]}")
    breach = breach_line(ledger)  # an endpoint that billed past the budget: said last, whatever fitted it
    if breach:
        print(breach)
    return EXIT_BUDGET if annotation.not_sent or breach else 0


def add_llm_annotate_command(group: argparse._SubParsersAction) -> None:
    """`human-eval llm-annotate`: the judge client's options are `sciwrite evaluate`'s."""
    p = group.add_parser("llm-annotate", help="a language model answers a study's tasks as one more annotator",
                         epilog=LLM_ANNOTATE_EXIT_STATUSES)
    TASKS.add(p)
    JUDGE.add(p, "the model that answers (openai:<id>, openrouter:<id>, or an id served at --judge-base-url); its "
                 "answers are the annotator llm:MODEL", required=True)
    OUT.add(p, required=True, metavar="FILE",
                   help="the model's answers, JSON Lines as `human-eval export` writes them; beside them "
                        "<stem>.items.jsonl (every task and question: both orders' answers, or why it is missing), "
                        "<stem>.summary.json and the usage ledger usage.jsonl")
    add_judge_flags(p, "its items are missing")
    CONCURRENCY.add(p, "LLM requests in flight at once (default 8)", default=8)
    MAX_TOKENS.add(p, f"the reply's token limit (default {DEFAULT_MAX_TOKENS})", default=DEFAULT_MAX_TOKENS)
    p.set_defaults(func=cmd_llm_annotate)


def _alignment(value: str) -> tuple[str, str]:
    dimension, sep, metric = value.partition("=")
    if not sep or not dimension or not metric:
        raise argparse.ArgumentTypeError(f"expected DIMENSION=METRIC (e.g. scholarly_positioning=pss), got {value!r}")
    return dimension, metric


def add_human_eval_commands(sub: argparse._SubParsersAction) -> None:
    """The `human-eval` group."""
    group = sub.add_parser("human-eval", help="run a paper's human study: blinded tasks, then its Table 5"
                           ).add_subparsers(dest="what", required=True)
    p = group.add_parser("tasks", help="draw a study's blinded tasks from prediction files")
    BENCHMARK.add(p, required=True, choices=STUDIES)
    PREDICTIONS.add(p, "one JSON Lines file per system", required=True)
    SYSTEM.add(p)
    p.add_argument("--papers", type=int, required=True, metavar="N", help="papers drawn (seeded) from those every "
                                                                          "system predicted")
    SEED.add(p, "seed of the draw, the pairs, the orders and the ids (default 0)")
    p.add_argument("--pairs-per-paper", type=int, default=1, metavar="K",
                   help="pairwise studies: system pairs per paper, each in both orders (default 1)")
    SPLIT.add(p, "the split or config the predictions are for (default: the offline one)")
    SOURCE.add(p)
    OUT.add(p, "the task folder to write", required=True, metavar="DIR")
    p.add_argument("--force", action="store_true", help="overwrite an existing task folder (its answers then refer "
                                                        "to tasks that are gone)")
    p.set_defaults(func=cmd_tasks)
    add_llm_annotate_command(group)
    for name, helped in (("annotators", "add an annotator (prints their sign-in token) or list them"),
                         ("export", "write every answer of a store as JSON Lines"),
                         ("serve", "the annotation app: annotators sign in and answer, every answer saved at once")):
        p = group.add_parser(name, help=helped)
        if name == "annotators":
            p.add_argument("action", choices=ANNOTATOR_ACTIONS)
            p.add_argument("name", nargs="?", default="", help="the annotator's name (add)")
        TASKS.add(p)
        STORE.add(p, "the study's SQLite answer store", required=True, metavar="PATH")
        if name == "export":
            OUT.add(p, "votes.jsonl to write", required=True, metavar="FILE")
            PUSH_TO_HUB.add(p, "also push them to this Hub dataset repo, with a card")
            HUB_CONFIG.add(p, "the Hub dataset config to push to (default: answers)", default="answers")
            PRIVATE.add(p)
        if name == "serve":
            HOST.add(p)
            PORT.add(p, "port (default: Gradio's, 7860)")
        p.set_defaults(func={"annotators": cmd_annotators, "export": cmd_export, "serve": cmd_serve}[name])
    p = group.add_parser("analyze", help="a study's Table 5 from its task folder and answers")
    BENCHMARK.add(p, required=True, choices=STUDIES)
    TASKS.add(p)
    RATINGS.add(p, "the answers (votes or ratings), JSON Lines as `human-eval export` writes them", required=True)
    EVALS.add(p, "RWGBench: `sciwrite evaluate` folders of the systems")
    p.add_argument("--align", nargs="+", type=_alignment, metavar="DIMENSION=METRIC",
                   help="RWGBench: each dimension's metric, e.g. writing_quality=llm_judge scholarly_positioning=pss "
                        "overall_usefulness=soft_recall support_quality=csc")
    p.add_argument("--direct", nargs="+", metavar="SYSTEM", help="RWGBench: systems that are Direct runs (besides "
                                                                 "those whose summary says so)")
    OUT.add(p, "write DIR/table5.json and DIR/table5.csv, and the agreement among annotators to DIR/agreement.json "
               "and DIR/agreement.csv", metavar="DIR")
    add_bootstrap_flags(p, "tasks (the agreement's)")
    CONFIDENCE.add(p)
    p.set_defaults(func=cmd_analyze)
