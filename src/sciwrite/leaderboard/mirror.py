"""The leaderboard store's mirror on the Hugging Face Hub: copies every submission to two Hub dataset repos and
restores the store from them.

Why: a Space's disk is ephemeral, so the SQLite store (`sciwrite.leaderboard.store`) is lost whenever the Space
restarts or is rebuilt. The mirror keeps a durable copy in two dataset repos, the layout of the Open LLM
Leaderboard template:

* the requests repo: ``requests/<benchmark>/<id>.json`` (the submission row, every column of `Submission` and
  never a token), ``requests/<benchmark>/<id>.predictions.jsonl`` (the predictions as accepted) and
  ``requests/<benchmark>/<id>.ledgers/<role>/<name>`` (each usage ledger kept with it, as kept);
* the results repo: ``results/<benchmark>/<id>/summary.json``, ``results/<benchmark>/<id>/per_paper.jsonl`` and
  ``results/<benchmark>/<id>/cost.json`` (its `RunCost`; FINISHED submissions only).

`HubMirror.sync` uploads what changed since the last sync (the store's `unmirrored` rows) and removes what an
admin deleted (its tombstones) with ONE commit per repo per batch, so a crash never leaves half a submission on
the Hub. The results commit goes first: a FINISHED request on the Hub therefore always has its results. Only when
both commits succeed are the rows marked mirrored; a Hub error is logged and reported, and the rows stay due for
the next sync, so nothing is lost. `HubMirror.restore` downloads both repos at start and inserts every submission
the store lacks (and did not delete), with its original id, status, timestamps, results, ledgers and cost, so a
restored Space shows the same cost cells. A mirror written before the ledgers were mirrored restores its
submissions without them: their costs are unknown, never 0.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, snapshot_download
from huggingface_hub.errors import RepositoryNotFoundError

from sciwrite.core.costs import ROLES, LedgerFile, RunCost
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.store import FINISHED, DuplicateSubmissionError, ResultsStore, Submission

logger = logging.getLogger(__name__)

REQUESTS_REPO_ENV = "SCIWRITE_LEADERBOARD_REQUESTS_REPO"
RESULTS_REPO_ENV = "SCIWRITE_LEADERBOARD_RESULTS_REPO"
TOKEN_ENV = "HF_TOKEN"
REPO_TYPE = "dataset"

_SUBMISSION_FIELDS = tuple(f.name for f in fields(Submission))
# Passed to `ResultsStore.add_submission` by name; every other column goes through its `**form`.
_EXPLICIT_FIELDS = {"id", "benchmark", "split", "system", "submitter", "sha256", "n_predictions", "status"}
_REQUIRED_KEYS = {"id", "benchmark", "split", "system", "submitter", "sha256", "status", "submitted_at", "updated_at"}

CommitOperation = CommitOperationAdd | CommitOperationDelete


def request_path(benchmark: str, submission_id: str) -> str:
    """The submission row's path in the requests repo."""
    return f"requests/{_segment(benchmark)}/{_segment(submission_id)}.json"


def predictions_path(benchmark: str, submission_id: str) -> str:
    """The predictions' path in the requests repo."""
    return f"requests/{_segment(benchmark)}/{_segment(submission_id)}.predictions.jsonl"


def ledgers_folder(benchmark: str, submission_id: str) -> str:
    """The folder of the submission's usage ledgers in the requests repo (``<role>/<name>`` under it)."""
    return f"requests/{_segment(benchmark)}/{_segment(submission_id)}.ledgers"


def ledger_path(benchmark: str, submission_id: str, ledger: LedgerFile) -> str:
    """One usage ledger's path in the requests repo."""
    return f"{ledgers_folder(benchmark, submission_id)}/{_segment(ledger.role)}/{_segment(ledger.name)}"


def cost_path(benchmark: str, submission_id: str) -> str:
    """The `RunCost`'s path in the results repo."""
    return f"results/{_segment(benchmark)}/{_segment(submission_id)}/cost.json"


def summary_path(benchmark: str, submission_id: str) -> str:
    """The summary's path in the results repo."""
    return f"results/{_segment(benchmark)}/{_segment(submission_id)}/summary.json"


def per_paper_path(benchmark: str, submission_id: str) -> str:
    """The per-paper rows' path in the results repo."""
    return f"results/{_segment(benchmark)}/{_segment(submission_id)}/per_paper.jsonl"


