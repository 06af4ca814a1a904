"""SciIG prompts, holdout and Table 3 checked against the paper's own text (Garg et al., arXiv:2508.14273).

The ``TABLE_*`` strings are the prompt cells of the paper's Appendix Tables 9-11 as printed (one line each, the
tables flatten line breaks); every prompt is compared with them after collapsing whitespace, with the
placeholders filled by hand for a one-citation paper (so the seeded shuffle cannot matter).
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from sciwrite.cli import main
from sciwrite.core.results import load_summary
from sciwrite.core.summary import Summary
from sciwrite.sciig.data.builder import SciIGBuildReport, split_first_n, split_for_config, write_sciig_folder
from sciwrite.sciig.data.configs import PAPER_HOLDOUT_SIZE, holdout_rule
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation import prompts as sciig_prompts
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.metrics.tables import TABLE3_ROWS, format_table3, table3_rows

TABLE_SHORT = 'You are an AI assistant tasked with generating the Introduction section of a research paper. Below, you are provided with the Title and Abstract of the TARGET PAPER, along with details of RELATED PAPERS that must be cited within the Introduction. Please craft an academic-style Introduction incorporating these citations appropriately. TARGET PAPER: Title: {title} Abstract: {abstract} RELATED PAPERS: {cited_nodes_pretty} Introduction:'
TABLE_MEDIUM = 'You are an AI assistant tasked with generating a structured and well-contextualized Introduction section of a research paper. Below, you will find the Title and Abstract of the TARGET PAPER. Additionally, details of several RELATED PAPERS are provided, which must be cited appropriately within the Introduction. Please incorporate these citations naturally, highlighting how the target paper builds upon or differentiates itself from previous works. IMPORTANT FORMAT REQUIREMENTS: - Clearly establish the research context and significance. - Identify and articulate the research gap or question addressed by the target paper. - Highlight how the contributions of the target paper relate to or extend the cited related works. - Maintain formal academic writing standards. TARGET PAPER: Title: {title} Abstract: {abstract} RELATED PAPERS: Below is a JSON dictionary listing related papers. Each key represents a citation identifier (e.g., ’Li et al. 2022’). Each entry includes the title, authors, and abstract of the paper. The papers are provided in no specific order, and you should incorporate citations naturally where contextually relevant. {cited_nodes_pretty} Introduction:'
TABLE_ELABORATE = 'You are an AI assistant tasked with generating a detailed and structured Introduction section of a research paper based on the provided Title and Abstract. Below, you will find comprehensive descriptions of the TARGET PAPER and several RELATED PAPERS. The TARGET PAPER’s Abstract outlines its primary objectives, methods, and potential contributions. The RELATED PAPERS provide crucial background information, research developments, and existing gaps in the field. Integrate insights from these RELATED PAPERS effectively to establish a clear research context, articulate the significance of existing gaps, and explicitly highlight how the TARGET PAPER addresses these gaps through its novel contributions. Cite these papers in-text using APA format wherever applicable. IMPORTANT FORMAT REQUIREMENTS: - Your response MUST consist of EXACTLY FOUR PARAGRAPHS for the Introduction. - DO NOT deviate from this four-paragraph structure. - Each paragraph must be between 100-150 words, totaling approximately 600 words. STRUCTURE: 1. Paragraph 1: Broad overview of the research area, contextual insights from RELATED PAPERS, significance of the topic. 2. Paragraph 2: Specific problem or gap identified, supported by RELATED PAPERS. 3. Paragraph 3: Novel contributions of the TARGET PAPER, comparison to RELATED PAPERS. 4. Paragraph 4: Summary of significance, potential impact, and research purpose. STYLE AND CONTENT REQUIREMENTS: - Maintain formal academic tone. - Coherent and concise writing directly related to the Title and Abstract. - Effective use of transitional phrases. CITATION INSTRUCTIONS: - DO NOT invent or hallucinate citations. - ONLY cite the provided RELATED PAPERS. - Use APA in-text citation format, e.g., ’(Smith et al.)’. TARGET PAPER: Title: {title} Abstract: {abstract} RELATED PAPERS: Below is a JSON dictionary listing related papers. Each key represents a citation identifier (e.g., ’Li et al. 2022’). Each entry includes the title, authors, and abstract of the paper. The papers are provided in no specific order, and you should incorporate citations naturally where contextually relevant. {cited_nodes_pretty} Introduction:'
TABLE_AUTOCOT = 'You are an advanced AI assistant performing AUTOCOT prompting to autonomously generate intermediate prompts leading to the final Introduction section of a research paper. You have the Title and Abstract of the TARGET PAPER, detailing its scope and contributions, and comprehensive information about RELATED PAPERS, providing necessary background and context. GUIDELINES: - First, autonomously generate and iteratively refine intermediate prompts to: a. Summarize research context and significance from RELATED PAPERS. b. Clearly identify gaps or unresolved challenges. c. Outline the unique contributions and relevance of the TARGET PAPER. - Next, use these refined intermediate prompts to craft a coherent, structured Introduction. STRUCTURE REQUIREMENTS: - The Introduction must contain exactly four paragraphs, each 100–150 words: 1. Contextual overview and significance of the topic. 2. Clearly defined research gap, supported by RELATED PAPERS. 3. Novel contributions of the TARGET PAPER, contrasting with existing literature. 4. Summary of significance, potential impacts, and thesis statement. FORMAT AND CITATION REQUIREMENTS: - Maintain academic rigor, formal tone, and smooth transitions. - Accurately cite only the provided RELATED PAPERS using APA in-text citation format (e.g., ’(Smith et al.)’). TARGET PAPER: Title: {title} Abstract: {abstract} RELATED PAPERS: Below is a JSON dictionary listing related papers. Each key represents a citation identifier (e.g., ’Li et al. 2022’). Each entry includes the title, authors, and abstract of the paper. The papers are provided in no specific order, and you should incorporate citations naturally where contextually relevant. {cited_nodes_pretty} Introduction:'
TABLE_ONE_SHOT = 'You are an AI assistant tasked with generating a detailed and structured Introduction section of a research paper based on the provided Title and Abstract. Below, you will find comprehensive descriptions of the TARGET PAPER and several RELATED PAPERS. The TARGET PAPER’s Abstract outlines its primary objectives, methods, and potential contributions. The RELATED PAPERS provide crucial background information, research developments, and existing gaps in the field. Integrate insights from these RELATED PAPERS effectively to establish a clear research context, articulate the significance of existing gaps, and explicitly highlight how the TARGET PAPER addresses these gaps through its novel contributions. Cite these papers in-text using APA format wherever applicable. IMPORTANT FORMAT REQUIREMENTS: - Your response MUST consist of EXACTLY FOUR PARAGRAPHS for the Introduction. - DO NOT deviate from this four-paragraph structure. - Each paragraph must be between 100-150 words, totaling approximately 600 words. STRUCTURE: 1. Paragraph 1: Broad overview of the research area, contextual insights from RELATED PAPERS, significance of the topic. 2. Paragraph 2: Specific problem or gap identified, supported by RELATED PAPERS. 3. Paragraph 3: Novel contributions of the TARGET PAPER, comparison to RELATED PAPERS. 4. Paragraph 4: Summary of significance, potential impact, and research purpose. STYLE AND CONTENT REQUIREMENTS: - Maintain formal academic tone. - Coherent and concise writing directly related to the Title and Abstract. - Effective use of transitional phrases. CITATION INSTRUCTIONS: - DO NOT invent or hallucinate citations. - ONLY cite the provided RELATED PAPERS. - Use APA in-text citation format, e.g., ’(Smith et al.)’. Here is an example showing how to generate an Introduction (output) based on a paper’s Title, Abstract, and Related Papers (inputs). [Insert one example here.] Now, based on the above example and the guidelines below, please generate the Introduction for the following TARGET PAPER. TARGET PAPER: Title: {title} Abstract: {abstract} RELATED PAPERS: {cited_nodes_pretty} Introduction:'
TABLE_TWO_SHOT = 'Here are two examples showing how to generate an Introduction (output) based on a paper’s Title, Abstract, and Related Papers (inputs). [Insert two examples here.] Now, based on the above examples and the guidelines below, please generate the Introduction for the following TARGET PAPER. [ELABORATE prompt continues as above.]'
TABLE_THREE_SHOT = 'Here are three examples showing how to generate an Introduction (output) based on a paper’s Title, Abstract, and Related Papers (inputs). [Insert three examples here.] Now, based on the above examples and the guidelines below, please generate the Introduction for the following TARGET PAPER. [ELABORATE prompt continues as above.]'

def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


PAPER = {"paper_id": "p1", "title": "Zero-Shot Keyphrase Generation", "abstract": "We study keyphrase generation.",
         "introduction": "REFERENCE INTRO of p1.", "venue": "NAACL", "year": 2025,
         "neighbors": [{"key": "Li et al., 2022", "title": "Convergence of Adam under relaxed assumptions",
                        "authors": ["Haochuan Li"], "abstract": "We study Adam."}]}
# {cited_nodes_pretty} for PAPER, written by hand: the JSON dictionary keyed by citation identifier, pretty-printed
CITED_BY_HAND = """{
  "Li et al., 2022": {
    "title": "Convergence of Adam under relaxed assumptions",
    "authors": [
      "Haochuan Li"
    ],
    "abstract": "We study Adam."
  }
}"""


def by_hand(table_text: str, **values: str) -> str:
    """A table cell with its placeholders replaced by hand."""
    text = table_text.replace("{title}", PAPER["title"]).replace("{abstract}", PAPER["abstract"])
    text = text.replace("{cited_nodes_pretty}", CITED_BY_HAND)
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return squash(text)


def holdout_paper(i: int) -> dict:
    return {"paper_id": f"h{i}", "title": f"Holdout paper {i}", "abstract": f"Holdout abstract {i}.",
            "introduction": f"HOLDOUT INTRO {i}.", "venue": "NAACL", "year": 2025,
            "neighbors": [{"key": f"Wu, 20{10 + i}", "title": f"Work {i}", "authors": ["Y Wu"], "abstract": "Ab."}]}


HOLDOUT = [holdout_paper(i) for i in range(1, 5)]


def prompt(level: str, holdout=HOLDOUT) -> str:
    [message] = SciIGMethod(level, holdout, seed=42).prompt(PAPER)
    assert message["role"] == "user"
    return message["content"]


def test_cited_nodes_pretty_is_the_json_dictionary():
    assert sciig_prompts.render_cited_works(PAPER, 42) == CITED_BY_HAND
    assert json.loads(sciig_prompts.render_cited_works(PAPER, 42)) == {"Li et al., 2022": {
        "title": "Convergence of Adam under relaxed assumptions", "authors": ["Haochuan Li"], "abstract": "We study Adam."}}


@pytest.mark.parametrize("level,table_text", [("SHORT", TABLE_SHORT), ("MEDIUM", TABLE_MEDIUM),
                                              ("ELABORATE", TABLE_ELABORATE), ("AUTOCOT", TABLE_AUTOCOT)])
def test_single_prompts_are_tables_9_and_10_verbatim(level, table_text):
    text = prompt(level)
    assert squash(text) == by_hand(table_text)
    assert text.endswith("Introduction:") and "REFERENCE INTRO" not in text


def test_key_sentences_of_each_level():
    short, medium, elaborate, autocot = (prompt(lv) for lv in ("SHORT", "MEDIUM", "ELABORATE", "AUTOCOT"))
    assert "along with details of RELATED PAPERS that must be cited within the Introduction." in short
    assert "which must be cited appropriately within the Introduction." in medium
    assert "- Identify and articulate the research gap or question addressed by the target paper." in medium
    assert "- Your response MUST consist of EXACTLY FOUR PARAGRAPHS for the Introduction." in elaborate
    assert "- Each paragraph must be between 100-150 words, totaling approximately 600 words." in elaborate
    for n, role in enumerate(["Broad overview of the research area, contextual insights from RELATED PAPERS, "
                              "significance of the topic.", "Specific problem or gap identified, supported by "
                              "RELATED PAPERS.", "Novel contributions of the TARGET PAPER, comparison to RELATED "
                              "PAPERS.", "Summary of significance, potential impact, and research purpose."], 1):
        assert f"{n}. Paragraph {n}: {role}" in elaborate
    assert "- Use APA in-text citation format, e.g., ’(Smith et al.)’." in elaborate
    assert "- Next, use these refined intermediate prompts to craft a coherent, structured Introduction." in autocot
    assert "- The Introduction must contain exactly four paragraphs, each 100–150 words:" in autocot


def test_zero_shot_is_elaborate():
    assert prompt("ZERO_SHOT") == prompt("ELABORATE")
    assert sciig_prompts.load_template("ZERO_SHOT") == sciig_prompts.load_template("ELABORATE")
    assert SciIGMethod("zero-shot").name == "ZERO_SHOT"  # its own output file, the same prompt


def test_templates_ship_with_attribution():
    from importlib import resources

    for name in set(sciig_prompts.TEMPLATE_FILES.values()):
        raw = resources.files("sciwrite.sciig.generation").joinpath("templates", name).read_text(encoding="utf-8")
        assert raw.startswith("# Source: Garg, Shaik, Bandyopadhyay and Caragea") and "arXiv:2508.14273" in raw
    assert not sciig_prompts.load_template("SHORT").startswith("#")


def examples_by_hand(exemplars) -> str:
    blocks = []
    for i, e in enumerate(exemplars, 1):
        n = e["neighbors"][0]
        cited = (f'{{ "{n["key"]}": {{ "title": "{n["title"]}", "authors": [ "Y Wu" ], "abstract": "Ab." }} }}')
        blocks.append(f"Example {i}: Title: {e['title']} Abstract: {e['abstract']} RELATED PAPERS: {cited} "
                      f"Introduction: {e['introduction']}")
    return " ".join(blocks)


def test_one_shot_is_table_11_verbatim():
    method = SciIGMethod("ONE_SHOT", HOLDOUT, seed=42)
    [exemplar] = method.exemplars(PAPER)
    expected = by_hand(TABLE_ONE_SHOT, **{"[Insert one example here.]": examples_by_hand([exemplar])})
    assert squash(prompt("ONE_SHOT")) == expected


@pytest.mark.parametrize("level,word,table_text", [("TWO_SHOT", "two", TABLE_TWO_SHOT),
                                                   ("THREE_SHOT", "three", TABLE_THREE_SHOT)])
def test_two_and_three_shot_follow_table_11_literally(level, word, table_text):
    # Table 11 prints the two sentences around "[Insert two examples here.]", then "[ELABORATE prompt continues as
    # above.]"; its caption: the examples are "prepended to the ELABORATE prompt". So: sentences and examples
    # first, then the whole ELABORATE prompt (Table 9) for the target paper.
    exemplars = SciIGMethod(level, HOLDOUT, seed=42).exemplars(PAPER)
    expected = by_hand(table_text.replace("[ELABORATE prompt continues as above.]", TABLE_ELABORATE),
                       **{f"[Insert {word} examples here.]": examples_by_hand(exemplars)})
    assert squash(prompt(level)) == expected
    assert prompt(level).startswith(f"Here are {word} examples showing how to generate an Introduction (output)")
    assert prompt(level).endswith(prompt("ELABORATE"))  # the ELABORATE prompt, whole and filled, closes it


@pytest.mark.parametrize("level,word,table_text", [("TWO_SHOT_INLINE", "two", TABLE_TWO_SHOT),
                                                   ("THREE_SHOT_INLINE", "three", TABLE_THREE_SHOT)])
def test_the_inline_variants_keep_the_former_reading(level, word, table_text):
    # The former reading, kept as a named variant: the row's two sentences where ONE_SHOT has its own (the
    # ELABORATE instructions before, the ONE_SHOT row's TARGET PAPER block after).
    exemplars = SciIGMethod(level, HOLDOUT, seed=42).exemplars(PAPER)
    changed = table_text.replace(" [ELABORATE prompt continues as above.]", "")
    one_before, _, one_after = TABLE_ONE_SHOT.partition("Here is an example showing")
    one_after = one_after.partition("following TARGET PAPER.")[2]
    expected = by_hand(one_before + changed + one_after,
                       **{f"[Insert {word} examples here.]": examples_by_hand(exemplars)})
    assert squash(prompt(level)) == expected
    assert level not in sciig_prompts.parse_levels(["all"])


def test_few_shot_exemplars_come_from_holdout_and_never_the_paper():
    pool = HOLDOUT + [PAPER, {**PAPER, "paper_id": "copy-of-p1"}]  # the paper itself, and under another id
    for level, k in sciig_prompts.SHOTS.items():
        method = SciIGMethod(level, pool, seed=42)
        exemplars = method.exemplars(PAPER)
        assert len(exemplars) == k and {e["paper_id"] for e in exemplars} <= {h["paper_id"] for h in HOLDOUT}
        text = method.prompt(PAPER)[0]["content"]
        assert "REFERENCE INTRO" not in text and text.count("HOLDOUT INTRO") == k


def test_autocot_is_one_request_scored_whole():
    reply = ("To generate the Introduction section, we will first create intermediate prompts.\n"
             "Intermediate Prompts and Refining Process:\n1. Prompt: \"Summarize ...\"\n"
             "Crafting the Introduction:\nParagraph 1: Contextual Overview and Significance\n"
             "Keyphrase generation is a crucial task (Li et al., 2022).\nParagraph 2: Clearly Defined Research Gap\n"
             "Gaps remain.")
    calls = []

    async def llm(messages, **_):
        calls.append(messages)
        return "  " + reply + "\n"

    result = asyncio.run(SciIGMethod("AUTOCOT", seed=42).run(PAPER, llm))
    assert len(calls) == 1 and squash(calls[0][0]["content"]) == by_hand(TABLE_AUTOCOT)
    assert result.pred == reply  # the whole output, intermediate prompts included (the paper's Table 15)
    assert result.extra["autocot_introduction"] == ("Keyphrase generation is a crucial task (Li et al., 2022).\n"
                                                    "Gaps remain.")
    assert sciig_prompts.autocot_introduction("Just an introduction.") is None
    assert "AUTOCOT_PIPELINE" not in sciig_prompts.LEVELS and "AUTOCOT_PIPELINE" in sciig_prompts.ALL_LEVELS


# ------------------------------------------------------------------------------------------------ holdout


def records(n: int) -> list[dict]:
    return [{**holdout_paper(i), "paper_id": f"p{i:03d}"} for i in range(n)]


def test_first_52_are_the_holdout():
    rows = records(60)
    split = split_first_n(rows)
    assert PAPER_HOLDOUT_SIZE == 52
    assert [r["paper_id"] for r in split["holdout"]] == [f"p{i:03d}" for i in range(52)]
    assert [r["paper_id"] for r in split["test"]] == [f"p{i:03d}" for i in range(52, 60)]
    assert split_first_n(rows[::-1])["holdout"] == rows[::-1][:52]  # file order, not ids
    for config in ("naacl_2025", "iclr_2025"):
        assert split_for_config(config, rows) == split
        assert "first 52 papers of the data file" in holdout_rule(config)
    sample = split_for_config("sample", rows)
    assert sample != split and len(sample["holdout"]) < 52 and "hash" in holdout_rule("sample")
    small = split_first_n(rows[:10])  # a fixture smaller than the rule keeps one test paper
    assert len(small["holdout"]) == 9 and small["test"] == rows[9:10]


def test_written_config_keeps_the_paper_split(tmp_path):
    rows = records(55)
    write_sciig_folder(tmp_path, "naacl_2025", rows, SciIGBuildReport(n_source_papers=55))
    both = load_sciig("naacl_2025", source=tmp_path, split="all")
    assert both["holdout"]["paper_id"] == [f"p{i:03d}" for i in range(52)]
    assert both["test"]["paper_id"] == ["p052", "p053", "p054"]
    report = json.loads((tmp_path / "build_report.json").read_text())
    assert report["naacl_2025"]["holdout_rule"] == holdout_rule("naacl_2025")


# ---------------------------------------------------------------------------------------------- Table 3


def test_table3_layout(tmp_path):
    elaborate = {"rouge1": 0.4402, "rouge2": 0.1509, "perplexity": 18.487, "bleu": None,
                 "not_computed": {"bleu": "no model"}}
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"rouge1": 0.4261, "judge_narrative_quality": 0.8997}))
    summaries = {"elaborate": Summary.from_json(elaborate), "SHORT": load_summary(path),
                 "THREE_SHOT": Summary.from_json({"rouge1": 0.446})}
    lines = format_table3(summaries).split("\n")
    assert lines[0] == ("                                                         ------- Instruction-Level --------  "
                        "---------------- Few-Shot ---------------")
    assert lines[1] == ("Category              Metric                              Short  Medium  Elaborate  AutoCoT"
                        "  Zero-Shot  One-Shot  Two-Shot  Three-Shot")
    assert lines[2] == ("Lexical Overlap       ROUGE-1                            0.4261       -     0.4402        -"
                        "     0.4402         -         -      0.4460")
    assert lines[3].startswith("                      ROUGE-2 ")  # the category only on its group's first row
    assert lines[5].split() == ["BLEU"] + ["-"] * 8  # not computed
    assert lines[-2].split() == ["Narrative", "Quality", "Perplexity", "↓", "-", "-", "18.4870", "-", "18.4870", "-",
                                 "-", "-"]
    assert lines[-1].split()[-8:] == ["0.8997"] + ["-"] * 7
    assert len(lines) == 2 + len(TABLE3_ROWS) == 26
    assert [line[:22].strip() for line in lines[2:] if line[:22].strip()] == [
        "Lexical Overlap", "Semantic Similarity", "Content Coverage", "Faithfulness", "Consistency",
        "Citation Correctness", "Narrative Quality"]
    assert [label for _, label, _ in TABLE3_ROWS][16] == "Entailement-based Consistency"  # sic, as printed
    rows = table3_rows(summaries)
    assert rows[0]["Zero-Shot"] == rows[0]["Elaborate"] == 0.4402  # ZERO_SHOT is the ELABORATE run
    with pytest.raises(ValueError, match="AUTOCOT_PIPELINE is not a column of SciIG Table 3"):
        table3_rows({"AUTOCOT_PIPELINE": Summary()})


def test_table3_command_prints_and_writes_the_table(tmp_path, capsys):
    short, three = tmp_path / "short.json", tmp_path / "three.json"
    sciig = {"schema_version": 2, "provenance": {"benchmark": "sciig"}}  # a sciwrite SciIG summary (its provenance)
    short.write_text(json.dumps({**sciig, "rouge1": 0.4261}))
    three.write_text(json.dumps({**sciig, "rouge1": 0.446}))
    assert main(["paper-table", "sciig-table3", "--summary", f"SHORT={short}", f"THREE_SHOT={three}",
                 "--out", str(tmp_path / "table3")]) == 0
    printed = capsys.readouterr().out
    assert "Instruction-Level" in printed and "Few-Shot" in printed
    rows = json.loads((tmp_path / "table3.json").read_text())
    assert rows[0]["metric"] == "ROUGE-1" and rows[0]["Short"] == 0.4261 and rows[0]["Three-Shot"] == 0.446
    assert rows[0]["Medium"] is None and (tmp_path / "table3.csv").is_file()
    assert main(["paper-table", "sciig-table3", "--summary", f"NOT_A_LEVEL={short}"]) == 2
