"""Scaling out on Ray Data (the optional ``sciwrite[scale]`` extra): encoding and indexing a corpus
(`sciwrite.scale.ray_index`) and scoring prediction files (`sciwrite.scale.ray_evaluate`) over a pool of actors,
on the same code path and with the same results as one process.

Only `sciwrite.scale.engine` and `sciwrite.scale.corpus` import without Ray; the other modules import ``ray`` at
their top and are reached through `sciwrite.scale.engine.ray_engine`, which says how to install the extra.
"""
