"""``--cutoff`` reads each paper's ``published`` date: one it cannot read is an error when the split is opened,
naming the split, the paper and the field, before any model loads or any file is written."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

import sciwrite.scoring.core
from sciwrite.cli import main
from sciwrite.core.datasets import remove_stale_parquet, write_split
from sciwrite.core.errors import InputError
from sciwrite.metrics.cutoff import AFTER, BEFORE, check_dates, published_date, side
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.data.loading import load_rwgbench


@pytest.mark.parametrize(("value", "day"), [
    ("2026-07-03", date(2026, 7, 3)), ("2026-07-03T17:59:59Z", date(2026, 7, 3)), (" 2026-07-03 ", date(2026, 7, 3)),
    (datetime(2026, 7, 3, 17, 59), date(2026, 7, 3)), (date(2026, 7, 3), date(2026, 7, 3)), (None, None), ("", None),
])
def test_published_dates_that_read(value, day):
    assert published_date(value) == day


@pytest.mark.parametrize("value", ["2026-02-30", "03/07/2026", "July 3, 2026", "2026-7-3", "20260703", "2026"])
def test_published_values_that_are_not_dates_are_refused(value):
    with pytest.raises(ValueError, match=r"is not a date written YYYY-MM-DD"):
        published_date(value)


def test_check_dates_names_the_split_the_paper_and_the_field():
    papers = [{"paper_id": "p1", "published": "2026-07-01"}, {"paper_id": "p2", "published": "2026-13-01"},
              {"paper_id": "p3", "published": "soon"}, {"paper_id": "p4", "published": None}]
    with pytest.raises(InputError, match=r"^data/fresh split 'test', record 'p2', field 'published': '2026-13-01' is "
                                         r"not a date written YYYY-MM-DD .*\(1 more papers too\); write it as"):
        check_dates(papers, "data/fresh split 'test'")
    check_dates(papers[:1] + papers[3:], "data/fresh split 'test'")  # a missing date is allowed: the year is used
    assert side(papers[0], date(2026, 7, 1)) == BEFORE and side(papers[0], date(2026, 6, 30)) == AFTER
    with pytest.raises(InputError, match=r"record 'p3', field 'published': 'soon' is not a date"):
        side(papers[2], date(2026, 7, 1))


def test_evaluate_refuses_a_bad_date_before_any_model_loads(mini_sample_copy, tmp_path, capsys, monkeypatch):
    papers = load_rwgbench("sample", source=mini_sample_copy)
    bad_id = papers[1]["paper_id"]
    dated = papers.map(lambda p, i: {"arxiv_id": f"2607.0000{i}", "arxiv_version": 1, "licence": "cc-by-4.0",
                                     "published": "2026-07-32" if i == 1 else f"2026-07-0{i + 1}"}, with_indices=True)
    remove_stale_parquet(mini_sample_copy, "sample")
    write_split(mini_sample_copy, "sample", "test", dated)
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps(r) + "\n" for r in human_gt_records(papers, "sample")))
    loaded = []
    monkeypatch.setattr(sciwrite.scoring.core, "load_models", lambda *args, **kwargs: loaded.append(args))
    out = tmp_path / "eval"
    assert main(["evaluate", "rwgbench", "--predictions", str(human), "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "--bootstrap", "0", "--cutoff", "2026-07-02",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    [line] = [x for x in err.splitlines() if x.startswith("sciwrite: error: ")]
    assert "Traceback" not in err and str(mini_sample_copy) in line and "split 'sample'" in line
    assert f"record '{bad_id}', field 'published': '2026-07-32' is not a date written YYYY-MM-DD" in line
    assert loaded == [] and sorted(out.rglob("*")) == []  # nothing scored, nothing written
