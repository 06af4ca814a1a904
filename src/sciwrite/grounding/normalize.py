"""A reference's title as a matching key: entities decoded, quotes and the venue / year / page tail a model or a
bibliography appends cut off, then `sciwrite.sources.titles.normalize_title` (NFKD without accents, LaTeX removed,
lower case, letters and digits only)."""

from __future__ import annotations

import html
import re

from sciwrite.sources.titles import normalize_title

# What follows a title in a written reference, after a sentence or clause break: "... Need. In Proceedings of
# NeurIPS", "..., arXiv preprint arXiv:1706.03762", "..., 2017", "... pp. 1-10". Only after ". " or ", " (or " - "),
# so that "SemEval-2017 Task 4" or "Proceedings of ..." inside a title stays.
_TAIL = re.compile(
    r"(?:[.,;]|\s[-\u2013\u2014])\s+(?:in\s+(?:proc(?:eedings|\.)?|advances|findings|the\s+\w+\s+(?:conference|workshop)"
    r"|[A-Z]{2,})\b.*|proceedings\s+of\b.*|arxiv\b.*|(?:19|20)\d\d[a-z]?\b.*|pp?\.\s*\d.*|vol(?:ume)?\.?\s*\d.*"
    r"|(?:acl|emnlp|naacl|eacl|coling|neurips|nips|icml|iclr|aaai|ijcai|cvpr|sigir|kdd|www)\b.*)$",
    re.IGNORECASE)
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb`"


def strip_reference_tail(title: str) -> str:
    """`title` without HTML entities, surrounding quotes and a trailing venue / year / pages."""
    text = html.unescape(html.unescape(title or ""))  # "&amp;amp;" arrives double-escaped from some sources
    text = text.strip().strip(_QUOTES).strip()
    return _TAIL.sub("", text).strip().strip(_QUOTES + ".,;").strip()


def normalize_reference_title(title: str | None) -> str:
    """The matching key of a reference's title ('' for none).

    HTML entities, surrounding quotes and a trailing venue, year or pages (after ". " or ", ") are removed; the
    rest is lower-cased without accents, LaTeX or punctuation (`sciwrite.sources.titles.normalize_title`).
    """
    return normalize_title(strip_reference_tail(title or ""))


def without_subtitle(title: str | None) -> str:
    """The matching key of the part of `title` before its subtitle (``"BERT: Pre-training ..."`` -> ``"bert"``), or
    '' when it has none: a reference often gives one half."""
    head, sep, _ = strip_reference_tail(title or "").partition(":")
    return normalize_title(head) if sep else ""


# DBLP's homonym numbers: "Wei Wang 0001" is one of several authors named Wei Wang.
_HOMONYM = re.compile(r"\s+\d{4}$")


def surname(name: str) -> str:
    """The normalised surname of an author name: "Jacob Devlin", "Devlin, J." and "J. Devlin" -> "devlin"; DBLP's
    homonym number is not part of it ("Wei Wang 0001" -> "wang")."""
    name = _HOMONYM.sub("", html.unescape(name or "").strip())
    if "," in name:
        name = name.split(",", 1)[0]
    else:
        parts = [p for p in re.split(r"\s+", name) if p]
        name = parts[-1] if parts else ""
    return normalize_title(name).replace(" ", "")
