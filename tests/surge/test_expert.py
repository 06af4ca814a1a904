"""The expert survey as text (`sciwrite.surge.data.expert`): a hand-made survey rendered and read back by SurGE's own
reader (headings, markers, references), every survey of the offline sample read back with its own heading tree, the
text kept from every prompt, and ``sciwrite build surge-expert`` scored by ``sciwrite evaluate surge`` as a system
(Coverage 1.0 wherever SurGE's exact-title resolution can find every cited work)."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.surge.benchmark import SURGE
from sciwrite.surge.data.expert import expert_markdown, join_references, listed_title, split_references
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.generation.prompts import TOPICS
from sciwrite.surge.generation.records import survey_inputs
from sciwrite.surge.metrics.coverage import surge_normalize
from sciwrite.surge.survey_markdown import parse_survey
from tests.surge.test_upstream_build import build, query_record, survey_record, write_files

STRUCTURE = [
    {"id": "0", "parent_id": "", "title": "root", "content": "Opening words."},
    {"id": "a", "parent_id": "0", "title": "Intro", "content": "First line.\nSecond line ends here."},
    {"id": "b", "parent_id": "a", "title": "Deeper", "content": "Interval [0, 1] holds. "},
    {"id": "c", "parent_id": "0", "title": "  Methods\n  and data ", "content": "# not a heading\nNo period"},
    {"id": "d", "parent_id": "0", "title": "", "content": ""},
]
CITES = {"a": ["x", "y"], "b": ["y", "z", "u"], "c": ["w"], "0": []}
TITLES = {"x": "Paper X", "y": "Paper Y", "z": "Paper Z", "w": "Paper W", "v": "Paper V", "e": " "}
ALL_CITES = ["x", "y", "z", "u", "w", "v", "e"]

# Worked out by hand: x, y numbered 1, 2 in Intro; Deeper cites y again (2) and z (3), u has no corpus title (left
# out); Methods cites w (4); v, cited by no section, is listed 5th; e's title is blank (left out). The markers stand
# before a closing period; "[0, 1]" is written "(0, 1)"; a content line opening with "# " is escaped; an empty title
# is "(untitled)".
EXPECTED = """# Survey Title

Opening words.

## Intro

First line.

Second line ends here [1][2].

### Deeper

Interval (0, 1) holds [2][3].

## Methods and data

\\# not a heading

No period [4]

## (untitled)

## References

[1] Paper X
[2] Paper Y
[3] Paper Z
[4] Paper W
[5] Paper V
"""


def render() -> str:
    return expert_markdown("Survey Title", STRUCTURE, CITES, TITLES, ALL_CITES)


def test_a_hand_made_survey_is_rendered_as_worked_out():
    assert render() == EXPECTED


def test_surges_reader_reads_back_the_tree_the_markers_and_the_references():
    doc = parse_survey(render())
    [top] = doc.root.children
    assert (top.level, top.title) == (1, "Survey Title")
    assert [(node.title, depth) for node, depth in doc.walk() if depth > 1] == [
        ("Intro", 2), ("Deeper", 3), ("Methods and data", 2), ("(untitled)", 2), ("References", 2)]
    # our reading (the reference list left out): each marker under its section, in its sentence
    assert [(m.number, m.heading, m.sentence) for m in doc.markers(upstream=False)] == [
        (1, "Intro", "Second line ends here [1][2]"), (2, "Intro", "Second line ends here [1][2]"),
        (2, "Deeper", "Interval (0, 1) holds [2][3]"), (3, "Deeper", "Interval (0, 1) holds [2][3]"),
        (4, "Methods and data", "\\# not a heading\n\nNo period [4]")]  # no period before it: from the start
    # SurGE's own reading also counts the reference list's five [n] lines
    assert [m.number for m in doc.markers(upstream=True)] == [1, 2, 2, 3, 4, 1, 2, 3, 4, 5]
    assert {n: ref.title for n, ref in doc.references.items()} == {
        1: "Paper X", 2: "Paper Y", 3: "Paper Z", 4: "Paper W", 5: "Paper V"}
    assert doc.upstream_references() == {1: "Paper X", 2: "Paper Y", 3: "Paper Z", 4: "Paper W", 5: "Paper V"}


def test_a_listed_title_is_read_whole_and_keeps_its_letters():
    # corpus titles of the sample: a quoted phrase, asterisks; SurGE's reader must not take a part for the title
    for title, listed in [
        ('Using "annotator rationales" to improve machine learning', "Using 'annotator rationales' to improve machine "
                                                                     "learning"),
        ("K*: An instance-based learner *", "K : An instance-based learner"),
        ("\u201cBias\u201d in  NLP\n", "'Bias' in NLP"),
    ]:
        assert listed_title(title) == listed
        [ref] = parse_survey(f"# S\n\n## References\n\n[1] {listed}\n").reference_entries
        assert ref.title == listed and surge_normalize(ref.title) == surge_normalize(title)


def test_no_cites_no_reference_list_and_the_parts_join_back():
    text = expert_markdown("T", STRUCTURE[:2])
    assert text == "# T\n\nOpening words.\n\n## Intro\n\nFirst line.\n\nSecond line ends here.\n"
    assert split_references(text) == (text, [])
    body, refs = split_references(render())
    assert refs == [(1, "Paper X"), (2, "Paper Y"), (3, "Paper Z"), (4, "Paper W"), (5, "Paper V")]
    assert body.endswith("## (untitled)") and join_references(body, refs) == render()


def test_the_upstream_build_writes_each_surveys_text(tmp_path):
    # doc 4 merges into doc 2 (the same title): the subsection cites 3 and 2, numbered 1 and 2; doc 1, cited by no
    # section, is listed 3rd
    folder = write_files(tmp_path / "files", [survey_record(7, cites=[1, 2, 4, 3])],
                         [query_record("7-1-1", [3, 4])])
    build(folder, tmp_path / "out")
    [text] = load_surge("surveys", source=str(tmp_path / "out"))["text"]
    assert text == ("# A Survey of Graph Learning\n\nIntro text.\n\n## Background\n\nGraphs are everywhere.\n\n"
                    "### Message passing\n\nNeighbours talk [1][2].\n\n## References\n\n"
                    "[1] Neural Message Passing for Quantum Chemistry\n[2] Graph Attention Networks\n"
                    "[3] Graph Convolutional Networks\n")


@pytest.fixture(scope="module")
def surge_sample(surge_sample_folder):
    """The SurGE sample built from the packaged ACL papers (read-only)."""
    return surge_sample_folder


def _tree(structure) -> list[tuple[str, int]]:
    """(title, depth) of the structure's sections in pre-order, worked out from parent_id alone."""
    children: dict[str, list[dict]] = {}
    for section in structure:
        children.setdefault(section["parent_id"], []).append(section)
    out = []

    def visit(section, depth):
        out.append((" ".join(section["title"].split()), depth))
        for child in children.get(section["id"], []):
            visit(child, depth + 1)

    visit(next(s for s in structure if s["title"] == "root"), 0)
    return out


