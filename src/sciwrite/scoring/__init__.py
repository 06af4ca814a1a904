"""The one scoring core (`sciwrite.scoring.core.score_systems`), its typed request and results, a benchmark's
steps of it (`sciwrite.scoring.steps`), its stage tables (`sciwrite.scoring.stages`) and its file layer
(`sciwrite.scoring.files`, with the run's tables across systems, `sciwrite.scoring.run_tables`), and the one
paired comparison of scored systems (`sciwrite.scoring.compare`, reading `sciwrite.scoring.per_paper_files`)."""
