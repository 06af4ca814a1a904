"""SciIG's data: schema, configs, loading, the builder, APA links, LLM mapping, Semantic Scholar and the
upstream import."""
