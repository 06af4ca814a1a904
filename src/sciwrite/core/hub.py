"""Publishing a generation output file on the Hugging Face Hub as a dataset config, with a small card.

`push_predictions(path, repo_id, card_fields)` reads the JSON Lines file into a `datasets.Dataset`, pushes it as
config ``<file stem>`` (split ``test`` by default) with `Dataset.push_to_hub`, then updates the repo's card: the
card keeps whatever the Hub wrote (``configs``, ``dataset_info``) and lists every config pushed by sciwrite, with
its benchmark, dataset, split, model and method, in a ``sciwrite_runs`` metadata field and a table. Building the
dataset and the card (`predictions_dataset`, `prediction_card`) needs no network; only the push does.

Each run also carries what its generator cost (`generator_cost`), from the usage ledger ``sciwrite generate`` wrote
beside the file (``usage.jsonl``, this run's lines): requests, input / output / reasoning tokens per paper, dollars
per paper and in total, and the price table, priced and summed by `sciwrite.core.costs` as the leaderboard does.
Without a ledger, or with a request no price covered, the dollars say "unknown" and why, never 0; a ledger that
disagrees with the predictions is refused in one line naming its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from sciwrite.core.costs import (
    GENERATOR,
    UNKNOWN,
    RunCost,
    cost_text,
    read_ledger,
    run_cost,
    unknown_cost,
)
from sciwrite.core.jsonl import read_json_lines
from sciwrite.core.summary import Summary
from sciwrite.llm.ledger import LEDGER_NAME

#: The card fields every run is described by (others given are kept too).
CARD_FIELDS: tuple[str, ...] = ("benchmark", "dataset", "split", "model", "method")
#: The generator's cost fields of a run on the card (`cost_fields`), and each one's column in the card's table.
COST_CARD_COLUMNS: tuple[tuple[str, str], ...] = (
    ("gen_requests", "requests"), ("cost_gen_per_paper", "$/paper"), ("cost_gen_total", "$ total"),
    ("tokens_in_per_paper", "tokens/paper in"), ("tokens_out_per_paper", "tokens/paper out"),
    ("tokens_reasoning_per_paper", "tokens/paper reasoning"), ("price_table", "prices"))
#: The `cost_text` format of each dollar field (the others are counts).
_DOLLARS = {"cost_gen_per_paper": "cost_gen_per_paper", "cost_gen_total": "cost_total"}


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


def generator_cost(path: str | Path, records: Sequence[Mapping[str, Any]]) -> RunCost:
    """What the generator of the predictions at `path` cost: this run's lines (`run_lines`, the file's stem) of the
    ``usage.jsonl`` beside it, checked against the predictions' papers (`InputError` naming the ledger's file and
    line) and summed over them (`run_cost`, its generator side); unknown, saying why, without a ledger."""
    path = Path(path)
    paper_ids = {str(r["paper_id"]) for r in records if r.get("paper_id") is not None}
    ledger = path.parent / LEDGER_NAME
    if not ledger.is_file():
        return unknown_cost(len(paper_ids), f"no {LEDGER_NAME} beside the predictions")
    return run_cost([read_ledger(ledger, GENERATOR, path.stem)], Summary.from_json({"n_papers": len(paper_ids)}),
                    paper_ids)


def _rounded(value: float | None, digits: int) -> float | str:
    return UNKNOWN if value is None else round(value, digits)


def cost_fields(cost: RunCost) -> dict[str, Any]:
    """A run's generator cost as card fields (`COST_CARD_COLUMNS`): numbers, `UNKNOWN` where not known (never 0),
    and ``cost_unknown`` saying why when the dollars are unknown."""
    gen = cost.generator
    fields: dict[str, Any] = {
        "gen_requests": UNKNOWN if gen.requests is None else gen.requests,
        "cost_gen_per_paper": _rounded(cost.per_paper(gen.cost_usd), 8),
        "cost_gen_total": _rounded(gen.cost_usd, 8),
        "tokens_in_per_paper": _rounded(cost.per_paper(gen.input_tokens), 1),
        "tokens_out_per_paper": _rounded(cost.per_paper(gen.output_tokens), 1),
        "tokens_reasoning_per_paper": _rounded(cost.per_paper(gen.reasoning_tokens), 1),
        "price_table": "; ".join(gen.pricing) or UNKNOWN}
    if not gen.known:
        fields["cost_unknown"] = gen.why
    return fields


def cost_cell(key: str, value: Any) -> str:
    """One cost cell of the card's table: ``$0.0225``, ``1,750``, or `UNKNOWN` (also for a run pushed before the
    card carried costs)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value) if value not in (None, "") else UNKNOWN
    return cost_text(_DOLLARS[key], float(value)) if key in _DOLLARS else f"{value:,.0f}"


def cost_summary(fields: Mapping[str, Any]) -> str:
    """The generator's cost in a line: ``$0.045 total, $0.0225/paper (prices: ...)``, or ``unknown (why)``."""
    if fields.get("cost_unknown"):
        return f"{UNKNOWN} ({fields['cost_unknown']})"
    return (f"{cost_cell('cost_gen_total', fields.get('cost_gen_total'))} total, "
            f"{cost_cell('cost_gen_per_paper', fields.get('cost_gen_per_paper'))}/paper "
            f"(prices: {fields.get('price_table') or UNKNOWN})")


def _table(runs: Mapping[str, Mapping[str, Any]]) -> str:
    header = ["config", *CARD_FIELDS, "rows", *(label for _, label in COST_CARD_COLUMNS)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for config, fields in sorted(runs.items()):
        cells = [f"`{config}`", *(str(fields.get(f, "")) for f in CARD_FIELDS), str(fields.get("rows", "")),
                 *(cost_cell(key, fields.get(key)) for key, _ in COST_CARD_COLUMNS)]
        if fields.get("cost_unknown"):  # say why beside the total
            cells[-len(COST_CARD_COLUMNS) + 2] = f"{UNKNOWN} ({fields['cost_unknown']})"
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
        ("What each run's generator cost comes from the usage ledger `sciwrite generate` wrote beside it "
         "(`usage.jsonl`): requests, tokens per paper (input, output, reasoning), dollars per paper and in total, "
         "and the prices they were computed with. \"unknown\" means no ledger came with the run or a request had "
         "no price: never 0."),
        "",
        _table(runs),
        "",
    ])
    text = "---\n" + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True) + "---\n\n" + body
    return DatasetCard(text)


def run_card_fields(path: str | Path, prediction_splits: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """The card fields of a `sciwrite generate` output file, read from its first line (every line carries the
    run's metadata); a file without them raises `ValueError` naming the missing fields. `prediction_splits` gives,
    per benchmark, the split a line without one is for (`Benchmark.data.prediction_split`). The generator's cost
    (`cost_fields` of `generator_cost`) comes with them."""
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
    return {**fields, **cost_fields(generator_cost(path, rows))}


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


__all__ = ["CARD_FIELDS", "COST_CARD_COLUMNS", "cost_cell", "cost_fields", "cost_summary", "generator_cost",
           "prediction_card", "predictions_dataset", "push_predictions", "read_predictions", "run_card_fields"]