class HubMirror:
    """Mirror a `ResultsStore` to the dataset repos `requests_repo` and `results_repo` (both private, created on
    the first sync). `api` is the Hub client (a fresh `HfApi` by default); `local_dir` is where `restore`
    downloads the repos (a temporary folder by default)."""

    def __init__(self, requests_repo: str, results_repo: str, *, token: str | None = None,
                 api: HfApi | None = None, local_dir: Path | None = None):
        if not requests_repo or not results_repo:
            raise ValueError("the Hub mirror needs both a requests repo and a results repo")
        if requests_repo == results_repo:
            raise ValueError(f"the requests and results repos must differ (both are {requests_repo!r})")
        self.requests_repo = requests_repo
        self.results_repo = results_repo
        self._token = token or None
        self.api = api if api is not None else HfApi(token=self._token)
        self.local_dir = Path(local_dir) if local_dir is not None else None
        self._repos_ready = False

    def __repr__(self) -> str:  # never shows the token
        return f"HubMirror(requests_repo={self.requests_repo!r}, results_repo={self.results_repo!r})"

    # -- upload -------------------------------------------------------------------------------------------------

    def sync(self, store: ResultsStore) -> dict[str, Any]:
        """Upload every changed submission and apply every unmirrored deletion, one commit per repo, then mark
        them mirrored. Returns {"uploaded": n, "deleted": n, "errors": [messages]}; on a Hub error nothing is
        marked (the next sync retries it all)."""
        report: dict[str, Any] = {"uploaded": 0, "deleted": 0, "errors": []}
        submissions = store.unmirrored()
        deletions = store.unmirrored_deletions()
        if not submissions and not deletions:
            return report
        if not self._ensure_repos(report["errors"]):
            return report

        request_ops: list[CommitOperation] = []
        result_ops: list[CommitOperation] = []
        uploaded: list[Submission] = []
        for sub in submissions:
            try:
                files = self._files(store, sub)
            except KeyError:  # deleted since `unmirrored` read it: its tombstone is handled by a later sync
                continue
            except ValueError as exc:
                logger.error("Hub mirror: submission %s is not uploaded: %s", sub.id, exc)
                report["errors"].append(f"submission {sub.id}: {exc}")
                continue
            request_files, result_files = files
            request_ops += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=b) for p, b in request_files.items()]
            result_ops += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=b) for p, b in result_files.items()]
            uploaded.append(sub)

        applied: list[str] = []
        if deletions:
            listed_requests = self._list(self.requests_repo, report["errors"])
            listed_results = self._list(self.results_repo, report["errors"])
            if listed_requests is None or listed_results is None:
                return report
            for submission_id, benchmark in deletions:
                try:
                    ledgers = ledgers_folder(benchmark, submission_id) + "/"
                    request_gone = [request_path(benchmark, submission_id), predictions_path(benchmark, submission_id),
                                    *sorted(p for p in listed_requests if p.startswith(ledgers))]
                    results_gone = [summary_path(benchmark, submission_id), per_paper_path(benchmark, submission_id),
                                    cost_path(benchmark, submission_id)]
                except ValueError as exc:
                    report["errors"].append(f"deletion of {submission_id}: {exc}")
                    continue
                request_ops += [CommitOperationDelete(path_in_repo=p) for p in request_gone
                                if p in listed_requests]
                result_ops += [CommitOperationDelete(path_in_repo=p) for p in results_gone
                               if p in listed_results]
                applied.append(submission_id)

        message = f"sciwrite leaderboard: {len(uploaded)} submission(s), {len(applied)} deletion(s)"
        # Results first: a FINISHED request on the Hub always has its results files.
        for repo, operations in ((self.results_repo, result_ops), (self.requests_repo, request_ops)):
            if operations and not self._commit(repo, operations, message, report["errors"]):
                return report

        for sub in uploaded:
            store.mark_mirrored(sub.id, sub.updated_at)
        for submission_id in applied:
            store.mark_deletion_mirrored(submission_id)
        report["uploaded"], report["deleted"] = len(uploaded), len(applied)
        return report

    def _files(self, store: ResultsStore, sub: Submission) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """(requests repo files, results repo files) of one submission, path -> content."""
        # The client (a Hub user or an address) is the rate limit's, and an address is not for a public repo.
        request = {k: v for k, v in sub.to_dict().items() if k != "client"}
        request_files = {request_path(sub.benchmark, sub.id): _json_bytes(request),
                         predictions_path(sub.benchmark, sub.id): store.predictions(sub.id).encode("utf-8"),
                         **{ledger_path(sub.benchmark, sub.id, ledger): ledger.text.encode("utf-8")
                            for ledger in store.ledgers(sub.id)}}
        result_files: dict[str, bytes] = {}
        if sub.status == FINISHED:
            summary = store.summary(sub.id)
            if summary is None:
                raise ValueError("it is FINISHED but has no summary")
            result_files = {summary_path(sub.benchmark, sub.id): _json_bytes(summary.to_json()),
                            per_paper_path(sub.benchmark, sub.id): _jsonl_bytes(store.paper_rows(sub.id))}
            cost = store.cost(sub.id)
            if cost is not None:
                result_files[cost_path(sub.benchmark, sub.id)] = _json_bytes(cost.to_json())
        if self._token:
            secret = self._token.encode("utf-8")
            if any(secret in content for content in [*request_files.values(), *result_files.values()]):
                raise ValueError("its files contain the Hub token; refusing to upload them")
        return request_files, result_files

    def _ensure_repos(self, errors: list[str]) -> bool:
        if self._repos_ready:
            return True
        for repo in (self.requests_repo, self.results_repo):
            try:
                self.api.create_repo(repo, repo_type=REPO_TYPE, exist_ok=True, private=True, token=self._token)
            except Exception as exc:  # noqa: BLE001 - any Hub failure is reported, never raised
                _hub_error(errors, repo, "create the repo", exc)
                return False
        self._repos_ready = True
        return True

    def _list(self, repo: str, errors: list[str]) -> set[str] | None:
        try:
            return set(self.api.list_repo_files(repo, repo_type=REPO_TYPE, token=self._token))
        except Exception as exc:  # noqa: BLE001
            _hub_error(errors, repo, "list the files", exc)
            return None

    def _commit(self, repo: str, operations: Sequence[CommitOperation], message: str, errors: list[str]) -> bool:
        try:
            self.api.create_commit(repo, repo_type=REPO_TYPE, operations=list(operations), commit_message=message,
                                   token=self._token)
        except Exception as exc:  # noqa: BLE001
            _hub_error(errors, repo, "commit", exc)
            return False
        return True

    # -- download -----------------------------------------------------------------------------------------------

    def restore(self, store: ResultsStore) -> dict[str, int]:
        """Insert every submission of the Hub repos that `store` neither holds nor deleted, as it was (id,
        status, timestamps, attempts, predictions and, when FINISHED, its results), marked mirrored. A repo that
        does not exist yet restores nothing. Returns {"restored": n, "skipped": n} (skipped: already there,
        deleted, a duplicate of another submission's predictions, or incomplete on the Hub)."""
        report = {"restored": 0, "skipped": 0}
        with tempfile.TemporaryDirectory(prefix="sciwrite-leaderboard-restore-") as tmp:
            root = self.local_dir if self.local_dir is not None else Path(tmp)
            requests_dir = self._download(self.requests_repo, root / "requests-repo")
            if requests_dir is None:
                return report
            results_dir = self._download(self.results_repo, root / "results-repo")
            existing_deleted = store.deleted_ids()
            for record in _request_records(requests_dir):
                if self._restore_one(store, record, requests_dir, results_dir, existing_deleted):
                    report["restored"] += 1
                else:
                    report["skipped"] += 1
        return report

    def _download(self, repo: str, folder: Path) -> Path | None:
        """The repo's snapshot in `folder` (emptied first: a stale file must not resurrect a deleted submission);
        None when the repo does not exist."""
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            path = snapshot_download(repo, repo_type=REPO_TYPE, local_dir=folder, token=self._token)
        except RepositoryNotFoundError:
            logger.info("Hub mirror: %s does not exist yet; nothing to restore from it", repo)
            return None
        return Path(path)

    def _restore_one(self, store: ResultsStore, record: Mapping[str, Any], requests_dir: Path,
                     results_dir: Path | None, deleted: set[str]) -> bool:
        submission_id, benchmark = str(record["id"]), str(record["benchmark"])
        if submission_id in deleted:
            return False
        try:
            store.get(submission_id)
            return False
        except KeyError:
            pass
        try:
            predictions = (requests_dir / predictions_path(benchmark, submission_id)).read_text(encoding="utf-8")
            ledgers = _ledgers(requests_dir / ledgers_folder(benchmark, submission_id))
        except (OSError, ValueError) as exc:
            logger.warning("Hub mirror: submission %s has no readable predictions or ledgers in %s (%s); not "
                           "restored", submission_id, self.requests_repo, exc)
            return False
        summary: Summary | None = None
        rows: list[PaperRow] = []
        cost: RunCost | None = None
        if record["status"] == FINISHED:
            try:
                if results_dir is None:
                    raise FileNotFoundError(f"{self.results_repo} does not exist")
                summary = summary_from_json(json.loads((results_dir / summary_path(benchmark, submission_id))
                                                       .read_text("utf-8")))
                per_paper = (results_dir / per_paper_path(benchmark, submission_id)).read_text("utf-8")
                rows = [_row_from_json(json.loads(line)) for line in per_paper.splitlines() if line.strip()]
                cost = _cost(results_dir / cost_path(benchmark, submission_id))
            except (OSError, ValueError) as exc:  # e.g. a deletion interrupted between the two commits
                logger.warning("Hub mirror: FINISHED submission %s has no results in %s (%s); not restored",
                               submission_id, self.results_repo, exc)
                return False
        form = {k: v for k, v in record.items() if k in _SUBMISSION_FIELDS and k not in _EXPLICIT_FIELDS}
        try:
            store.add_submission(
                submission_id=submission_id, benchmark=benchmark, split=record["split"], system=record["system"],
                submitter=record["submitter"], sha256=record["sha256"], n_predictions=record.get("n_predictions", 0),
                status=record["status"], predictions_jsonl=predictions, summary=summary, rows=rows,
                ledgers=ledgers, cost=cost,
                now=record["submitted_at"], mirrored_at=record["updated_at"], **form)
        except DuplicateSubmissionError as exc:
            logger.warning("Hub mirror: submission %s not restored: %s", submission_id, exc)
            return False
        except (TypeError, ValueError) as exc:  # a malformed request file: the others are still restored
            logger.warning("Hub mirror: submission %s in %s is malformed (%s); not restored", submission_id,
                           self.requests_repo, exc)
            return False
        return True


