"""RWGBench's metrics: formulas, scorers, citation frame alignment, the judge rubric, the suite and its
report."""
