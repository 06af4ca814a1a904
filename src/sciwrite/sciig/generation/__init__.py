"""SciIG's generation: the paper's prompt levels and how `sciwrite generate sciig` plans its runs."""
