"""Every model sciwrite loads and its loader: the registry and profiles, sentence encoders, NLI, the
citation-frame classifiers, BLEURT, the QG and QA models, the causal LM for perplexity; memos."""
