"""Text generation with language models: the OpenAI-compatible chat client (`llm`) that the LLM judge and
the generation baselines share."""
