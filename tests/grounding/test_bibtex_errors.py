"""BibTeX reference lists: a byte that is not UTF-8 is named FILE:LINE with its offset (as the JSON Lines reader
does), and an entry bibtexparser cannot read is kept with a real reason and 1-based line numbers."""

from __future__ import annotations

import logging

import pytest

from sciwrite.core.errors import InputError
from sciwrite.grounding.reference_lists import read_reference_list


def test_non_utf8_bibtex_names_the_line_and_offset(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_bytes(b"@article{a,\n  title = {Caf\xe9 society},\n  year = 2020\n}\n")
    with pytest.raises(InputError) as info:
        read_reference_list(bib)
    assert str(info.value) == f"{bib}:2: not UTF-8 text (byte 0xe9 at offset 26); save the file as UTF-8"


def test_broken_entries_have_a_reason_and_1_based_lines(tmp_path, caplog):
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{good,\n  title = {Fine},\n  year = 2020\n}\n\n"
                   "@article{open,\n  title = {Never closed},\n  year = 2021\n\n"
                   "@misc{last, title = {Y}\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        entries = read_reference_list(bib)
    assert [e.where for e in entries] == [f"{bib}:1 @article{{good}}", f"{bib}:6 @article{{open}}",
                                          f"{bib}:10 @misc{{last}}"]
    broken = {e.where: e.problem for e in entries[1:]}
    assert broken[f"{bib}:6 @article{{open}}"].startswith("not a BibTeX entry: Unexpected block start: `@misc`")
    assert "(parsing stopped at line 10)" in broken[f"{bib}:6 @article{{open}}"]
    assert broken[f"{bib}:10 @misc{{last}}"].startswith("not a BibTeX entry: Unexpectedly reached end of file")
    assert all(e.reference is None and "()" not in e.problem for e in entries[1:])
    assert not [r for r in caplog.records if r.name.startswith("bibtexparser")]  # reported once, by us


def test_windows_line_ends_leave_no_carriage_return_in_titles(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_bytes(b"@article{a,\r\n  title = {Attention Is\r\n All You Need},\r\n  year = 2017\r\n}\r\n")
    [listed] = read_reference_list(bib)
    assert listed.reference is not None and "\r" not in listed.reference.title
    assert listed.reference.title.split() == ["Attention", "Is", "All", "You", "Need"]
