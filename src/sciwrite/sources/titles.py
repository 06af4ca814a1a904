"""Title normalisation: the key by which citations are matched to corpus documents."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_LATEX_CMD = re.compile(r"\\[a-zA-Z]+\s*")
# Accent escapes keep their letter: {\"u}, \"u, \'{e}, \v{s}, \c c -> u, u, e, s, c.
_LATEX_ACCENT = re.compile(r"\{?\\(?:[\"'`^~=.]|[a-zA-Z](?=[{\s]))\s*\{?([a-zA-Z])\}?\}?")


def normalize_title(title: str | None) -> str:
    """Lower-case, accent-free, LaTeX-free, punctuation-free title with single spaces ('' for no title).

    Two renderings of one title ("BERT: Pre-training of Deep..." vs "Bert: pre-training of deep...")
    map to the same key, so that cited titles can be aligned to corpus records.
    """
    if not title:
        return ""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _LATEX_ACCENT.sub(r"\1", text)
    text = _LATEX_CMD.sub(" ", text).replace("{", "").replace("}", "")
    text = text.lower().replace("-\n", "").replace("- ", "")
    return _NON_ALNUM.sub(" ", text).strip()


def title_doc_id(title: str, prefix: str = "t") -> str:
    """A stable document id derived from the normalised title (for works that have no id of their own)."""
    digest = hashlib.sha1(normalize_title(title).encode("utf-8")).hexdigest()[:16]
    return f"{prefix}-{digest}"
