"""The annotation app: a Gradio page where an annotator signs in with the token an organiser issued and answers
their tasks, every answer written to the store (`sciwrite.human_eval.store`) the moment it is given.

What an annotator sees of a task: the target paper's title and abstract, the text(s) to judge ("Section A" and
"Section B" side by side, or the one text), and one control per dimension with its question: A / B / tie, or 1-5
stars and a comment. Every text is shown in a text box, as text (never as HTML), and the app never reads the key:
nothing on the page can name a system. Each annotator gets every task in an order seeded by the study's seed and
their name; signing in again (after a reload, a restart) shows their answers and resumes at the first task they
have not finished.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from sciwrite.human_eval.store import AnswerStore, study_store
from sciwrite.human_eval.study import PAIRWISE
from sciwrite.human_eval.tasks import read_task_folder
from sciwrite.human_eval.view import (
    ABSTRACT_LABEL,
    COMMENT_LABEL,
    TITLE_LABEL,
    answer_options,
    judged_texts,
    question_label,
    section_label,
    text_label,
)


def task_order(task_ids: Sequence[str], seed: int, annotator: str) -> list[str]:
    """An annotator's tasks in their own seeded order."""
    order = list(task_ids)
    random.Random(f"{seed}:{annotator}").shuffle(order)
    return order


class AnnotationSession:
    """What the page's handlers need: the tasks by id, the study, the store and each annotator's order."""

    def __init__(self, tasks: Sequence[Mapping[str, Any]], study: Mapping[str, Any], store: AnswerStore):
        self.tasks = {t["task_id"]: t for t in tasks}
        self.study, self.store = study, store
        self.pairwise = study["design"] == PAIRWISE
        self.dimensions = [d["key"] for d in study["dimensions"]]
        self.seed = int(study.get("seed") or 0)

    def order(self, annotator: str) -> list[str]:
        return task_order(list(self.tasks), self.seed, annotator)

    def progress(self, annotator: str, position: int) -> str:
        done, n = len(self.store.done_tasks(annotator) & set(self.tasks)), len(self.tasks)
        return f"{annotator}: {done}/{n} tasks answered on every question; this is task {position + 1} of {n}"

    def first_open(self, annotator: str) -> int:
        """The position of the first task the annotator has not finished (the last one when all are)."""
        done = self.store.done_tasks(annotator)
        order = self.order(annotator)
        return next((i for i, task in enumerate(order) if task not in done), len(order) - 1)

    def view(self, annotator: str, position: int) -> list[Any]:
        """The page's values for the task at `position` of the annotator's order: progress, title, abstract, the
        text(s), then each dimension's stored answer (and comment)."""
        task = self.tasks[self.order(annotator)[position]]
        given = {a["dimension"]: a for a in self.store.answers(annotator) if a["task_id"] == task["task_id"]}
        texts = [text for _, text in judged_texts(task, self.study)]
        answers: list[Any] = []
        for dimension in self.dimensions:
            answer = given.get(dimension) or {}
            if self.pairwise:
                answers.append(answer.get("choice"))
            else:
                answers += [str(answer["rating"]) if answer.get("rating") else None, answer.get("comment", "")]
        return [self.progress(annotator, position), task.get("title", ""), task.get("abstract", ""), *texts, *answers]

    def task_id(self, annotator: str, position: int) -> str:
        return self.order(annotator)[position]


def build_annotation_app(session: AnnotationSession) -> gr.Blocks:
    """The page (see the module docstring)."""
    with gr.Blocks(title="sciwrite human evaluation") as app:
        annotation_ui(session)
    return app


