"""The leaderboard's Gradio app: one tab per benchmark in its paper's table layout, plots, a paired comparison of
two systems, a drill-down to one paper, the submission form, every submission's status, and an About tab.

Every string a user typed reaches the page only through components that show text (Dataframe cells of type
``str``, Textbox, Dropdown labels), never through Markdown or HTML; the Markdown on the page is the project's own
(headings and the metric cards); a row's provenance is shown as plain text in a Textbox. The app holds no secret:
the admin token is compared on the server and never echoed, and no API key is read here.

Each benchmark tab ranks rows only within their scoring condition ("Scored under": model profile and judge model,
`sciwrite.core.conditions`). By default every condition is shown, one group after another with its own ranks
1..n (the paper profile's groups first, then the larger ones): nothing is hidden, and the top of the table is the
paper profile's largest group; the "Scored under" filter narrows the table to chosen groups.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.conditions import provenance_text
from sciwrite.core.costs import COST_COLUMNS, COST_PER_PAPER
from sciwrite.core.trust import card_text
from sciwrite.human_eval.app import annotation_ui, folder_session
from sciwrite.leaderboard.about import about_markdown
from sciwrite.leaderboard.compare import compare_submissions
from sciwrite.leaderboard.cost_plot import cost_chart
from sciwrite.leaderboard.drilldown import paper_scores_frame, paper_view
from sciwrite.leaderboard.plots import category_bars, metric_chart
from sciwrite.leaderboard.service import NEEDS_FIX, Leaderboard, SubmitOutcome
from sciwrite.leaderboard.store import FAILED, STALE_AFTER_S, Submission
from sciwrite.leaderboard.submission import WEIGHTS, SubmissionForm
from sciwrite.leaderboard.tables import (
    LEAD_INFO,
    board_columns,
    column_widths,
    filter_choices,
    frame_columns,
    higher_is_better,
    leaderboard_frame,
    leaderboard_rows,
    metric_columns,
    not_computed_note,
)
from sciwrite.leaderboard.worker import Worker

logger = logging.getLogger(__name__)

SUBMISSION_COLUMNS = ("Submitted (UTC)", "Benchmark", "System", "Submitter", "Status", "Reason", "Profile", "Attempts",
                      "Finished (UTC)", "Id")
#: The label of a benchmark tab's box that shows the clicked row's trust card (its judges and their snapshots, the
#: judge check, the panel) above its provenance.
PROVENANCE_LABEL = "Trust card and provenance of the selected row (click a row)"
#: Seconds between refreshes of the submissions table.
REFRESH_S = 5.0
#: The drill-down's caption of an agent's trace.
TRACE_CAPTION = ("Agent trace: each tool call with its arguments and what it returned (the doc_ids shown, or the "
                 "error), the model's reasoning summary where the provider returns one; the last row is its answer")


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return ""
    return dt.datetime.fromtimestamp(timestamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def submissions_frame(submissions: Sequence[Submission]) -> pd.DataFrame:
    """Every submission with its status and, when FAILED, the reason."""
    rows = [[_when(s.submitted_at), get_benchmark(s.benchmark).title, s.system, s.submitter, s.status, s.error,
             s.profile, s.attempts, _when(s.finished_at), s.id] for s in submissions]
    return pd.DataFrame(rows, columns=list(SUBMISSION_COLUMNS))


def _system_choices(board: Leaderboard, benchmark: str) -> list[tuple[str, str]]:
    """(label, submission id) of every scored system of `benchmark`."""
    return [(f"{s.system} ({s.id[:8]})", s.id) for s, _ in board.store.finished(benchmark, board.split_of(benchmark))]


def submission_provenance(board: Leaderboard, submission_id: str) -> str:
    """The system, its id and its provenance (`provenance_text`) as plain text; says so when there is no such
    submission."""
    try:
        submission = board.store.get((submission_id or "").strip())
    except KeyError as err:
        return str(err).strip("'\"")
    summary = board.store.summary(submission.id)  # its trust card (judges, check, panel), then the provenance
    return (f"{submission.system} (submission {submission.id})\n" + card_text(summary, submission.profile)
            + provenance_text(summary, submission.profile))


def row_keys(frame: pd.DataFrame) -> dict[str, str]:
    """(Scored under, Rank) of each row of a `leaderboard_frame` frame -> its submission id: a row's rank is unique
    within its condition, so the pair names the row whatever order the browser shows it in."""
    return {_row_key(condition, rank): sid
            for condition, rank, sid in zip(frame["Scored under"], frame["Rank"], frame.attrs.get("ids") or [])}


def _row_key(condition: Any, rank: Any) -> str:
    try:
        rank = int(float(rank))
    except (TypeError, ValueError):
        pass
    return f"{condition}\x00{rank}"


def build_app(board: Leaderboard, title: str = "sciwrite leaderboard") -> gr.Blocks:
    """The app for `board` (the worker runs separately: `launch` starts one in a thread)."""
    benchmarks = list(board.benchmarks)
    with gr.Blocks(title=title) as app:
        titles = [get_benchmark(name).title for name in benchmarks]
        named = " and ".join(filter(None, [", ".join(titles[:-1]), titles[-1]])) if titles else "no benchmark"
        gr.Markdown(f"# {title}\n{named}, each scored with its paper's metrics. Each score is the mean over papers "
                    "with its 95% bootstrap interval.")
        with gr.Tabs():
            for benchmark in benchmarks:
                _benchmark_tab(app, board, benchmark)
            _plots_tab(board, benchmarks)
            _compare_tab(board, benchmarks)
            _drilldown_tab(board, benchmarks)
            _submit_tab(board, benchmarks)
            _submissions_tab(app, board)
            if board.settings.human_eval_tasks and board.settings.human_eval_store:
                with gr.Tab("Human evaluation", id="tab-human-eval"):
                    annotation_ui(folder_session(board.settings.human_eval_tasks, board.settings.human_eval_store))
            with gr.Tab("About"):
                gr.Markdown(about_markdown())

        def provenance(submission_id: str) -> str:
            """The provenance of one submission (its scoring condition and `summary.json`'s provenance block)."""
            return submission_provenance(board, submission_id)

        gr.api(provenance, api_name="provenance")
    return app


def _benchmark_tab(app: gr.Blocks, board: Leaderboard, benchmark: str) -> None:
    info = get_benchmark(benchmark)
    metrics = board_columns(benchmark)
    with gr.Tab(info.title, id=f"tab-{benchmark}"):
        # One line, so that the table's first rows show at 1280 x 900 without scrolling; how to read the columns is
        # in About ("Reading a benchmark's table").
        gr.Markdown(f"{info.title} ({info.paper}), split `{board.split_of(benchmark)}`: scores first, each ranked "
                    "within its scoring condition (*Scored under*); click a row for its trust card and provenance; "
                    "*About* explains the columns.")
        with gr.Row():
            search = gr.Textbox(label="Search", placeholder="system, model, method or retriever", scale=2)
            # Default: every group, each ranked on its own (nothing is hidden; the paper profile's groups lead).
            conditions = gr.Dropdown(label="Scored under", multiselect=True, choices=[], allow_custom_value=True,
                                     elem_id=f"conditions-{benchmark}")
            sort_by = gr.Dropdown(label="Sort by", choices=[*((label, key) for _, key, label in metrics),
                                                            *((label, key) for key, label in (COST_PER_PAPER,
                                                                                              *COST_COLUMNS))],
                                  value=metrics[0][1])
            order = gr.Radio(label="Order", choices=["best first", "worst first"], value="best first")
            refresh = gr.Button("Refresh", elem_id=f"refresh-{benchmark}")
        with gr.Accordion("More filters: model, method, retriever, cost frontier", open=False):
            with gr.Row():
                # The choices arrive with the first load; API callers never get them, so any value is let through
                # (an unknown one just matches no row).
                models = gr.Dropdown(label="Model", multiselect=True, choices=[], allow_custom_value=True)
                methods = gr.Dropdown(label="Method", multiselect=True, choices=[], allow_custom_value=True)
                retrievers = gr.Dropdown(label="Retriever", multiselect=True, choices=[], allow_custom_value=True)
                frontier = gr.Checkbox(label="Frontier only (score against $/paper)", value=False,
                                       elem_id=f"frontier-{benchmark}")
        table = gr.Dataframe(label=f"{info.title} leaderboard", interactive=False, datatype="str", wrap=True,
                             elem_id=f"table-{benchmark}", max_height=700,
                             # a new list: Gradio asks for a list[str | int] (invariant), where a list[str] is fine
                             column_widths=[*column_widths(benchmark)],
                             pinned_columns=len(LEAD_INFO))  # Rank, System, $/paper: the scores follow them
        details = gr.Textbox(label=PROVENANCE_LABEL, interactive=False, lines=10,
                             elem_id=f"provenance-{benchmark}")
        note = gr.Textbox(label="Not computed", interactive=False, lines=2)
        # issue 51: the headline score against $/paper of the rows shown, each condition's Pareto frontier drawn
        cost_plot = gr.Plot(label="Score against cost", elem_id=f"cost-plot-{benchmark}")
        cost_note = gr.Textbox(label="Left out of the plot", interactive=False, elem_id=f"cost-note-{benchmark}")
        shown_rows = gr.State({})  # (Scored under, Rank) -> submission id of the rows shown
        plotted = gr.State(([], []))  # (rows, ids of the rows shown) for the plot, drawn after the table

        def show(text: str, chosen_models: list[str], chosen_methods: list[str], chosen_retrievers: list[str],
                 metric: str, direction: str, chosen_conditions: list[str] | None = None,
                 frontier_only: bool = False):
            rows = leaderboard_rows(board.store, benchmark, board.split_of(benchmark))
            frame = leaderboard_frame(rows, benchmark, search=text or "", models=chosen_models or (),
                                      methods=chosen_methods or (), retrievers=chosen_retrievers or (),
                                      conditions=chosen_conditions or (), sort_by=metric,
                                      descending=_descending(benchmark, metric, direction),
                                      frontier_only=bool(frontier_only))
            choices = filter_choices(rows)
            return (frame, gr.Dropdown(choices=choices["model"]), gr.Dropdown(choices=choices["method"]),
                    gr.Dropdown(choices=choices["retriever"]), not_computed_note(rows, benchmark),
                    gr.Dropdown(choices=choices["condition"]), row_keys(frame), (rows, frame.attrs["ids"]))

        def draw(shown: tuple[list[dict[str, Any]], list[str]]):
            chart = cost_chart(shown[0], benchmark, set(shown[1]))
            return chart.figure, chart.note

        at = frame_columns(benchmark)

        def pick(keys: dict[str, str], event: gr.SelectData) -> str:
            value = list(event.row_value or [])
            if len(value) != len(at):
                return ""
            sid = keys.get(_row_key(value[at.index("Scored under")], value[at.index("Rank")]))
            return submission_provenance(board, sid) if sid else "this row is no longer shown; press Refresh"

        inputs = [search, models, methods, retrievers, sort_by, order, conditions, frontier]
        # the plot's state is a State output, which the API leaves out: an API caller gets the table as before
        outputs = [table, models, methods, retrievers, note, conditions, shown_rows, plotted]
        events = [refresh.click(show, inputs, outputs, api_name=f"leaderboard_{benchmark}")]
        table.select(pick, shown_rows, details, api_visibility="private")
        for control in (models, methods, retrievers, conditions, sort_by, order, frontier):
            events.append(control.change(show, inputs, outputs, api_visibility="private"))
        events.append(search.submit(show, inputs, outputs, api_visibility="private"))
        events.append(app.load(show, inputs, outputs, api_visibility="private"))
        for event in events:  # the plot follows the table
            event.then(draw, plotted, [cost_plot, cost_note], api_visibility="private")


def _descending(benchmark: str, metric: str, direction: str) -> bool:
    best_first = direction != "worst first"
    return best_first if higher_is_better(metric) else not best_first


def _plots_tab(board: Leaderboard, benchmarks: list[str]) -> None:
    with gr.Tab("Plots"):
        benchmark = gr.Radio(label="Benchmark", choices=[(get_benchmark(b).title, b) for b in benchmarks],
                             value=benchmarks[0])
        with gr.Row():
            # The choices follow the benchmark in the page; an API caller picks the benchmark itself, so any value
            # is let through here and checked against that benchmark in `plot`.
            category = gr.Dropdown(label="Category", choices=list(get_benchmark(benchmarks[0]).suite.table_groups),
                                   value=next(iter(get_benchmark(benchmarks[0]).suite.table_groups)), allow_custom_value=True)
            metric = gr.Dropdown(label="Metric", choices=_metric_choices(benchmarks[0]),
                                 value=metric_columns(benchmarks[0])[0][1], allow_custom_value=True)
            # Empty: every group, each system's name then saying its group (scores of different groups are not
            # comparable); the choices fill in on focus.
            conditions = gr.Dropdown(label="Scored under", multiselect=True, choices=[], allow_custom_value=True)
            draw = gr.Button("Draw")
        bars = gr.Plot(label="Per-category scores (error bars: 95% bootstrap intervals)")
        chart = gr.Plot(label="One metric across systems")

        def choose(name: str):
            groups = list(get_benchmark(name).suite.table_groups)
            return (gr.Dropdown(choices=groups, value=groups[0]),
                    gr.Dropdown(choices=_metric_choices(name), value=metric_columns(name)[0][1]))

        def plot(name: str, group: str, key: str, chosen: list[str] | None = None):
            bench = get_benchmark(name)
            if group not in bench.suite.table_groups:
                raise gr.Error(f"{bench.title} has no category {group!r}; choose one of {list(bench.suite.table_groups)}")
            if key not in bench.suite.metrics:
                raise gr.Error(f"{bench.title} has no metric {key!r}; choose one of {list(bench.suite.metrics)}")
            rows = leaderboard_rows(board.store, name, board.split_of(name))
            rows = [r for r in rows if not chosen or r["condition"] in chosen]
            return category_bars(rows, name, group), metric_chart(rows, name, key)

        def condition_choices(name: str, current: list[str] | None):
            rows = leaderboard_rows(board.store, name, board.split_of(name))
            return gr.Dropdown(choices=filter_choices(rows)["condition"], value=current or [])

        benchmark.change(choose, benchmark, [category, metric], api_visibility="private")
        benchmark.change(lambda name: condition_choices(name, []), benchmark, conditions, api_visibility="private")
        conditions.focus(condition_choices, [benchmark, conditions], conditions, api_visibility="private")
        draw.click(plot, [benchmark, category, metric, conditions], [bars, chart], api_name="plots")


def _metric_choices(benchmark: str) -> list[tuple[str, str]]:
    return [(label, key) for _, key, label in metric_columns(benchmark)]


def _compare_tab(board: Leaderboard, benchmarks: list[str]) -> None:
    with gr.Tab("Compare"):
        gr.Markdown("Two systems on the papers both scored: per metric the difference B − A, its 95% paired "
                    "bootstrap interval, a paired permutation test's p-value and Holm's adjustment across metrics.")
        benchmark = gr.Radio(label="Benchmark", choices=[(get_benchmark(b).title, b) for b in benchmarks],
                             value=benchmarks[0])
        with gr.Row():
            # Choices fill in on focus, which an API caller never does: any submission id is let through and an
            # unknown one is answered in the message.
            system_a = gr.Dropdown(label="System A", choices=[], allow_custom_value=True, elem_id="compare-a")
            system_b = gr.Dropdown(label="System B", choices=[], allow_custom_value=True, elem_id="compare-b")
            run = gr.Button("Compare", elem_id="compare-button")
        mixed = gr.Checkbox(label="compare across different provenance (another dataset, profile, models, judge or "
                                  "prompts)", value=False, elem_id="compare-mixed")
        result = gr.Dataframe(label="B − A", interactive=False, datatype="str", elem_id="compare-table")
        message = gr.Textbox(label="Message", interactive=False, elem_id="compare-message")

        def choose(name: str, keep_a: str | None = None, keep_b: str | None = None):
            """Fresh choices for both (a newly scored system shows up); a focus keeps what was chosen, a change of
            benchmark clears it."""
            choices = _system_choices(board, name)
            return gr.Dropdown(choices=choices, value=keep_a), gr.Dropdown(choices=choices, value=keep_b)

        def compare(id_a: str | None, id_b: str | None, mixed: bool = False):
            if not id_a or not id_b:
                return pd.DataFrame(), "choose two systems"
            try:
                frame = compare_submissions(board.store, id_a, id_b, allow_mixed_provenance=bool(mixed))
            except (KeyError, ValueError) as err:
                return pd.DataFrame(), str(err)
            differences = frame.attrs.get("provenance_differences") or []
            return frame, ("scored differently: " + "; ".join(differences)) if differences else ""

        benchmark.change(choose, benchmark, [system_a, system_b], api_visibility="private")
        for picker in (system_a, system_b):
            picker.focus(choose, [benchmark, system_a, system_b], [system_a, system_b], api_visibility="private")
        run.click(compare, [system_a, system_b, mixed], [result, message], api_name="compare")


def _drilldown_tab(board: Leaderboard, benchmarks: list[str]) -> None:
    with gr.Tab("Drill-down"):
        benchmark = gr.Radio(label="Benchmark", choices=[(get_benchmark(b).title, b) for b in benchmarks],
                             value=benchmarks[0])
        with gr.Row():
            system = gr.Dropdown(label="System", choices=[], allow_custom_value=True,  # as in the Compare tab
                                 elem_id="drilldown-system")
            paper = gr.Dropdown(label="Paper", choices=[], allow_custom_value=True, elem_id="drilldown-paper")
            show = gr.Button("Show", elem_id="drilldown-show")
        provenance = gr.Textbox(label="Provenance", interactive=False, lines=8, elem_id="drilldown-provenance")
        scores = gr.Dataframe(label="Per-paper scores", interactive=False, datatype="str", max_height=300)
        with gr.Row():
            generated = gr.Textbox(label="Generated", interactive=False, lines=14)
            reference = gr.Textbox(label="Reference", interactive=False, lines=14)
        citations = gr.Dataframe(label="Citations of the generated text (a listed reference list: each reference\x27s "
                                       "grounding)", interactive=False, datatype="str",
                                 elem_id="drilldown-citations")
        extra = gr.Dataframe(label="More", interactive=False, datatype="str", elem_id="drilldown-extra")
        # shown only for a submission that kept a trace (an agent's tool calls)
        trace = gr.Dataframe(label=TRACE_CAPTION, interactive=False, datatype="str", wrap=True, visible=False,
                             elem_id="drilldown-trace")
        message = gr.Textbox(label="Notes", interactive=False)

        def choose(name: str):
            return gr.Dropdown(choices=_system_choices(board, name), value=None), gr.Dropdown(choices=[], value=None)

        def pick_system(submission_id: str | None):
            try:
                frame = paper_scores_frame(board.store, submission_id) if submission_id else None
            except KeyError:  # a typed id that is no submission
                frame = None
            if frame is None:
                return pd.DataFrame(), gr.Dropdown(choices=[], value=None), ""
            return (frame, gr.Dropdown(choices=list(frame["paper_id"]), value=None),
                    submission_provenance(board, submission_id or ""))

        def view(name: str, submission_id: str | None, paper_id: str | None):
            hidden = gr.Dataframe(value=pd.DataFrame(), visible=False)
            if not submission_id or not paper_id:
                return "", "", pd.DataFrame(), gr.Dataframe(), hidden, "choose a system and a paper"
            try:
                shown = paper_view(board.store, submission_id, paper_id, board.papers(name))
            except (KeyError, ValueError) as err:
                return "", "", pd.DataFrame(), gr.Dataframe(), hidden, str(err).strip("'\"")
            return (shown.generated, shown.reference, shown.citations,
                    gr.Dataframe(value=shown.extra, label=shown.extra_caption),
                    gr.Dataframe(value=shown.trace, visible=not shown.trace.empty), "\n".join(shown.notes))

        benchmark.change(choose, benchmark, [system, paper], api_visibility="private")
        system.focus(lambda name, current: gr.Dropdown(choices=_system_choices(board, name), value=current),
                     [benchmark, system], system, api_visibility="private")
        system.change(pick_system, system, [scores, paper, provenance], api_visibility="private")
        show.click(view, [benchmark, system, paper], [generated, reference, citations, extra, trace, message],
                   api_name="paper")


def _record_format(benchmark: str) -> str:
    """A benchmark's prediction record as a submission carries it (its join key, the text, the rest), for the page:
    ``{"paper_id", "text"} for SciIG``."""
    bench = get_benchmark(benchmark)
    key, *others = bench.data.prediction_fields
    fields = ", ".join(f'"{name}"' for name in (key, "text", *others))
    return f"`{{{fields}}}` for {bench.title}"


def submit_message(outcome: SubmitOutcome) -> str:
    """The Submit tab's answer: queued; kept (not queued) because its usage ledger was refused, with the ledger's one
    line and how to fix it; or not accepted, with every problem."""
    s = outcome.submission
    if s is None:  # not accepted
        return "Not accepted:\n" + "\n".join(f"- {p}" for p in outcome.problems)
    if s.status == FAILED and s.error.startswith(NEEDS_FIX):
        reason = s.error.removeprefix(NEEDS_FIX).removeprefix(": ")
        return (f"Kept, not queued: the usage ledger was refused: {reason}\n"
                f"The predictions of {s.system} are kept as submission {s.id}: give a corrected ledger on the "
                "Submissions tab (Fix the ledger) and it is queued.")
    return (f"Accepted: {s.system} is queued as PENDING (submission {s.id}, {s.n_predictions} predictions). "
            "Its status is on the Submissions tab.")


def fix_ledger_message(board: Leaderboard, submission_id: str, content: bytes | None, submitter: str,
                       hub_user: str | None = None) -> str:
    """The Submissions tab's "Fix the ledger": a corrected usage ledger for a submission kept for a refused one,
    given by its submitter (the signed-in Hub user on a board with a login), and what came of it."""
    submission_id = (submission_id or "").strip()
    if board.settings.hub_login and not hub_user:
        return "Not fixed: sign in with your Hugging Face account first (the button on the Submit tab)"
    if not submission_id or not content:
        return "Not fixed: give the submission id and upload the corrected usage ledger (usage.jsonl)"
    problems = board.fix_ledger(submission_id, content, hub_user or submitter or "")
    if problems:
        return "Not fixed: " + "; ".join(problems)
    return f"Fixed: submission {submission_id} is queued again as PENDING, to be scored and costed with this ledger."


def _submit_tab(board: Leaderboard, benchmarks: list[str]) -> None:
    with gr.Tab("Submit", id="tab-submit"):
        formats = "; ".join(_record_format(name) for name in benchmarks)
        gr.Markdown(f"Upload one JSON Lines file of predictions, one record per paper ({formats}), "
                    "or give the Hub id of a run pushed with "
                    "`sciwrite push` (`org/name` or `org/name:config`). Every paper of the split needs a prediction. "
                    "An agent's trace of a paper (the `<run>.traces.jsonl` line's `trace`) may ride in its record as "
                    "`trace`: the drill-down shows it. "
                    "A system name belongs to its first submitter (the signed-in Hub user where the board asks you "
                    "to sign in, else the name you type): another submitter's name, or one that differs from it "
                    "only in case, width or invisible characters, is refused. "
                    "The file is checked at once; an accepted one is queued and scored by the worker. "
                    "Give the usage ledger `sciwrite generate` wrote beside the predictions (`usage.jsonl`) for "
                    "the cost columns (without it the cost is unknown); a ledger that disagrees with the predictions "
                    "is refused in one line and the submission kept until a corrected one is given.")
        benchmark = gr.Radio(label="Benchmark", choices=[(get_benchmark(b).title, b) for b in benchmarks],
                             value=benchmarks[0], elem_id="submit-benchmark")
        with gr.Row():
            upload = gr.File(label="Predictions (.jsonl)", file_types=[".jsonl", ".json"], type="binary",
                             elem_id="submit-file")
            hub_id = gr.Textbox(label="…or Hub dataset id", placeholder="org/name[:config]", elem_id="submit-hub-id")
            ledger = gr.File(label="Usage ledger (usage.jsonl), optional", file_types=[".jsonl"], type="binary",
                             elem_id="submit-ledger")
        with gr.Row():
            system = gr.Textbox(label="System name", elem_id="submit-system")
            model = gr.Textbox(label="Model", elem_id="submit-model")
            method = gr.Textbox(label="Method", elem_id="submit-method")
            retriever = gr.Textbox(label="Retriever", elem_id="submit-retriever")
        login = board.settings.hub_login
        with gr.Row():
            weights = gr.Radio(label="Weights", choices=list(WEIGHTS), value=None, elem_id="submit-weights")
            url = gr.Textbox(label="Paper or code URL (http/https)", elem_id="submit-url")
            # On a Space with a Hub login the submitter is the signed-in user (the typed name is not used).
            submitter = gr.Textbox(label="Your name or Hub user name", elem_id="submit-submitter", visible=not login)
        if login:
            gr.LoginButton()
        send = gr.Button("Submit", variant="primary", elem_id="submit-button")
        outcome = gr.Textbox(label="Result", interactive=False, lines=6, elem_id="submit-result")

        def submit(name: str, content: bytes | None, hub: str, system_name: str, model_name: str, method_name: str,
                   retriever_name: str, weights_value: str | None, link: str, who: str,
                   usage: bytes | None = None, profile: gr.OAuthProfile | None = None,
                   request: gr.Request | None = None) -> str:
            form = SubmissionForm(benchmark=name, system=system_name or "", submitter=who or "", model=model_name or "",
                                  method=method_name or "", retriever=retriever_name or "", weights=weights_value or "",
                                  url=link or "")
            address = request.client.host if request is not None and request.client is not None else None
            return submit_message(board.submit(form, content=content, hub_id=hub or None,
                                               hub_user=profile.username if profile is not None else None,
                                               address=address, ledger=usage or None))

        # the ledger last, so that a client passing the ten fields before it still calls /submit as it did
        send.click(submit, [benchmark, upload, hub_id, system, model, method, retriever, weights, url, submitter,
                            ledger], outcome, api_name="submit", concurrency_limit=None)


def _submissions_tab(app: gr.Blocks, board: Leaderboard) -> None:
    with gr.Tab("Submissions", id="tab-submissions"):
        table = gr.Dataframe(label="Every submission (newest first)", interactive=False, datatype="str",
                             elem_id="submissions-table", max_height=700)
        refresh = gr.Button("Refresh", elem_id="refresh-submissions")
        login = board.settings.hub_login
        with gr.Accordion("Fix the ledger", open=False):
            with gr.Row():  # a submission kept because its usage ledger was refused: queued again with a good one
                fix_id = gr.Textbox(label="Submission id", elem_id="fix-id")
                fix_file = gr.File(label="Corrected usage ledger (usage.jsonl)", file_types=[".jsonl"], type="binary",
                                   elem_id="fix-ledger")
                # on a board with a Hub login the submitter is the signed-in user (the typed name is not used)
                fix_who = gr.Textbox(label="Your name or Hub user name", elem_id="fix-submitter", visible=not login)
            fix = gr.Button("Fix the ledger", elem_id="fix-button")
            fixed = gr.Textbox(label="Result", interactive=False, elem_id="fix-result")
        with gr.Accordion("Admin", open=False):
            token = gr.Textbox(label="Admin token", type="password")
            target = gr.Textbox(label="Submission id")
            with gr.Row():
                delete = gr.Button("Delete", variant="stop")
                retry = gr.Button("Retry")
            message = gr.Textbox(label="Message", interactive=False)

        def listing() -> pd.DataFrame:
            return submissions_frame(board.store.submissions())

        def act(action: str, secret: str, submission_id: str):
            try:
                getattr(board, action)((submission_id or "").strip(), secret or "")
            except (PermissionError, KeyError) as err:
                return str(err).strip("'\""), listing()
            return f"{action}: done", listing()

        def fix_ledger(submission_id: str, content: bytes | None, who: str,
                       profile: gr.OAuthProfile | None = None) -> tuple[str, pd.DataFrame]:
            hub_user = profile.username if profile is not None else None
            return fix_ledger_message(board, submission_id, content, who, hub_user), listing()

        refresh.click(listing, None, table, api_name="submissions")
        fix.click(fix_ledger, [fix_id, fix_file, fix_who], [fixed, table], api_name="fix_ledger")
        delete.click(lambda s, i: act("delete", s, i), [token, target], [message, table], api_visibility="private")
        retry.click(lambda s, i: act("retry", s, i), [token, target], [message, table], api_visibility="private")
        app.load(listing, None, table, api_visibility="private")
        gr.Timer(REFRESH_S).tick(listing, None, table, api_visibility="private")


#: What Gradio 6.31's queue (its per-event timing summary) makes pandas 3 warn on every queued call: two
#: deprecations inside Gradio, nothing the app or a user can act on.
GRADIO_QUEUE_WARNINGS = ("'future.no_silent_downcasting' is deprecated", "The copy keyword is deprecated")


def quiet_gradio_queue_warnings() -> None:
    """Silence `GRADIO_QUEUE_WARNINGS`, and only where `gradio.queueing` raises them (any other warning stays)."""
    for message in GRADIO_QUEUE_WARNINGS:
        warnings.filterwarnings("ignore", message=re.escape(message), module=r"gradio\.queueing")


@dataclass
class Served:
    """A running leaderboard: the Gradio app, its URL on this machine and the worker thread it started (None when
    the worker runs elsewhere). `close` stops both."""

    app: gr.Blocks
    worker: Worker | None

    @property
    def url(self) -> str:
        url = self.app.local_url  # Gradio sets it when the app is launched (`serve` launches it)
        if url is None:
            raise RuntimeError("the leaderboard app has no URL: it was never launched")
        return url

    def close(self, timeout: float | None = 60.0) -> None:
        """Close the app, then let the worker finish the submission it holds (at most `timeout` seconds)."""
        self.app.close()
        if self.worker is not None:
            self.worker.stop(timeout)


def launch(board: Leaderboard, host: str = "127.0.0.1", port: int | None = None, worker: bool = True,
           evaluator: Any = None, *, poll_s: float = 2.0, heartbeat_s: float = 10.0,
           stale_after_s: float = STALE_AFTER_S, concurrency: int = 4, **launch_options: Any) -> Served:
    """Serve the app and, unless `worker` is False, score submissions in a thread of this process.

    The worker beats every `heartbeat_s` seconds, looks at an empty queue every `poll_s` seconds and retries a
    RUNNING submission whose heartbeat is older than `stale_after_s`. `concurrency` is the queue's default limit
    per event; `launch_options` go to `gr.Blocks.launch` (pass ``prevent_thread_lock=True`` to get the handle back
    while the server runs; ``show_error`` is on unless given: every refused call gets its reason).
    """
    quiet_gradio_queue_warnings()
    # Without show_error, a call Gradio refuses before the app sees it (a file path it will not read, a value
    # that is not a file) answers an API client {"error": null}; with it, the reason. The app's own handlers
    # answer every expected problem in their outputs, and the page holds no secret a message could reveal.
    launch_options.setdefault("show_error", True)
    running = None
    if worker:
        running = board.make_worker(evaluator, heartbeat_s=heartbeat_s, stale_after_s=stale_after_s)
        running.start(poll_s=poll_s)
    app = build_app(board)
    app.queue(default_concurrency_limit=concurrency)
    try:
        app.launch(server_name=host, server_port=port, **launch_options)
    except BaseException:
        if running is not None:
            running.stop(timeout=0)
        raise
    return Served(app, running)
