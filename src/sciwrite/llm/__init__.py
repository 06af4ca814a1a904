"""Language models: the OpenAI-compatible client and the ``hf:`` local backend behind one model-id syntax,
model-family capabilities, thinking traces, and the usage ledger with its price table."""
