"""The typed per-paper row (`sciwrite.core.paper_row.PaperRow`): what it types, and that a row read and written
again is the same bytes (the result files, the leaderboard's store and an Inspect log keep rows as JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.core.paper_row import PaperGrounding, PaperRow, typed_rows

ROWS = Path(__file__).parent / "rows" / "per_paper.jsonl"


def _lines() -> list[str]:
    return ROWS.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("line", _lines(), ids=lambda line: json.loads(line)["system"])
def test_a_row_read_and_written_again_is_the_same_bytes(line: str) -> None:
    row = PaperRow.from_json(json.loads(line))
    assert json.dumps(row.to_json(), ensure_ascii=False) == line


def test_a_row_types_what_every_benchmark_has() -> None:
    rag, sciig, panel, errors = typed_rows(json.loads(line) for line in _lines())
    assert (rag.paper_id, rag.system, rag.benchmark) == ("2020.aacl-main.33", "rag-bm25", "rwgbench")
    assert rag.value("precision") == 0.375 and rag.value("n_cited") == 8  # metrics and counts are numbers
    assert "empty_citation_output" in rag.details and "empty_citation_output" not in rag.values  # a bool is no number
    assert rag.grounding is not None and rag.grounding.listed and len(rag.grounding.references) == 8
    assert rag.value("grounding_found_rate") == 1.0  # the grounding's rates are numbers of the row
    assert rag.value("not a key") is None and rag.errors == {} and rag.judge_panel == {}
    assert sciig.grounding is None and "bleu_stats" in sciig.details
    assert panel.judge_panel == {"judge-a": {"llm_judge": (0.75, None)}, "judge-b": {"llm_judge": (1.0, 0.5)}}
    assert panel.grounding == PaperGrounding("references", (), "line 3: no title") and not panel.grounding.listed
    assert panel.value("recall") is None and "recall" in panel.values  # None: not computed for this paper
    assert panel.details.get("judge_error") is None  # a None field reads as None from either mapping
    assert errors.errors == {"perplexity": "CUDA out of memory"} and errors.value("perplexity") is None


def test_reported_gives_what_the_row_holds_whatever_its_type() -> None:
    row = PaperRow.from_json({"paper_id": "p", "precision": "high", "recall": 0.5})
    assert row.reported("precision") == "high" and row.value("precision") is None  # for the scale checks to refuse
    assert row.reported("recall") == 0.5


def test_added_numbers_and_fields_come_after_the_row_s_own_in_order() -> None:
    row = PaperRow.from_json({"paper_id": "p", "recall": 0.5, "flag": True})
    more = row.with_values({"memorisation": 0.25, "recall": 0.75})
    assert list(more.to_json()) == ["paper_id", "recall", "flag", "memorisation"]
    assert more.to_json()["recall"] == 0.75 and row.value("recall") == 0.5  # a new row; the old one is unchanged
    grounded = row.with_fields({"grounding_source": "candidates", "grounding_references": [{"n": 1}],
                                "grounding_n_found": 1})
    assert grounded.grounding == PaperGrounding("candidates", ({"n": 1},), None) and grounded.value("grounding_n_found") == 1


def test_a_row_built_in_code_writes_what_it_holds() -> None:
    row = PaperRow(paper_id="p", values={"length_ratio": 0.5, "judged": None}, errors={"judge": "timeout"})
    assert row.to_json() == {"paper_id": "p", "length_ratio": 0.5, "judged": None, "errors": {"judge": "timeout"}}


def test_a_name_that_is_not_text_is_kept_as_read() -> None:
    row = PaperRow.from_json({"paper_id": 7, "precision": 0.5})
    assert row.paper_id is None and row.to_json() == {"paper_id": 7, "precision": 0.5}
