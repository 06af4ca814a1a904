"""The HTTP side shared by the bibliographic APIs sciwrite asks (Semantic Scholar, OpenAlex, arXiv): GETs that are
rate-limited and retried (`PoliteHttpClient`), and JSON GETs that are also cached on disk (`JsonApiClient`).

- rate limiting: at least `min_interval` seconds between requests, across threads;
- retries with exponential back-off (honouring ``Retry-After``) on the statuses a service answers when it is
  busy (`retry_statuses`) and on network errors, a body cut short (``IncompleteRead``) included; a status that says the day's allowance is spent (`quota_statuses`, OpenAlex's 429)
  raises `QuotaExceededError` at once, since retrying cannot help before the allowance resets;
- at most `max_concurrent` requests in flight at once, when a service sets such a limit (Crossref's public pool: 1);
- a cache of every answer, "not found" included: a rerun sends no repeat request, and a run that stops (a crash, a
  spent quota) resumes where it stopped. Either the SQLite file all services share
  (`sciwrite.sources.response_cache.SqliteResponseCache`, keyed by the client's `service_id` and the request), or a
  JSON Lines file of this client's own, appended one whole line per answer (an older one written as one JSON object,
  url -> answer, is still read). Credentials are never part of a cached key.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import append_whole_line, parse_json_lines
from sciwrite.sources.response_cache import SqliteResponseCache

logger = logging.getLogger(__name__)


class ApiError(RuntimeError):
    """A request that failed for good (after the retries, or with a status that is not worth retrying)."""


class QuotaExceededError(ApiError):
    """The service says this key's (or this address's) allowance is spent; requests fail until it resets."""


class PoliteHttpClient:
    """GETs to one service (`name`): rate-limited and retried (see the module docstring), with a User-Agent that says
    who asks (`user_agent`). `fetch` answers the body, or None for a 404."""

    name = "the API"
    service_id = "api"  # the service's short name: how the shared response cache files its answers
    user_agent = "sciwrite"
    error_class: type[ApiError] = ApiError  # what a failed request raises (a subclass names the service)
    retry_statuses: frozenset[int] = frozenset({429, 500, 502, 503, 504})
    quota_statuses: frozenset[int] = frozenset()

    def __init__(self, *, min_interval: float = 1.0, max_retries: int = 5, backoff: float = 1.0,
                 timeout: float = 30.0, max_concurrent: int | None = None) -> None:
        self.min_interval, self.max_retries, self.backoff, self.timeout = min_interval, max_retries, backoff, timeout
        self.max_concurrent = max_concurrent  # requests in flight at once (None: no limit beyond the rate)
        self.n_requests = 0  # requests sent, retries included
        self._last_request = 0.0
        self._lock = threading.Lock()
        self._slots: AbstractContextManager[Any] = (threading.BoundedSemaphore(max_concurrent) if max_concurrent
                                                    else nullcontext())

    def auth_headers(self) -> dict[str, str]:
        return {}

    def on_response(self, headers: Mapping[str, str]) -> None:
        """Called with every successful response's headers (OpenAlex reports each request's cost there)."""

    def says_busy(self, body: bytes) -> bool:
        """Whether a 200's body is the service saying it is busy (arXiv's plain-text ``Rate exceeded.``): retried
        with back-off like a 503."""
        return False

    def fetch(self, url: str, shown: str | None = None, accept: str = "*/*") -> bytes | None:
        """The body of ``GET url``, or None when the service says there is no such thing (404). `shown` is the url as
        error messages print it (without credentials)."""
        shown = shown or url
        headers = {"Accept": accept, "User-Agent": self.user_agent, **self.auth_headers()}
        for attempt in range(self.max_retries + 1):
            self._wait_turn()
            try:
                with self._slots, urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                                         timeout=self.timeout) as r:
                    self.on_response(r.headers)
                    body = r.read()
                if not self.says_busy(body):
                    return body
                if attempt == self.max_retries:
                    raise self.error_class(f"{self.name} request {shown} kept answering that it is busy: "
                                           f"{body[:80]!r}")
                logger.info("%s answered that it is busy (HTTP 200); retrying", self.name)
                time.sleep(self.backoff * 2 ** attempt)
            except urllib.error.HTTPError as err:
                if err.code == 404:
                    return None
                detail = error_message(err)
                if err.code in self.quota_statuses:
                    raise QuotaExceededError(f"{self.name} request {shown} refused: HTTP {err.code} {detail} (the "
                                        "allowance is spent; rerun after it resets: answers so far are cached)") from err
                if err.code in self.retry_statuses and attempt < self.max_retries:
                    delay = self._retry_delay(err, attempt)
                    logger.info("%s answered %s; retrying in %.1f s", self.name, err.code, delay)
                    time.sleep(delay)
                    continue
                raise self.error_class(f"{self.name} request {shown} failed: HTTP {err.code} {detail}") from err
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as err:
                # HTTPException: a body shorter than its Content-Length (IncompleteRead), a status line cut off
                if attempt < self.max_retries:
                    logger.info("%s request failed (%s); retrying", self.name, _one_line(err))
                    time.sleep(self.backoff * 2 ** attempt)
                    continue
                raise self.error_class(f"{self.name} request {shown} failed after {self.max_retries} retries: "
                                       f"{_one_line(err)}") from err
        raise self.error_class(f"{self.name} request {shown} failed after {self.max_retries} retries")

    def _retry_delay(self, err: urllib.error.HTTPError, attempt: int) -> float:
        retry_after = err.headers.get("Retry-After") if err.headers else None
        try:
            return max(float(retry_after), 0.0) if retry_after else self.backoff * 2 ** attempt
        except ValueError:  # an HTTP date instead of seconds
            return self.backoff * 2 ** attempt

    def _wait_turn(self) -> None:
        with self._lock:
            pause = self._last_request + self.min_interval - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            self._last_request = time.monotonic()
            self.n_requests += 1


class JsonApiClient(PoliteHttpClient):
    """GET JSON from one service (`name`, at `base_url`): cached, rate-limited, retried (see the module
    docstring). Subclasses say which headers and query parameters authenticate (`auth_headers`, `auth_params`).

    The cache is the shared SQLite file `cache` when given, else the JSON Lines file `cache_path` (not both)."""

    def __init__(self, base_url: str, *, cache_path: str | Path | None = None,
                 cache: SqliteResponseCache | None = None, min_interval: float = 1.0, max_retries: int = 5,
                 backoff: float = 1.0, timeout: float = 30.0, max_concurrent: int | None = None) -> None:
        if cache is not None and cache_path:
            raise ValueError(f"{self.name}: give a shared response cache or a JSON Lines cache_path "
                             f"({cache_path}), not both")
        super().__init__(min_interval=min_interval, max_retries=max_retries, backoff=backoff, timeout=timeout,
                         max_concurrent=max_concurrent)
        self.base_url = base_url.rstrip("/")
        self.cache_path = Path(cache_path) if cache_path else None
        self.cache = cache
        self.n_cached = 0  # answers read from the cache instead
        self._cache, self._needs_newline = self._read_cache()

    def auth_params(self) -> dict[str, str]:
        return {}

    def get(self, path: str, params: Mapping[str, str]) -> Any | None:
        """The JSON answer to ``GET base_url + path?params``, or None when the service says there is no such thing
        (404); from the cache when it was asked before."""
        key = f"{self.base_url}{path}?{urllib.parse.urlencode(params)}"
        query = urllib.parse.urlencode({**params, **self.auth_params()})
        if self.cache is not None:
            answer, cached = self.cache.fetched(self.service_id, key,
                                                lambda: self._request(f"{self.base_url}{path}?{query}", shown=key))
            self.n_cached += int(cached)
            return answer
        if key in self._cache:
            self.n_cached += 1
            return self._cache[key]
        answer = self._request(f"{self.base_url}{path}?{query}", shown=key)
        self._remember(key, answer)  # "not found" is an answer, cached like any other
        return answer

    def _request(self, url: str, shown: str) -> Any | None:
        body = self.fetch(url, shown, accept="application/json")
        if body is None:
            return None
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError as err:  # an HTML error page behind a 200, a cut body: not an answer to cache
            raise self.error_class(f"{self.name} request {shown} answered something that is not JSON "
                                   f"({err}): {body[:80]!r}") from err

    def _read_cache(self) -> tuple[dict[str, Any], bool]:
        """Earlier answers (url -> answer) and whether the file ends mid-line (a write cut short)."""
        if self.cache_path is None or not self.cache_path.exists():
            return {}, False
        text = self.cache_path.read_text(encoding="utf-8")
        if text.lstrip().startswith("{") and "\n" not in text.strip():  # one object: the old whole-file format
            try:
                whole = json.loads(text)
            except json.JSONDecodeError:
                whole = None  # a first answer cut short: read as lines below (and skipped)
            if isinstance(whole, dict) and not {"url", "answer"} <= set(whole):
                return whole, False
        cache = {}
        for _, _, record, _ in parse_json_lines(text.splitlines()):  # a line cut short by a crash is skipped
            if isinstance(record, dict) and isinstance(record.get("url"), str):
                cache[record["url"]] = record.get("answer")
        return cache, bool(text) and not text.endswith("\n")

    def _remember(self, key: str, answer: Any) -> None:
        with self._lock:
            self._cache[key] = answer
            if self.cache_path is None:
                return
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            lead = "\n" if self._needs_newline else ""  # never glue an answer onto a cut-off last line
            append_whole_line(self.cache_path, lead + json.dumps({"url": key, "answer": answer}, ensure_ascii=False))
            self._needs_newline = False


def _one_line(err: BaseException) -> str:
    """A network error in one line: IncompleteRead's own text holds the count of bytes read, not the body."""
    if isinstance(err, http.client.IncompleteRead):
        return f"the body was cut short ({len(err.partial)} bytes read, {err.expected} more expected)"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def error_message(err: urllib.error.HTTPError) -> str:
    """The reason and, when the body is a JSON error (``{"message": ...}`` / ``{"error": ...}``), its text."""
    try:
        body = json.loads(err.read().decode("utf-8") or "null")
    except (ValueError, OSError):
        body = None
    text = (body.get("message") or body.get("error")) if isinstance(body, dict) else None
    return f"{err.reason}: {text}" if text and text != err.reason else str(err.reason)


__all__ = ["ApiError", "JsonApiClient", "PoliteHttpClient", "QuotaExceededError", "error_message"]
