"""Cited works looked up on the arXiv API by title: how a fresh build finds a cited paper missing from the corpus
(RWGBench §3.2) or a cited work's abstract (SciIG). Each answer is cached, one JSON line each, in the folder of
fetched papers (`LOOKUPS_FILE`), so a rebuild sends no repeat request and a stopped one resumes."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import append_whole_line, ends_mid_line, iter_json_lines
from sciwrite.sources.arxiv import ArxivClient, ArxivError
from sciwrite.sources.titles import normalize_title

logger = logging.getLogger(__name__)

LOOKUPS_FILE = "cited_lookups.jsonl"


class CitedLookups:
    """Cited titles looked up on the arXiv API (title -> the paper's `ArxivPaper.as_dict`, or None when arXiv has no
    paper of that normalised title); without a client, only the cache answers."""

    def __init__(self, path: Path, client: ArxivClient | None) -> None:
        self.path, self.client = path, client
        self.found: dict[str, dict[str, Any] | None] = {}
        if path.exists():
            for _, _, line, problem in iter_json_lines(path):
                if problem is None and isinstance(line, dict) and "title" in line:
                    self.found[normalize_title(line["title"])] = line.get("paper")
        self.n_asked = self.n_errors = 0
        self._lead = "\n" if ends_mid_line(path) else ""  # never glue a line onto one a crash cut short

    def lookup(self, title: str) -> dict[str, Any] | None:
        """The arXiv paper with this (normalised) title, or None; asked once, ever."""
        key = normalize_title(title)
        if key in self.found:
            return self.found[key]
        if self.client is None:
            return None
        try:
            hits = self.client.title_search(title)
        except ArxivError as err:
            logger.warning("arXiv title lookup failed for %r: %s", title, err)
            self.n_errors += 1
            return None  # not cached: a rebuild asks again
        self.n_asked += 1
        paper = next((h.as_dict() for h in hits if normalize_title(h.title) == key), None)
        self.found[key] = paper
        self.path.parent.mkdir(parents=True, exist_ok=True)
        append_whole_line(self.path, self._lead + json.dumps({"title": title, "paper": paper}, ensure_ascii=False))
        self._lead = ""
        return paper


__all__ = ["LOOKUPS_FILE", "CitedLookups"]
