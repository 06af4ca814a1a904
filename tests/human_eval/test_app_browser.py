"""The annotation app in a real browser (headless Chromium through Playwright): an annotator signs in, answers three
tasks and reloads the page (the answers are there, progress says 3); the server is killed and restarted and the
export holds every answer; no page shows a system name; a section holding ``<script>`` shows it as text; two
annotators answering at once both keep their answers. Skips, saying why, without Playwright or Chromium.

The page of an answered task, after the reload, is the documentation's picture of the annotation app
(docs/images/annotation.png through `tests.screenshots`, rewritten only when the page looks different)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from sciwrite.human_eval.app import folder_session, serve_annotation, task_order
from sciwrite.human_eval.store import AnswerStore
from tests.leaderboard.test_browser import CHROMIUM, CHROMIUM_ARGS, SKIP_REASON
from tests.screenshots import save_doc_picture

pytestmark = [pytest.mark.skipif(bool(SKIP_REASON), reason=SKIP_REASON), pytest.mark.slow]
WAIT_MS = 60_000
SYSTEMS = ("alpha-system", "beta-system")
SCRIPT = "<script>alert(7)</script>"
DIMENSIONS = [{"key": "writing_quality", "name": "Writing quality", "question": "Which section is better written?"},
              {"key": "scholarly_positioning", "name": "Scholarly positioning",
               "question": "Which section better places the paper among earlier work?"}]


#: The study's papers (title, abstract, then the two related-work sections judged side by side), written for the test:
#: the docs' picture shows one of them.
PAPERS = [
    ("Cross-lingual Transfer for Citation Intent Classification",
     "We classify why a paper cites another in languages without labelled data, by transferring a classifier "
     "trained on English citation contexts through multilingual encoders.",
     "Citation intent has been labelled for English computer science and biomedical papers [1, 2]. Multilingual "
     "encoders transfer many classification tasks across languages [3], but citation contexts have not been tried.",
     "Earlier work labels citation intent in English only [1]. We are the first to study other languages."),
    ("Retrieval-augmented Related-Work Generation with Citation Graphs",
     "We generate related-work sections from the papers a draft cites and from their neighbours in the citation "
     "graph, and measure which citations a reader would add.",
     "Related-work generation started as multi-document summarisation of the cited abstracts [1]. Later systems "
     "condition a language model on the citing paper and retrieve passages from the cited ones [2, 3].",
     "Summarisation of cited papers [1] and retrieval-augmented generation [2] both produce related work."),
    ("Measuring Faithfulness of Generated Scientific Introductions",
     "We ask whether the claims an introduction makes about cited work are supported by those papers, and "
     "annotate 400 claims from generated and human introductions.",
     "Faithfulness of generated text has been measured with entailment models [1] and question answering [2]. "
     "For scientific text, claim verification data sets pair claims with evidence abstracts [3].",
     "Entailment [1] and question answering [2] measure faithfulness. Scientific claims are verified in [3]."),
    ("Shallow Features for Biomedical Relation Extraction",
     "We extract protein interactions from sentences with kernels over shallow linguistic features only: words, "
     "their parts of speech and their lemmas, without parsing.",
     "Two lines of work extract biomedical relations. Systems trained on annotated corpora such as AImed set the "
     "first strong results [1], and kernel methods combine several sources of evidence, from word sequences to "
     "dependency paths [2, 3]. Parsers trained on newswire make errors on biomedical text, which these kernels "
     "inherit [4].\n\nOur kernels use no parser: the words around the two entities and their parts of speech are "
     "enough to match systems that parse, as our experiments on two corpora show.",
     "Relation extraction from biomedical literature has used annotated corpora [1] and kernels [2, 3].\n\n"
     "Unlike these methods, we rely on shallow features only."),
]
#: The task whose section A holds a script: the first one ada is shown (her seeded order starts with it).
SCRIPTED = task_order([f"t{i}" for i in range(4)], 1, "ada")[0]


def task_folder(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    tasks = [{"task_id": f"t{i}", "paper_id": f"p{i}", "title": title, "abstract": abstract,
              "section_a": f"{SCRIPT} {a}" if f"t{i}" == SCRIPTED else a, "section_b": b}
             for i, (title, abstract, a, b) in enumerate(PAPERS)]
    (folder / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    (folder / "study.json").write_text(json.dumps({"benchmark": "rwgbench", "design": "pairwise", "seed": 1,
                                                   "dimensions": DIMENSIONS, "text_label": "related-work section"}))
    # the key stays with the organiser, outside the folder the server reads
    (tmp_path / "key.jsonl").write_text("".join(json.dumps({"task_id": t["task_id"], "system_a": SYSTEMS[0],
                                                            "system_b": SYSTEMS[1]}) + "\n" for t in tasks))
    return folder


def serve(folder, db, port):
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen([sys.executable, "-m", "sciwrite.cli", "human-eval", "serve", "--tasks", str(folder),
                                "--store", str(db), "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise AssertionError("the annotation server did not start")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sign_in(page, url, token, expect):
    page.goto(url, wait_until="domcontentloaded")
    page.locator("#he-token input").fill(token)
    page.locator("#he-sign-in").click()
    expect(page.locator("#he-progress textarea")).to_have_value(re.compile(r"tasks answered"), timeout=WAIT_MS)


def answer(page, choice, expect, done):
    """Answer the task shown (the `done`-th) on every dimension, see it counted, and move on: the next task is on
    the page before anything is clicked again (a click before that belongs to the task still shown)."""
    progress = page.locator("#he-progress textarea")
    expect(progress).to_have_value(re.compile(rf"this is task {done} of 4$"), timeout=WAIT_MS)
    for dimension in DIMENSIONS:
        page.locator(f"#he-{dimension['key']}").get_by_text(choice, exact=True).click()
    expect(progress).to_have_value(re.compile(rf": {done}/4 tasks"), timeout=WAIT_MS)
    page.locator("#he-next").click()
    expect(progress).to_have_value(re.compile(rf"this is task {done + 1} of 4$"), timeout=WAIT_MS)


def test_annotators_answer_reload_and_survive_a_killed_server(tmp_path, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")  # the restart runs in this process

    folder, db = task_folder(tmp_path), tmp_path / "answers.sqlite"
    store = AnswerStore(db, "pairwise", [f"t{i}" for i in range(4)], [d["key"] for d in DIMENSIONS])
    ada, bob = store.add_annotator("ada"), store.add_annotator("bob")
    port = free_port()
    server = serve(folder, db, port)
    url = f"http://127.0.0.1:{port}/"
    dialogs: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            try:
                first, second = (browser.new_page(viewport={"width": 1280, "height": 800}) for _ in range(2))
                for page in (first, second):
                    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
                sign_in(first, url, ada, expect)
                sign_in(second, url, bob, expect)
                section = first.locator("#he-section-a textarea")
                expect(section).to_have_value(re.compile(re.escape(SCRIPT)))  # shown as text
                for done in (1, 2, 3):  # the two annotators answer at the same time, a task each in turn
                    answer(first, "A", expect, done)
                    answer(second, "B", expect, done)
                for page in (first, second):
                    assert not any(name in page.content() for name in SYSTEMS)
                    assert page.locator("script", has_text="alert(7)").count() == 0
                first.reload()
                sign_in(first, url, ada, expect)
                expect(first.locator("#he-progress textarea")).to_have_value(
                    re.compile(r"^ada: 3/4 tasks answered on every question; this is task 4 of 4"))
                first.locator("#he-previous").click()  # the third task, answered before the reload
                expect(first.locator("#he-writing_quality input[value='A']")).to_be_checked(timeout=WAIT_MS)
                expect(first.locator("#he-scholarly_positioning input[value='A']")).to_be_checked()
                expect(first.locator("#he-progress textarea")).to_have_value(re.compile(r"this is task 3 of 4$"))
                save_doc_picture(first, "annotation", full_page=True)
            finally:
                browser.close()
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # no clean shutdown
        server.wait(30)
    # restarted (here, in this process: one server start-up less) on the same store, which the export then reads
    restarted = serve_annotation(folder_session(folder, db), port=port, prevent_thread_lock=True, quiet=True)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert page.status == 200
        votes = tmp_path / "votes.jsonl"
        AnswerStore(db, "pairwise", [f"t{i}" for i in range(4)], [d["key"] for d in DIMENSIONS]).export(votes)
    finally:
        restarted.close()
    exported = [json.loads(line) for line in votes.read_text().splitlines()]
    by_annotator = {name: [a for a in exported if a["annotator"] == name] for name in ("ada", "bob")}
    assert len(by_annotator["ada"]) == len(by_annotator["bob"]) == 3 * len(DIMENSIONS)
    assert {a["choice"] for a in by_annotator["ada"]} == {"A"} and {a["choice"] for a in by_annotator["bob"]} == {"B"}
    assert dialogs == []
