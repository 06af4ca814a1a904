"""SciIG: introduction generation from a paper's title, abstract and cited works.

Its data (`data/`: schema, configs, loading, the builder), its metrics (`metrics/`: lexical, semantic, keyphrase,
entailment, QA, citation, perplexity and judge scorers, suite, report) and its prompt levels (`generation/`).
"""

from sciwrite.sciig.data.configs import SCIIG_CONFIGS, SCIIG_SPLITS, default_sciig_dir, sciig_repo_id
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.data.schema import SCIIG_FEATURES, validate_sciig

__all__ = [
    "SCIIG_CONFIGS",
    "SCIIG_FEATURES",
    "SCIIG_SPLITS",
    "default_sciig_dir",
    "load_sciig",
    "sciig_repo_id",
    "validate_sciig",
]
