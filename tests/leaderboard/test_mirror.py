"""The Hub mirror against a stub Hub (a folder per repo): what sync uploads and deletes, what restore brings back,
and that a Hub error loses nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError

from sciwrite.core.costs import COST_COLUMNS, GENERATOR, JUDGE, UNKNOWN, LedgerFile, RunCost
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.leaderboard import mirror as mirror_module
from sciwrite.leaderboard.mirror import HubMirror, mirror_from_env
from sciwrite.leaderboard.store import FINISHED, PENDING, RUNNING, ResultsStore
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows

REQ, RES = "org/sciwrite-requests", "org/sciwrite-results"
TOKEN = "hf_SecretTokenThatMustNeverLeak1234567890"


class StubHub:
    """A Hub client writing each dataset repo under `root/<repo_id>/`; records every call."""

    def __init__(self, root: Path):
        self.root = root
        self.created: list[tuple[str, dict]] = []
        self.commits: list[dict] = []
        self.fail_commits = 0  # the next N create_commit calls raise

    def repo(self, repo_id: str) -> Path:
        return self.root / repo_id

    def create_repo(self, repo_id: str, *, repo_type: str | None = None, exist_ok: bool = False,
                    private: bool | None = None, token: str | None = None) -> None:
        assert repo_type == "dataset"
        self.created.append((repo_id, {"exist_ok": exist_ok, "private": private, "token": token}))
        if self.repo(repo_id).exists() and not exist_ok:
            raise RuntimeError(f"{repo_id} exists")
        self.repo(repo_id).mkdir(parents=True, exist_ok=True)

    def create_commit(self, repo_id: str, operations, *, commit_message: str, repo_type: str | None = None,
                      token: str | None = None) -> None:
        assert repo_type == "dataset"
        if self.fail_commits:
            self.fail_commits -= 1
            raise OSError(f"503 Service Unavailable for {repo_id}")
        folder = self.repo(repo_id)
        if not folder.is_dir():
            raise RepositoryNotFoundError(f"{repo_id} not found", response=SimpleNamespace(headers={}, request=None))
        operations = list(operations)
        for op in operations:  # all or nothing, like the Hub
            if isinstance(op, CommitOperationDelete) and not (folder / op.path_in_repo).is_file():
                raise EntryNotFoundError(f"{op.path_in_repo} not in {repo_id}")
        for op in operations:
            target = folder / op.path_in_repo
            if isinstance(op, CommitOperationAdd):
                assert isinstance(op.path_or_fileobj, bytes)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(op.path_or_fileobj)
            else:
                target.unlink()
        self.commits.append({"repo": repo_id, "message": commit_message, "token": token,
                             "adds": sorted(op.path_in_repo for op in operations
                                            if isinstance(op, CommitOperationAdd)),
                             "deletes": sorted(op.path_in_repo for op in operations
                                               if isinstance(op, CommitOperationDelete))})

    def list_repo_files(self, repo_id: str, *, repo_type: str | None = None, token: str | None = None) -> list[str]:
        assert repo_type == "dataset"
        folder = self.repo(repo_id)
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())

    def files(self, repo_id: str) -> dict[str, str]:
        folder = self.repo(repo_id)
        return {str(p.relative_to(folder)): p.read_text("utf-8") for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def hub(tmp_path, monkeypatch) -> StubHub:
    stub = StubHub(tmp_path / "hub")
    calls = []

    def fake_snapshot_download(repo_id, *, repo_type=None, local_dir=None, token=None):
        assert repo_type == "dataset"
        calls.append(repo_id)
        source = stub.repo(repo_id)
        if not source.is_dir():
            raise RepositoryNotFoundError(f"{repo_id} not found", response=SimpleNamespace(headers={}, request=None))
        shutil.copytree(source, local_dir, dirs_exist_ok=True)
        return str(local_dir)

    monkeypatch.setattr(mirror_module, "snapshot_download", fake_snapshot_download)
    stub.downloads = calls
    return stub


@pytest.fixture
def mirror(hub, tmp_path) -> HubMirror:
    return HubMirror(REQ, RES, token=TOKEN, api=hub, local_dir=tmp_path / "downloads")


def _predictions(n: int, tag: str) -> str:
    return "".join(json.dumps({"paper_id": f"P{i}", "text": f"{tag} related work {i} — ünïcode"}) + "\n"
                   for i in range(n))


def _add(store: ResultsStore, tag: str, *, benchmark: str = "rwg", now: float = 1000.0, **kw):
    jsonl = _predictions(3, tag)
    return store.add_submission(benchmark=benchmark, split="test", system=f"sys-{tag}", submitter=f"user-{tag}",
                                predictions_jsonl=jsonl, sha256=hashlib.sha256(jsonl.encode()).hexdigest(),
                                n_predictions=3, now=now, model="m", url="https://example.org", **kw)


SUMMARY = {"rougeL": 0.25, "n_papers": 3, "metrics": {"bleu": 0.125}, "note": "ünïcode"}
#: The per-paper rows as ``per_paper.jsonl`` holds them ("ünïcode" kept as is), and typed.
ROWS_JSON = [{"paper_id": f"P{i}", "rougeL": i / 8, "extra": [i, "x"], "note": "ünïcode"} for i in (2, 0, 1)]
ROWS = typed_rows(ROWS_JSON)


def _score(store: ResultsStore, submission_id: str, now: float) -> None:
    claimed = store.claim_next("w1", now=now)
    assert claimed is not None and claimed.id == submission_id
    store.finish(submission_id, "w1", Summary.from_json(SUMMARY), ROWS, profile="cpu", now=now + 5)


def test_sync_uploads_pending_then_finished_with_one_commit_per_repo(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")

    report = mirror.sync(store)
    assert report == {"uploaded": 1, "deleted": 0, "errors": []}
    assert {repo for repo, _ in hub.created} == {REQ, RES}
    assert all(opts["exist_ok"] and opts["private"] for _, opts in hub.created)
    # PENDING: the request repo only, in one commit; nothing in the results repo.
    assert [c["repo"] for c in hub.commits] == [REQ]
    request, preds = f"requests/rwg/{sub.id}.json", f"requests/rwg/{sub.id}.predictions.jsonl"
    assert hub.commits[0]["adds"] == sorted([request, preds])
    files = hub.files(REQ)
    # every field but the rate limit's client (a Hub user or an address), which is not mirrored
    assert json.loads(files[request]) == {k: v for k, v in sub.to_dict().items() if k != "client"}
    assert files[preds] == store.predictions(sub.id)
    assert hub.files(RES) == {}
    assert store.unmirrored() == []

    _score(store, sub.id, now=2000.0)
    finished = store.get(sub.id)
    assert finished.status == FINISHED
    assert [s.id for s in store.unmirrored()] == [sub.id]
    report = mirror.sync(store)
    assert report == {"uploaded": 1, "deleted": 0, "errors": []}
    # One commit per repo, results first; the repos are created once only.
    assert [c["repo"] for c in hub.commits[1:]] == [RES, REQ]
    assert len(hub.created) == 2
    results = hub.files(RES)
    assert set(results) == {f"results/rwg/{sub.id}/summary.json", f"results/rwg/{sub.id}/per_paper.jsonl",
                            f"results/rwg/{sub.id}/cost.json"}
    assert json.loads(results[f"results/rwg/{sub.id}/summary.json"]) == SUMMARY
    per_paper = results[f"results/rwg/{sub.id}/per_paper.jsonl"].splitlines()
    # in paper order, as stored: the same JSON, key for key, unescaped
    assert per_paper == [json.dumps(row, ensure_ascii=False) for row in ROWS_JSON]
    assert json.loads(hub.files(REQ)[request])["status"] == FINISHED
    assert json.loads(hub.files(REQ)[request]) == {k: v for k, v in finished.to_dict().items() if k != "client"}

    # Nothing changed: nothing uploaded, no Hub call at all.
    n_commits = len(hub.commits)
    assert mirror.sync(store) == {"uploaded": 0, "deleted": 0, "errors": []}
    assert len(hub.commits) == n_commits


def test_one_batch_holds_every_change_in_one_commit_per_repo(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    a, b = _add(store, "a", now=1.0), _add(store, "b", now=2.0, benchmark="other")
    _score(store, a.id, now=3.0)
    assert mirror.sync(store)["uploaded"] == 2
    assert [c["repo"] for c in hub.commits] == [RES, REQ]
    assert len(hub.commits[1]["adds"]) == 4
    assert f"requests/other/{b.id}.json" in hub.files(REQ)


def test_restore_into_an_empty_store_gives_identical_submissions(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    done = _add(store, "done", now=10.0)
    running = _add(store, "running", now=20.0)
    pending = _add(store, "pending", now=30.0, benchmark="other")
    _score(store, done.id, now=100.0)
    assert store.claim_next("w2", now=200.0).id == running.id
    store.heartbeat(running.id, "w2", now=250.0)
    assert mirror.sync(store)["errors"] == []

    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 3, "skipped": 0}
    assert hub.downloads == [REQ, RES]
    for sub in (done, running, pending):
        original, restored = store.get(sub.id), fresh.get(sub.id)
        assert restored == original
        assert fresh.predictions(sub.id) == store.predictions(sub.id)
        assert fresh.summary(sub.id) == store.summary(sub.id)
        assert fresh.paper_rows(sub.id) == store.paper_rows(sub.id)
    assert fresh.summary(done.id).to_json() == SUMMARY and fresh.paper_rows(done.id) == ROWS
    assert [row.to_json() for row in fresh.paper_rows(done.id)] == ROWS_JSON
    assert fresh.get(running.id).status == RUNNING and fresh.get(running.id).heartbeat_at == 250.0
    assert fresh.get(pending.id).status == PENDING
    # Restored rows are marked mirrored: the next sync uploads nothing.
    assert fresh.unmirrored() == []
    n_commits = len(hub.commits)
    assert mirror.sync(fresh) == {"uploaded": 0, "deleted": 0, "errors": []}
    assert len(hub.commits) == n_commits
    # The restored RUNNING one is retried once its heartbeat is stale, with its attempts carried over.
    retried = fresh.claim_next("w3", now=250.0 + 10_000)
    assert retried.id == running.id and retried.attempts == 2

    # A second restore skips every id the store already holds.
    assert mirror.restore(fresh) == {"restored": 0, "skipped": 3}


def test_restore_skips_a_duplicate_of_local_predictions(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    mirror.sync(store)
    other = ResultsStore(tmp_path / "other.sqlite")
    local = _add(other, "a")  # the same predictions under another id
    assert local.id != sub.id
    assert mirror.restore(other) == {"restored": 0, "skipped": 1}
    with pytest.raises(KeyError):
        other.get(sub.id)


def test_deletion_is_mirrored_and_not_restored(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    keep, gone = _add(store, "keep", now=1.0), _add(store, "gone", now=2.0)
    _score(store, keep.id, now=3.0)
    assert store.claim_next("w1", now=4.0).id == gone.id
    store.finish(gone.id, "w1", Summary.from_json(SUMMARY), ROWS, now=5.0)
    mirror.sync(store)
    assert any(gone.id in path for path in hub.files(REQ))
    assert any(gone.id in path for path in hub.files(RES))

    store.delete(gone.id)
    assert mirror.sync(store) == {"uploaded": 0, "deleted": 1, "errors": []}
    assert store.unmirrored_deletions() == []
    assert hub.commits[-2]["repo"] == RES and hub.commits[-1]["repo"] == REQ
    assert not any(gone.id in path for path in [*hub.files(REQ), *hub.files(RES)])
    assert any(keep.id in path for path in hub.files(REQ))
    assert mirror.restore(store) == {"restored": 0, "skipped": 1}
    with pytest.raises(KeyError):
        store.get(gone.id)


def test_restore_does_not_bring_back_a_deletion_the_store_recorded(hub, mirror, tmp_path):
    """A deletion not yet mirrored (its files still on the Hub) must not be undone by a restore."""
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    mirror.sync(store)
    store.delete(sub.id)
    assert mirror.restore(store) == {"restored": 0, "skipped": 1}
    with pytest.raises(KeyError):
        store.get(sub.id)
    assert sub.id in store.deleted_ids()


def test_deleting_what_never_reached_the_hub_does_not_fail_the_batch(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    never, other = _add(store, "never", now=1.0), _add(store, "other", now=2.0)
    store.delete(never.id)
    report = mirror.sync(store)
    assert report == {"uploaded": 1, "deleted": 1, "errors": []}
    assert store.unmirrored_deletions() == [] and store.unmirrored() == []
    assert all(not c["deletes"] for c in hub.commits)
    assert set(hub.files(REQ)) == {f"requests/rwg/{other.id}.json", f"requests/rwg/{other.id}.predictions.jsonl"}


def test_a_failing_commit_keeps_rows_unmirrored_and_the_next_sync_succeeds(hub, mirror, tmp_path, caplog):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    _score(store, sub.id, now=2000.0)
    hub.fail_commits = 1
    with caplog.at_level("ERROR", logger="sciwrite.leaderboard.mirror"):
        report = mirror.sync(store)
    assert report["uploaded"] == 0 and report["deleted"] == 0
    assert len(report["errors"]) == 1 and RES in report["errors"][0]
    assert RES in caplog.text
    assert [s.id for s in store.unmirrored()] == [sub.id]
    assert hub.files(REQ) == {}  # the requests commit never ran after the results commit failed

    # The requests commit failing after the results one succeeded: still unmirrored.
    hub.fail_commits = 0
    original = hub.create_commit

    def fail_on_requests(repo_id, operations, **kw):
        if repo_id == REQ:
            raise OSError("connection reset")
        return original(repo_id, operations, **kw)

    hub.create_commit = fail_on_requests
    report = mirror.sync(store)
    assert report["uploaded"] == 0 and REQ in report["errors"][0]
    assert [s.id for s in store.unmirrored()] == [sub.id]

    hub.create_commit = original
    assert mirror.sync(store) == {"uploaded": 1, "deleted": 0, "errors": []}
    assert store.unmirrored() == []
    assert f"requests/rwg/{sub.id}.json" in hub.files(REQ)


def test_a_failing_deletion_stays_due(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    mirror.sync(store)
    store.delete(sub.id)
    hub.fail_commits = 1
    assert mirror.sync(store)["deleted"] == 0
    assert store.unmirrored_deletions() == [(sub.id, "rwg")]
    assert mirror.sync(store) == {"uploaded": 0, "deleted": 1, "errors": []}
    assert hub.files(REQ) == {}


def test_a_failing_create_repo_is_reported_and_retried(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    _add(store, "a")
    original = hub.create_repo
    hub.create_repo = lambda *a, **kw: (_ for _ in ()).throw(OSError("401 Unauthorized"))
    report = mirror.sync(store)
    assert report["uploaded"] == 0 and "401" in report["errors"][0]
    assert len(store.unmirrored()) == 1
    hub.create_repo = original
    assert mirror.sync(store)["uploaded"] == 1


def test_no_file_on_the_hub_holds_the_token(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    _score(store, sub.id, now=10.0)
    mirror.sync(store)
    assert hub.commits and all(c["token"] == TOKEN for c in hub.commits)  # the token authenticates ...
    every_file = [p.read_bytes() for p in (tmp_path / "hub").rglob("*") if p.is_file()]
    assert len(every_file) == 5  # the request, its predictions, the summary, the per-paper rows, the cost
    assert not any(TOKEN.encode() in content for content in every_file)  # ... and is never written
    assert TOKEN not in repr(mirror)


def test_a_submission_holding_the_token_is_refused(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    leaky = _add(store, "leaky", now=1.0, error=f"auth failed with {TOKEN}")
    fine = _add(store, "fine", now=2.0)
    report = mirror.sync(store)
    assert report["uploaded"] == 1 and leaky.id in report["errors"][0]
    assert not any(TOKEN in text for text in hub.files(REQ).values())
    assert [s.id for s in store.unmirrored()] == [leaky.id]
    assert f"requests/rwg/{fine.id}.json" in hub.files(REQ)


def test_restore_from_repos_that_do_not_exist_restores_nothing(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    assert mirror.restore(store) == {"restored": 0, "skipped": 0}
    assert store.submissions() == []


def test_restore_skips_a_finished_request_without_results(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    _score(store, sub.id, now=10.0)
    mirror.sync(store)
    shutil.rmtree(hub.repo(RES) / "results")
    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 0, "skipped": 1}


def test_restore_skips_a_finished_request_whose_rows_are_not_objects(hub, mirror, tmp_path):
    """A hand-edited per_paper.jsonl whose line is no JSON object (no row to type) is not restored."""
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    _score(store, sub.id, now=10.0)
    mirror.sync(store)
    (hub.repo(RES) / mirror_module.per_paper_path("rwg", sub.id)).write_text('["P2", 0.25]\n', encoding="utf-8")
    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 0, "skipped": 1}
    assert fresh.submissions() == []


def test_restore_ignores_stale_local_downloads(hub, mirror, tmp_path):
    """A file left in local_dir by an earlier restore, since deleted on the Hub, must not come back."""
    store = ResultsStore(tmp_path / "a.sqlite")
    sub = _add(store, "a")
    mirror.sync(store)
    assert mirror.restore(ResultsStore(tmp_path / "one.sqlite")) == {"restored": 1, "skipped": 0}
    store.delete(sub.id)
    mirror.sync(store)
    fresh = ResultsStore(tmp_path / "two.sqlite")
    assert mirror.restore(fresh) == {"restored": 0, "skipped": 0}
    assert fresh.submissions() == []


def test_mirror_from_env(monkeypatch):
    for name in ("SCIWRITE_LEADERBOARD_REQUESTS_REPO", "SCIWRITE_LEADERBOARD_RESULTS_REPO", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert mirror_from_env() is None

    monkeypatch.setenv("SCIWRITE_LEADERBOARD_REQUESTS_REPO", REQ)
    with pytest.raises(ValueError, match="SCIWRITE_LEADERBOARD_RESULTS_REPO"):
        mirror_from_env()
    monkeypatch.delenv("SCIWRITE_LEADERBOARD_REQUESTS_REPO")
    monkeypatch.setenv("SCIWRITE_LEADERBOARD_RESULTS_REPO", RES)
    with pytest.raises(ValueError, match="SCIWRITE_LEADERBOARD_REQUESTS_REPO"):
        mirror_from_env()

    monkeypatch.setenv("SCIWRITE_LEADERBOARD_REQUESTS_REPO", REQ)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    stub = StubHub(Path("/nonexistent"))
    made = mirror_from_env(api=stub)
    assert isinstance(made, HubMirror)
    assert (made.requests_repo, made.results_repo, made.api) == (REQ, RES, stub)
    assert made._token == TOKEN
    monkeypatch.delenv("HF_TOKEN")
    assert mirror_from_env(api=stub)._token is None


def test_paths_cannot_escape_their_folder():
    with pytest.raises(ValueError, match=r"^'\.\./evil' cannot name a folder or file on the Hub$"):
        mirror_module.request_path("../evil", "abc")
    with pytest.raises(ValueError, match=r"^'a/b' cannot name a folder or file on the Hub$"):
        mirror_module.summary_path("rwg", "a/b")
    assert mirror_module.per_paper_path("rwg", "abc") == "results/rwg/abc/per_paper.jsonl"


def test_a_board_mirrors_every_change_and_a_restarted_space_gets_it_all_back(hub, mirror, tmp_path, monkeypatch):
    """The Space's life: a submission is accepted and scored on one disk; the disk is lost; the new Space
    restores the store from the Hub before serving (`open_board`)."""
    from sciwrite.leaderboard.service import BoardSettings, Leaderboard, open_board
    from sciwrite.leaderboard.submission import SubmissionForm

    board = Leaderboard(ResultsStore(tmp_path / "first" / "lb.sqlite"), BoardSettings(), mirror)
    monkeypatch.setattr(board, "split_ids", lambda benchmark: (("p1", "p2"), {}))
    text = "\n".join(json.dumps({"paper_id": p, "text": "x [1]", "candidates": ["d"]}) for p in ("p1", "p2"))
    outcome = board.submit(SubmissionForm("rwgbench", "<b>mine</b>", "ann"), text.encode())
    assert outcome.accepted
    sid = outcome.submission.id
    assert f"requests/rwgbench/{sid}.json" in hub.files(REQ)  # mirrored at once, still PENDING
    worker = board.make_worker(lambda s, p: (Summary.from_json({"precision": 0.5}),
                                             typed_rows([{"paper_id": "p1", "precision": 0.5}])))
    assert worker.run_once().status == "FINISHED"
    assert f"results/rwgbench/{sid}/summary.json" in hub.files(RES)

    restarted = open_board(tmp_path / "second" / "lb.sqlite", BoardSettings(), mirror)
    back = restarted.store.get(sid)
    assert back.status == "FINISHED" and back.system == "<b>mine</b>"
    assert restarted.store.summary(sid).to_json() == {"precision": 0.5}
    assert restarted.store.predictions(sid) == text


# -- usage ledgers and costs ----------------------------------------------------------------------------------------

#: A generator ledger of `_predictions(3, ...)`: $0.01 + $0.02 over 3 papers; a judge ledger of $0.003.
GEN_LEDGER = "".join(json.dumps({"purpose": "generate", "model": "m", "paper_id": p, "prompt_tokens": 100,
                                 "completion_tokens": 10, "cost_usd": c, "cost_source": "endpoint"}) + "\n"
                     for p, c in (("P0", 0.01), ("P2", 0.02)))
JUDGE_LEDGER = json.dumps({"purpose": "judge", "model": "j", "prompt_tokens": 50, "completion_tokens": 5,
                           "cost_usd": 0.003, "cost_source": "endpoint"}) + "\n"
LEDGERS = (LedgerFile(GENERATOR, "usage.jsonl", GEN_LEDGER), LedgerFile(JUDGE, "judge.usage.jsonl", JUDGE_LEDGER))


def _cost_cells(store: ResultsStore) -> dict[str, list[str]]:
    """System -> its cost cells on the board's table (every `COST_COLUMNS` column)."""
    frame = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench").set_index("System")
    return {system: [str(frame.loc[system, label]) for _, label in COST_COLUMNS] for system in frame.index}


