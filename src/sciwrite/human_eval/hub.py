"""A study's answers on the Hugging Face Hub, as predictions are (`sciwrite.core.hub`): the exported JSON Lines
pushed as a dataset config, with a card that describes the study (design, dimensions and their questions, where
they come from) and says what is not published (the key naming the systems, unless pushed apart)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.hub import predictions_dataset


def answers_card(study: Mapping[str, Any], *, config_name: str, n_answers: int, n_annotators: int):
    """The dataset card of a study's answers (a `huggingface_hub.DatasetCard`)."""
    import yaml
    from huggingface_hub import DatasetCard

    metadata = {"pretty_name": f"sciwrite human evaluation ({study.get('benchmark')})",
                "tags": ["sciwrite", "human-evaluation", str(study.get("benchmark"))],
                "sciwrite_study": {"config": config_name, "design": study.get("design"), "answers": n_answers,
                                   "annotators": n_annotators, "seed": study.get("seed")}}
    answer = ("A / B / tie between two systems' texts (`choice`)" if study.get("design") == "pairwise"
              else "1-5 stars with a comment (`rating`, `comment`)")
    rows = ["| key | dimension | question |", "|---|---|---|"] + [
        f"| `{d['key']}` | {d.get('name', '')} | {str(d.get('question', '')).replace('|', '/')} |"
        for d in study.get("dimensions") or []]
    body = "\n".join([
        f"# sciwrite human evaluation: {study.get('benchmark')}", "",
        f"Answers of a blinded {study.get('design')} study run with `sciwrite human-eval`: one row per task, "
        f"annotator and dimension, {answer}, with `answered_at` / `changed_at`. {n_answers} answers from "
        f"{n_annotators} annotator(s).", "",
        f"Dimensions ({study.get('attribution', '')}):", "", *rows, "",
        "Tasks name no system; the key mapping each `task_id` to its systems is not part of this config.", ""])
    return DatasetCard("---\n" + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True) + "---\n\n" + body)


def push_answers(path: str | Path, repo_id: str, study: Mapping[str, Any], *, config_name: str = "answers",
                 private: bool | None = None, token: str | None = None) -> str:
    """Push the exported answers at `path` to the Hub dataset `repo_id` as config `config_name`, with its card;
    returns the repo's URL."""
    dataset = predictions_dataset(path)
    dataset.push_to_hub(repo_id, config_name=config_name, split="train", private=private, token=token)
    card = answers_card(study, config_name=config_name, n_answers=len(dataset),
                        n_annotators=len(set(dataset["annotator"])))
    card.push_to_hub(repo_id, repo_type="dataset", token=token, commit_message=f"sciwrite: describe {config_name}")
    return f"https://huggingface.co/datasets/{repo_id}"


__all__ = ["answers_card", "push_answers"]
