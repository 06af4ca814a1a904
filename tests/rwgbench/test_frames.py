"""Citation frame alignment: citation contexts, frame counts, both classifier backends (the packaged MiniLM head
and a tiny random transformers model the test builds), the evaluate module, and the training script on a
tiny MultiCite-shaped data set the test writes."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import sciwrite
from sciwrite.models.citation_frames import (
    FRAMES,
    HeadFrameClassifier,
    TransformerFrameClassifier,
    citation_frame_classifier_for_profile,
    frame_columns,
    frame_of_label,
    load_citation_frame_classifier,
)
from sciwrite.models.registry import (
    PACKAGED_CITATION_FRAME_MINILM,
    PACKAGED_MINILM,
    ModelUnavailableError,
    model_location,
    packaged_model_path,
    resolve_model,
)
from sciwrite.rwgbench.metrics.frames import citation_contexts, frame_counts, score_citation_frame_alignment
from sciwrite.rwgbench.metrics.model_roles import CITATION_FRAME

REPO = Path(__file__).resolve().parents[2]
PACKAGED = Path(packaged_model_path(PACKAGED_CITATION_FRAME_MINILM))


def load_script():
    """The training script as a module (registered first: its dataclasses look their module up)."""
    name = "train_citation_frame_classifier"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


class KeywordFrames:
    """A stand-in classifier: a frame is on when the context contains its first word ("future" for future_work)."""

    model_id = "keyword-frames"

    def __init__(self):
        self.calls: list[list[str]] = []

    def predict(self, contexts, batch_size=64):
        self.calls.append(list(contexts))
        return np.array([[f.split("_")[0] in c.lower() for f in FRAMES] for c in contexts], dtype=bool).reshape(-1, 7)


# ---------------------------------------------------------------- contexts and counts


def test_citation_contexts_one_per_citing_sentence_markers_removed():
    text = "Parsers [1, 2] and taggers [3] came first. Nothing cited here. We follow [2].\n\nOut of range [7]."
    assert citation_contexts(text, ["a", "b", "c"]) == ["Parsers and taggers came first.", "We follow."]
    # without candidates (a reference section) every well-formed marker counts, in range or not
    assert citation_contexts(text) == ["Parsers and taggers came first.", "We follow.", "Out of range."]


def test_citation_contexts_resolution_rules():
    candidates = ["a", "b"]
    assert citation_contexts("Only unresolved [5]. Mixed [5] and [1].", candidates) == ["Mixed and."]
    assert citation_contexts("A range [1-3] counts. Out of range [3-4] does not.", candidates) == ["A range counts."]
    assert citation_contexts("Malformed [3,] and [2-] are no markers.") == []
    assert citation_contexts("", candidates) == [] and citation_contexts("No marker at all.") == []


def test_frame_counts():
    rows = [[True, True, False, False, False, False, False], [False, True, False, False, False, False, True]]
    assert frame_counts(rows) == {"motivation": 1, "background": 2, "uses": 0, "extends": 0, "similarities": 0,
                                  "differences": 0, "future_work": 1}
    assert frame_counts([]) == dict.fromkeys(FRAMES, 0)
    assert frame_counts(np.zeros((0, 7), dtype=bool)) == dict.fromkeys(FRAMES, 0)


def test_frame_labels_map_tolerantly():
    names = {"Background": "background", "@BACK@": "background", "future work": "future_work", "@FUT@": "future_work",
             "extension": "extends", "Extention": "extends", "SIMILAR": "similarities", "@DIF@": "differences",
             "uses": "uses", "@MOT@": "motivation", "LABEL_0": None, "method": None}
    assert {name: frame_of_label(name) for name in names} == names
    permuted = {0: "@FUT@", 1: "@UNSURE@", 2: "Background", 3: "Motivation", 4: "Uses", 5: "Extends",
                6: "Similarities", 7: "Differences"}
    assert frame_columns(permuted) == (3, 2, 4, 5, 6, 7, 0)  # the unsure column is ignored
    with pytest.raises(ModelUnavailableError, match=r"unmapped: \['LABEL_7'\], frames without a label: \[\]"):
        frame_columns({**{i: f for i, f in enumerate(FRAMES)}, 7: "LABEL_7"})
    with pytest.raises(ModelUnavailableError, match=r"frames without a label: \['future_work'\]"):
        frame_columns(dict(enumerate(FRAMES[:6])))


# ---------------------------------------------------------------- scoring (stand-in classifier)


def test_scores_by_hand_in_one_batched_call():
    clf = KeywordFrames()
    rows = score_citation_frame_alignment(
        predictions=["It uses [1]. It extends [2]. Plain sentence.", "No citation [9].", "It uses [1]."],
        references=["It uses [1]. Again uses [2]. It differences [3].", "It uses [1].", "It uses [4]."],
        candidates=[["a", "b"], ["a"], ["a"]], classifier=clf)
    assert len(clf.calls) == 1  # every context of the batch, both sides, in one call, each distinct one once
    assert sorted(clf.calls[0]) == sorted({"It uses.", "It extends.", "Again uses.", "It differences."})
    first = rows[0]
    assert first["generated_frames"]["uses"] == 1 and first["generated_frames"]["extends"] == 1
    assert first["reference_frames"] == {**dict.fromkeys(FRAMES, 0), "uses": 2, "differences": 1}
    # active frames uses (1 vs 2), extends (1 vs 0), differences (0 vs 1): (2/3 + 0 + 0) / 3
    assert first["citation_frame_alignment"] == pytest.approx(2 / 9)
    assert (first["n_generated_contexts"], first["n_reference_contexts"]) == (2, 3)
    assert rows[1]["citation_frame_alignment"] == 0.0 and rows[1]["empty_citation_output"]
    assert rows[1]["unresolved_markers"] == 1
    assert rows[2]["citation_frame_alignment"] == 1.0  # [4] counts on the reference side without its citations


def test_reference_citations_resolve_the_reference_side():
    rows = score_citation_frame_alignment(["It uses [1]."], ["It uses [1]. It extends [3]."], [["a"]], KeywordFrames(),
                                          reference_citations=[["a", "b"]])
    assert rows[0]["n_reference_contexts"] == 1 and rows[0]["citation_frame_alignment"] == 1.0


def test_bad_input_names_the_problem():
    clf = KeywordFrames()
    with pytest.raises(ValueError, match="`candidates` is required"):
        score_citation_frame_alignment(["A [1]."], ["B [1]."], None, clf)
    with pytest.raises(ValueError, match="record 1: field 'references' must be a string"):
        score_citation_frame_alignment(["A [1].", "B"], ["B [1].", None], [["a"], ["a"]], clf)
    with pytest.raises(ValueError, match=r"references \(1\) and reference_citations \(2\)"):
        score_citation_frame_alignment(["A [1]."], ["B [1]."], [["a"]], clf, reference_citations=[["a"], ["b"]])


# ---------------------------------------------------------------- the packaged lite model


def test_lite_profile_resolves_to_the_packaged_head():
    assert resolve_model(CITATION_FRAME, profile="lite") == PACKAGED_CITATION_FRAME_MINILM
    assert resolve_model(CITATION_FRAME, profile="paper") == "BFTree/rwgbench-citation-frame-classifier"
    assert model_location(PACKAGED_CITATION_FRAME_MINILM) == str(PACKAGED)
    assert {"head.safetensors", "config.json", "README.md"} <= {p.name for p in PACKAGED.iterdir()}
    with pytest.raises(ModelUnavailableError, match=r"packaged models: \['packaged:all-MiniLM-L6-v2', "
                                                    r"'packaged:rwgbench-citation-frame-minilm'\]"):
        packaged_model_path("packaged:nope")
    clf, why = citation_frame_classifier_for_profile(CITATION_FRAME, profile="lite")
    assert why is None and isinstance(clf, HeadFrameClassifier)
    assert clf.model_id == PACKAGED_CITATION_FRAME_MINILM and clf.encoder_id == PACKAGED_MINILM
    assert load_citation_frame_classifier(PACKAGED_CITATION_FRAME_MINILM) is clf  # loaded once


def test_packaged_head_predicts_clear_frames():
    clf = load_citation_frame_classifier(PACKAGED_CITATION_FRAME_MINILM)
    sentences = {
        "uses": "We use the parser of to tag the training corpus.",
        "differences": "Unlike their approach, our model does not require any labelled data.",
        "background": "Neural networks have been widely applied to machine translation.",
    }
    labels = clf.predict(list(sentences.values()), batch_size=2)
    assert labels.shape == (3, 7) and labels.dtype == bool
    for row, frame in zip(labels, sentences):
        assert row[FRAMES.index(frame)], (frame, dict(zip(FRAMES, row)))
    assert not labels[0, FRAMES.index("differences")] and not labels[1, FRAMES.index("uses")]
    assert not labels[2, FRAMES.index("uses")]
    assert clf.predict([]).shape == (0, 7)


def test_a_reference_section_aligns_with_itself(mini_sample_folder):
    from sciwrite.rwgbench import load_rwgbench

    papers = load_rwgbench("sample", source=mini_sample_folder)
    clf = load_citation_frame_classifier(PACKAGED_CITATION_FRAME_MINILM)
    rows = score_citation_frame_alignment(papers["related_work"], papers["related_work"], papers["citations"], clf,
                                          reference_citations=papers["citations"])
    assert [r["citation_frame_alignment"] for r in rows] == [1.0] * len(rows)
    assert all(r["n_generated_contexts"] > 0 and r["generated_frames"] == r["reference_frames"] for r in rows)


def test_card_states_the_f1_of_config():
    config = json.loads((PACKAGED / "config.json").read_text())
    test = config["metrics"]["test"]
    card = (PACKAGED / "README.md").read_text()
    row = re.search(r"^\| test \| ([0-9.]+) \| ([0-9.]+) \|", card, re.M)
    assert (float(row.group(1)), float(row.group(2))) == (round(test["micro_f1"], 3), round(test["macro_f1"], 3))
    for frame in FRAMES:
        assert f"| {frame} | " in card and f"{test['per_frame'][frame]['f1']:.3f}" in card
    assert "CC BY-NC 2.0" in card and config["data"]["licence"] == "CC BY-NC 2.0"
    assert config["frames"] == list(FRAMES) and config["encoder"] == PACKAGED_MINILM
    metric_card = (REPO / "metrics" / "citation_frame_alignment" / "README.md").read_text()
    assert f"micro-F1 {test['micro_f1']:.3f}, macro-F1 {test['macro_f1']:.3f}" in metric_card
    for frame in FRAMES:
        assert f"{frame} {test['per_frame'][frame]['f1']:.3f}" in " ".join(metric_card.split())


# ---------------------------------------------------------------- the evaluate module


def test_module_scores_and_sums_frames():
    metric = sciwrite.load_metric("citation_frame_alignment")
    published = "We use the parser of [1] to tag the corpus. Unlike [2], our model needs no labels."
    results = metric.compute(predictions=[published, "Nothing cited [3]."], references=[published] * 2,
                             candidates=[["a", "b"], ["a"]], profile="lite")
    assert results["citation_frame_alignment"] == 0.5 and results["empty_citation_rate"] == 0.5
    assert results["unresolved_markers"] == 1 and results["model"] == PACKAGED_CITATION_FRAME_MINILM
    assert set(results["generated_frames"]) == set(FRAMES)
    assert results["reference_frames"] == {f: 2 * n for f, n in results["generated_frames"].items()}


def test_module_without_a_model_reports_not_computed(monkeypatch):
    monkeypatch.delitem(CITATION_FRAME.defaults, "lite")  # a role the lite profile has no model for
    results = sciwrite.load_metric("citation_frame_alignment").compute(
        predictions=["A [1]."], references=["B [1]."], candidates=[["a"]], profile="lite")
    assert results["citation_frame_alignment"] is None and "BFTree/rwgbench-citation-frame-classifier" in results["not_computed"]


# ---------------------------------------------------------------- transformers backend (tiny random model)


def tiny_bert(folder: Path, id2label: dict[int, str], problem_type: str = "multi_label_classification") -> str:
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=len(id2label),
                        id2label=id2label, label2id={v: k for k, v in id2label.items()}, problem_type=problem_type)
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_transformers_backend_maps_labels_and_batches(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    labels = {0: "Future Work", 1: "@BACK@", 2: "Motivation", 3: "Uses", 4: "Extension", 5: "Similar", 6: "Difference"}
    folder = tiny_bert(tmp_path / "tiny-frames", labels)
    clf = load_citation_frame_classifier(folder)
    assert isinstance(clf, TransformerFrameClassifier) and clf.columns == (2, 1, 3, 4, 5, 6, 0)
    contexts = ["We use the parser.", "Unlike prior work, we need no labels at all in this setting.", "Background."]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.inference_mode():
        direct = torch.sigmoid(torch.cat([model(**tokenizer(c, return_tensors="pt")).logits for c in contexts]))
    expected = direct[:, list(clf.columns)].numpy()
    np.testing.assert_allclose(clf.probabilities(contexts, batch_size=2), expected, atol=1e-5)
    assert np.array_equal(clf.predict(contexts, batch_size=2), expected > 0.5)
    rows = score_citation_frame_alignment(["It [1]."], ["It [1]."], [["a"]], clf)
    assert rows[0]["citation_frame_alignment"] == 1.0


def test_transformers_backend_rejects_labels_that_are_no_frames(tmp_path):
    folder = tiny_bert(tmp_path / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"})
    with pytest.raises(ModelUnavailableError, match="do not map one-to-one onto the MultiCite frames"):
        load_citation_frame_classifier(folder)
    single = tiny_bert(tmp_path / "single", dict(enumerate(FRAMES)), problem_type="single_label_classification")
    with pytest.raises(ModelUnavailableError, match="is single-label"):
        load_citation_frame_classifier(single)
    with pytest.raises(ModelUnavailableError, match="cannot load the citation-frame classifier"):
        load_citation_frame_classifier(str(tmp_path / "missing"))


# ---------------------------------------------------------------- the training script


TEMPLATES = {
    "motivation": "This gap in <cite>Smith (2010)</cite> motivates our study of topic {}.",
    "background": "Topic {} has been studied extensively by <cite>Lee et al. (2012)</cite>.",
    "uses": "We use the toolkit of <cite>Chen (2015)</cite> to preprocess topic {}.",
    "extends": "We extend the model of <cite>Park (2018)</cite> with a module for topic {}.",
    "similarities": "Similar to <cite>Kim (2019)</cite>, we also observe gains on topic {}.",
    "differences": "Unlike <cite>Wang (2020)</cite>, our method needs no labels for topic {}.",
    "future_work": "Future work could apply <cite>Zhao (2021)</cite> to topic {}.",
}


def write_tiny_multicite(root: Path) -> Path:
    folder = root / "classification_1_context"
    folder.mkdir(parents=True)
    topics = ["parsing", "tagging", "translation", "summarization", "retrieval", "dialogue"]
    for split, chosen in (("train", topics[:4]), ("dev", topics[4:5]), ("test", topics[5:])):
        records = [{"id": f"{split}_{frame}_{i}", "x": [TEMPLATES[frame].format(topic)], "y": frame}
                   for frame in FRAMES for i, topic in enumerate(chosen)]
        records.append({"id": f"{split}_multi", "x": [TEMPLATES["uses"].format("x"), "Unlike it, we differ."],
                        "y": "uses differences"})
        records.append({"id": f"{split}_empty", "x": [], "y": "background"})
        (folder / f"{split}.json").write_text(json.dumps(records))
    return root


def test_context_text_removes_the_cite_tags():
    script = load_script()
    x = ["In the study of<cite> McDonald et al. (2011)</cite> , parsers were compared.", "Second  sentence."]
    assert script.context_text(x) == "In the study of McDonald et al. (2011) , parsers were compared. Second sentence."
    assert script.context_text(x, "remove") == "In the study of , parsers were compared. Second sentence."
    assert script.context_text("a <cite>b</cite> c") == "a b c" and script.context_text([]) == ""


def test_training_script_head(tmp_path):
    script = load_script()
    data = write_tiny_multicite(tmp_path / "multicite")
    out = tmp_path / "head"
    info = script.main(["--data-dir", str(data), "--kind", "head", "--out", str(out), "--c-grid", "1,10"])
    config = json.loads((out / "config.json").read_text())
    assert config["metrics"]["test"] == info["metrics"]["test"] and config["frames"] == list(FRAMES)
    assert config["data"]["sizes"] == {"train": 29, "dev": 8, "test": 8}
    assert config["data"]["dropped"] == {"train": 1, "dev": 1, "test": 1}
    assert config["data"]["train_label_counts"]["uses"] == 5
    assert set(config["training"]["per_frame"]) == set(FRAMES)
    assert info["metrics"]["test"]["micro_f1"] > 0.5  # templates with one cue word per frame are easy
    card = (out / "README.md").read_text()
    assert "CC BY-NC 2.0" in card and f"| test | {info['metrics']['test']['micro_f1']:.3f} |" in card
    clf = load_citation_frame_classifier(str(out))
    assert isinstance(clf, HeadFrameClassifier) and clf.predict(["We use the toolkit."]).shape == (1, 7)


def test_training_script_finetune_smoke(tmp_path):
    script = load_script()
    data = write_tiny_multicite(tmp_path / "multicite")
    base = tiny_bert(tmp_path / "tiny-base", {0: "LABEL_0", 1: "LABEL_1"}, problem_type="single_label_classification")
    out = tmp_path / "finetuned"
    info = script.main(["--data-dir", str(data), "--kind", "finetune", "--base", base, "--out", str(out),
                        "--max-train", "8", "--max-eval", "6", "--epochs", "1", "--batch-size", "4",
                        "--max-length", "32"])
    assert info["data"]["sizes"] == {"train": 8, "dev": 6, "test": 6}
    assert json.loads((out / "training.json").read_text())["metrics"] == info["metrics"]
    assert "Smoke run on a subset" in (out / "README.md").read_text()
    clf = load_citation_frame_classifier(str(out))
    assert isinstance(clf, TransformerFrameClassifier) and clf.columns == tuple(range(7))
    assert clf.model.config.problem_type == "multi_label_classification"
    assert clf.predict(["We use it.", "Unlike it."]).shape == (2, 7)
