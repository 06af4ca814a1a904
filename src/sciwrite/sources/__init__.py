"""What both builders and the grounding read: GROBID JSON, aclsum, headings, titles, citation markers, APA
citations; the Semantic Scholar and OpenAlex clients (one cached, rate-limited, retried JSON client)."""
