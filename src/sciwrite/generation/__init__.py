"""Generating predictions for a benchmark: one entry point (`sciwrite.generation.generate`: build the request, plan
the benchmark's jobs, run each with the writer model) that ``sciwrite generate``, the quick start and the Inspect
tasks share; the resumable runner (`runner`), the writer and run options (`writer`) and the extractive floor."""