def test_ledgers_and_costs_travel_with_their_submission_both_ways(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    costed = _add(store, "costed", now=1.0, ledgers=LEDGERS, benchmark="rwgbench")
    bare = _add(store, "bare", now=2.0, benchmark="rwgbench")
    queued = _add(store, "queued", now=3.0, ledgers=LEDGERS[:1], benchmark="rwgbench")
    _score(store, costed.id, now=10.0)
    _score(store, bare.id, now=20.0)
    assert store.cost(costed.id).total_usd == pytest.approx(0.033)  # by hand: 0.01 + 0.02 + 0.003
    assert mirror.sync(store)["errors"] == []
    requests, results = hub.files(REQ), hub.files(RES)
    assert requests[f"requests/rwgbench/{costed.id}.ledgers/generator/usage.jsonl"] == GEN_LEDGER
    assert requests[f"requests/rwgbench/{costed.id}.ledgers/judge/judge.usage.jsonl"] == JUDGE_LEDGER
    assert requests[f"requests/rwgbench/{queued.id}.ledgers/generator/usage.jsonl"] == GEN_LEDGER  # PENDING: its ledger
    assert not any(f"{bare.id}.ledgers" in path for path in requests)
    assert RunCost.from_json(json.loads(results[f"results/rwgbench/{costed.id}/cost.json"])) == store.cost(costed.id)

    # a price change after the run does not change a restored row: the cost comes back as it was shown
    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 3, "skipped": 0}
    for sub in (costed, bare, queued):
        assert fresh.ledgers(sub.id) == store.ledgers(sub.id)
        assert fresh.cost(sub.id) == store.cost(sub.id)
    assert _cost_cells(fresh) == _cost_cells(store)
    assert _cost_cells(fresh)["sys-costed"][2] == "$0.033" and _cost_cells(fresh)["sys-bare"][2] == UNKNOWN
    assert fresh.unmirrored() == []
    # the queued one is costed from its restored ledger once it is scored
    _score(fresh, queued.id, now=30.0)
    assert fresh.cost(queued.id).generator.cost_usd == pytest.approx(0.03)

    # a deletion removes the ledgers and the cost with the rest
    store.delete(costed.id)
    assert mirror.sync(store)["deleted"] == 1
    assert not any(costed.id in path for path in [*hub.files(REQ), *hub.files(RES)])