def summary_from_json(data: Any) -> Summary:
    """A mirrored ``summary.json``'s content as a `Summary`; a `ValueError` when it is not a JSON object."""
    if not isinstance(data, dict):
        raise ValueError(f"its summary is {type(data).__name__}, not a JSON object")
    return Summary.from_json(data)


def mirror_from_env(**kwargs: Any) -> HubMirror | None:
    """The mirror named by ``$SCIWRITE_LEADERBOARD_REQUESTS_REPO`` and ``$SCIWRITE_LEADERBOARD_RESULTS_REPO``
    (both or neither) with the token ``$HF_TOKEN``; None when neither is set. `kwargs` go to `HubMirror`."""
    requests_repo = os.environ.get(REQUESTS_REPO_ENV, "").strip()
    results_repo = os.environ.get(RESULTS_REPO_ENV, "").strip()
    if not requests_repo and not results_repo:
        return None
    if not requests_repo or not results_repo:
        missing = REQUESTS_REPO_ENV if not requests_repo else RESULTS_REPO_ENV
        raise ValueError(f"the leaderboard's Hub mirror needs both repos: set {missing} too (or unset both)")
    kwargs.setdefault("token", os.environ.get(TOKEN_ENV) or None)
    return HubMirror(requests_repo, results_repo, **kwargs)


