"""Writing the offline SurGE sample as a local dataset folder: parquet files, a card with its rules and figures, and
``build_report.json`` with every skip and per-survey figure."""

from __future__ import annotations

import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

from datasets import Dataset

from sciwrite.core.datasets import write_json
from sciwrite.surge.data import sample
from sciwrite.surge.data.card import sample_card
from sciwrite.surge.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.surge.data.schema import CORPUS_FEATURES, SURVEY_FEATURES

logger = logging.getLogger(__name__)

REPORT_FILE = "build_report.json"


def write_sample_folder(folder: str | Path, paper_dir: str | Path | None = None,
                        show_progress: bool = True) -> dict[str, Any]:
    """Build the sample and write it to `folder`; returns its figures (``surveys``, ``corpus_documents``, ...)."""
    surveys, corpus, report = sample.build_surge_sample(paper_dir, show_progress=show_progress)
    figures = report.statistics(surveys, corpus)
    tables = {"sample": Dataset.from_list(surveys, features=SURVEY_FEATURES),
              "sample_corpus": Dataset.from_list(corpus, features=CORPUS_FEATURES)}
    shown = {key: value for key, value in figures.items() if not isinstance(value, (dict, list))}
    rules = (sample.__doc__ or "").split("\n\n", 1)[-1].strip()
    folder = write_dataset_folder(folder, tables, sample_card(card_configs_yaml(list(tables)), shown, rules))
    write_json(Path(folder) / REPORT_FILE, {"statistics": figures, "skipped": report.skipped, "why": report.why,
                                            "per_survey": [asdict(row) for row in report.per_survey]})
    logger.info("wrote the SurGE sample to %s", folder)
    return figures


__all__ = ["REPORT_FILE", "write_sample_folder"]
