"""What the builders and the grounding read: GROBID JSON, aclsum, headings, titles, citation markers, APA
citations, a benchmark's corpus (its features, readers, assembly and title index); the Semantic Scholar and OpenAlex
clients (one cached, rate-limited, retried JSON client)."""