def _request_records(requests_dir: Path) -> list[dict[str, Any]]:
    """Every submission row in a requests repo snapshot, oldest submission first."""
    records = []
    for path in sorted((requests_dir / "requests").glob("*/*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            logger.warning("Hub mirror: unreadable request file %s (%s); skipped", path, exc)
            continue
        missing = _REQUIRED_KEYS - set(record) if isinstance(record, dict) else {"every field"}
        if missing:
            logger.warning("Hub mirror: request file %s lacks %s; skipped", path, sorted(missing))
            continue
        records.append(record)
    return sorted(records, key=lambda r: (r["submitted_at"], str(r["id"])))


def _ledgers(folder: Path) -> list[LedgerFile]:
    """The usage ledgers mirrored under `folder` (``<role>/<name>``; none for a mirror written before them)."""
    return [LedgerFile(path.parent.name, path.name, path.read_bytes().decode("utf-8"))
            for role in ROLES for path in sorted((folder / role).glob("*")) if path.is_file()]


def _cost(path: Path) -> RunCost | None:
    """A mirrored ``cost.json`` as a `RunCost`; None when there is none (worked out from the ledgers then); a
    `ValueError` when it is not a JSON object."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"its cost is {type(data).__name__}, not a JSON object")
    try:
        return RunCost.from_json(data)
    except TypeError as err:  # a side with a field `SideCost` does not have
        raise ValueError(f"its cost is malformed: {err}") from None


def _segment(name: str) -> str:
    """`name` as one path segment; `ValueError` when it could escape its folder."""
    if not name or name in {".", ".."} or "/" in name or "\\" in name:
        raise ValueError(f"{name!r} cannot name a folder or file on the Hub")
    return name


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _jsonl_bytes(rows: Iterable[PaperRow]) -> bytes:
    """The rows as ``per_paper.jsonl`` holds them, one JSON object a line."""
    return "".join(json.dumps(row.to_json(), ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def _row_from_json(data: Any) -> PaperRow:
    """A mirrored ``per_paper.jsonl`` line's content as a `PaperRow`; a `ValueError` when it is not a JSON object."""
    if not isinstance(data, dict):
        raise ValueError(f"a per-paper row is {type(data).__name__}, not a JSON object")
    return PaperRow.from_json(data)


def _hub_error(errors: list[str], repo: str, action: str, exc: BaseException) -> None:
    logger.error("Hub mirror: could not %s on %s: %s: %s", action, repo, type(exc).__name__, exc)
    errors.append(f"{repo}: could not {action}: {type(exc).__name__}: {exc}")
