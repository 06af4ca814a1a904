"""Scaling out on Ray Data (the optional ``sciwrite[scale]`` extra): encoding and indexing a corpus
(`sciwrite.scale.ray_index`) and scoring any benchmark's papers (`sciwrite.scale.ray_evaluate`) over a pool of
actors, on the same code path and with the same results as one process.

Every module here imports ``ray`` at its top and is reached through `sciwrite.core.engine.ray_engine`, which says
how to install the extra. No module here imports a benchmark: the scoring core hands the actors the benchmark's
own functions, and the corpus's parquet files are named by the benchmark (`sciwrite.benchmark.Corpus.files`).
"""
