"""sciwrite: benchmarking AI-assisted scientific writing (RWGBench, SciIG) the Hugging Face way."""

__version__ = "0.1.0"
