"""A small Semantic Scholar Graph API client for enriching cited works with abstracts and authors.

- ``x-api-key`` header when a key is given (argument, else ``S2_API_KEY`` / ``SEMANTIC_SCHOLAR_API_KEY``);
- rate limiting: at least `min_interval` seconds between requests (1 s suits a keyed account; keyless
  access is shared and throttled harder);
- retries with exponential back-off (honouring ``Retry-After``) on 429 and 5xx;
- an on-disk JSON cache of every answer, "not found" included, so a rerun sends no repeat request.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from sciwrite.sources.titles import normalize_title

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.semanticscholar.org/graph/v1"
API_KEY_VARIABLES = ("S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY")
FIELDS = "title,authors,abstract,year"


class SemanticScholarError(RuntimeError):
    """A request that failed for good (after the retries, or with a status that is not worth retrying)."""


class SemanticScholarClient:
    """Title search and paper lookup on the Graph API, cached, rate-limited and retried."""

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, min_interval: float = 1.0,
                 max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        self.base_url = (base_url or os.environ.get("S2_API_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key or next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)
        self.cache_path = Path(cache_path) if cache_path else None
        self.min_interval, self.max_retries, self.backoff, self.timeout = min_interval, max_retries, backoff, timeout
        self.n_requests = 0
        self._last_request = 0.0
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}
        if self.cache_path and self.cache_path.exists():
            try:
                self._cache = json.loads(self.cache_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as err:
                raise SemanticScholarError(f"{self.cache_path}: the Semantic Scholar cache is not valid JSON ({err})") from err

    def search_title(self, title: str) -> dict[str, Any] | None:
        """The paper whose normalised title equals `title`'s (best title match), or None."""
        found = self._get("/paper/search/match", {"query": title, "fields": FIELDS})
        for paper in (found or {}).get("data") or []:
            if normalize_title(paper.get("title")) == normalize_title(title):
                return paper
        return None

    def paper(self, paper_id: str) -> dict[str, Any] | None:
        """One paper by any Graph API id (S2 id, ``DOI:...``, ``ARXIV:...``, ``ACL:...``), or None if unknown."""
        return self._get(f"/paper/{urllib.parse.quote(paper_id, safe=':')}", {"fields": FIELDS})

    def _get(self, path: str, params: dict[str, str]) -> dict[str, Any] | None:
        url = f"{self.base_url}{path}?{urllib.parse.urlencode(params)}"
        if url in self._cache:
            return self._cache[url]
        result = self._request(url)
        self._cache[url] = result
        self._save()
        return result

    def _request(self, url: str) -> dict[str, Any] | None:
        headers = {"Accept": "application/json", **({"x-api-key": self.api_key} if self.api_key else {})}
        for attempt in range(self.max_retries + 1):
            self._wait_turn()
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=self.timeout) as r:
                    return json.loads(r.read().decode("utf-8"))
            except urllib.error.HTTPError as err:
                if err.code == 404:
                    return None  # "Title match not found" / unknown id: an answer, cached like any other
                if (err.code == 429 or err.code >= 500) and attempt < self.max_retries:
                    delay = self._retry_delay(err, attempt)
                    logger.info("Semantic Scholar answered %s; retrying in %.1f s", err.code, delay)
                    time.sleep(delay)
                    continue
                raise SemanticScholarError(f"Semantic Scholar request {url} failed: HTTP {err.code} {err.reason}") from err
            except (urllib.error.URLError, TimeoutError) as err:
                if attempt < self.max_retries:
                    time.sleep(self.backoff * 2 ** attempt)
                    continue
                raise SemanticScholarError(f"Semantic Scholar request {url} failed: {err}") from err
        raise SemanticScholarError(f"Semantic Scholar request {url} failed after {self.max_retries} retries")

    def _retry_delay(self, err: urllib.error.HTTPError, attempt: int) -> float:
        retry_after = err.headers.get("Retry-After") if err.headers else None
        try:
            return max(float(retry_after), 0.0) if retry_after else self.backoff * 2 ** attempt
        except ValueError:
            return self.backoff * 2 ** attempt

    def _wait_turn(self) -> None:
        with self._lock:
            pause = self._last_request + self.min_interval - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            self._last_request = time.monotonic()
            self.n_requests += 1

    def _save(self) -> None:
        if self.cache_path is None:
            return
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_path.with_suffix(self.cache_path.suffix + ".tmp")
        tmp.write_text(json.dumps(self._cache, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.cache_path)


def enrich_neighbor(neighbor: dict[str, Any], client: SemanticScholarClient) -> str:
    """Fill a neighbor's missing abstract / authors from Semantic Scholar by title; returns what happened:
    "complete" (nothing missing), "enriched", "not-found" or "error"."""
    if neighbor["abstract"] and neighbor["authors"]:
        return "complete"
    if not neighbor["title"]:
        return "not-found"
    try:
        paper = client.search_title(neighbor["title"])
    except SemanticScholarError as err:
        logger.warning("%s", err)
        return "error"
    if paper is None:
        return "not-found"
    if not neighbor["abstract"]:
        neighbor["abstract"] = (paper.get("abstract") or "").strip()
    if not neighbor["authors"]:
        neighbor["authors"] = [a["name"] for a in paper.get("authors") or [] if a.get("name")]
    return "enriched"
