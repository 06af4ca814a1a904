"""Publishing a generation output file on the Hugging Face Hub as a dataset config, with a small card.

`push_predictions(path, repo_id, card_fields)` reads the JSON Lines file into a `datasets.Dataset`, pushes it as
config ``<file stem>`` (split ``test`` by default) with `Dataset.push_to_hub`, then updates the repo's card: the
card keeps whatever the Hub wrote (``configs``, ``dataset_info``) and lists every config pushed by sciwrite, with
its benchmark, dataset, split, model and method, in a ``sciwrite_runs`` metadata field and a table. Building the
dataset and the card (`predictions_dataset`, `prediction_card`) needs no network; only the push does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The card fields every run is described by (others given are kept too).
from sciwrite.core.jsonl import read_json_lines

CARD_FIELDS: tuple[str, ...] = ("benchmark", "dataset", "split", "model", "method")


def read_predictions(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file (blank lines skipped); a bad line raises `ValueError`."""
    return read_json_lines(path)


def predictions_dataset(path: str | Path):
    """The predictions as a `datasets.Dataset`, one row per line; a column missing from a line is None there."""
    from datasets import Dataset

    rows = read_predictions(path)
    if not rows:
        raise ValueError(f"{path} holds no predictions to publish")
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return Dataset.from_list([{c: row.get(c) for c in columns} for row in rows])


def _table(runs: Mapping[str, Mapping[str, Any]]) -> str:
    header = ["config", *CARD_FIELDS, "rows"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for config, fields in sorted(runs.items()):
        cells = [f"`{config}`", *(str(fields.get(f, "")) for f in CARD_FIELDS), str(fields.get("rows", ""))]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def prediction_card(card_fields: Mapping[str, Any], *, config_name: str, n_rows: int | None = None,
                    existing: Any = None):
    """A `huggingface_hub.DatasetCard` describing the run in `card_fields`, added to `existing` (a card or its
    text) whose metadata and other runs are kept; a missing field of `CARD_FIELDS` raises `ValueError`."""
    from huggingface_hub import DatasetCard

    missing = [f for f in CARD_FIELDS if card_fields.get(f) in (None, "")]
    if missing:
        raise ValueError(f"the dataset card needs the fields {list(CARD_FIELDS)}; missing {missing}")
    if existing is None:
        metadata: dict[str, Any] = {}
    else:
        card = existing if isinstance(existing, DatasetCard) else DatasetCard(str(existing))
        metadata = card.data.to_dict()
    runs = dict(metadata.get("sciwrite_runs") or {})
    runs[config_name] = {**{k: v for k, v in card_fields.items() if v is not None},
                         **({"rows": n_rows} if n_rows is not None else {})}
    tags = list(dict.fromkeys([*(metadata.get("tags") or []), "sciwrite", "generated-text",
                               *sorted({str(r.get("benchmark")) for r in runs.values() if r.get("benchmark")})]))
    metadata.update({"tags": tags, "sciwrite_runs": runs})
    metadata.setdefault("pretty_name", "sciwrite predictions")
    body = "\n".join([
        "# sciwrite predictions",
        "",
        ("Outputs of `sciwrite generate`: one config per run, one row per paper with `paper_id`, `pred` (the "
        "generated text), `desc` (the exact prompt), the run's metadata and, for SciIG, `label` (the reference "
        "introduction)."),
        "",
        _table(runs),
        "",
    ])
    import yaml

    text = "---\n" + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True) + "---\n\n" + body
    return DatasetCard(text)


def run_card_fields(path: str | Path, prediction_splits: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """The card fields of a `sciwrite generate` output file, read from its first line (every line carries the
    run's metadata); a file without them raises `ValueError` naming the missing fields. `prediction_splits` gives,
    per benchmark, the split a line without one is for (`Benchmark.data.prediction_split`)."""
    rows = read_predictions(path)
    if not rows:
        raise ValueError(f"{path} holds no predictions to publish")
    first = rows[0]
    fields = {"benchmark": first.get("benchmark"), "dataset": first.get("dataset") or first.get("benchmark"),
              "split": first.get("split") or (prediction_splits or {}).get(str(first.get("benchmark"))),
              "model": first.get("model"), "method": first.get("method")}
    for extra in ("retriever", "seed", "k", "oracle"):
        if first.get(extra) is not None:
            fields[extra] = first[extra]
    missing = [f for f in CARD_FIELDS if fields.get(f) in (None, "")]
    if missing:
        raise ValueError(f"{path}, line 1: no {missing} field(s); is it a file written by `sciwrite generate`?")
    return fields


def push_predictions(path: str | Path, repo_id: str, card_fields: Mapping[str, Any], *,
                     config_name: str | None = None, split: str = "test", private: bool | None = None,
                     token: str | None = None) -> str:
    """Push the JSON Lines file at `path` to the Hub dataset `repo_id` as config `config_name` (default: the
    file's stem) and update the card; returns the repo's URL. The token comes from `token` or the usual
    Hugging Face login/environment (``HF_TOKEN``)."""
    from huggingface_hub import DatasetCard
    from huggingface_hub.utils import EntryNotFoundError, RepositoryNotFoundError

    path = Path(path)
    config_name = config_name or path.stem
    dataset = predictions_dataset(path)
    dataset.push_to_hub(repo_id, config_name=config_name, split=split, private=private, token=token)
    try:
        existing = DatasetCard.load(repo_id, repo_type="dataset", token=token)
    except (EntryNotFoundError, RepositoryNotFoundError):
        existing = None
    card = prediction_card({**card_fields, "split": card_fields.get("split") or split}, config_name=config_name,
                           n_rows=len(dataset), existing=existing)
    card.push_to_hub(repo_id, repo_type="dataset", token=token,
                     commit_message=f"sciwrite: describe config {config_name}")
    return f"https://huggingface.co/datasets/{repo_id}"


__all__ = ["CARD_FIELDS", "prediction_card", "predictions_dataset", "push_predictions", "read_predictions",
           "run_card_fields"]
