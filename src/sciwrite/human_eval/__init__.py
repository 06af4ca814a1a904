"""The human-evaluation kit, shared by both benchmarks: run a paper's human study as easily as a metric.

A benchmark declares its study as data (`study.HumanStudy`: the design, pairwise A/B/tie or 1-5 ratings, and the
dimensions with their questions). `tasks` draws the blinded tasks from prediction files (and the key naming the
systems, kept apart); `store` keeps the annotators and every answer in SQLite; `app` is the annotation page;
`answers` reads and checks an exported answer file (and tells ``llm:<model>`` annotators from people); `pairwise` and
`ratings` compute the protocols, and `table5` writes the paper's Table 5 rows; `agreement` reports how far the
annotators agree (Krippendorff's alpha, Cohen's kappa) and how a model compares with them; `hub` pushes the answers
to the Hub.
"""
