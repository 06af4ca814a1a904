"""The resumable generation runner: resume (also after a crash that cut a line short, and after SIGKILL part-way
through a real run against a local server), the failures file and --retry-failed, --limit, --dry-run, bad input, and
its files kept where the user finds them (deleted or replaced mid-run, a full disk)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sciwrite.generation.run_files import WriteFailedError
from sciwrite.generation.runner import (
    Generated,
    dry_run,
    failures_path_for,
    prompt_text,
    run_generation,
    written_paper_ids,
)
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings
from tests.fakes.openai_server import Reply, chat_server
from tests.generation.full_disk import fill_disk

REPO = Path(__file__).resolve().parents[2]
FIELDS = {"paper_id", "pred", "desc", "model", "method", "seed"}


class FakeBackend:
    """An in-process model: answers 'summary of <prompt>'; `fail` holds texts whose request fails."""

    model = "fake:model"

    def __init__(self, fail: set[str] | None = None, empty: set[str] | None = None) -> None:
        self.fail = fail or set()
        self.empty = empty or set()
        self.prompts: list[str] = []
        self.closed = False

    async def complete(self, messages, settings: GenerationSettings) -> Completion:
        text = messages[-1]["content"]
        self.prompts.append(text)
        await asyncio.sleep(0)
        if any(key in text for key in self.fail):
            raise GenerationError("HTTP 500: server down after 6 attempts", attempts=6, status=500)
        if any(key in text for key in self.empty):
            raise GenerationError("fake:model: the model answered with nothing (finish_reason=stop)")
        return Completion(f"summary of {text}", self.model, prompt_tokens=10, completion_tokens=3)

    async def aclose(self) -> None:
        self.closed = True


class OneShot:
    name = "one-shot"

    def prompt(self, record):
        return [{"role": "system", "content": "You write related-work sections."},
                {"role": "user", "content": f"Write about {record['title']}."}]

    async def run(self, record, llm) -> Generated:
        if not record.get("title"):
            raise ValueError(f"paper {record['paper_id']} has no title")
        messages = self.prompt(record)
        return Generated(await llm(messages), prompt_text(messages), {"label": "x"})


def papers(n: int) -> list[dict]:
    return [{"paper_id": f"p{i:02d}", "title": f"paper {i}", "extra": [i]} for i in range(n)]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(records, backend, out, **kwargs):
    kwargs.setdefault("settings", GenerationSettings(concurrency=4))
    return run_generation(records, OneShot(), backend, out, show_progress=False, **kwargs)


def test_every_line_has_the_fields_and_meta(tmp_path):
    out = tmp_path / "out.jsonl"
    backend = FakeBackend()
    report = run(papers(5), backend, out, meta={"retriever": "bm25"})
    rows = read(out)
    assert report.n_written == 5 and len(rows) == 5 and backend.closed
    assert {r["paper_id"] for r in rows} == {f"p{i:02d}" for i in range(5)}
    for row in rows:
        assert FIELDS <= row.keys()
        assert (row["model"], row["method"], row["seed"], row["retriever"], row["label"]) == (
            "fake:model", "one-shot", 42, "bm25", "x")
        n = int(row["paper_id"][1:])
        assert row["desc"] == f"[system]\nYou write related-work sections.\n\n[user]\nWrite about paper {n}."
        assert row["pred"] == f"summary of Write about paper {n}."
        assert row["usage"] == {"requests": 1, "prompt_tokens": 10, "completion_tokens": 3, "reasoning_tokens": 0,
                                "cost_usd": None}
    assert (report.prompt_tokens, report.completion_tokens) == (50, 15)
    assert not report.failures_path.exists()


def test_resume_skips_written_papers_and_drops_a_cut_line(tmp_path):
    out = tmp_path / "out.jsonl"
    run(papers(3), FakeBackend(), out)
    # a crash cut the next line short
    with out.open("a", encoding="utf-8") as f:
        f.write('{"paper_id": "p03", "pred": "half a li')
    backend = FakeBackend()
    report = run(papers(6), backend, out)
    assert report.n_already_done == 3 and report.n_written == 3
    assert sorted(backend.prompts) == [f"Write about paper {i}." for i in (3, 4, 5)]
    rows = read(out)  # every line parses
    assert sorted(r["paper_id"] for r in rows) == [f"p{i:02d}" for i in range(6)]
    # nothing left to do
    again = FakeBackend()
    report = run(papers(6), again, out)
    assert report.n_written == 0 and report.n_already_done == 6 and again.prompts == []


def test_failures_file_and_retry_failed(tmp_path):
    out = tmp_path / "out.jsonl"
    records = papers(6)
    records[4]["title"] = ""  # the method raises ValueError on it
    report = run(records, FakeBackend(fail={"paper 1.", "paper 3."}), out)
    assert (report.n_written, report.n_failed) == (3, 3)
    assert report.failures_path == failures_path_for(out) == tmp_path / "failed_samples_out.jsonl"
    failures = {f["paper_id"]: f for f in read(report.failures_path)}
    assert set(failures) == {"p01", "p03", "p04"}
    assert failures["p01"]["record"] == records[1]  # the original record, whole
    assert failures["p01"]["error"] == "GenerationError: HTTP 500: server down after 6 attempts"
    assert failures["p01"]["attempts"] == 6 and failures["p01"]["model"] == "fake:model"
    assert failures["p04"]["error"] == "ValueError: paper p04 has no title" and failures["p04"]["record"] == records[4]
    assert {r["paper_id"] for r in read(out)} == {"p00", "p02", "p05"}

    # --retry-failed reruns only those: p03 still fails, p01 now works, p04's record is still bad
    backend = FakeBackend(fail={"paper 3."})
    report = run(records, backend, out, retry_failed=True)
    assert sorted(backend.prompts) == ["Write about paper 1.", "Write about paper 3."]
    assert (report.n_papers, report.n_written, report.n_failed) == (3, 1, 2)
    assert {f["paper_id"] for f in read(report.failures_path)} == {"p03", "p04"}  # one record each
    assert len(read(report.failures_path)) == 2

    records[4]["title"] = "paper 4"  # fixed in the split; a plain resume picks it up, and p03 again
    report = run(records, FakeBackend(), out)
    assert (report.n_written, report.n_failed) == (2, 0) and not report.failures_path.exists()
    rows = read(out)
    assert sorted(r["paper_id"] for r in rows) == [f"p{i:02d}" for i in range(6)]
    # nothing more to retry
    report = run(records, FakeBackend(), out, retry_failed=True)
    assert report.n_papers == 0 and report.n_written == 0


def test_retry_failed_keeps_failures_when_killed(tmp_path):
    """A --retry-failed run that dies before finishing leaves the failures in their file."""
    out = tmp_path / "out.jsonl"
    run(papers(3), FakeBackend(fail={"paper 1."}), out)

    class Interrupting(FakeBackend):
        async def complete(self, messages, settings):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(papers(3), Interrupting(), out, retry_failed=True)
    assert [f["paper_id"] for f in read(failures_path_for(out))] == ["p01"]


def test_empty_answer_is_a_recorded_failure(tmp_path):
    out = tmp_path / "out.jsonl"
    report = run(papers(3), FakeBackend(empty={"paper 2."}), out)
    assert report.n_failed == 1
    (failure,) = read(report.failures_path)
    assert failure["paper_id"] == "p02" and "answered with nothing" in failure["error"]


def test_extra_fields_never_replace_core_ones_and_unserialisable_output_fails(tmp_path):
    class Odd(OneShot):
        async def run(self, record, llm):
            if record["paper_id"] == "p01":
                return Generated("text", "prompt", {"bad": object()})
            return Generated("real text", "real prompt", {"pred": "spoofed", "paper_id": "other"})

    report = run_generation(papers(2), Odd(), FakeBackend(), tmp_path / "o.jsonl", show_progress=False)
    (row,) = read(tmp_path / "o.jsonl")
    assert (row["paper_id"], row["pred"], row["desc"]) == ("p00", "real text", "real prompt")
    assert report.n_failed == 1 and read(report.failures_path)[0]["paper_id"] == "p01"


def test_limit(tmp_path):
    out = tmp_path / "out.jsonl"
    backend = FakeBackend()
    report = run(papers(10), backend, out, limit=4)
    assert report.n_papers == 4 and sorted(r["paper_id"] for r in read(out)) == ["p00", "p01", "p02", "p03"]
    assert len(backend.prompts) == 4
    report = run(papers(10), FakeBackend(), out, limit=6)
    assert (report.n_already_done, report.n_written) == (4, 2)
    with pytest.raises(ValueError, match="--limit must be >= 1"):
        run(papers(3), FakeBackend(), out, limit=0)


def test_dry_run_gives_exact_prompts_and_calls_nothing():
    class Boom(OneShot):
        async def run(self, record, llm):
            raise AssertionError("dry run must not run the method")

    prompts = dry_run(papers(5), Boom(), limit=2)
    assert prompts == [(f"p0{i}", f"[system]\nYou write related-work sections.\n\n[user]\nWrite about paper {i}.")
                       for i in range(2)]
    assert len(dry_run(papers(5), Boom())) == 1

    class UserOnly(OneShot):
        def prompt(self, record):
            return [{"role": "user", "content": f"Exactly this for {record['paper_id']}."}]

    assert dry_run(papers(1), UserOnly()) == [("p00", "Exactly this for p00.")]
    with pytest.raises(ValueError, match="no papers"):
        dry_run([], UserOnly())


@pytest.mark.parametrize(("records", "message"), [
    ([], "the split has no papers"),
    ([{"paper_id": "a"}, {"paper_id": "b"}, {"paper_id": "a"}], "paper_id 'a' appears twice"),
    ([{"title": "no id"}], "'paper_id' must be a non-empty string"),
    ([{"paper_id": 7}], "'paper_id' must be a non-empty string"),
])
def test_bad_splits(tmp_path, records, message):
    with pytest.raises(ValueError, match=message):
        run(records, FakeBackend(), tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_method_without_model_fails_per_paper(tmp_path):
    report = run(papers(2), None, tmp_path / "out.jsonl")
    assert report.n_failed == 2
    assert all("needs a language model" in f["error"] and f["model"] == "extractive"
               for f in read(report.failures_path))


def test_corrupt_middle_line_stops_resume(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"paper_id": "p00", "pred": "x"}\nnot json\n{"paper_id": "p01", "pred": "y"}\n')
    with pytest.raises(ValueError, match=r"out\.jsonl:2: not valid JSON"):
        written_paper_ids(out)


# ------------------------------------------------------------------------------- files that move, a disk that fills


class Meddling(OneShot):
    """OneShot that does something to the run's files (`act`) as it starts paper `at`."""

    def __init__(self, at: str, act) -> None:
        self.at, self.act = at, act

    async def run(self, record, llm) -> Generated:
        if record["paper_id"] == self.at:
            self.act()
        return await super().run(record, llm)


