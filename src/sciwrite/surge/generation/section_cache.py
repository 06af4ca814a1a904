"""The outline method's finished steps, kept beside the run's output so that a rerun re-sends only what is missing.

``<output stem>.sections.jsonl`` holds one line per finished step of a survey not yet written: its outline
(``{"paper_id", "settings", "step": "outline", "sections": [...]}``) and each section written
(``{"paper_id", "settings", "step": "section", "index", "heading", "query", "docs", "text"}``). A survey that fails
part-way (a request that failed after its retries, the budget reached) keeps its lines, so its rerun (a plain rerun
or ``--retry-failed``) reuses its outline and finished sections and sends only the sections still missing. Once the
survey is finished (handed to the runner, which writes its line at once) its lines go (`drop`): the file holds only
surveys in progress, and deleting the output to write a survey again never serves it an old section. Lines written under other settings (``settings``: model, retrieval,
number of sections, section budget...) are ignored: a rerun with other settings starts the survey afresh.

The runner calls methods from one event loop: every read and write here happens on that thread, between awaits, so
concurrent surveys never interleave a line.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import iter_json_lines, line_ref
from sciwrite.generation.run_files import replace_text, write_failed

logger = logging.getLogger(__name__)


def sections_path_for(out_path: str | Path) -> Path:
    """``<stem>.sections.jsonl`` beside the output file."""
    out_path = Path(out_path)
    return out_path.with_name(f"{out_path.stem}.sections.jsonl")


class SectionCache:
    """The finished steps of surveys in progress, read once from `path` (at first use) and kept in step with it."""

    def __init__(self, path: str | Path, settings: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.settings = json.loads(json.dumps(dict(settings)))  # as it reads back from a line
        self._entries: dict[str, list[dict[str, Any]]] | None = None

    def _load(self) -> dict[str, list[dict[str, Any]]]:
        if self._entries is None:
            self._entries = {}
            if self.path.exists():
                for number, _, item, problem in iter_json_lines(self.path):
                    if problem is not None or not isinstance(item, dict) or not isinstance(item.get("paper_id"), str):
                        logger.warning("%s: %s; dropped", line_ref(self.path, number), problem or "not a step")
                        continue
                    self._entries.setdefault(item["paper_id"], []).append(item)
        return self._entries

    def steps(self, paper_id: str) -> list[dict[str, Any]]:
        """The survey's finished steps written under this run's settings, in the order they were written."""
        return [e for e in self._load().get(paper_id, []) if e.get("settings") == self.settings]

    def outline(self, paper_id: str) -> dict[str, Any] | None:
        """The survey's cached outline step (the latest), or None."""
        found = [e for e in self.steps(paper_id) if e.get("step") == "outline"]
        return found[-1] if found else None

    def sections(self, paper_id: str) -> dict[int, dict[str, Any]]:
        """The survey's cached section steps by index (the latest of each)."""
        return {e["index"]: e for e in self.steps(paper_id) if e.get("step") == "section" and isinstance(e.get("index"), int)}

    def add(self, paper_id: str, step: Mapping[str, Any]) -> None:
        """Append one finished step of `paper_id` (flushed at once)."""
        entry = {"paper_id": paper_id, "settings": self.settings, **step}
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        try:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line)
        except OSError as err:
            raise write_failed(self.path, err, paper_id) from err
        self._load().setdefault(paper_id, []).append(json.loads(line))

    def drop(self, paper_id: str) -> None:
        """Forget the steps of `paper_id` (written): the file is rewritten without them (removed when empty)."""
        entries = self._load()
        if entries.pop(paper_id, None) is None:
            return
        rest = [e for steps in entries.values() for e in steps]
        if rest:
            replace_text(self.path, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in rest))
        else:
            self.path.unlink(missing_ok=True)


__all__ = ["SectionCache", "sections_path_for"]
