"""A third benchmark that lives only in the tests: what adding a benchmark takes (this folder, and one line that
registers it: ``BENCHMARKS[TOY.name] = TOY``). Its metric is the length of a prediction over its reference's; its
"judge" is a rule, not a model, so every part runs offline in a second."""

from tests.toy_benchmark.benchmark import TOY

__all__ = ["TOY"]
