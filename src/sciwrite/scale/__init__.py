"""Scaling out on Ray Data (the optional ``sciwrite[scale]`` extra): encoding and indexing a corpus
(`sciwrite.scale.ray_index`) and scoring prediction files (`sciwrite.scale.ray_evaluate`) over a pool of actors,
on the same code path and with the same results as one process.

Every module here imports ``ray`` at its top and is reached through `sciwrite.core.engine.ray_engine`, which says
how to install the extra. The engine choice (`sciwrite.core.engine`) and the corpus's parquet files
(`sciwrite.rwgbench.data.corpus_files`) live outside this package, so that the benchmarks, which this package
runs, never import it.
"""