def annotation_ui(session: AnnotationSession) -> None:
    """The page's components and handlers, inside the Blocks (or tab: the leaderboard's) being built."""
    study = session.study
    annotator = gr.State("")
    position = gr.State(0)
    gr.Markdown(f"## Human evaluation: {study['benchmark']}\nSign in with the token you were given. Every answer "
                "is saved the moment you give it; you can leave and come back.")
    with gr.Row():
        token = gr.Textbox(label="Your token", type="password", elem_id="he-token", scale=3)
        sign_in = gr.Button("Sign in", elem_id="he-sign-in", scale=1)
    progress = gr.Textbox(label="Progress", interactive=False, elem_id="he-progress")
    title = gr.Textbox(label=TITLE_LABEL, interactive=False, elem_id="he-title")
    abstract = gr.Textbox(label=ABSTRACT_LABEL, interactive=False, lines=4, elem_id="he-abstract")
    if session.pairwise:
        with gr.Row():
            texts = [gr.Textbox(label=section_label(side), interactive=False, lines=18,
                                elem_id=f"he-section-{side.lower()}") for side in "AB"]
    else:
        texts = [gr.Textbox(label=text_label(study), interactive=False,
                            lines=18, elem_id="he-text")]
    controls: list[Any] = []
    for dimension in study["dimensions"]:
        label = question_label(dimension, study["design"])
        if session.pairwise:
            controls.append(gr.Radio(answer_options(study["design"]), label=label, elem_id=f"he-{dimension['key']}"))
        else:
            controls.append(gr.Radio(answer_options(study["design"]), label=label,
                                     elem_id=f"he-{dimension['key']}"))
            controls.append(gr.Textbox(label=COMMENT_LABEL, elem_id=f"he-{dimension['key']}-comment"))
    with gr.Row():
        previous = gr.Button("Previous", elem_id="he-previous")
        following = gr.Button("Next", elem_id="he-next")
    shown = [progress, title, abstract, *texts, *controls]

    def enter(given: str):
        name = session.store.annotator(given or "")
        if name is None:
            raise gr.Error("unknown token: ask the study's organiser for yours")
        at = session.first_open(name)
        return [name, at, *session.view(name, at)]

    def move(name: str, at: int, step: int):
        if not name:
            raise gr.Error("sign in first")
        at = min(max(at + step, 0), len(session.tasks) - 1)
        return [at, *session.view(name, at)]

    sign_in.click(enter, token, [annotator, position, *shown], api_visibility="private")
    token.submit(enter, token, [annotator, position, *shown], api_visibility="private")
    previous.click(lambda name, at: move(name, at, -1), [annotator, position], [position, *shown],
                   api_visibility="private")
    following.click(lambda name, at: move(name, at, 1), [annotator, position], [position, *shown],
                    api_visibility="private")
    step = 1 if session.pairwise else 2
    for i, dimension in enumerate(session.dimensions):
        answer = controls[i * step]
        comment = controls[i * step + 1] if not session.pairwise else None

        def save(name: str, at: int, value: Any, note: str = "", dimension: str = dimension) -> str:
            if not name:
                raise gr.Error("sign in first")
            if value is None:
                return session.progress(name, at)
            task = session.task_id(name, at)
            try:
                if session.pairwise:
                    session.store.record(name, task, dimension, choice=value)
                else:
                    session.store.record(name, task, dimension, rating=int(value), comment=note or "")
            except ValueError as err:
                raise gr.Error(str(err)) from None
            return session.progress(name, at)

        inputs = [annotator, position, answer, *([comment] if comment is not None else [])]
        answer.input(save, inputs, progress, api_visibility="private")
        if comment is not None:
            comment.blur(save, inputs, progress, api_visibility="private")


def folder_session(tasks_dir: str | Path, store_path: str | Path) -> AnnotationSession:
    """The session of a task folder's study, its answers in the SQLite file at `store_path`; the key is never
    read, so no page can name a system."""
    tasks, _, study = read_task_folder(tasks_dir, with_key=False)
    return AnnotationSession(tasks, study, study_store(store_path, study, tasks))


def serve_annotation(session: AnnotationSession, host: str = "127.0.0.1", port: int | None = None,
                     **launch_options: Any) -> gr.Blocks:
    """Serve a study's page (`folder_session`); `launch_options` go to `gr.Blocks.launch`
    (``prevent_thread_lock=True`` returns while the server runs)."""
    app = build_annotation_app(session)
    app.queue(default_concurrency_limit=8)
    app.launch(server_name=host, server_port=port, **launch_options)
    return app


__all__ = ["AnnotationSession", "annotation_ui", "build_annotation_app", "folder_session", "serve_annotation",
           "task_order"]
