"""Shared by every benchmark: paths and environment, dataset folders, schema checks, prediction files, tables and
plots, Hub pushes, the evaluate-module finder."""