def run_meddling(records, out, at, act):
    return run_generation(records, Meddling(at, act), FakeBackend(), out, show_progress=False,
                          settings=GenerationSettings(concurrency=1))


def test_an_output_deleted_mid_run_is_written_again_with_every_line(tmp_path):
    out = tmp_path / "out.jsonl"
    run(papers(2), FakeBackend(), out)
    report = run_meddling(papers(5), out, "p03", out.unlink)
    # the earlier run's papers and this run's, the ones written before the deletion too: all where they belong
    assert sorted(r["paper_id"] for r in read(out)) == [f"p{i:02d}" for i in range(5)]
    assert (report.n_written, report.n_failed, report.stopped) == (3, 0, None)
    assert report.file_events == [f"{out} was deleted mid-run: its 3 lines were written there again"]
    assert "file_events" in json.loads(report.meta_path.read_text())["report"]
    assert run(papers(5), FakeBackend(), out).n_written == 0  # nothing left to do


def test_a_failures_file_deleted_mid_run_keeps_its_records(tmp_path):
    out = tmp_path / "out.jsonl"
    report = run_meddling(papers(4), out, "p02", failures_path_for(out).unlink)
    assert report.n_failed == 0  # nothing failed: the empty file's deletion changes nothing
    records = papers(4)
    records[0]["title"] = records[3]["title"] = ""  # both fail; the file is deleted between them
    out.unlink()
    report = run_meddling(records, out, "p02", failures_path_for(out).unlink)
    assert [f["paper_id"] for f in read(failures_path_for(out))] == ["p00", "p03"]
    assert report.n_failed == 2 and len(report.file_events) == 1