def test_a_mirror_written_before_the_ledgers_restores_costs_unknown_never_zero(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    old = _add(store, "old", ledgers=LEDGERS, benchmark="rwgbench")
    _score(store, old.id, now=10.0)
    mirror.sync(store)
    for repo in (REQ, RES):  # the files an older release wrote: no ledgers, no cost.json
        for path in hub.repo(repo).rglob("*"):
            if path.is_file() and (".ledgers" in str(path) or path.name == "cost.json"):
                path.unlink()
    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 1, "skipped": 0}
    assert fresh.ledgers(old.id) == [] and fresh.cost(old.id).total_usd is None
    assert _cost_cells(fresh)["sys-old"] == [UNKNOWN] * len(COST_COLUMNS)


def test_a_malformed_mirrored_cost_skips_that_submission_only(hub, mirror, tmp_path):
    store = ResultsStore(tmp_path / "a.sqlite")
    bad, good = _add(store, "bad", now=1.0, ledgers=LEDGERS), _add(store, "good", now=2.0, ledgers=LEDGERS)
    _score(store, bad.id, now=10.0)
    _score(store, good.id, now=20.0)
    mirror.sync(store)
    (hub.repo(RES) / mirror_module.cost_path("rwg", bad.id)).write_text('{"generator": {"dollars": 1}}')
    fresh = ResultsStore(tmp_path / "fresh.sqlite")
    assert mirror.restore(fresh) == {"restored": 1, "skipped": 1}
    assert fresh.cost(good.id) == store.cost(good.id)
