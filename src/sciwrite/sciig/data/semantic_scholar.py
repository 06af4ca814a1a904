"""Cited works enriched from Semantic Scholar: a neighbor's missing abstract and authors, found by its title with
the shared Graph API client (`sciwrite.sources.semantic_scholar`)."""

from __future__ import annotations

import logging
from typing import Any

from sciwrite.sources.semantic_scholar import SemanticScholarClient, SemanticScholarError

logger = logging.getLogger(__name__)


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


__all__ = ["enrich_neighbor"]