def test_an_output_replaced_mid_run_stops_and_keeps_this_runs_papers_in_the_failures_file(tmp_path):
    out = tmp_path / "out.jsonl"
    run(papers(2), FakeBackend(), out)
    kept = out.read_text().splitlines(keepends=True)[0]

    def replace():  # as `sed -i` or an editor saves: a new file at the path, here holding p00 only
        replacement = tmp_path / "new.jsonl"
        replacement.write_text(kept)
        os.replace(replacement, out)

    report = run_meddling(papers(6), out, "p03", replace)
    assert out.read_text() == kept  # never appended to: it is not the run's file
    assert report.stopped == "output_replaced" and f"{out} was replaced by another file mid-run" in report.stop_detail
    # p02 was written to the file that was replaced, p03 was in flight, p04 and p05 were not started
    assert (report.n_written, report.n_failed, report.n_not_started) == (0, 2, 2)
    failures = {f["paper_id"]: f for f in read(failures_path_for(out))}
    assert sorted(failures) == ["p02", "p03"]
    assert failures["p02"]["prediction"]["pred"] == "summary of Write about paper 2."
    assert failures["p03"]["record"] == papers(6)[3] and "replaced by another file" in failures["p03"]["error"]
    # a plain rerun resumes every paper the file does not hold
    report = run(papers(6), FakeBackend(), out)
    assert (report.n_already_done, report.n_written) == (1, 5) and not failures_path_for(out).exists()