def test_every_sample_survey_reads_back_with_its_own_heading_tree(surge_sample):
    surveys = load_surge("sample", source=str(surge_sample)).to_list()
    corpus = load_surge("sample_corpus", source=str(surge_sample))
    titles = dict(zip(corpus["doc_id"], corpus["title"]))
    for survey in surveys:
        doc = parse_survey(survey["text"])
        [top] = doc.root.children
        read = [(node.title, depth - 1) for node, depth in doc.walk() if depth > 1]
        tree = _tree(survey["structure"])
        assert top.title == " ".join(survey["title"].split()) and tree[0][1] == 0
        assert read == [*tree[1:], ("References", 1)], survey["paper_id"]
        # every cited work listed once, numbered 1..n, the markers' first appearances in order
        assert [r.number for r in doc.reference_entries[-len(survey["all_cites"]):]] == \
            list(range(1, len(survey["all_cites"]) + 1))
        assert {doc.references[n].title for n in doc.references} == \
            {listed_title(titles[c]).rstrip(".").strip() for c in survey["all_cites"]}
        cited = [m.number for m in doc.markers(upstream=False)]
        assert list(dict.fromkeys(cited)) == list(range(1, len(dict.fromkeys(cited)) + 1))


def test_the_text_is_an_answer_field_and_never_a_methods_input(surge_sample):
    assert SURGE.data.answer_fields[0] == "text"  # an Inspect sample's target
    survey = load_surge("sample", source=str(surge_sample))[0]
    for topic in TOPICS:
        record = survey_inputs(survey, topic)
        assert not set(record) & set(SURGE.data.answer_fields)
        # nothing but the title is taken from the text (the abstract is not in it)
        assert [key for key, value in record.items() if isinstance(value, str) and len(value) > 20
                and value in survey["text"]] == ["title"]


def test_the_expert_surveys_score_as_a_system_with_full_coverage_where_titles_resolve(surge_sample, tmp_path,
                                                                                      capsys):
    predictions = tmp_path / "expert.jsonl"
    assert main(["build", "surge-expert", "--source", str(surge_sample), "--out", str(predictions)]) == 0
    records = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    surveys = load_surge("sample", source=str(surge_sample)).to_list()
    assert [r["paper_id"] for r in records] == [s["paper_id"] for s in surveys]
    assert all(r["model"] == "Human" and r["method"] == "expert" and r["text"] == s["text"]
               for r, s in zip(records, surveys))
    out = tmp_path / "eval"
    assert main(["evaluate", "surge", "--predictions", str(predictions), "--source", str(surge_sample),
                 "--profile", "lite", "--metrics", "reference_coverage", "--bootstrap", "0", "--out", str(out)]) == 0
    rows = {r["paper_id"]: r for r in map(json.loads, (out / "expert" / "per_paper.jsonl").read_text().splitlines())}
    # SurGE resolves a reference by its title's ASCII letters, the corpus's LAST paper with those letters winning:
    # a cited work is found unless a later corpus paper has the same letters ("State-of-the-art" / "Stateof-the-art")
    corpus = load_surge("sample_corpus", source=str(surge_sample))
    last_row = {surge_normalize(title): row for row, title in enumerate(corpus["title"])}
    row_of = {doc_id: row for row, doc_id in enumerate(corpus["doc_id"])}
    title_of = dict(zip(corpus["doc_id"], corpus["title"]))
    full = 0
    for survey in surveys:
        findable = [c for c in survey["all_cites"] if last_row[surge_normalize(title_of[c])] == row_of[c]]
        assert rows[survey["paper_id"]]["reference_coverage"] == pytest.approx(len(findable) /
                                                                             len(survey["all_cites"]))
        full += len(findable) == len(survey["all_cites"])
    assert full == sum(r["reference_coverage"] == 1.0 for r in rows.values()) > len(surveys) / 2
