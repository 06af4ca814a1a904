"""Shared fixtures: offline Hugging Face, no network at all, the packaged MiniLM loaded once, the aclsum sample built
once."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
# Gradio's telemetry and version check call api.gradio.app from every Blocks a test builds.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
# Private `datasets` and `evaluate` caches per session: tests neither read nor fill a developer's caches.
os.environ["HF_DATASETS_CACHE"] = _HF_CACHE = tempfile.mkdtemp(prefix="sciwrite-tests-hf-datasets-")
os.environ["HF_MODULES_CACHE"] = _HF_MODULES = tempfile.mkdtemp(prefix="sciwrite-tests-hf-modules-")
# sciwrite's own cache (e.g. the WordNet copy METEOR prepares): private too.
os.environ["SCIWRITE_CACHE_DIR"] = _SCIWRITE_CACHE = tempfile.mkdtemp(prefix="sciwrite-tests-cache-")
for _folder in (_HF_CACHE, _HF_MODULES, _SCIWRITE_CACHE):
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)

import pytest

from tests.netguard import sciwrite_netguard as netguard

# No test may reach the network: connections and look-ups of hosts other than this machine raise and fail the test
# (tests/netguard/sciwrite_netguard.py). Python processes the tests start inherit the guard through the
# sitecustomize in tests/netguard/ (first on their PYTHONPATH) and report their attempts to a log read here.
_NETWORK_LOG = Path(tempfile.mkdtemp(prefix="sciwrite-tests-network-")) / "attempts.log"
atexit.register(shutil.rmtree, _NETWORK_LOG.parent, ignore_errors=True)
netguard.install()
netguard.watch_log(_NETWORK_LOG)
os.environ[netguard.LOG_ENV] = str(_NETWORK_LOG)
os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent / "netguard"),
                                            *filter(None, [os.environ.get("PYTHONPATH")])])

# Variables that change which model, profile or Hub repo the code picks: tests set them explicitly.
_ENV_KNOBS = ("SCIWRITE_PROFILE", "SCIWRITE_MODEL_DENSE_ENCODER", "SCIWRITE_HUB_NAMESPACE")
# aclsum papers with short bibliographies for the small sample that dense encoding runs on: two target papers
# (5 citations each) and one without a related-work section; 26 corpus documents.
MINI_PAPERS = ("E06-1051", "P02-1051", "P06-1112")
# Three test papers and one holdout paper of the SciIG sample builder, with short introductions.
SCIIG_MINI_PAPERS = ("2020.aacl-main.67", "2020.acl-main.547", "2020.acl-main.443", "2020.acl-main.573")
# Two papers of the SurGE sample builder (each with three sections or more and five resolved citations or more).
SURGE_MINI_PAPERS = ("E06-1051", "P06-1112")


@pytest.fixture(autouse=True)
def _clean_sciwrite_env(monkeypatch, tmp_path):
    """No test inherits the developer's settings, and none can write to ~/.cache/sciwrite by accident."""
    for name in [*_ENV_KNOBS, *(k for k in os.environ if k.startswith("SCIWRITE_MODEL_"))]:
        monkeypatch.delenv(name, raising=False)
    for name in [k for k in os.environ if k.startswith(("SCIWRITE_LLM_", "OPENAI_"))]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCIWRITE_DATA_DIR", str(tmp_path / "sciwrite-data-dir"))


@pytest.fixture(autouse=True)
def _no_network():
    """Fail the test if it, or a process it started, tried to reach another machine, even if the code under
    test caught the error."""
    yield
    attempts = netguard.take_attempts()
    if attempts:
        pytest.fail("the test tried to reach the network (tests run offline; use a fake on 127.0.0.1):\n  "
                    + "\n  ".join(attempts), pytrace=False)


@pytest.fixture(scope="session")
def minilm():
    """The packaged all-MiniLM-L6-v2, loaded once through sciwrite's own loader."""
    from sciwrite.retrieval.dense import load_encoder

    return load_encoder("packaged:all-MiniLM-L6-v2", device="cpu")


@pytest.fixture
def patch_encoder(monkeypatch, minilm):
    """Make every DenseRetriever reuse the session MiniLM; records the encoder ids that were asked for."""
    from sciwrite.retrieval import dense

    asked: list[str] = []

    def fake_load_encoder(name_or_path, device=None):
        asked.append(name_or_path)
        assert name_or_path == "packaged:all-MiniLM-L6-v2", name_or_path
        return minilm

    monkeypatch.setattr(dense, "load_encoder", fake_load_encoder)
    return asked


@pytest.fixture(scope="session")
def sample_folder(tmp_path_factory):
    """The RWGBench sample built from all 250 aclsum papers (read-only for tests: copy before writing)."""
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder

    folder = tmp_path_factory.mktemp("aclsum_sample")
    write_sample_folder(folder, show_progress=False)
    return folder


@pytest.fixture(scope="session")
def mini_sample_folder(tmp_path_factory):
    """A sample built from 3 aclsum papers: small enough to embed in seconds (read-only: copy first)."""
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder
    from sciwrite.sources.aclsum import aclsum_paper_dir

    papers = tmp_path_factory.mktemp("mini_papers")
    for stem in MINI_PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers / f"{stem}.json")
    folder = tmp_path_factory.mktemp("mini_sample")
    write_sample_folder(folder, paper_dir=papers, show_progress=False)
    return folder


@pytest.fixture
def mini_sample_copy(mini_sample_folder, tmp_path):
    """A private, writable copy of the mini sample (tests that write indexes next to the data use it)."""
    return shutil.copytree(mini_sample_folder, tmp_path / "mini_sample")


@pytest.fixture(scope="session")
def surge_sample_folder(tmp_path_factory):
    """The SurGE sample built from all 250 aclsum papers, once per test worker (read-only: copy first)."""
    from sciwrite.surge.data.sample_folder import write_sample_folder

    folder = tmp_path_factory.mktemp("surge_sample") / "surge"
    write_sample_folder(folder, show_progress=False)
    return folder


@pytest.fixture(scope="session")
def surge_mini_folder(tmp_path_factory):
    """A SurGE sample built from 2 aclsum papers (read-only: copy first)."""
    from sciwrite.sources.aclsum import aclsum_paper_dir
    from sciwrite.surge.data.sample_folder import write_sample_folder

    papers = tmp_path_factory.mktemp("surge_papers")
    for stem in SURGE_MINI_PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    folder = tmp_path_factory.mktemp("surge_mini") / "surge"
    write_sample_folder(folder, paper_dir=papers, show_progress=False)
    return folder


@pytest.fixture(scope="session")
def sciig_mini_folder(tmp_path_factory):
    """A SciIG sample built from 4 aclsum papers (3 test, 1 holdout; read-only: copy first)."""
    from sciwrite.sciig.data.builder import write_sciig_sample
    from sciwrite.sources.aclsum import aclsum_paper_dir

    papers = tmp_path_factory.mktemp("sciig_papers")
    for stem in SCIIG_MINI_PAPERS:
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", papers)
    folder = tmp_path_factory.mktemp("sciig_mini") / "sciig"
    write_sciig_sample(folder, paper_dir=papers)
    return folder
