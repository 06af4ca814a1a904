"""SciIG lexical metrics: ROUGE and BLEU equal their libraries on real introductions; METEOR equals nltk's with real
WordNet synonyms; bad input is named, long input is scored whole."""

from __future__ import annotations

import json

import pytest

import sciwrite
from sciwrite.sciig.metrics.lexical import (
    meteor_tokens,
    score_bleu,
    score_meteor,
    score_rouge,
)
from sciwrite.sciig.metrics.wordnet import (
    LEXNAMES,
    WordNetUnavailableError,
    lexnames_text,
    prepare_wordnet,
    wordnet_or_reason,
)


@pytest.fixture(scope="module")
def introductions() -> list[tuple[str, str]]:
    """(introduction, abstract) of three real ACL papers shipped by aclsum."""
    from sciwrite.sources.aclsum import aclsum_paper_dir

    papers = []
    for path in sorted(aclsum_paper_dir().glob("*.json"))[:3]:
        paper = json.loads(path.read_text())
        intro = "\n\n".join(p["text"] for p in paper["pdf_parse"]["body_text"] if p["section"] == "Introduction")
        papers.append((intro, paper["abstract"] if isinstance(paper["abstract"], str) else " ".join(p["text"] for p in paper["abstract"])))
    assert all(intro and abstract for intro, abstract in papers)
    return papers


@pytest.fixture(scope="module")
def wordnet():
    reader, why = wordnet_or_reason()
    if reader is None:
        pytest.skip(f"WordNet is not installed here ({why})")
    return reader


def test_rouge_equals_rouge_score_on_real_text(introductions):
    from rouge_score import rouge_scorer

    predictions = [intro for intro, _ in introductions]
    references = [abstract for _, abstract in introductions[1:]] + [introductions[0][1]]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    for row, p, r in zip(score_rouge(predictions, references), predictions, references):
        expected = scorer.score(r, p)
        assert row == pytest.approx({k: expected[k].fmeasure for k in ("rouge1", "rouge2", "rougeL")}, abs=1e-12)
    module = sciwrite.load_metric("sciig_rouge").compute(predictions=predictions, references=references)
    assert module["rougeL"] == pytest.approx(sum(scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(predictions, references)) / 3)


def test_bleu_equals_sacrebleu_on_real_text(introductions):
    import sacrebleu

    predictions = [abstract for _, abstract in introductions]
    references = [intro for intro, _ in introductions]
    corpus, rows = score_bleu(predictions, references)
    assert corpus == pytest.approx(sacrebleu.corpus_bleu(predictions, [references]).score)
    assert [r["bleu"] for r in rows] == pytest.approx([sacrebleu.sentence_bleu(p, [r]).score for p, r in zip(predictions, references)])
    module = sciwrite.load_metric("sciig_bleu").compute(predictions=predictions, references=references)
    assert module["corpus_bleu"] == pytest.approx(corpus / 100) and 0.0 < module["bleu"] < 1.0  # the paper's 0-1


def test_lexnames_is_wordnet_30s_list():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45 and lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1"
    assert lines[-1] == "44\tadj.ppl\t3" and lines[43] == "43\tverb.weather\t2"
    assert [c for _, c in LEXNAMES].count(1) == 26 and [c for _, c in LEXNAMES].count(2) == 15


def test_wordnet_reader_reads_real_synonyms(wordnet):
    assert wordnet.get_version() == "3.0"
    assert wordnet.synsets("dog")[0].lexname() == "noun.animal"  # lexnames lines up with the data files
    assert wordnet.synsets("run", "v")[0].lexname() == "verb.motion"
    assert "large" in {lemma.name() for synset in wordnet.synsets("big") for lemma in synset.lemmas()}


def test_meteor_equals_nltk_with_a_real_synonym(wordnet):
    from nltk.translate.meteor_score import meteor_score

    class NoSynonyms:
        def synsets(self, *_args, **_kwargs):
            return []

    # car ~ auto only through WordNet (nltk matches synonyms after Porter stemming, so "big" ~ "large" would not
    # match: the leftover reference word is "larg")
    reference = "The model drives the auto on a road."
    prediction = "The model drives the car on a road."
    expected = meteor_score([meteor_tokens(reference)], meteor_tokens(prediction), wordnet=wordnet)
    without = meteor_score([meteor_tokens(reference)], meteor_tokens(prediction), wordnet=NoSynonyms())
    assert score_meteor([prediction], [reference], wordnet)[0]["meteor"] == pytest.approx(expected)
    assert expected > without + 0.1  # the synonym stage matched "car" to "auto"
    module = sciwrite.load_metric("sciig_meteor").compute(predictions=[prediction], references=[reference])
    assert module["meteor"] == pytest.approx(expected)


def test_meteor_not_computed_without_wordnet(tmp_path, monkeypatch):
    with pytest.raises(WordNetUnavailableError, match="apt-get install wordnet-base"):
        prepare_wordnet(source=tmp_path / "no-wordnet", target=tmp_path)

    def missing():
        raise WordNetUnavailableError("no WordNet database at /nowhere; install WordNet: `apt-get install wordnet-base`")

    monkeypatch.setattr("sciwrite.sciig.metrics.wordnet.load_wordnet", missing)
    results = sciwrite.load_metric("sciig_meteor").compute(predictions=["a"], references=["a"])
    assert results["meteor"] is None and "wordnet-base" in results["not_computed"]
    with pytest.raises(ValueError, match="needs a WordNet reader"):
        score_meteor(["a"], ["a"], None)


def test_prepared_copy_has_the_database_and_lexnames(tmp_path):
    source = tmp_path / "system"
    source.mkdir()
    from sciwrite.sciig.metrics.wordnet import DATABASE_FILES

    for name in DATABASE_FILES:
        (source / name).write_text(name)
    folder = prepare_wordnet(source=source, target=tmp_path / "nltk_data")
    assert folder == tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert (folder / "lexnames").read_text() == lexnames_text()
    assert all((folder / name).read_text() == name and not (folder / name).is_symlink() for name in DATABASE_FILES)


def test_empty_and_very_long_generations(introductions, wordnet):
    reference = introductions[0][0]
    long_generation = reference + " " + " ".join(["graph"] * 30_000)  # a runaway generation: scored whole
    rouge = score_rouge(["", long_generation], [reference, reference])
    assert rouge[0] == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    n_ref, n_gen = len(reference.split()), len(long_generation.split())
    assert 0.0 < rouge[1]["rougeL"] < 2 * n_ref / (n_ref + n_gen) * 1.1  # recall ~1: the reference is all inside
    _, bleu = score_bleu(["", long_generation], [reference, reference])
    assert bleu[0]["bleu"] == 0.0 and bleu[1]["bleu"] > 0.0
    meteor = score_meteor(["", long_generation], [reference, reference], wordnet)
    assert meteor[0]["meteor"] == 0.0 and 0.0 < meteor[1]["meteor"] < 1.0


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match=r"predictions \(1\), references \(2\) must have the same length"):
        score_rouge(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="record 1: field 'references' is empty"):
        score_bleu(["a", "b"], ["a", " "])
    with pytest.raises(ValueError, match="record 0: field 'predictions' must be a string, got NoneType"):
        score_rouge([None], ["a"])