def test_a_full_disk_names_the_file_and_the_paper_and_keeps_what_was_written(tmp_path, monkeypatch):
    out = tmp_path / "out.jsonl"
    fill_disk(monkeypatch, out, writes=2)
    with pytest.raises(WriteFailedError) as caught:
        run(papers(5), FakeBackend(), out, settings=GenerationSettings(concurrency=1))
    message = str(caught.value)
    assert message.startswith(f"{out}: no space left on device while writing paper 'p02'; free some disk space")
    assert "rerun the same command" in message and "\n" not in message
    monkeypatch.undo()
    assert [r["paper_id"] for r in read(out)] == ["p00", "p01"]  # kept
    report = run(papers(5), FakeBackend(), out)
    assert (report.n_already_done, report.n_written) == (2, 3)


def test_a_full_disk_at_the_end_of_a_run_is_not_hidden_by_the_files_written_after(tmp_path, monkeypatch):
    out, meta = tmp_path / "out.jsonl", tmp_path / "out.meta.json"
    fill_disk(monkeypatch, tmp_path / "out.meta.json.tmp")  # the metadata, written last, finds the disk full
    with pytest.raises(WriteFailedError, match=r"out\.meta\.json: no space left on device; free some disk space"):
        run(papers(2), FakeBackend(), out)
    assert not (tmp_path / "out.meta.json.tmp").exists() and len(read(out)) == 2
    fill_disk(monkeypatch, out, writes=1)  # now the output fills up too, before the metadata is written
    with pytest.raises(WriteFailedError, match="while writing paper 'p03'"):  # not the metadata's error after it
        run(papers(5), FakeBackend(), out, settings=GenerationSettings(concurrency=1))
    assert not meta.exists()


# ------------------------------------------------------------------------------------------------ kill and resume

CHILD = textwrap.dedent("""
    import json, sys
    from sciwrite.llm.backends import make_backend
    from sciwrite.llm.types import GenerationSettings
    from sciwrite.generation.runner import Generated, prompt_text, run_generation

    class OneShot:
        name = "one-shot"
        def prompt(self, record):
            return [{"role": "user", "content": f"Write about {record['title']}."}]
        async def run(self, record, llm):
            messages = self.prompt(record)
            return Generated(await llm(messages), prompt_text(messages))

    base_url, out, model = sys.argv[1], sys.argv[2], sys.argv[3]
    records = [{"paper_id": f"p{i:02d}", "title": f"paper {i}"} for i in range(40)]
    report = run_generation(records, OneShot(), make_backend(model, base_url=base_url), out,
                            settings=GenerationSettings(concurrency=4), show_progress=False)
    print(json.dumps(report.as_dict()))
""")


def test_sigkill_part_way_then_resume_loses_and_repeats_nothing(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = tmp_path / "run" / "out.jsonl"
    env = {**os.environ, "SCIWRITE_LLM_API_KEY": "sk-local", "PYTHONPATH": str(REPO / "src")}

    def answer(request):
        return Reply("text for " + request["messages"][0]["content"], delay=0.15)

    with chat_server(answer) as server:
        child = subprocess.Popen([sys.executable, str(script), server.base_url, str(out), "first-run"], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= 10:
                break
            if child.poll() is not None:
                pytest.fail(f"the run ended before it was killed: {child.stderr.read().decode()[-2000:]}")
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        killed_at = out.read_bytes().count(b"\n")
        assert 10 <= killed_at < 40, "kill the run part-way"
        written_before = {row["paper_id"] for row in read(out)}

        second = subprocess.run([sys.executable, str(script), server.base_url, str(out), "rerun"], env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert second.returncode == 0, second.stderr[-2000:]
        report = json.loads(second.stdout.strip().splitlines()[-1])
    ids = [row["paper_id"] for row in read(out)]
    assert sorted(ids) == [f"p{i:02d}" for i in range(40)]  # every paper exactly once
    assert report["n_already_done"] == killed_at and report["n_written"] == 40 - killed_at
    # the rerun asked once for each paper that was not written, and for none that was (the model name tells the
    # runs apart: a request the killed run sent just before the kill may reach the server after it, or be cut off
    # part-way, its body unreadable)
    asked_again = sorted(request["messages"][0]["content"] for request in server.requests
                         if request.get("model") == "rerun")
    assert asked_again == sorted(f"Write about paper {int(pid[1:])}." for pid in
                                 {f"p{i:02d}" for i in range(40)} - written_before)
    assert not failures_path_for(out).exists()
