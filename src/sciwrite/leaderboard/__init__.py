"""The leaderboard: the results store (`store`) and its Hub mirror (`mirror`), submission checks (`submission`), the
evaluation worker (`worker`, `evaluator`), the tables, plots, comparison and drill-down the page shows, and the
Gradio app (`app`), which `spaces/leaderboard/` serves as a Space."""
