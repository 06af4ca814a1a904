"""The sciwrite leaderboard Space: a thin shell over `sciwrite.leaderboard` (settings from the Space's variables)."""

import os

from sciwrite.leaderboard.app import launch
from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.mirror import mirror_from_env
from sciwrite.leaderboard.service import BoardSettings, board_splits_from_env, open_board, space_has_login

# each benchmark's public split (`Benchmark.data.board_split`), or SCIWRITE_LEADERBOARD_<BENCHMARK>_SPLIT
splits = board_splits_from_env()
# hf_oauth: submit as a signed-in Hub user; a human study's folder and answer store add its annotation tab
settings = BoardSettings(splits=splits, hub_login=space_has_login(),
                         human_eval_tasks=os.environ.get("SCIWRITE_HUMAN_EVAL_TASKS") or None,
                         human_eval_store=os.environ.get("SCIWRITE_HUMAN_EVAL_STORE") or None)
board = open_board(os.environ.get("SCIWRITE_LEADERBOARD_STORE"), settings, mirror_from_env())
launch(board, host="0.0.0.0", port=int(os.environ.get("PORT", "7860")),
       evaluator=SuiteEvaluator(profile=os.environ.get("SCIWRITE_PROFILE") or None))
