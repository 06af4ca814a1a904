"""RWGBench's data: schema, configs, loading, the sample, the arXiv/LaTeXML builder, the corpus, selection and
the upstream import."""
